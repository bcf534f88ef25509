// The slow half of test/cli/install.test.ts: `npm pack` of this checkout and a global install of
// the tarball into <work>/prefix, exactly as the README's "Install" says (native bindings built by
// their install scripts, about two minutes on 2 cores). `npm test` runs it in the background from
// the start of the run (test/setup/install-background.ts) and the test waits for its result; a test
// run of that file alone runs it inline. As a program: `node install-tarball.mjs <root> <work>`
// writes <work>/result.json when done.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Each command's exit status and output. */
function run(command, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (e) => resolve({ status: null, stdout, stderr: `${stderr}${e.message}` }));
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** `{pack, install, filename}`: the pack's and the install's outcome (install null when the pack failed). */
export async function packAndInstall(root, work) {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const pack = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", work, "--json"], root);
  if (pack.status !== 0) return { pack, install: null, filename: null };
  const filename = JSON.parse(pack.stdout)[0].filename;
  // mast's own install script builds its native addon (scripts/build-native.mjs).
  const allow = [pkg.name, ...Object.keys(pkg.allowScripts)].join(",");
  const install = await run(
    "npm",
    ["install", "--global", "--prefix", join(work, "prefix"), "--prefer-offline", "--no-audit", "--no-fund", `--allow-scripts=${allow}`, join(work, filename)],
    work,
  );
  return { pack, install, filename };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const [root, work] = process.argv.slice(2);
  const result = await packAndInstall(root, work);
  writeFileSync(join(work, "result.json.tmp"), JSON.stringify(result));
  (await import("node:fs")).renameSync(join(work, "result.json.tmp"), join(work, "result.json"));
}
