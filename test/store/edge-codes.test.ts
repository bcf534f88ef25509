// store/edge-codes.ts: the codes graph.db's edges table stores an edge's type and resolution as.
// They are the schema's: the lists below are the golden copy, and a change to either is a schema
// version. A code the schema has no name for is a damaged row (INDEX_CORRUPT), never a guess.
import { describe, expect, it } from "vitest";
import { DAMAGED_ROW } from "../../src/base/errors.js";
import { EDGE, EDGE_RESOLUTIONS, EDGE_TYPES, RESOLVED, edgeTypeName, resolutionCode, resolutionName } from "../../src/store/edge-codes.js";
import { CURRENT_SCHEMA_VERSION } from "../../src/store/db.js";
import { Store } from "../../src/store/store.js";
import { tempSpace } from "../helpers/project.js";
import { join } from "node:path";

describe("edge codes", () => {
  const space = tempSpace();
  it("are the schema's, the commonest first (0 and 1 take no bytes in a record)", () => {
    expect(CURRENT_SCHEMA_VERSION).toBe("1.27.0");
    expect(EDGE_TYPES).toEqual(["POTENTIAL_CALL", "PARENT_OF", "IMPLEMENTS", "EXTENDS", "RE_EXPORTS"]);
    expect(EDGE_RESOLUTIONS).toEqual(["import", "same_file", "this_method", "return_type", "parameter_type", "same_package", "field_type", "new_expression", "super_method", "checker"]);
    expect([EDGE.POTENTIAL_CALL, EDGE.PARENT_OF, EDGE.RE_EXPORTS, RESOLVED.import, RESOLVED.checker]).toEqual([0, 1, 4, 0, 9]);
    expect([edgeTypeName(2), resolutionName(6), resolutionName(null), resolutionCode("field_type")]).toEqual(["IMPLEMENTS", "field_type", null, 6]);
  });

  it("a resolution the schema has no code for is refused where it is written, never stored as NULL", () => {
    expect(() => resolutionCode("guessed")).toThrow("'guessed' is no call resolution of this schema (store/edge-codes.ts)");
    expect(() => resolutionCode("toString")).toThrow(/no call resolution/);
  });

  it("a code no name has is a damaged row", () => {
    for (const read of [() => edgeTypeName(5), () => resolutionName(10), () => resolutionName(-1)]) {
      expect(read).toThrow(/^an edge's (type|resolution) code -?\d+ is none of this schema's$/);
      try {
        read();
      } catch (err) {
        expect((err as { code?: string }).code).toBe(DAMAGED_ROW);
      }
    }
  });

  it("an edges row keeps its codes as integers", () => {
    const store = Store.open(join(space.dir(), "graph.db"));
    try {
      const db = store.db;
      db.exec("INSERT INTO files(id, path, language, mtime, size, ino, ctime, content_hash, stat_clean, line_count) VALUES (1, 'a.ts', 'typescript', 0, 0, 0, 0, '', 1, 1)");
      db.exec("INSERT INTO symbols(id, name, kind, file_id, line, end_line) VALUES (1, 'a', 'function', 1, 1, 1), (2, 'b', 'function', 1, 1, 1)");
      db.prepare("INSERT INTO edges(from_id, to_id, edge_type, resolution, call_line) VALUES (1, 2, ?, ?, 7)").run(EDGE.POTENTIAL_CALL, RESOLVED.same_file);
      expect(db.prepare("SELECT typeof(edge_type), typeof(resolution), edge_type, resolution FROM edges").raw().get()).toEqual(["integer", "integer", 0, 1]);
    } finally {
      store.close();
    }
  });
});
