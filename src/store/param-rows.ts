// A function's parameters as symbols.params keeps them: a JSON array of one array per parameter,
// `[name]`, `[name, type]` or `[name, type|null, 1]` for an optional one (x?, a default value, a
// rest parameter) — not an object per parameter with its field names and `"optional":false` in
// every row (1.08 million parameters at 1 GB: 64 → 31 MB). The writer packs (store/file-rows.ts), the
// answers unpack (query/navigation.ts).
import type { ParamRecord } from "../syntax/types.js";

type ParamTuple = [name: string] | [name: string, type: string | null] | [name: string, type: string | null, optional: 1];

export function packParams(params: readonly ParamRecord[]): string {
  return JSON.stringify(params.map((p): ParamTuple => (p.optional ? [p.name, p.type, 1] : p.type === null ? [p.name] : [p.name, p.type])));
}

export function unpackParams(text: string): ParamRecord[] {
  return (JSON.parse(text) as ParamTuple[]).map((t) => ({ name: t[0], type: t[1] ?? null, optional: t[2] === 1 }));
}
