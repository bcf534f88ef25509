// How graph.db's edges table stores an edge's type and resolution: small integers, named here for
// every statement that reads or writes them (`e.edge_type = ${EDGE.POTENTIAL_CALL}`). A name took 14
// and 9 bytes a row, a code one or none (SQLite stores 0 and 1 in the record header alone): 2.6
// million edges at 1 GB, ~45 MB. The codes are the schema's (a change is a schema version).
import { damagedRow } from "../base/errors.js";

/** Edge types by code, the commonest first. */
export const EDGE_TYPES = ["POTENTIAL_CALL", "PARENT_OF", "IMPLEMENTS", "EXTENDS", "RE_EXPORTS"] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];

/** Call resolutions by code, the commonest first; 'checker' is the checker pass's (a verified edge). */
export const EDGE_RESOLUTIONS = ["import", "same_file", "this_method", "return_type", "parameter_type", "same_package", "field_type", "new_expression", "super_method", "checker"] as const;
export type EdgeResolution = (typeof EDGE_RESOLUTIONS)[number];

const codes = <N extends string>(names: readonly N[]) => Object.freeze(Object.fromEntries(names.map((n, i) => [n, i]))) as { readonly [K in N]: number };

/** The code of each edge type. */
export const EDGE = codes(EDGE_TYPES);
/** The code of each resolution. */
export const RESOLVED = codes(EDGE_RESOLUTIONS);

/** A resolution's code; a name the schema has none for is a defect of its writer, refused (never stored as NULL). */
export function resolutionCode(name: string): number {
  if (!Object.hasOwn(RESOLVED, name)) throw new Error(`'${name}' is no call resolution of this schema (store/edge-codes.ts)`);
  return (RESOLVED as Readonly<Record<string, number>>)[name]!;
}

/** An edge type's name from its code. */
export function edgeTypeName(code: number): EdgeType {
  const name = EDGE_TYPES[code];
  if (name === undefined) throw damagedRow(`an edge's type code ${code} is none of this schema's`);
  return name;
}

/** A resolution's name from its code (NULL: none, as every edge but a call has). */
export function resolutionName(code: number | null): EdgeResolution | null {
  if (code === null) return null;
  const name = EDGE_RESOLUTIONS[code];
  if (name === undefined) throw damagedRow(`an edge's resolution code ${code} is none of this schema's`);
  return name;
}
