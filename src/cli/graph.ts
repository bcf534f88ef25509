// `mast graph --format svg`: DOT rendered by Graphviz's `dot` when it is on PATH, with a clear
// refusal naming how to get it when it is not.
import { spawnSync } from "node:child_process";
import { MastError } from "../base/errors.js";

/** A DOT graph as SVG through `dot -Tsvg` (the `dot` on PATH; MAST_DOT names another). */
export function renderSvg(dot: string): string {
  const bin = process.env.MAST_DOT?.trim() || "dot";
  const r = spawnSync(bin, ["-Tsvg"], { input: dot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === "ENOENT";
    throw new MastError("UNSUPPORTED_OPERATION", missing ? `--format svg needs Graphviz's \`${bin}\`, which is not on PATH` : `${bin} -Tsvg failed: ${r.error.message}`, {
      hint: "Install Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz), or use --format dot or --format mermaid.",
    });
  }
  if (r.status !== 0)
    throw new MastError("UNSUPPORTED_OPERATION", `${bin} -Tsvg exited with ${r.status}: ${r.stderr.trim().slice(0, 500)}`, { hint: "Use --format dot to see the graph it was given." });
  return r.stdout.trimEnd();
}
