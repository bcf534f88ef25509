// mast_callers and mast_rename_impact group sites by file ({file_path, is_test?, resolution?,
// sites}), each site one line of text — verified "LINE CALLER: text [resolution] (depth N via
// CALLEE)", potential "LINE: text". Tests that check sites one by one read them back as objects.

const VERIFIED = /^(\d+)(?: ([^\s:]+))?: (.*?)(?: \[(\w+)\])?(?: \(depth (\d+) via (\S+)\))?$/;
const POTENTIAL = /^(\d+): (.*)$/;

/** One object per site, with its file: {file_path, line, caller_symbol, context, resolution[, depth, callee_symbol]} or {file_path, line, context}. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function flat(groups: ReadonlyArray<{ file_path: string; resolution?: string; sites: readonly string[] }>, kind: "verified" | "potential" = "verified"): any[] {
  return groups.flatMap((g) =>
    g.sites.map((site) => {
      if (kind === "potential") {
        const m = POTENTIAL.exec(site);
        if (!m) throw new Error(`not a potential site: ${site}`);
        return { file_path: g.file_path, line: Number(m[1]), context: m[2] };
      }
      const m = VERIFIED.exec(site);
      if (!m) throw new Error(`not a verified site: ${site}`);
      return {
        file_path: g.file_path,
        line: Number(m[1]),
        caller_symbol: m[2] ?? null,
        context: m[3],
        resolution: m[4] ?? g.resolution,
        ...(m[5] === undefined ? {} : { depth: Number(m[5]), callee_symbol: m[6] }),
      };
    }),
  );
}
