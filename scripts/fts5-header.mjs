// Writes the installed SQLite's FTS5 extension header (fts5.h, which better-sqlite3 ships only
// inside its sqlite3.c amalgamation) to native/build/include/fts5.h and prints that directory
// relative to the working directory: binding.gyp runs it while node-gyp configures, so
// native/sqlite_ext.c's FTS5 functions are compiled against the very SQLite that loads them.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const amalgamation = path.join(path.dirname(require.resolve("better-sqlite3/package.json")), "deps", "sqlite3", "sqlite3.c");
const text = readFileSync(amalgamation, "utf8");
const begin = text.indexOf("/******** Begin file fts5.h *********/");
const end = text.indexOf("/******** End of fts5.h *********/");
if (begin < 0 || end < begin) throw new Error(`fts5.h was not found in ${amalgamation}`);
const dir = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), "native", "build", "include");
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, "fts5.h"), `${text.slice(begin, end)}\n`);
process.stdout.write(path.relative(process.cwd(), dir) || ".");
