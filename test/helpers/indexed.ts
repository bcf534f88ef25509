// A temp project written from text, indexed once for a describe block (beforeAll), with the tool
// registry over it; closed and removed afterwards.
import { afterAll, beforeAll } from "vitest";
import { runIndex } from "../../src/index/run.js";
import { createToolContext, type ToolContext } from "../../src/tools/context.js";
import { callTool } from "../../src/tools/registry.js";
import { makeProject, type TestProject } from "./project.js";

export interface IndexedProject {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  call(tool: string, args: Record<string, unknown>): Promise<any>;
  readonly project: TestProject;
  readonly ctx: ToolContext;
}

export function indexedProject(files: Record<string, string>): IndexedProject {
  let project: TestProject;
  let ctx: ToolContext;
  beforeAll(async () => {
    project = makeProject(files);
    await runIndex(project.config(), { mode: "full" });
    ctx = createToolContext(project.config());
  });
  afterAll(() => {
    ctx?.close();
    project?.cleanup();
  });
  return {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    call: (tool, args) => callTool(ctx, tool, args) as Promise<any>,
    get project() {
      return project;
    },
    get ctx() {
      return ctx;
    },
  };
}
