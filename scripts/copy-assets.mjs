// Copies non-TypeScript runtime assets (the SQL schema, the structural index's Python query
// helper, the Go checker, the breadth languages' query files) next to the compiled code in dist/.
import { copyFileSync, mkdirSync, chmodSync, readdirSync } from "node:fs";

mkdirSync("dist/store", { recursive: true });
copyFileSync("src/store/schema.sql", "dist/store/schema.sql");
copyFileSync("src/query/gotypes-checker.go", "dist/query/gotypes-checker.go");
mkdirSync("dist/structural", { recursive: true });
copyFileSync("src/structural/query_structural_index.py", "dist/structural/query_structural_index.py");
mkdirSync("dist/lang/queries", { recursive: true });
for (const q of readdirSync("src/lang/queries")) copyFileSync(`src/lang/queries/${q}`, `dist/lang/queries/${q}`);
for (const bin of ["dist/cli/mast.js", "dist/cli/hashpilot.js"]) chmodSync(bin, 0o755);
