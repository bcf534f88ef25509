#!/usr/bin/env node
import { readFile } from 'node:fs/promises'
import type { Stats, Dirent } from 'node:fs'
import * as path from 'node:path'
import {
  alpha,
  beta,
} from './letters'

export const x = alpha + beta;
