// The apiVersion 1 envelope every editing tool answers with (hashpilot contract): `ok`, the
// command (the CLI's subcommand path, or the tool name over MCP), the payload or the error, and
// warnings. One builder for the hashpilot CLI, `mast query` and the MCP server; over MCP (and in
// `mast query`) every tool's failure is the envelope's error object alone (`failureOf`).
import { errorMessage, isMastError, type ErrorCode } from "../base/errors.js";
import type { Warning } from "../edit/op-result.js";

export const API_VERSION = "1";

export interface EnvelopeError {
  code: ErrorCode | "INTERNAL";
  message: string;
  recovery?: string;
  details?: Record<string, unknown>;
}

export interface Envelope {
  apiVersion: typeof API_VERSION;
  ok: boolean;
  command: string;
  data: unknown;
  error: EnvelopeError | null;
  warnings: readonly Warning[];
}

export function okEnvelope(command: string, data: unknown, warnings: readonly Warning[]): Envelope {
  return { apiVersion: API_VERSION, ok: true, command, data, error: null, warnings };
}

export function errorEnvelope(command: string, err: unknown): Envelope {
  const { error, warnings } = failureOf(err);
  return { apiVersion: API_VERSION, ok: false, command, data: null, error, warnings: warnings ?? [] };
}

/**
 * What every tool answers over MCP when it fails (with `isError: true`), and what `mast query`
 * prints then: the envelope's error object — code, message, recovery, details — and the warnings
 * a failure still has. The rest of the envelope says nothing an MCP client lacks (`ok` is
 * `isError`, `command` the tool it called); the `hashpilot` CLI answers with the whole envelope.
 */
export interface ToolFailure {
  error: EnvelopeError;
  warnings?: readonly Warning[];
}

export function failureOf(err: unknown): ToolFailure {
  // A failure that still has notices (verify-changes' VERIFY_NO_CHECKS) carries them in its details: they go to `warnings`.
  const { warnings: notices, ...details } = (isMastError(err) ? err.details : undefined) ?? {};
  const error: EnvelopeError = isMastError(err)
    ? { code: err.code, message: err.message, recovery: err.hint, ...(err.details ? { details } : {}) }
    : { code: "INTERNAL", message: errorMessage(err), recovery: "This is a bug in mast; please report it." };
  return Array.isArray(notices) && notices.length > 0 ? { error, warnings: notices as Warning[] } : { error };
}
