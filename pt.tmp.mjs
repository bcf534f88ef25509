import Parser from "tree-sitter";
import { createRequire } from "node:module";
const require = createRequire(import.meta.url);
const lang = { cpp: require("tree-sitter-cpp"), c: require("tree-sitter-c") }[process.argv[2]];
const p = new Parser(); p.setLanguage(lang);
const t = p.parse(process.argv[3]);
console.log(t.rootNode.toString());
