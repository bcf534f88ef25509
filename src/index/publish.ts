// `mast publish` (docs/organisation.md#publishing): brings the project's index up to date (an
// incremental run), then copies it into a PostgreSQL store as (repository, commit) through
// store/pg/publish.ts — the rows read in one SQLite read transaction held to the end, each file's
// bytes read as the index reads them (no symlink, regular files only) and published only when they
// hash to what the index holds (SOURCE_CHANGED otherwise: nothing of the publish becomes active).
import { basename } from "node:path";
import { MastError } from "../base/errors.js";
import { hashKey } from "../base/hash.js";
import { absoluteIn } from "../base/paths.js";
import { INDEX_IDENTITY } from "../store/db.js";
import { checkStoreUrl, openPg } from "../store/pg/client.js";
import { indexRows, type IndexedFile } from "../store/pg/index-rows.js";
import { publishSnapshot, type ChunkSearch, type PublishReport, type UnitSource } from "../store/pg/publish.js";
import { ensureSchema } from "../store/pg/schema.js";
import { Store } from "../store/store.js";
import type { ResolvedConfig } from "./config.js";
import { readGitHead, readOriginName } from "./git-checkout.js";
import { readForIndex } from "./read.js";
import { createImportResolver } from "../resolve/imports.js";
import { createParsePool } from "./pool.js";
import { extractOptionsOf, runIndex } from "./run.js";
import { statePaths } from "./state.js";

export interface PublishOptions {
  /** The store's connection string (`--to`). */
  readonly to: string;
  /** The repository's name (default: the origin remote as host/path, else the directory's name). */
  readonly repository?: string;
  /** The commit (default: HEAD of the project's git checkout). */
  readonly commit?: string;
  /** Keep this many of the repository's snapshots; absent keeps all. */
  readonly keep?: number;
  readonly threads?: number;
}

/** A repository name or commit label as the store keeps it: 1 to 200 characters, no control characters. */
function checkedName(value: string, flag: string): string {
  if (value.length === 0 || value.length > 200 || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new MastError("INVALID_ARGUMENT", `${flag} must be 1 to 200 characters with no control characters`, { usage: true });
  }
  return value;
}

/** The repository a store names the project by: `given`, else its origin remote as host/path, else its directory's name. */
export function repositoryName(projectRoot: string, given: string | undefined): string {
  return checkedName(given ?? readOriginName(projectRoot) ?? basename(projectRoot), "--repository");
}

/** The repository and commit a publish names, from the options or the project's git checkout. */
export function publishTarget(config: ResolvedConfig, options: Pick<PublishOptions, "repository" | "commit">): { repository: string; commit: string } {
  const root = config.project_root;
  const commit = options.commit ?? readGitHead(root);
  if (commit === null) {
    throw new MastError("INVALID_ARGUMENT", `${root} is not a git checkout with a commit at HEAD, so the publish has no commit to name`, {
      hint: "Pass --commit <sha or label> (a CI build's commit, say).",
      usage: true,
    });
  }
  return { repository: repositoryName(root, options.repository), commit: checkedName(commit, "--commit") };
}

/** Indexes the project incrementally and publishes its index to the store. */
export async function publishProject(config: ResolvedConfig, options: PublishOptions): Promise<PublishReport> {
  checkStoreUrl(options.to, "--to");
  const target = publishTarget(config, options);
  const started = performance.now();
  await runIndex(config, { mode: "incremental", operation: "mast publish", ...(options.threads === undefined ? {} : { threads: options.threads }) });
  const index = Math.round(performance.now() - started);
  const pg = await openPg(options.to, "--to", { applicationName: "mast publish" });
  const store = Store.open(statePaths(config.state_dir).graphDb, { readonly: true });
  try {
    await ensureSchema(pg);
    // One read transaction from the first row read to the last, whatever index run commits meanwhile.
    const report = await store.readAcross((db) => {
      const rows = indexRows(db);
      // What the project provides to others (package names, npm's entry files), for cross-repository callers.
      const packages = createImportResolver(new Set(rows.files.map((f) => f.path)), config.project_root, { readAll: false }).packages();
      return publishSnapshot(pg, rows, { ...target, identity: INDEX_IDENTITY, keep: options.keep ?? null, packages }, (files) => sourcesOf(config, files, options.threads));
    });
    return { ...report, timings_ms: { index, ...report.timings_ms } };
  } finally {
    store.close();
    await pg.close();
  }
}

/** Where a chunk sits in its file, as its row and its extraction both say. */
const chunkPlace = (key: number, start: number, end: number, part: number, type: string) => `${key}:${start}:${end}:${part}:${type}`;

/**
 * The files' bytes as the index read them, in order, with their chunks' search input from
 * extracting them again in the parse pool (graph.db keeps its full-text indexes' words, not the
 * searched range and identifiers they came from; a replica needs them to build the same indexes).
 * A file whose bytes no longer hash to what the index holds is SOURCE_CHANGED; one whose extraction
 * fails carries no search input.
 */
async function* sourcesOf(config: ResolvedConfig, files: readonly IndexedFile[], threads: number | undefined): AsyncGenerator<UnitSource> {
  const options = extractOptionsOf(config);
  const pool = createParsePool(files.length, threads);
  try {
    let i = 0;
    const tasks = files.map((f) => ({ path: f.path, abs: absoluteIn(config.project_root, f.path), options, maxFileBytes: config.max_file_bytes }));
    for await (const outcome of pool.map(tasks)) {
      const file = files[i++]!;
      const bytes = bytesOf(config, file);
      const byPlace = new Map<string, ChunkSearch>();
      if (outcome.kind === "parsed" && outcome.stamp.contentHash === file.contentHash) {
        for (const c of outcome.extraction.chunks) {
          const key = chunkPlace(hashKey(c.chunkId), c.startLine, c.endLine, c.part, c.chunkType);
          if (!byPlace.has(key)) byPlace.set(key, { from: c.searchStart, to: c.searchEnd, identifiers: c.identifiers.join(" ") });
        }
      }
      yield { bytes, search: (c) => byPlace.get(chunkPlace(c.chunkKey, c.startLine, c.endLine, c.part, c.type)) ?? null };
    }
  } finally {
    await pool.close();
  }
}

/** A file's bytes as the index read them; SOURCE_CHANGED when the file is not what the index holds. */
function bytesOf(config: ResolvedConfig, file: IndexedFile): Buffer {
  const read = readForIndex(file.path, absoluteIn(config.project_root, file.path), config.max_file_bytes);
  if (read.kind === "read" && read.stamp.contentHash === file.contentHash) return read.bytes;
  const why = read.kind === "read" ? "its content changed since it was indexed" : read.kind === "too_large" ? "it grew past the size cap" : read.kind === "binary" ? "it is binary now" : read.error;
  throw new MastError("SOURCE_CHANGED", `${file.path} cannot be published: ${why}`, { details: { file: file.path } });
}
