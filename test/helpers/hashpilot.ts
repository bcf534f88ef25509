// hashpilot test projects and calls: a temp project with a .git marker (the project root) and a
// private HASHPILOT_HOME, and a runner that parses the envelope, validates it against the shipped
// JSON Schema and checks that `ok` agrees with the exit code.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { expect } from "vitest";
import { runHashpilot, type CliResult } from "./cli.js";
import { tempSpace } from "./project.js";

export const space = tempSpace({});
const schema = JSON.parse(readFileSync(new URL("../../schema/hashpilot-envelope.schema.json", import.meta.url), "utf8")) as object;
const validate = new Ajv({ allErrors: true }).compile(schema);

export const sha12 = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 12);

export interface Envelope {
  apiVersion: string;
  ok: boolean;
  command: string;
  data: any;
  error: { code: string; message: string; recovery?: string; details?: any } | null;
  warnings: Array<{ code: string; message: string }>;
}

export interface HashpilotProject {
  readonly root: string;
  readonly home: string;
  path(rel: string): string;
  read(rel: string): string;
}

/** A project with a .git marker (the project root) and a private HASHPILOT_HOME. */
export function hashpilotProject(files: Record<string, string>): HashpilotProject {
  const root = space.dir("hashpilot-project-");
  const home = space.dir("hashpilot-home-");
  mkdirSync(join(root, ".git"));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(root, rel, ".."), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  return { root, home, path: (rel) => join(root, rel), read: (rel) => readFileSync(join(root, rel), "utf8") };
}

/** Runs hashpilot in the project; the envelope must validate and agree with the exit code. */
export async function hp(p: { root: string; home: string }, args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult & { envelope: Envelope }> {
  const r = await runHashpilot(args, { cwd: p.root, env: { HASHPILOT_HOME: p.home, CI: undefined, ...env } });
  let envelope: Envelope;
  try {
    envelope = JSON.parse(r.stdout) as Envelope;
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
  }
  expect(validate(envelope), JSON.stringify(validate.errors)).toBe(true);
  expect(envelope.ok).toBe(r.code === 0);
  return { ...r, envelope };
}
