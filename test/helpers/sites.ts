// mast_callers and mast_rename_impact group sites by file ({file_path, is_test?, sites}); tests that
// check sites one by one flatten them back, each site with its file.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function flat(groups: ReadonlyArray<{ file_path: string; sites: readonly any[] }>): any[] {
  return groups.flatMap((g) => g.sites.map((site) => ({ file_path: g.file_path, ...site })));
}
