// What mast's commands share: the config of the project a path is in, its state files' paths, and
// a result printed as text or JSON.
import { findProjectRoot, resolveConfig, resolveProjectRoot, type ConfigOverrides, type ResolvedConfig } from "../../index/config.js";
import type { StatePaths } from "../../index/state.js";

// The state files' helpers (and through them the store and SQLite) load only for the commands that
// use them: a `mast query` a running server answers needs none of them.
export const state = (): Promise<typeof import("../../index/state.js")> => import("../../index/state.js");
export const statePathsOf = async (config: ResolvedConfig): Promise<StatePaths> => (await state()).statePaths(config.state_dir);

/** The flags most commands take. */
export interface CommonOptions {
  stateDir?: string;
  json?: boolean;
}

/** The config of the project `path` is in (walking up to the nearest `.mast`, like git); `init` passes `walk: false`. */
export function loadConfig(path: string | undefined, overrides: ConfigOverrides, walk = true): ResolvedConfig {
  return resolveConfig(walk ? findProjectRoot(path) : resolveProjectRoot(path), overrides);
}

export function print(json: boolean | undefined, data: unknown, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${human()}\n`);
}

/** A count as the human forms print it: 12,345. */
export const n = (x: number): string => x.toLocaleString("en-US");
