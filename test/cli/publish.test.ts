// `mast publish` as a user runs it (the built bin) against a real PostgreSQL: a git checkout is
// published under its origin remote's name and HEAD commit (no flags but --to), a second run writes
// nothing, and a store that is not there is STORE_UNAVAILABLE (exit 1) with the password hidden.
import { execFileSync } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_FILES, makeProject, type TestProject } from "../helpers/project.js";
import { assertBuilt, runMast, spawnMast } from "../helpers/cli.js";
import { startPostgres } from "../helpers/postgres-server.mjs";

let server: Awaited<ReturnType<typeof startPostgres>>;
let project: TestProject;

beforeAll(async () => {
  assertBuilt();
  server = await startPostgres();
  project = makeProject(BASE_FILES);
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: project.root, encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  git("add", ".");
  git("commit", "-q", "-m", "first");
  git("remote", "add", "origin", "https://ci-token@github.com/acme/demo.git");
}, 120_000);

afterAll(async () => {
  await server?.stop();
  project?.cleanup();
});

/** `mast serve --http --store` with `flags`, and an MCP client connected to it once it listens. */
async function storeServer(flags: string[]): Promise<{ client: Client; stderr: () => string; close: () => Promise<void> }> {
  const cache = makeProject({});
  const serve = spawnMast(["serve", "--http", "--port", "0", "--store", server.url(), "--cache", cache.root, ...flags]);
  const client = new Client({ name: "mast-store-test", version: "1.0.0" });
  let seen = "";
  const close = async () => {
    await client.close().catch(() => {});
    serve.child.kill("SIGTERM");
    await serve.done;
    cache.cleanup();
  };
  try {
    const endpoint = await new Promise<URL>((resolve, reject) => {
      serve.child.stderr!.on("data", (d: string) => {
        seen += d;
        const m = /listening on (http:\/\/\S+)/.exec(seen);
        if (m) resolve(new URL(m[1]!));
      });
      void serve.done.then((r) => reject(new Error(`serve exited: ${r.stderr}`)));
    });
    await client.connect(new StreamableHTTPClientTransport(endpoint));
  } catch (err) {
    await close();
    throw err;
  }
  return { client, stderr: () => seen, close };
}

/** A tool's answer over the MCP client, parsed. */
async function toolAnswer(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  return JSON.parse(((await client.callTool({ name, arguments: args })) as { content: Array<{ text: string }> }).content[0]!.text);
}

describe("mast publish", () => {
  it("publishes a checkout under its origin and HEAD, and a second run writes nothing", async () => {
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: project.root, encoding: "utf8" }).trim();
    const first = await runMast(["publish", project.root, "--to", server.url(), "--json"]);
    expect([first.code, first.stderr]).toEqual([0, ""]);
    expect(JSON.parse(first.stdout)).toMatchObject({ repository: "github.com/acme/demo", commit: head, unchanged: false, active: true, files: 4, units_written: 4 });
    const again = await runMast(["publish", project.root, "--to", server.url()]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`github.com/acme/demo @ ${head} is already published with this content (snapshot 1): nothing written\nactive: yes\n`);
  });

  it("mast structural build --publish, then serve --store: a client with MANTIS_STRUCTURAL_INDEX_URL gets the local build's answers", async () => {
    const built = await runMast(["structural", "build", "--max-precision", "ast", "--publish", server.url(), "--json"], { cwd: project.root });
    expect([built.code, JSON.parse(built.stdout).published]).toMatchObject([0, { repository: "github.com/acme/demo", unchanged: false, active: true }]);
    const local = await runMast(["structural", "query", "resolve_symbol", '{"name":"Repo.find"}'], { cwd: project.root });
    const serve = spawnMast(["structural", "serve", "--store", server.url(), "--port", "0"], { cwd: project.root });
    try {
      const port = await new Promise<RegExpExecArray>((resolve, reject) => {
        let seen = "";
        serve.child.stderr!.on("data", (d: string) => {
          seen += d;
          const m = /:(\d+)\/v1\//.exec(seen);
          if (m) resolve(m);
        });
        void serve.done.then((r) => reject(new Error(`serve exited: ${r.stderr}`)));
      });
      const elsewhere = makeProject({});
      try {
        const remote = await runMast(["structural", "query", "resolve_symbol", '{"name":"Repo.find"}', "--state-root", elsewhere.root], {
          env: { MANTIS_STRUCTURAL_INDEX_URL: `http://127.0.0.1:${port[1]}` },
        });
        expect([remote.code, JSON.parse(remote.stdout)]).toEqual([0, JSON.parse(local.stdout)]);
        expect(JSON.parse(remote.stdout).results[0]).toMatchObject({ qualified_name: "Repo.find", file_path: "src/repo.ts", start_line: 2 });
      } finally {
        elsewhere.cleanup();
      }
    } finally {
      serve.child.kill("SIGINT");
      await serve.done;
    }
  });

  it("mast serve --http --store: an MCP client gets the read tools over the published repositories, each answer naming its repository and commit", async () => {
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: project.root, encoding: "utf8" }).trim();
    const { client, stderr, close } = await storeServer(["--answer-threads", "2"]);
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((t) => [t.name, "repository" in (t.inputSchema.properties ?? {})]).sort()).toEqual(
        ["mast_callers", "mast_exports", "mast_graph", "mast_implementors", "mast_rename_impact", "mast_search", "mast_signature"].map((n) => [n, true]),
      );
      const called = (await client.callTool({ name: "mast_callers", arguments: { symbol: "Repo.find", repository: "github.com/acme/*" } })) as { content: Array<{ text: string }> };
      const answer = JSON.parse(called.content[0]!.text);
      expect(answer).toMatchObject({
        repositories_searched: 1,
        repositories: [{ repository: "github.com/acme/demo", commit: head, declaration: { file_path: "src/repo.ts", line: 2 }, verified_callers: [{ file_path: "src/auth.ts" }] }],
      });
      expect(stderr()).toContain("mast serve: 1 repositories from");
      expect(stderr()).toContain("answered on 2 thread(s)");
      // Calls at once, answered by both threads: each the answer it gets alone.
      const calls = [
        { name: "mast_callers", arguments: { symbol: "Repo.find" } },
        { name: "mast_search", arguments: { query: "find" } },
        { name: "mast_signature", arguments: { symbol: "Repo.find" } },
      ];
      const alone = [];
      for (const c of calls) alone.push(((await client.callTool(c)) as { content: Array<{ text: string }> }).content[0]!.text);
      const together = await Promise.all([...calls, ...calls].map(async (c) => ((await client.callTool(c)) as { content: Array<{ text: string }> }).content[0]!.text));
      expect(together).toEqual([...alone, ...alone]);
      expect(JSON.parse(alone[2]!).repositories[0]).toMatchObject({ repository: "github.com/acme/demo", results: [{ file_path: "src/repo.ts", line: 2 }] });
      // An error crosses from the answering thread with its code and hint.
      const bad = (await client.callTool({ name: "mast_callers", arguments: { symbol: "Repo.find", repository: "gitlab.com/*" } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect([bad.isError, JSON.parse(bad.content[0]!.text).error.code, JSON.parse(bad.content[0]!.text).error.message]).toEqual([
        true,
        "INVALID_ARGUMENT",
        'no published repository matches "gitlab.com/*"',
      ]);
    } finally {
      await close();
    }
  });

  it("a search over more repositories than --search-repositories asks those the store ranks highest, and names the rest", async () => {
    const billing = makeProject({ "src/invoice.ts": "export function parseInvoice(text: string) {\n  return text.trim();\n}\n" });
    const ledger = makeProject({ "src/ledger.ts": "export function postLedger(amount: number) {\n  return amount;\n}\n" });
    try {
      for (const [p, name] of [
        [billing, "github.com/acme/billing"],
        [ledger, "github.com/acme/ledger"],
      ] as const) {
        expect((await runMast(["publish", p.root, "--to", server.url(), "--repository", name, "--commit", "c1"])).code).toBe(0);
      }
      const { client, close } = await storeServer(["--search-repositories", "1"]);
      try {
        const both = "github.com/acme/{billing,ledger}";
        const narrowed = await toolAnswer(client, "mast_search", { query: "parseInvoice", limit: 3, repository: both });
        expect([
          (narrowed["results"] as Array<Record<string, unknown>>).map((r) => `${r["repository"]} ${r["file_path"]}:${r["start_line"]}`),
          narrowed["repositories_searched"],
          narrowed["not_asked"],
        ]).toEqual([
          ["github.com/acme/billing src/invoice.ts:1"],
          1,
          { count: 1, repositories: ["github.com/acme/ledger"], why: "the store's full-text search ranked them below the 1 asked; pass `repository` to ask them" },
        ]);
        const ledgerFirst = await toolAnswer(client, "mast_search", { query: "postLedger", repository: both });
        expect([ledgerFirst["repositories_searched"], ledgerFirst["not_asked"]]).toEqual([1, { count: 1, repositories: ["github.com/acme/billing"], why: expect.any(String) }]);
        // A filter the ranking does not apply: every repository is asked.
        const filtered = await toolAnswer(client, "mast_search", { query: "parseInvoice", repository: both, file_pattern: "src/**" });
        expect([filtered["repositories_searched"], "not_asked" in filtered]).toEqual([2, false]);
        // A glob selecting no more than --search-repositories asks every repository it selects.
        const one = await toolAnswer(client, "mast_search", { query: "parseInvoice", repository: "github.com/acme/ledger" });
        expect([one["repositories_searched"], "not_asked" in one]).toEqual([1, false]);
      } finally {
        await close();
      }
      const { client: every, close: closeEvery } = await storeServer(["--search-repositories", "0"]);
      try {
        const all = await toolAnswer(every, "mast_search", { query: "parseInvoice", repository: "github.com/acme/{billing,ledger}" });
        expect([all["repositories_searched"], "not_asked" in all]).toEqual([2, false]);
      } finally {
        await closeEvery();
      }
    } finally {
      billing.cleanup();
      ledger.cleanup();
    }
  });

  it("names a store that is not there (exit 1) without its password", async () => {
    const r = await runMast(["publish", project.root, "--to", "postgres://mast:hunter2@127.0.0.1:1/org"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^mast: error STORE_UNAVAILABLE: the PostgreSQL store at postgres:\/\/mast:\*\*\*@127\.0\.0\.1:1\/org cannot be used/);
    expect(r.stderr.includes("hunter2")).toBe(false);
  });
});
