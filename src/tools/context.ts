// What every tool handler receives: the resolved config and a lazily opened store. Surfaces
// (CLI, MCP) build one context per process and close it when they are done.
import { existsSync } from "node:fs";
import { MastError } from "../base/errors.js";
import type { CallRecorder } from "./telemetry.js";
import type { ResolvedConfig } from "../index/config.js";
import { guardProjectRoot, statePaths } from "../index/state.js";
import { Store } from "../store/store.js";

export interface ToolContext {
  readonly config: ResolvedConfig;
  /** Relative file arguments of the editing tools resolve against this (the project root over MCP). */
  readonly cwd: string;
  /** hashpilot's `--config <path>` (merged over the global and project config files). */
  readonly editConfigPath?: string;
  /** Read tools' answers carry `_stats` (the `telemetry` setting). */
  readonly stats: boolean;
  /** The recorder of the read tools' calls in metrics.db: `mast serve`'s and `mast query`'s; absent elsewhere. */
  readonly recorder?: CallRecorder;
  /** The state root the `structural` tools read the structural index under (default: the state dir). */
  readonly structuralRoot?: string;
  /**
   * A replica of a published snapshot (`mast serve --store`): its files never change, so nothing is
   * refreshed or healed before an answer.
   */
  readonly pinned?: boolean;
  /** The index store; NOT_INDEXED when the state dir has no graph.db. */
  store(): Store;
  close(): void;
}

export function createToolContext(config: ResolvedConfig, cwd: string = config.project_root, editConfigPath?: string, recorder?: CallRecorder, structuralRoot?: string): ToolContext {
  let store: Store | null = null;
  return {
    config,
    cwd,
    ...(structuralRoot === undefined ? {} : { structuralRoot }),
    stats: config.telemetry,
    ...(recorder === undefined ? {} : { recorder }),
    ...(editConfigPath === undefined ? {} : { editConfigPath }),
    store() {
      if (store) return store;
      const paths = statePaths(config.state_dir);
      const path = paths.graphDb;
      if (!existsSync(path)) {
        throw new MastError("NOT_INDEXED", `no index found at ${config.state_dir}; run \`mast init\` / \`mast index\` first`);
      }
      guardProjectRoot(paths, config.project_root);
      const opened = Store.open(path);
      if (!opened.hasCurrentSchema()) {
        opened.close();
        throw new MastError("NOT_INDEXED", `the index at ${config.state_dir} was built by another version of mast; run \`mast index\` to rebuild it`);
      }
      store = opened;
      return store;
    },
    close() {
      store?.close();
      store = null;
    },
  };
}
