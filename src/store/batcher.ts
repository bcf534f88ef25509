// Multi-row INSERTs under SQLite's bound-parameter ceiling, per table and verb: what the Store's
// file rows, derived edges and checker verdicts are written with.
import type { Db, Statement } from "./db.js";

/** SQLite's bound-parameter ceiling (SQLITE_MAX_VARIABLE_NUMBER). */
const MAX_PARAMS = 32_766;

/**
 * Multi-row INSERTs in batches that stay under SQLite's bound-parameter ceiling. Batches have
 * power-of-two row counts, so a handful of prepared statements serve every row count.
 */
class Batcher {
  private readonly maxRows: number;
  private readonly statements = new Map<number, Statement>();

  constructor(
    private readonly db: Db,
    private readonly head: string,
    private readonly width: number,
  ) {
    let rows = 1;
    while (rows * 2 * width <= MAX_PARAMS && rows * 2 <= 256) rows *= 2;
    this.maxRows = rows;
  }

  insert(rows: readonly unknown[][]): void {
    let i = 0;
    while (i < rows.length) {
      let n = this.maxRows;
      while (n > rows.length - i) n >>= 1;
      this.statement(n).run(rows.slice(i, i + n).flat());
      i += n;
    }
  }

  private statement(n: number): Statement {
    let st = this.statements.get(n);
    if (!st) {
      const row = `(${new Array(this.width).fill("?").join(", ")})`;
      st = this.db.prepare(`${this.head} VALUES ${new Array(n).fill(row).join(", ")}`);
      this.statements.set(n, st);
    }
    return st;
  }
}

/** One connection's batchers, one per table and verb (each table is written with one column list per verb): each prepares its statements once. */
export class Batchers {
  private readonly batchers = new Map<string, Batcher>();

  constructor(private readonly db: Db) {}

  get(table: string, columns: readonly string[], verb = "INSERT"): Batcher {
    const key = `${verb} ${table}`;
    let b = this.batchers.get(key);
    if (!b) {
      b = new Batcher(this.db, `${verb} INTO ${table}(${columns.join(", ")})`, columns.length);
      this.batchers.set(key, b);
    }
    return b;
  }
}
