#!/usr/bin/env node
import { readFile } from 'node:fs/promises'
import type { Stats } from 'node:fs'
import {
  alpha,
  beta,
} from './letters'

export const x = alpha + beta;
