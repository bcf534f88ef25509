// Bundles the compiled CLIs and their worker threads (dist/) into dist/bin/, the files the
// package's `bin` runs. Node 20 loads an ES module in about half a millisecond, and `mast query`
// loaded 213 of them before its first answer; the bundle loads a handful of chunks, each shared by
// the entries that need it, so a command still loads only what it uses (docs/decisions.md,
// "Bundled CLIs"). Native addons and the CommonJS packages required at run time stay external.
import { chmodSync, copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { rolldown } from "rolldown";

const OUT = "dist/bin";
// jsonc-parser too: its UMD build requires its own files at run time, which a bundle cannot follow.
const EXTERNAL = ["@anthropic-ai/tokenizer", "better-sqlite3", "chokidar", "ignore", "jsonc-parser", "picomatch", "proper-lockfile", "node-gyp-build"];
// Worker files and the schema are found next to the chunk that names them (`new URL("./worker.js",
// import.meta.url)`), so each keeps its own name in dist/bin/.
const input = {
  mast: "dist/cli/mast.js",
  hashpilot: "dist/cli/hashpilot.js",
  worker: "dist/index/worker.js",
  "run-worker": "dist/query/run-worker.js",
  "grep-worker": "dist/edit/grep-worker.js",
  "diff-worker": "dist/edit/diff-worker.js",
  "checker-worker": "dist/query/checker-worker.js",
  "telemetry-worker": "dist/tools/telemetry-worker.js",
  "org-worker": "dist/tools/org-worker.js",
};

rmSync(OUT, { recursive: true, force: true });
const bundle = await rolldown({
  input,
  platform: "node",
  external: (id) => id.startsWith("node:") || id.startsWith("tree-sitter") || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
  logLevel: "warn",
});
// The pure helpers of src/base/ are one chunk: small and shared by every entry, they would
// otherwise be split by whichever entries happen to share each (one load each) — but for
// base/formats.ts, whose parsers (yaml, smol-toml: ~140 KB) only the import
// resolver and verify's detection read: a chunk of their own, which `mast status` never loads
// (and base/lru.ts with lru-cache, which the answers' caches use and status does not).
// Minified, names kept (a stack still names its functions): Node parses every chunk a command loads
// before it runs, and at half the bytes a `mast query` starts ~12 ms sooner (docs/decisions.md).
await bundle.write({
  dir: OUT,
  format: "esm",
  minify: { compress: true, mangle: { keepNames: true }, codegen: { removeWhitespace: true } },
  chunkFileNames: "[name]-[hash].js",
  codeSplitting: {
    groups: [
      { name: "formats", test: /dist[\\/]base[\\/]formats\.js$|node_modules[\\/](yaml|smol-toml)[\\/]/, priority: 2 },
      { name: "lru", test: /dist[\\/]base[\\/]lru\.js$|node_modules[\\/]lru-cache[\\/]/, priority: 2 },
      { name: "base", test: /dist[\\/]base[\\/]/, priority: 1 },
    ],
  },
});
await bundle.close();
copyFileSync("dist/store/schema.sql", `${OUT}/schema.sql`);
copyFileSync("dist/structural/query_structural_index.py", `${OUT}/query_structural_index.py`);
copyFileSync("dist/query/gotypes-checker.go", `${OUT}/gotypes-checker.go`);
mkdirSync(`${OUT}/queries`, { recursive: true });
for (const q of readdirSync("dist/lang/queries")) copyFileSync(`dist/lang/queries/${q}`, `${OUT}/queries/${q}`);
for (const bin of ["mast", "hashpilot"]) chmodSync(`${OUT}/${bin}.js`, 0o755);
// What `mast serve` answers tools/list with before it loads the tools (src/mcp/listing.ts).
const { toolListings } = await import("../dist/tools/registry.js");
const { LISTING_FILE } = await import("../dist/mcp/listing.js");
writeFileSync(`${OUT}/${LISTING_FILE}`, JSON.stringify(toolListings()));
