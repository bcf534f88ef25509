// hashpilot's configuration (docs/editing.md#configuration): defaults, then the global file, the
// project's .hashpilot.json, a --config file and the HASHPILOT_ROUTE_POLICY environment variable,
// each overriding the one before. A file that is not valid JSON (or not an object) is
// CONFIG_INVALID naming it — never quoting its bytes; a missing file is skipped. `readRoots`
// (extra directories the read tools may reach) is honoured only from the global file and a
// --config given on the command line: a file inside the project cannot widen its own boundary.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { MastError } from "../base/errors.js";
import { parseJsonText, readJsonObjectFile } from "../base/json.js";

/** A verification check's time budget unless the call gives one (verify_changes, intent). */
export const DEFAULT_VERIFY_TIMEOUT_MS = 30_000;

export type Route = "ast" | "hash" | "diff";

export interface RoutePolicy {
  languageOverrides?: Record<string, Route>;
  operationOverrides?: Record<string, Route>;
  conflictResolution?: "language" | "operation" | "strictest";
}

export interface HashpilotConfig {
  routePolicy: RoutePolicy;
  /** recordContent: events also carry each write's unified diff (file content); off by default. */
  telemetry: { enabled: boolean; recordContent: boolean };
  /** Absolute directories outside the project the read tools may also read (never write). */
  readRoots: string[];
}

export interface ConfigSources {
  /** --config <path>, relative to the working directory. */
  readonly configPath?: string | undefined;
  /** Whether configPath was given by the user on a command line (it may then set readRoots); default true. */
  readonly configTrusted?: boolean;
  readonly cwd: string;
  /** Skip the files (defaults and environment only): `route --no-default-config`. */
  readonly noFiles?: boolean;
}

/** The global config file: ~/.config/hashpilot/config.json. */
export function globalConfigPath(): string {
  return join(homedir(), ".config", "hashpilot", "config.json");
}

const ROUTES = new Set(["ast", "hash", "diff"]);

function readJsonObject(path: string, what: string): Record<string, unknown> {
  const value = readJsonObjectFile(path, what);
  if (value === null) throw new MastError("FILE_NOT_FOUND", `${what} ${path} does not exist`);
  return value;
}

function checkPolicy(policy: unknown, where: string): RoutePolicy {
  if (policy === undefined) return {};
  if (policy === null || typeof policy !== "object" || Array.isArray(policy)) throw new MastError("CONFIG_INVALID", `${where}: routePolicy must be an object`);
  const p = policy as Record<string, unknown>;
  for (const key of ["languageOverrides", "operationOverrides"] as const) {
    const map = p[key];
    if (map === undefined) continue;
    if (map === null || typeof map !== "object" || Array.isArray(map)) throw new MastError("CONFIG_INVALID", `${where}: routePolicy.${key} must be an object`);
    for (const [k, v] of Object.entries(map)) {
      if (typeof v !== "string" || !ROUTES.has(v)) throw new MastError("CONFIG_INVALID", `${where}: routePolicy.${key}.${k} must be "ast", "hash" or "diff", not ${JSON.stringify(v)}`);
    }
  }
  if (p.conflictResolution !== undefined && !["language", "operation", "strictest"].includes(p.conflictResolution as string)) {
    throw new MastError("CONFIG_INVALID", `${where}: routePolicy.conflictResolution must be "language", "operation" or "strictest"`);
  }
  return p as RoutePolicy;
}

function merge(into: HashpilotConfig, layer: Record<string, unknown>, where: string, trusted: boolean): void {
  const policy = checkPolicy(layer.routePolicy, where);
  into.routePolicy = {
    ...into.routePolicy,
    ...policy,
    languageOverrides: { ...into.routePolicy.languageOverrides, ...policy.languageOverrides },
    operationOverrides: { ...into.routePolicy.operationOverrides, ...policy.operationOverrides },
  };
  const telemetry = layer.telemetry as { enabled?: unknown; recordContent?: unknown } | undefined;
  if (telemetry !== undefined) {
    if (telemetry === null || typeof telemetry !== "object") throw new MastError("CONFIG_INVALID", `${where}: telemetry must be an object`);
    for (const key of ["enabled", "recordContent"] as const) {
      const v = telemetry[key];
      if (v === undefined) continue;
      if (typeof v !== "boolean") throw new MastError("CONFIG_INVALID", `${where}: telemetry.${key} must be true or false`);
      into.telemetry = { ...into.telemetry, [key]: v };
    }
  }
  if (layer.readRoots !== undefined) {
    if (!trusted) {
      throw new MastError("CONFIG_INVALID", `${where}: readRoots may be set only in the global config (${globalConfigPath()}) or a --config given on the command line`, {
        hint: "A file the tools can edit cannot widen what they read: move readRoots to the global config.",
      });
    }
    const roots = layer.readRoots;
    if (!Array.isArray(roots) || roots.some((r) => typeof r !== "string" || !isAbsolute(r) || r.includes("\0"))) {
      throw new MastError("CONFIG_INVALID", `${where}: readRoots must be an array of absolute directory paths`);
    }
    into.readRoots = [...roots] as string[];
  }
}

/** A route policy given as JSON text (`route --policy`); CONFIG_INVALID when it is not one. */
export function parsePolicy(json: string): RoutePolicy {
  return checkPolicy(parseJsonText(json, "the route policy"), "the route policy");
}

/** The merged configuration. */
export function loadHashpilotConfig(sources: ConfigSources): HashpilotConfig {
  const config: HashpilotConfig = { routePolicy: { languageOverrides: {}, operationOverrides: {} }, telemetry: { enabled: true, recordContent: false }, readRoots: [] };
  if (!sources.noFiles) {
    const global = globalConfigPath();
    if (existsSync(global)) merge(config, readJsonObject(global, "the global config"), global, true);
    const project = join(sources.cwd, ".hashpilot.json");
    if (existsSync(project)) merge(config, readJsonObject(project, "the project config"), project, false);
    if (sources.configPath !== undefined) {
      const path = resolve(sources.cwd, sources.configPath);
      if (!existsSync(path)) throw new MastError("FILE_NOT_FOUND", `--config ${path} does not exist`);
      merge(config, readJsonObject(path, "--config"), path, sources.configTrusted !== false);
    }
  }
  const env = process.env.HASHPILOT_ROUTE_POLICY;
  if (env !== undefined && env.trim() !== "") {
    merge(config, { routePolicy: parsePolicy(env) }, "HASHPILOT_ROUTE_POLICY", false);
  }
  return config;
}
