// The stdio transport of `mast serve` and the request limit of both transports. Newline-delimited
// JSON-RPC on stdin and stdout as the SDK's StdioServerTransport speaks it, except that a line
// over MAX_REQUEST_BYTES is dropped as it arrives and answered with a JSON-RPC error (to its id,
// when the line's ends show it): the SDK's transport closes the connection instead, ending the server.
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { MastError } from "../base/errors.js";

type JSONRPCMessage = Parameters<Transport["send"]>[0];
type RequestId = string | number;

/** A request (a stdio line, an HTTP body) past this is refused; the SDK's stdio reader gives up at 10 MiB. */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/** Bytes kept of each end of a refused line: where a request's id is written. */
const END_BYTES = 1024;

/** JSON-RPC's "Invalid Request". */
const INVALID_REQUEST = -32600;

/** REQUEST_TOO_LARGE for a request of `bytes` (null: not read to its end). */
export function requestTooLarge(bytes: number | null): MastError {
  const size = bytes === null ? "a request" : `a request of ${bytes} bytes`;
  return new MastError("REQUEST_TOO_LARGE", `${size} is over the ${MAX_REQUEST_BYTES}-byte request limit`, { details: { limit: MAX_REQUEST_BYTES, ...(bytes === null ? {} : { bytes }) } });
}

const ID = String.raw`"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")`;
const ID_FIRST = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?${ID}\s*,`);
const ID_LAST = new RegExp(String.raw`,\s*${ID}\s*\}\s*$`);

/**
 * The id of a JSON-RPC message from the start (`{"jsonrpc":"2.0","id":7,…`) or the end
 * (`…,"id":7}`, where the SDK's client writes it) of its text, or undefined.
 */
export function requestIdOf(head: string, tail: string): RequestId | undefined {
  const m = ID_FIRST.exec(head) ?? ID_LAST.exec(tail);
  if (!m) return undefined;
  try {
    return JSON.parse(m[1]!) as RequestId;
  } catch {
    return undefined;
  }
}

export class LimitedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The pieces of the line being read while it is within the limit. */
  private parts: Buffer[] = [];
  private size = 0;
  /** The ends of a line past the limit, kept while the rest of it is dropped. */
  private over: { head: Buffer; tail: Buffer } | null = null;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {}

  private readonly ondata = (chunk: Buffer): void => {
    for (let start = 0; ; ) {
      const nl = chunk.indexOf(10, start);
      this.take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  };

  private readonly onStreamError = (error: Error): void => this.onerror?.(error);

  async start(): Promise<void> {
    this.stdin.on("data", this.ondata);
    this.stdin.on("error", this.onStreamError);
  }

  private take(piece: Buffer): void {
    this.size += piece.length;
    if (this.over === null && this.size <= MAX_REQUEST_BYTES) {
      this.parts.push(piece);
      return;
    }
    const held = this.over === null ? Buffer.concat([...this.parts, piece]) : Buffer.concat([this.over.tail, piece.subarray(-END_BYTES)]);
    this.over = { head: this.over?.head ?? Buffer.from(held.subarray(0, END_BYTES)), tail: Buffer.from(held.subarray(-END_BYTES)) };
    this.parts = [];
  }

  private endLine(): void {
    const { parts, size, over } = this;
    this.parts = [];
    this.size = 0;
    this.over = null;
    if (over !== null) {
      this.refuse(size, over);
      return;
    }
    try {
      this.onmessage?.(deserializeMessage(Buffer.concat(parts).toString("utf8").replace(/\r$/, "")));
    } catch (error) {
      this.onerror?.(error as Error);
    }
  }

  /** A line over the limit: an Invalid Request error, to its id when its ends show one. */
  private refuse(bytes: number, { head, tail }: { head: Buffer; tail: Buffer }): void {
    const err = requestTooLarge(bytes);
    this.onerror?.(err);
    const id = requestIdOf(head.toString("utf8"), tail.toString("utf8"));
    void this.send({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: { code: INVALID_REQUEST, message: err.message, data: { code: err.code, hint: err.hint, ...err.details } } });
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.ondata);
    this.stdin.off("error", this.onStreamError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.parts = [];
    this.over = null;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}
