// Builds mast's native addon (native/: the flat syntax tree, docs/decisions.md "Native flat
// trees") with node-gyp, from source, as tree-sitter's own binding is built: run by npm as the
// package's `install` script (`npm ci`, `npm install`) and by `npm run build:native`. A machine
// without a C compiler still installs mast: the build's failure is reported and mast reads trees
// through the binding instead (slower; `mast doctor` says which). MAST_NATIVE_REQUIRED=1 makes a
// failed build fail the install.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
// npm names its own node-gyp in the scripts it runs; otherwise the one npm ships beside node.
const gyp = [process.env.npm_config_node_gyp, path.join(path.dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js")].find(
  (p) => p && existsSync(p),
);
const args = ["rebuild", "--directory", path.join(root, "native")];
if (process.env.npm_config_nodedir) args.push(`--nodedir=${process.env.npm_config_nodedir}`);
const run = gyp ? spawnSync(process.execPath, [gyp, ...args], { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" }) : null;
if (run && run.status === 0) process.exit(0);
const why = run === null ? "node-gyp was not found" : (run.error?.message ?? `${run.stderr}`.trim().split("\n").slice(-6).join("\n"));
process.stderr.write(`mast: the native addon did not build; mast will read syntax trees through tree-sitter's binding (slower).\n${why}\n`);
process.exit(process.env.MAST_NATIVE_REQUIRED === "1" ? 1 : 0);
