// The answer cap every tool answer stays under (an MCP client drops a message over 10 MB, and no
// agent's context holds even 4 MiB), and the one way a list is cut to a count and a byte budget:
// the items that fit, in order, and how many were left out — so no cap is ever silent.

/** The largest answer any tool gives, in bytes of its JSON. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** Room kept under the cap for the answer's other fields when a list is budgeted. */
export const LIST_BUDGET_BYTES = MAX_ANSWER_BYTES - 64 * 1024;

/** Bytes of a value as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}

/** The first items of `items` within `limit` and `maxBytes` of JSON; `omitted` counts the rest. */
export function fitList<T>(items: readonly T[], limit: number, maxBytes = LIST_BUDGET_BYTES): { items: T[]; omitted: number } {
  const out: T[] = [];
  let bytes = 2;
  for (const item of items) {
    if (out.length >= limit) break;
    const size = jsonBytes(item) + 1;
    if (bytes + size > maxBytes) break;
    bytes += size;
    out.push(item);
  }
  return { items: out, omitted: items.length - out.length };
}

/** What an object answer says of a cut list: nothing when nothing was left out, else `truncated` and `omitted`. */
export function cutMarks(omitted: number): { truncated?: true; omitted?: number } {
  return omitted > 0 ? { truncated: true, omitted } : {};
}
