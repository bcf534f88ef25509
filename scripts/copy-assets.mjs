// Copies non-TypeScript runtime assets (the SQL schema) next to the compiled code in dist/.
import { copyFileSync, mkdirSync, chmodSync } from "node:fs";

mkdirSync("dist/store", { recursive: true });
copyFileSync("src/store/schema.sql", "dist/store/schema.sql");
for (const bin of ["dist/cli/mast.js", "dist/cli/hashpilot.js"]) chmodSync(bin, 0o755);
