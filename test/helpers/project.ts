// Real projects on disk for tests: a temp directory seeded from a file map, with helpers to
// edit it and resolve a config for it. Every project is removed after its test.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, realpathSync } from "node:fs";
import { afterEach } from "vitest";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { resolveConfig, type ConfigOverrides, type ResolvedConfig } from "../../src/index/config.js";

export interface TestProject {
  readonly root: string;
  write(path: string, content: string | Buffer): void;
  remove(path: string): void;
  config(overrides?: ConfigOverrides): ResolvedConfig;
  cleanup(): void;
}

export function makeProject(files: Record<string, string | Buffer> = {}): TestProject {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mast-test-")));
  const project: TestProject = {
    root,
    write(path, content) {
      const abs = join(root, path);
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    },
    remove(path) {
      rmSync(join(root, path), { force: true });
    },
    config(overrides = {}) {
      return resolveConfig(root, overrides);
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
    },
  };
  for (const [path, content] of Object.entries(files)) project.write(path, content);
  return project;
}

/** A small TypeScript + markdown project used across lifecycle and CLI tests. */
export const BASE_FILES: Record<string, string> = {
  "src/auth.ts": [
    "import { Repo } from './repo.js';",
    "",
    "/** Validates sessions. */",
    "export class AuthService {",
    "  constructor(private readonly repo: Repo) {}",
    "",
    "  /** Checks a token. */",
    "  validate(token: string): boolean {",
    "    return this.repo.find(token) !== null;",
    "  }",
    "}",
    "",
  ].join("\n"),
  "src/repo.ts": ["export class Repo {", "  find(id: string): string | null {", "    return id.length ? id : null;", "  }", "}", ""].join("\n"),
  "src/index.ts": ["export * from './auth.js';", "export { Repo as Repository } from './repo';", ""].join("\n"),
  "docs/guide.md": ["# Guide", "", "Intro.", "", "## Setup", "", "Run it.", ""].join("\n"),
};

/** Temp projects and directories for one test file, all removed after each test. */
export function tempSpace(defaultFiles: Record<string, string | Buffer> = BASE_FILES): {
  project(files?: Record<string, string | Buffer>): TestProject;
  dir(prefix?: string): string;
} {
  let projects: TestProject[] = [];
  let dirs: string[] = [];
  afterEach(() => {
    for (const p of projects) p.cleanup();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    projects = [];
    dirs = [];
  });
  return {
    project(files = defaultFiles) {
      const p = makeProject(files);
      projects.push(p);
      return p;
    },
    dir(prefix = "mast-test-") {
      const d = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
  };
}
