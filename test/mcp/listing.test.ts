// tools/list before the tools load: the listing the build writes beside the bundle
// (dist/bin/tool-listing.json, scripts/bundle.mjs) is the registry's, tool for tool and in both
// forms, and the server's answer for a toolset choice is the registry's own listing of it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { LISTING_FILE, offeredListing } from "../../src/mcp/listing.js";
import { listedTools, toolListings } from "../../src/tools/registry.js";
import { assertBuilt } from "../helpers/cli.js";

const BUILT = join(import.meta.dirname, "..", "..", "dist", "bin", LISTING_FILE);
beforeAll(() => assertBuilt());

describe("the tool listing", () => {
  it("the build's file holds every tool's listings as the registry makes them", () => {
    const built = JSON.parse(readFileSync(BUILT, "utf8")) as unknown;
    expect(built).toEqual(toolListings());
    expect(toolListings().map((t) => t.compact.name)).toContain("mast_search");
  });

  it("run from sources (no file beside them), offers what the registry lists for the toolsets, in each form", async () => {
    for (const toolsets of [["read"], ["read", "edit", "more", "admin", "structural"]] as const) {
      for (const form of ["compact", "full"] as const) expect(await offeredListing(toolsets, form)).toEqual(listedTools(toolsets, form));
    }
    expect((await offeredListing(["read"], "compact")).map((t) => t.name)).not.toContain("replace_hash");
  });
});
