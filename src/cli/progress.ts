// The `--show-progress` bar on stderr: redrawn in place on a terminal, a line per 10% otherwise.
import type { IndexProgress } from "../index/run.js";

export function progressReporter(stream: NodeJS.WriteStream = process.stderr): { update: (p: IndexProgress) => void; finish: () => void } {
  const started = performance.now();
  const width = 30;
  let lastDecile = -1;
  let drawn = false;
  const render = (p: IndexProgress) => {
    const ratio = p.total === 0 ? 1 : p.done / p.total;
    const filled = Math.round(ratio * width);
    const secs = (performance.now() - started) / 1000;
    const mb = p.bytes / (1024 * 1024);
    return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${p.done}/${p.total} files  ${mb.toFixed(1)} MB  ${secs.toFixed(1)} s`;
  };
  return {
    update(p) {
      if (stream.isTTY) {
        stream.write(`\r${render(p)}`);
        drawn = true;
        return;
      }
      const decile = p.total === 0 ? 10 : Math.floor((p.done / p.total) * 10);
      if (decile !== lastDecile) {
        lastDecile = decile;
        stream.write(`${render(p)}\n`);
      }
    },
    finish() {
      if (drawn) stream.write("\n");
    },
  };
}
