// What tools/list answers, without loading the tools: read from tool-listing.json, which the build
// writes beside the bundle from the registry (scripts/bundle.mjs, `toolListings`), so `mast serve`
// answers initialize and tools/list before it loads the registry, its schemas and every tool's code
// (docs/index-lifecycle.md#startup-reindex; ~120 ms of each start). Run from unbundled sources, where the build wrote no
// file, it is computed from the registry itself; test/mcp/listing.test.ts holds the file to it.
import { readFileSync } from "node:fs";
import type { Toolset } from "../tools/define.js";
import type { ListedTool, ListingForm, ToolListing } from "../tools/registry.js";

/** The file's name, beside the chunk that reads it. */
export const LISTING_FILE = "tool-listing.json";

/** Every tool's listings, from the build's file when there is one. */
export async function toolListings(): Promise<readonly ToolListing[]> {
  let text: string;
  try {
    text = readFileSync(new URL(`./${LISTING_FILE}`, import.meta.url), "utf8");
  } catch {
    return (await import("../tools/registry.js")).toolListings();
  }
  return JSON.parse(text) as ToolListing[];
}

/** The tools of `toolsets` in the given form, in registry order. */
export async function offeredListing(toolsets: readonly Toolset[], form: ListingForm): Promise<ListedTool[]> {
  return (await toolListings()).filter((t) => toolsets.includes(t.toolset)).map((t) => t[form]);
}
