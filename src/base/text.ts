// Turning file bytes into indexable text: binary detection (a NUL byte, as git and ripgrep do),
// UTF-8 decoding with replacement characters, BOM removal, and line arithmetic.

export type Decoded = { kind: "text"; text: string } | { kind: "binary" };

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });

/** Decodes file bytes; a NUL byte anywhere marks the file binary. Invalid UTF-8 becomes U+FFFD. */
export function decodeSource(bytes: Uint8Array): Decoded {
  if (bytes.indexOf(0) !== -1) return { kind: "binary" };
  return { kind: "text", text: decoder.decode(bytes) };
}

/** Start offsets (UTF-16 code units) of every line; lines split on \n (a \r before it stays in the line). */
export function lineStarts(text: string): number[] {
  const starts = [0];
  let i = text.indexOf("\n");
  while (i !== -1) {
    starts.push(i + 1);
    i = text.indexOf("\n", i + 1);
  }
  return starts;
}

/** Number of lines as editors count them: a trailing newline does not open a new line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  let i = text.indexOf("\n");
  while (i !== -1) {
    if (i < text.length - 1) n++;
    i = text.indexOf("\n", i + 1);
  }
  return n;
}
