#!/usr/bin/env node
import { readFile } from 'node:fs/promises'
import type { Stats } from 'node:fs'
import * as path from 'node:path'
import {
  alpha,
} from './letters'

export const x = alpha + beta;
