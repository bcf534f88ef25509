// hashpilot's provenance, telemetry and configuration through the built bin: every editing call
// is one event (none at all when telemetry is disabled); provenance answers who changed a file or
// a line and why; reports count what happened and warn past the health thresholds; a corrupt log
// line is skipped with TELEMETRY_LOG_CORRUPT; config layers merge in the documented order.
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, runHashpilot } from "../helpers/cli.js";
import { hashpilotProject as project, hp, sha12, space } from "../helpers/hashpilot.js";

const SOURCE = ["export function add(a: number, b: number): number {", "  return a + b;", "}", "", "export function sub(a: number, b: number): number {", "  return a - b;", "}", ""].join("\n");

beforeAll(() => assertBuilt());

describe("provenance", () => {
  it("records who edited what and why, and answers per file, per line and per changeSet", async () => {
    const p = project({ "a.ts": SOURCE });
    const env = { HASHPILOT_SESSION: "s1" };
    await hp(p, ["replace-hash", "a.ts", sha12("  return a + b;"), "  return b + a;", "--range", "2", "--actor", "agent-1", "--task-id", "ISSUE-7", "--reason", "commute"], env);
    await hp(p, ["replace-hash", "a.ts", sha12("  return a - b;"), "  return -(b - a);", "--range", "6", "--actor", "agent-2"], env);
    await hp(p, ["read-hash", "a.ts", "2"], env); // a read is telemetry, not provenance
    const all = await hp(p, ["provenance", "query", "a.ts"]);
    expect(all.envelope.data.map((e: any) => [e.actor, e.taskId, e.reason, e.operation, e.success])).toEqual([
      ["agent-2", null, null, "replace-hash", true],
      ["agent-1", "ISSUE-7", "commute", "replace-hash", true],
    ]);
    // No file content in the log by default: the changed lines, not the diff (#9 §5).
    expect([all.envelope.data[1].ranges, all.envelope.data[1].diff]).toEqual([[{ start: 2, end: 2 }], null]);
    expect(readFileSync(join(p.home, "telemetry", "events.ndjson"), "utf8")).not.toContain("return b + a");
    expect(statSync(join(p.home, "telemetry", "events.ndjson")).mode & 0o777).toBe(0o600);
    const line2 = await hp(p, ["provenance", "query", "a.ts", "2"]);
    expect(line2.envelope.data.map((e: any) => e.actor)).toEqual(["agent-1"]);
    const cs = all.envelope.data[0].changeSetId as string;
    const byChangeSet = await hp(p, ["provenance", "changeset", cs]);
    expect(byChangeSet.envelope.data.map((e: any) => [e.actor, e.changeSetId])).toEqual([["agent-2", cs]]);
    const human = await runHashpilot(["provenance", "query", "a.ts", "2", "--human"], { cwd: p.root, env: { HASHPILOT_HOME: p.home } });
    expect(human.stdout).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}replace-hash {2}ok {4}agent-1 {2}ISSUE-7 {2}commute {2}cs-\d{8}T\d{9}Z-[0-9a-f]{8}\n$/);
  });

  it("records each write's diff only with telemetry.recordContent, and caps actor and reason (#9 §5)", async () => {
    const p = project({ "a.ts": SOURCE, ".hashpilot.json": JSON.stringify({ telemetry: { recordContent: true } }) });
    await hp(p, ["replace-hash", "a.ts", sha12("  return a + b;"), "  return b + a;", "--range", "2"]);
    const all = await hp(p, ["provenance", "query", "a.ts"]);
    expect(all.envelope.data[0].diff).toBe(`--- ${p.path("a.ts")}\n+++ ${p.path("a.ts")}\n@@ -2,1 +2,1 @@\n-  return a + b;\n+  return b + a;\n`);
    const long = await hp(p, ["replace-hash", "a.ts", sha12("  return b + a;"), "x", "--range", "2", "--reason", "r".repeat(2001)]);
    expect([long.code, long.envelope.error!.code]).toEqual([1, "INVALID_ARGUMENT"]);
    expect(p.read("a.ts")).toBe(SOURCE.replace("a + b", "b + a"));
  });
});

describe("telemetry", () => {
  it("counts every call by route:operation and session, and warns when stale anchors pass 10% of replace-hash calls", async () => {
    const p = project({ "a.ts": SOURCE });
    const env = { HASHPILOT_SESSION: "health" };
    await hp(p, ["replace-hash", "a.ts", sha12("  return a + b;"), "  return b + a;", "--range", "2"], env);
    expect((await hp(p, ["replace-hash", "a.ts", sha12("gone"), "x", "--range", "2"], env)).envelope.error!.code).toBe("STALE_ANCHOR");
    await hp(p, ["read-hash", "a.ts", "1"], env);
    const show = await hp(p, ["telemetry", "show", "-n", "2"]);
    expect(show.envelope.data.events.map((e: any) => [e.operation, e.route, e.success, e.errorCode, e.language, e.session])).toEqual([
      ["read-hash", "read", true, null, "typescript", "health"],
      ["replace-hash", "hash", false, "STALE_ANCHOR", "typescript", "health"],
    ]);
    const summary = await hp(p, ["telemetry", "summary"]);
    expect(summary.envelope.data.byRouteOperation.map((r: any) => [r.key, r.count, r.success, r.successRate])).toEqual([
      ["hash:replace-hash", 2, 1, 50],
      ["read:read-hash", 1, 1, 100],
    ]);
    const health = await hp(p, ["telemetry", "health"]);
    expect(health.envelope.data).toMatchObject({
      totalEvents: 3,
      windowDays: 7,
      routeDistribution: { hash: { count: 2, success: 1 }, read: { count: 1, success: 1 } },
      fallbackFrequency: { "stale-anchor": 1 },
      staleAnchors: { total: 1, recovered: 0, failed: 1 },
      perLanguage: { typescript: { operations: 3, failures: 1 } },
      topFallbackCauses: [{ reason: "stale-anchor", count: 1 }],
      warnings: ["Stale-anchor rate 50% exceeds threshold of 10%", "typescript failure rate 33.3% exceeds threshold of 30%"],
    });
    expect(health.envelope.data.diskBytes).toBe(statSync(join(p.home, "telemetry", "events.ndjson")).size);
    const sessions = await hp(p, ["telemetry", "sessions"]);
    expect(sessions.envelope.data.sessions.map((s: any) => [s.session, s.events, s.errors])).toEqual([["health", 3, 1]]);
    const ndjson = await runHashpilot(["telemetry", "export", "--ndjson", "--session", "health"], { cwd: p.root, env: { HASHPILOT_HOME: p.home } });
    expect(
      ndjson.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).operation),
    ).toEqual(["replace-hash", "replace-hash", "read-hash"]);
  });

  it("compares a window with the one before (--trend)", async () => {
    const p = project({ "a.ts": SOURCE });
    const day = 86_400_000;
    const old = (daysAgo: number, success: boolean) =>
      JSON.stringify({
        timestamp: new Date(Date.now() - daysAgo * day).toISOString(),
        session: "x",
        operation: "replace-hash",
        route: "hash",
        file: p.path("a.ts"),
        files_count: 1,
        language: "typescript",
        success,
        errorCode: success ? null : "STALE_ANCHOR",
        fallback_reason: success ? null : "stale-anchor",
        retries: 0,
        verification_result: null,
        elapsed_ms: 3,
        changeSetId: null,
        actor: null,
        taskId: null,
        reason: null,
        diff: null,
      });
    mkdirSync(join(p.home, "telemetry"), { recursive: true });
    writeFileSync(join(p.home, "telemetry", "events.ndjson"), [old(10, true), old(9, true), old(2, false)].join("\n") + "\n");
    const trend = await hp(p, ["telemetry", "health", "-w", "7", "--trend"]);
    expect(trend.envelope.data.changes).toEqual({
      totalEventsDelta: -1,
      errorRateDelta: 100,
      staleAnchorDelta: 1,
      verifyFailureDelta: 0,
      newWarnings: ["Stale-anchor rate 100% exceeds threshold of 10%"],
      resolvedWarnings: [],
      languageRegressions: [],
    });
    expect(trend.envelope.data.previous.diskBytes).toBe(0);
  });

  it("skips a corrupt log line with TELEMETRY_LOG_CORRUPT instead of failing", async () => {
    const p = project({ "a.ts": SOURCE });
    await hp(p, ["read-hash", "a.ts", "1"]);
    appendFileSync(join(p.home, "telemetry", "events.ndjson"), "{not json\n");
    const show = await hp(p, ["telemetry", "show"]);
    expect(show.code).toBe(0);
    expect(show.envelope.data.events).toHaveLength(1);
    expect(show.envelope.warnings).toEqual([{ code: "TELEMETRY_LOG_CORRUPT", message: "1 malformed telemetry line(s) were skipped", skipped: 1 }]);
    const cleared = await hp(p, ["telemetry", "clear"]);
    expect(cleared.envelope.data).toEqual({ removedFiles: 1 });
    expect((await hp(p, ["telemetry", "show"])).envelope.data.events).toEqual([]);
  });

  it("records nothing at all when telemetry.enabled is false", async () => {
    const p = project({ "a.ts": SOURCE, ".hashpilot.json": JSON.stringify({ telemetry: { enabled: false } }) });
    await hp(p, ["replace-hash", "a.ts", sha12("  return a + b;"), "  return b + a;", "--range", "2"]);
    await hp(p, ["read-hash", "a.ts", "1"]);
    expect(existsSync(join(p.home, "telemetry"))).toBe(false);
  });
});

describe("config", () => {
  it("merges defaults, the global file, .hashpilot.json, --config and HASHPILOT_ROUTE_POLICY, each over the one before", async () => {
    const home = space.dir("hashpilot-user-");
    mkdirSync(join(home, ".config", "hashpilot"), { recursive: true });
    writeFileSync(
      join(home, ".config", "hashpilot", "config.json"),
      JSON.stringify({ routePolicy: { languageOverrides: { python: "hash", go: "diff" } }, telemetry: { enabled: false }, readRoots: ["/opt/shared"] }),
    );
    const p = project({
      ".hashpilot.json": JSON.stringify({ routePolicy: { languageOverrides: { go: "ast" }, operationOverrides: { "add-import": "diff" } } }),
      "extra.json": JSON.stringify({ routePolicy: { conflictResolution: "strictest" }, telemetry: { enabled: true } }),
    });
    const r = await hp(p, ["config", "--config", "extra.json"], { HOME: home, HASHPILOT_ROUTE_POLICY: JSON.stringify({ operationOverrides: { "rename-symbol": "hash" } }) });
    expect(r.envelope.data).toEqual({
      routePolicy: {
        languageOverrides: { python: "hash", go: "ast" },
        operationOverrides: { "add-import": "diff", "rename-symbol": "hash" },
        conflictResolution: "strictest",
      },
      telemetry: { enabled: true, recordContent: false },
      readRoots: ["/opt/shared"],
    });
    writeFileSync(p.path(".hashpilot.json"), "{ broken");
    const bad = await hp(p, ["config"], { HOME: home });
    expect([bad.code, bad.envelope.error!.code]).toEqual([1, "CONFIG_INVALID"]);
    expect(bad.envelope.error!.message).toContain(".hashpilot.json");
    expect(readFileSync(join(home, ".config", "hashpilot", "config.json"), "utf8")).toContain("python");
    // A file inside the project cannot widen what the tools read (#9 §3).
    writeFileSync(p.path(".hashpilot.json"), JSON.stringify({ readRoots: ["/"] }));
    const widen = await hp(p, ["config"], { HOME: home });
    expect([widen.code, widen.envelope.error!.code]).toEqual([1, "CONFIG_INVALID"]);
  });

  it("never quotes a file's bytes in an error, and reads no config outside the project over a tool (#9 §3)", async () => {
    const outside = space.dir("hashpilot-outside-");
    writeFileSync(join(outside, "secret.json"), "root:x:0:0:SECRET-CANARY");
    const p = project({ "bad.json": "SECRET-CANARY is not json" });
    const bad = await hp(p, ["config", "--config", "bad.json"]);
    expect([bad.code, bad.envelope.error!.code]).toEqual([1, "CONFIG_INVALID"]);
    expect(bad.stdout).not.toContain("SECRET-CANARY");
    const tool = await runHashpilot(["route", "a.ts", "replace-hash", "--policy", "SECRET-CANARY"], { cwd: p.root, env: { HASHPILOT_HOME: p.home } });
    expect(tool.stdout).not.toContain("SECRET-CANARY");
  });
});
