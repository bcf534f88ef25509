// hashpilot's configuration (contract "Configuration"): defaults, then the global file, the
// project's .hashpilot.json, a --config file and the HASHPILOT_ROUTE_POLICY environment variable,
// each overriding the one before. A file that is not valid JSON (or not an object) is
// CONFIG_INVALID naming it; a missing file is skipped.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { MastError, errorMessage } from "../base/errors.js";

export type Route = "ast" | "hash" | "diff";

export interface RoutePolicy {
  languageOverrides?: Record<string, Route>;
  operationOverrides?: Record<string, Route>;
  conflictResolution?: "language" | "operation" | "strictest";
}

export interface HashpilotConfig {
  routePolicy: RoutePolicy;
  telemetry: { enabled: boolean };
}

export interface ConfigSources {
  /** --config <path>, relative to the working directory. */
  readonly configPath?: string | undefined;
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
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new MastError("CONFIG_INVALID", `${what} ${path} is not valid JSON: ${errorMessage(err)}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw new MastError("CONFIG_INVALID", `${what} ${path} must hold a JSON object`);
  return value as Record<string, unknown>;
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

function merge(into: HashpilotConfig, layer: Record<string, unknown>, where: string): void {
  const policy = checkPolicy(layer.routePolicy, where);
  into.routePolicy = {
    ...into.routePolicy,
    ...policy,
    languageOverrides: { ...into.routePolicy.languageOverrides, ...policy.languageOverrides },
    operationOverrides: { ...into.routePolicy.operationOverrides, ...policy.operationOverrides },
  };
  const telemetry = layer.telemetry as { enabled?: unknown } | undefined;
  if (telemetry !== undefined) {
    if (telemetry === null || typeof telemetry !== "object" || (telemetry.enabled !== undefined && typeof telemetry.enabled !== "boolean")) {
      throw new MastError("CONFIG_INVALID", `${where}: telemetry.enabled must be true or false`);
    }
    if (telemetry.enabled !== undefined) into.telemetry = { enabled: telemetry.enabled };
  }
}

/** A route policy given as JSON text (`route --policy`); CONFIG_INVALID when it is not one. */
export function parsePolicy(json: string): RoutePolicy {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (err) {
    throw new MastError("CONFIG_INVALID", `the route policy is not valid JSON: ${errorMessage(err)}`);
  }
  return checkPolicy(value, "the route policy");
}

/** The merged configuration. */
export function loadHashpilotConfig(sources: ConfigSources): HashpilotConfig {
  const config: HashpilotConfig = { routePolicy: { languageOverrides: {}, operationOverrides: {} }, telemetry: { enabled: true } };
  if (!sources.noFiles) {
    const global = globalConfigPath();
    if (existsSync(global)) merge(config, readJsonObject(global, "the global config"), global);
    const project = join(sources.cwd, ".hashpilot.json");
    if (existsSync(project)) merge(config, readJsonObject(project, "the project config"), project);
    if (sources.configPath !== undefined) {
      const path = resolve(sources.cwd, sources.configPath);
      if (!existsSync(path)) throw new MastError("FILE_NOT_FOUND", `--config ${path} does not exist`);
      merge(config, readJsonObject(path, "--config"), path);
    }
  }
  const env = process.env.HASHPILOT_ROUTE_POLICY;
  if (env !== undefined && env.trim() !== "") {
    merge(config, { routePolicy: parsePolicy(env) }, "HASHPILOT_ROUTE_POLICY");
  }
  return config;
}
