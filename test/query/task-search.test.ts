// mast_search for a task's text (issue 39): a file stem and a type named in lower case vote for
// their files, the answer covers distinct files, the next files are named in more_files (those
// next to a top hit first, related_to it), and a task of common words only says low_confidence.
// Exact-name queries keep their answers.
import { describe, expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";

/** 220 small functions that all use the project's common words (value, item, list), so those words are common. */
function filler(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let f = 0; f < 11; f++) {
    const body = Array.from({ length: 20 }, (_, i) => `export function step${f}x${i}(value: number, item: string, list: string[]) { return list.length + value + item.length; }`).join("\n");
    files[`src/steps/steps${f}.ts`] = `${body}\n`;
  }
  return files;
}

const p = indexedProject({
  ...filler(),
  "src/multipart.ts": [
    "// Encodes form fields as one body.",
    "export function encodeBody(fields: Record<string, string>, boundary: string): string {",
    "  return Object.entries(fields).map(([k, v]) => `--${boundary}\\r\\n${k}=${v}`).join('');",
    "}",
    "export function randomBoundary(): string { return Math.random().toString(36); }",
    "",
  ].join("\n"),
  "src/client.ts": [
    "import { encodeBody, randomBoundary } from './multipart';",
    "import { Headers } from './headers';",
    "export class Client {",
    "  post(fields: Record<string, string>): string {",
    "    const headers = new Headers();",
    "    headers.set('content-type', 'multipart/form-data');",
    "    return encodeBody(fields, randomBoundary());",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/headers.ts": [
    "export class Headers {",
    "  private readonly entries = new Map<string, string>();",
    "  set(key: string, entry: string): void { this.entries.set(key.toLowerCase(), entry); }",
    "  toString(): string { return [...this.entries].map(([k, v]) => `${k}: ${v}`).join('\\n'); }",
    "}",
    "",
  ].join("\n"),
  "src/retry.ts": "// Retries a request.\nexport function retry(times: number): number { return times; }\n",
});

type Answer = { results: Array<{ file_path: string; symbol_name: string | null }>; more_files?: Array<{ file_path: string; symbol_name: string | null; related_to?: string }>; low_confidence?: true };
const search = (query: string): Promise<Answer> => p.call("mast_search", { query });

describe("mast_search for a task's text", () => {
  it("a task naming a module by its file stem answers that file first, and names the caller next to it", async () => {
    const r = await search("multipart: fix the empty boundary when encoding fields");
    expect(r.results[0]).toMatchObject({ file_path: "src/multipart.ts", symbol_name: "encodeBody" });
    // One slot a file: a file's second chunk only after every file reached has its first.
    const paths = r.results.map((x) => x.file_path);
    const firstRepeat = paths.findIndex((x, i) => paths.indexOf(x) !== i);
    if (firstRepeat !== -1) expect(new Set(paths.slice(firstRepeat)).size).toBeLessThanOrEqual(new Set(paths.slice(0, firstRepeat)).size);
    if (firstRepeat !== -1) expect(paths.slice(firstRepeat).every((x) => paths.slice(0, firstRepeat).includes(x))).toBe(true);
    expect(paths).toEqual(["src/multipart.ts", "src/client.ts", "src/multipart.ts", "src/client.ts"]);
    expect(r.low_confidence).toBeUndefined();
    // Cut to one result, the next files are named: client.ts, which calls encodeBody, first and related to the hit.
    const one = (await p.call("mast_search", { query: "multipart: fix the empty boundary when encoding fields", limit: 1 })) as Answer;
    expect(one.results.map((x) => x.file_path)).toEqual(["src/multipart.ts"]);
    expect(one.more_files).toEqual([{ file_path: "src/client.ts", start_line: 4, symbol_name: "Client.post", related_to: "src/multipart.ts" }]);
  });

  it("a class named in lower case through an attribute (`str(response.headers)`) reaches the file that declares it", async () => {
    const r = await search("fix str(response.headers) printing nothing");
    expect(r.results.map((x) => x.file_path)).toContain("src/headers.ts");
    expect(r.results[0]!.file_path).toBe("src/headers.ts");
  });

  it("a task of the project's common words only says low_confidence", async () => {
    const r = await search("fix the value of an item in a list");
    expect(r.low_confidence).toBe(true);
    expect(r.results.length).toBeGreaterThan(0);
  });

  it("an exact name keeps its own answer: no more_files, the declaration first", async () => {
    const r = await search("randomBoundary");
    expect(r.results[0]).toMatchObject({ file_path: "src/multipart.ts", symbol_name: "randomBoundary" });
    expect(r.more_files).toBeUndefined();
    expect(Buffer.byteLength(JSON.stringify(await search("multipart: fix the empty boundary when encoding fields")))).toBeLessThan(8192);
  });
});
