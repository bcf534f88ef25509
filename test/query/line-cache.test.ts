// Class outlines' lines are read from the file and kept across queries while the file stats as it
// did (query/source.ts SourceLines): a rewrite — here one that shifts the class down a line, its
// mtime set back into the past so the racy-timestamp rule would not skip caching — is read afresh,
// so a potential match never shows another version's text.
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";
import { flat } from "../helpers/sites.js";

const STORE = ["export class Store {", "  get(key: string) { return key; }", "}", ""].join("\n");
const USER = (above: string) =>
  [above, "import { Store } from './store';", "export class User {", "  private readonly key = lookup().get('k');", "  other() { return 1; }", "}", "declare function lookup(): any;", ""].join("\n");

const p = indexedProject({ "src/store.ts": STORE, "src/user.ts": USER("// v1") });

it("reads a class outline's lines afresh once its file changed, though kept from an earlier query", async () => {
  const file = join(p.project.root, "src/user.ts");
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(file, past, past);
  const ask = async () => flat((await p.call("mast_callers", { symbol: "Store.get" })).potential_matches, "potential").map((m) => `${m.file_path}:${m.line}: ${m.context}`);
  expect(await ask()).toEqual(["src/user.ts:4: private readonly key = lookup().get('k');"]);
  expect(await ask()).toEqual(["src/user.ts:4: private readonly key = lookup().get('k');"]);
  p.project.write("src/user.ts", USER("// version two\n//"));
  const later = new Date(Date.now() - 1_800_000);
  utimesSync(file, later, later);
  expect(await ask()).toEqual(["src/user.ts:5: private readonly key = lookup().get('k');"]);
});
