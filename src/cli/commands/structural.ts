// `mast structural`: the structural index of the mantis contract — build it, answer one of its five
// operations, or serve them over HTTP — with the contract's snake_case flag names taken as aliases.
import { resolve as resolvePath } from "node:path";
import { MastError, errorMessage } from "../../base/errors.js";
import { findProjectRoot, resolveConfig } from "../../index/config.js";
import { FLAGS, LOCATOR_FLAGS } from "../flags.js";
import type { CommandSpec } from "../program.js";
import { n, print } from "./common.js";

/** The structural commands' locator flags, by attribute (kebab-case: `--target-root` → targetRoot). */
interface LocatorFlags {
  targetRoot?: string;
  snapshotRoot?: string;
  snapshotId?: string;
  stateRoot?: string;
}

/**
 * The mantis contract's flag names (`--target_root`, `--max_precision`, …) as the kebab-case ones
 * every other mast flag uses: in a `mast structural` command line, an argument that is one (or
 * `--name=value`) is rewritten before the line is read, so both spellings work and help shows
 * one. Other commands' lines are left as given.
 */
const SNAKE_CASE_FLAGS = ["target_root", "snapshot_root", "snapshot_id", "state_root", "max_precision", "max_units", "max_source_bytes", "baseline_source"];

export function kebabCaseFlags(argv: readonly string[]): string[] {
  if (argv[2] !== "structural") return [...argv];
  return argv.map((arg) => {
    const name = /^--([a-z_]+)(=|$)/.exec(arg)?.[1];
    return name !== undefined && SNAKE_CASE_FLAGS.includes(name) ? `--${name.replace(/_/g, "-")}${arg.slice(2 + name.length)}` : arg;
  });
}

/** The structural locators of a command (the state root defaults to the code root's mast state dir). */
async function locateStructural(opts: LocatorFlags) {
  const { locate } = await import("../../structural/locate.js");
  return locate(opts, findProjectRoot(undefined), (codeRoot) => resolveConfig(codeRoot, {}).state_dir);
}

/** Where a query reads: `--state-root` alone needs no code root (a pinned snapshot's tree may be gone); else as a build locates it. */
async function queryLayout(opts: LocatorFlags) {
  const { structuralLayout } = await import("../../structural/locate.js");
  return opts.stateRoot ? structuralLayout(resolvePath(opts.stateRoot)) : (await locateStructural(opts)).layout;
}

const positive = (v: string, flag: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new MastError("INVALID_ARGUMENT", `${flag} must be a positive integer, not ${JSON.stringify(v)}`, { usage: true });
  return n;
};

/** The repository a store names the project by. */
const REPOSITORY_FLAG = { name: "repository", value: "<name>", help: "the repository's name in the store (default: the origin remote as host/path, else the directory's name)" };

/** Publishes a finished build to the store (the index layer names the repository). */
async function publishTo(codeRoot: string, layout: import("../../structural/locate.js").StructuralLayout, url: string, repository: string | undefined, keep: number | null) {
  const { publishBuild } = await import("../../structural/store.js");
  const { repositoryName } = await import("../../index/publish.js");
  return publishBuild(layout, url, repositoryName(codeRoot, repository), keep);
}

/** A --baseline as the build takes it: a path, or a store's URL with the repository after `#`. */
async function baselineOf(codeRoot: string, baseline: string, repository: string | undefined): Promise<string> {
  const { isStoreBaseline } = await import("../../structural/store-baseline.js");
  if (!isStoreBaseline(baseline)) return baseline;
  const { checkStoreUrl } = await import("../../store/pg/client.js");
  checkStoreUrl(baseline, "--baseline");
  const { repositoryName } = await import("../../index/publish.js");
  return `${baseline}#${encodeURIComponent(repositoryName(codeRoot, repository))}`;
}

interface BuildOptions extends LocatorFlags {
  publish?: string;
  keep?: number;
  repository?: string;
  maxPrecision: string;
  maxUnits: string;
  maxSourceBytes: string;
  baseline?: string;
  baselineSource: string;
  threads?: number;
  json?: boolean;
}

const structuralBuild: CommandSpec<BuildOptions> = {
  name: "build",
  description: "build (or reuse) the structural index: units per partition at the highest tier available, the catalog, the manifest written last",
  flags: [
    ...LOCATOR_FLAGS,
    {
      name: "max-precision",
      value: "<tier>",
      help: "the highest tier a partition may use",
      choices: ["semantic", "typecheck", "ast", "symbol-only", "heuristic", "coverage-only"],
      default: "semantic",
    },
    { name: "max-units", value: "<n>", help: "units built at most (the rest deferred, resumed by the next build)", default: "10000" },
    { name: "max-source-bytes", value: "<n>", help: "source bytes built at most", default: String(500 * 1024 * 1024) },
    {
      name: "baseline",
      value: "<manifest>",
      help: "a baseline index (its manifest.json or state root, or postgres://… for the repository's build in a store): build only the overlay — the units whose output differs — and answer the rest from the baseline",
    },
    { name: "baseline-source", value: "<where>", help: "where the baseline was built", choices: ["ci", "local"], default: "ci" },
    { name: "publish", value: "<url>", help: "then publish the build to a PostgreSQL store (postgres://…) as the repository's active build, for `mast structural serve --store`" },
    REPOSITORY_FLAG,
    { ...FLAGS.keep, help: "with --publish: keep the repository's newest n structural builds in the store (the active one always); older ones are deleted (default: keep all)" },
    FLAGS.threads,
    FLAGS.json,
  ],
  run: async (_args, opts) => {
    const { buildStructural } = await import("../../structural/build.js");
    const located = await locateStructural(opts);
    const summary = await buildStructural(located, {
      maxPrecision: opts.maxPrecision as "semantic",
      maxUnits: positive(opts.maxUnits, "--max-units"),
      maxSourceBytes: positive(opts.maxSourceBytes, "--max-source-bytes"),
      checker: (await import("../../query/checker.js")).checkerPass,
      ...(opts.baseline === undefined ? {} : { baseline: await baselineOf(located.codeRoot, opts.baseline, opts.repository), baselineSource: opts.baselineSource as "ci" | "local" }),
      ...(opts.threads === undefined ? {} : { threads: opts.threads }),
    });
    if (opts.keep !== undefined && opts.publish === undefined) throw new MastError("INVALID_ARGUMENT", "--keep prunes what --publish writes: pass both", { usage: true });
    const published = opts.publish === undefined ? null : await publishTo(located.codeRoot, located.layout, opts.publish, opts.repository, opts.keep ?? null);
    print(opts.json, published === null ? summary : { ...summary, published }, () => {
      const tiers = Object.entries(summary.backends)
        .map(([lang, b]) => `${lang}: ${b.backend_name} (${b.precision})`)
        .join(", ");
      return [
        `${summary.reused_index ? "reused" : "built"} ${summary.manifest} (snapshot ${summary.snapshot_id}, ${summary.mode}, ${summary.status})`,
        `units: ${n(summary.units_total)} (${n(summary.units_reused)} reused, ${n(summary.units_rebuilt)} built, ${n(summary.units_failed)} failed, ${n(summary.units_deferred)} deferred)`,
        `symbols: ${n(summary.symbols)}, call edges: ${n(summary.edges)}; files: ${n(summary.coverage.indexed_files)} of ${n(summary.coverage.total_files)} indexed`,
        ...(tiers ? [`backends: ${tiers}`] : []),
        `query helper: ${summary.query_helper}`,
        ...(summary.message ? [summary.message] : []),
        ...(published === null
          ? []
          : [
              published.unchanged
                ? `published: build ${published.build_id} of ${published.repository} was already in the store`
                : `published: build ${published.build_id} as ${published.repository}'s${published.active ? " active" : ""} structural build (${n(published.symbols)} symbols, ${n(published.edges)} call edges)${published.pruned_builds > 0 ? `; pruned ${n(published.pruned_builds)} older build(s)` : ""}`,
            ]),
      ].join("\n");
    });
  },
};

const structuralQuery: CommandSpec<LocatorFlags> = {
  name: "query",
  description: "answer one operation of the consumption contract: resolve_symbol, find_callers, find_callees, get_function_boundary, get_coverage (remote when MANTIS_STRUCTURAL_INDEX_URL is set)",
  args: ["<operation>", "[json]"],
  flags: LOCATOR_FLAGS,
  helpAfter: `\nExamples:\n  mast structural query resolve_symbol '{"name":"validate"}'\n  mast structural query find_callers '{"symbol_id":"fallback:typescript:src/a.ts:0123456789abcdef","limit":20}'\n  mast structural query get_function_boundary '{"file":"src/a.ts","line":42}'`,
  run: async ([operation, json], opts) => {
    const { queryStructural } = await import("../../structural/query.js");
    let args: unknown;
    try {
      args = JSON.parse(json ?? "{}");
    } catch (err) {
      throw new MastError("INVALID_ARGUMENT", `the arguments are not valid JSON: ${errorMessage(err)}`, {
        hint: `Pass one JSON object, e.g. '{"name":"validate"}'.`,
        usage: true,
      });
    }
    process.stdout.write(`${JSON.stringify(await queryStructural(await queryLayout(opts), operation!, args), null, 2)}\n`);
  },
};

const structuralServe: CommandSpec<LocatorFlags & { port: string; host: string; store?: string; repository?: string }> = {
  name: "serve",
  description: "serve the five operations over HTTP (POST /v1/<operation>): the remote provider MANTIS_STRUCTURAL_INDEX_URL points at",
  flags: [
    ...LOCATOR_FLAGS,
    { name: "store", value: "<url>", help: "answer from a PostgreSQL store's published build (postgres://…) instead of the local one" },
    REPOSITORY_FLAG,
    { name: "port", value: "<port>", help: "port (0: any free one, printed on stderr)", default: "7431" },
    { name: "host", value: "<host>", help: "interface to listen on", default: "127.0.0.1" },
  ],
  run: async (_args, opts) => {
    const { structuralServer } = await import("../../structural/serve.js");
    let answer: (op: string, args: unknown) => Record<string, unknown>;
    let what: string;
    if (opts.store !== undefined) {
      const { openStructuralStore, queryStore } = await import("../../structural/store.js");
      const { repositoryName } = await import("../../index/publish.js");
      const repository = repositoryName(findProjectRoot(undefined), opts.repository);
      const pg = await openStructuralStore(opts.store);
      answer = (op, args) => queryStore(pg, repository, op, args);
      what = `${repository} in ${pg.where}`;
    } else {
      const { queryLocal } = await import("../../structural/query.js");
      const layout = await queryLayout(opts);
      answer = (op, args) => queryLocal(layout, op, args);
      what = layout.dir;
    }
    const server = structuralServer(answer);
    await new Promise<void>((resolve, reject) => {
      server.once("error", (err) => reject(new MastError("INVALID_ARGUMENT", `cannot listen on ${opts.host}:${opts.port}: ${errorMessage(err)}`)));
      server.listen(Number(opts.port), opts.host, () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : Number(opts.port);
    process.stderr.write(`mast structural serve: http://${opts.host}:${port}/v1/ (${what})\n`);
    await new Promise<void>((resolve) => {
      for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => server.close(() => resolve()));
    });
  },
};

export const structuralCommand: CommandSpec = {
  name: "structural",
  description:
    "the structural index (mantis contract): a content-addressed catalog of symbols, call edges and function boundaries with precision tiers, for agents and tools that query it without mast",
  commands: [structuralBuild, structuralQuery, structuralServe],
};
