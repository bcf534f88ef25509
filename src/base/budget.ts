// The answer cap every tool answer stays under (an MCP client drops a message over 10 MiB, and no
// agent's context holds even 4 MiB), and the one way a list is cut to a count and a byte budget:
// the items that fit, in order, and how many were left out — so no cap is ever silent. An MCP
// answer carries its JSON twice, as structuredContent and as the text copy (a JSON string, every
// quote and backslash escaped again), so the budgets count both.

/** The largest answer any tool gives, in bytes of its JSON. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** The largest answer in message bytes (both copies): 1 MiB under the SDK client's 10 MiB read limit. */
export const MAX_MESSAGE_BYTES = 9 * 1024 * 1024;

/** A list's budget in message bytes: at most 64 KiB under the answer cap of JSON, less when quotes and backslashes abound. */
export const LIST_BUDGET_BYTES = 2 * (MAX_ANSWER_BYTES - 64 * 1024);

/** Bytes of an answer's JSON in an MCP message: itself, and itself as an escaped JSON string. */
export function messageBytes(json: string): number {
  return Buffer.byteLength(json, "utf8") + Buffer.byteLength(JSON.stringify(json), "utf8");
}

/** Message bytes of a value in an answer (the quotes of its escaped copy stand for the commas around it). */
export function wireBytes(value: unknown): number {
  return messageBytes(JSON.stringify(value) ?? "");
}

/** The first items of `items` within `limit` and `maxBytes` of message bytes; `omitted` counts the rest. */
export function fitList<T>(items: readonly T[], limit: number, maxBytes = LIST_BUDGET_BYTES): { items: T[]; omitted: number } {
  const out: T[] = [];
  let bytes = 4;
  for (const item of items) {
    if (out.length >= limit) break;
    const size = wireBytes(item);
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
