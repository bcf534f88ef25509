// The running server's local socket: `mast query` asks a `mast serve` of the same project and
// state dir instead of loading the tools and opening the index itself (its caches are warm: one
// call costs the CLI's start and the answer, not a cold index). The server listens on
// `<state dir>/serve.sock` (mode 0600) and writes a random token to `serve.token` (0600); a client
// sends the token, so only a user who can read the state dir is answered. One request per
// connection, in JSON lines:
//   → {"v":1,"version","token","root","state_dir","tool","arguments"}
//   ← {"accepted":true} (or {"unavailable"}), → {"go":true},
//   ← {"text"} (the tool's answer, as an MCP client gets it) | {"failure","usage"}
// A server that does not accept within ACCEPT_TIMEOUT_MS (stopped, its loop blocked) is passed
// over, and the call runs only after the CLI's go: it never runs both in the server and in-process.
// Once it runs, the CLI waits for the answer.
// "unavailable" (another version, project or state dir, a tool the server does not offer, a wrong
// token) sends the CLI to answer in-process, as it does when no server listens. POSIX only (a
// Windows pipe's default ACL is not the user's alone); a socket path past the system's limit is
// not used. Two servers on one state dir: the first keeps the socket, the second serves without it.
import { chmodSync, closeSync, lstatSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { MastError, errorMessage } from "../base/errors.js";
import { randomHex } from "../base/hash.js";
import type { ToolFailure } from "../tools/envelope.js";

export const SOCKET_FILE = "serve.sock";
export const TOKEN_FILE = "serve.token";
const PROTOCOL = 1;
/** A request line past this is refused (a query's arguments are small; edits carry file text). */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** sun_path is 108 bytes on Linux, 104 on macOS (with its NUL). */
const MAX_SOCKET_PATH = process.platform === "linux" ? 107 : 103;
/** A connection to a socket no server holds fails at once; one that does not answer its connect in this long is not used. */
const CONNECT_TIMEOUT_MS = 1_000;
/** A connection that has not sent its request line in this long is closed by the server. */
const REQUEST_TIMEOUT_MS = 10_000;
/** How long the CLI waits for the server to take its request before it answers in-process. */
const ACCEPT_TIMEOUT_MS = 2_000;

export interface LocalRequest {
  readonly tool: string;
  readonly arguments: unknown;
}

/** What the server answers: the answer's text, or the failure an MCP client gets, or "ask elsewhere". */
export type LocalReply = { readonly text: string } | { readonly failure: ToolFailure; readonly usage: boolean } | { readonly unavailable: string };

export interface LocalEndpoint {
  readonly root: string;
  readonly stateDir: string;
  readonly version: string;
}

/** The socket's path, or null where no socket is used (Windows, a state dir path too long). */
export function socketPath(stateDir: string): string | null {
  if (process.platform === "win32") return null;
  const path = join(stateDir, SOCKET_FILE);
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH ? path : null;
}

/** The newline-ended lines (each at most MAX_LINE_BYTES) a socket sends, one `next()` at a time; rejects at the end of the stream or an error. */
function lineReader(socket: Socket): { next(): Promise<string> } {
  const lines: string[] = [];
  let parts: Buffer[] = [];
  let size = 0;
  let failure: Error | null = null;
  let waiting: { resolve: (line: string) => void; reject: (err: Error) => void } | null = null;
  const settle = () => {
    if (waiting === null) return;
    const w = waiting;
    if (lines.length > 0) {
      waiting = null;
      w.resolve(lines.shift()!);
    } else if (failure !== null) {
      waiting = null;
      w.reject(failure);
    }
  };
  socket.on("data", (chunk: Buffer) => {
    for (let start = 0; ; ) {
      const nl = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      parts.push(piece);
      size += piece.length;
      if (size > MAX_LINE_BYTES) {
        failure ??= new Error(`a line over ${MAX_LINE_BYTES} bytes`);
        socket.destroy();
        break;
      }
      if (nl === -1) break;
      lines.push(Buffer.concat(parts).toString("utf8"));
      parts = [];
      size = 0;
      start = nl + 1;
    }
    settle();
  });
  socket.on("close", () => {
    failure ??= new Error("the connection closed before a whole line");
    settle();
  });
  socket.on("error", (err) => {
    failure ??= err;
    settle();
  });
  return {
    next: () =>
      new Promise<string>((resolve, reject) => {
        waiting = { resolve, reject };
        settle();
      }),
  };
}

/** True when `path` is a socket (not a symlink) owned by this user. */
function ownSocket(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isSocket() && (process.getuid === undefined || st.uid === process.getuid());
  } catch {
    return false;
  }
}

/** Whether `path` is a socket no server listens on (a killed server's): this user's, and refusing connections. */
function stale(path: string): Promise<boolean> {
  if (!ownSocket(path)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.end(`${JSON.stringify({ v: PROTOCOL, probe: true })}\n`);
      resolve(false);
    });
    socket.once("error", (err: NodeJS.ErrnoException) => resolve(err.code === "ECONNREFUSED"));
  });
}

/** The inode of `path`, or null. */
function inodeOf(path: string): number | null {
  try {
    return lstatSync(path).ino;
  } catch {
    return null;
  }
}

/** Removes `path` if it is still the file with inode `ino` (never another server's). */
function unlinkIfSame(path: string, ino: number | null): void {
  if (ino !== null && inodeOf(path) === ino) {
    try {
      unlinkSync(path);
    } catch {
      // Gone already.
    }
  }
}

export interface LocalListener {
  close(): Promise<void>;
}

/**
 * Listens on the state dir's socket for `mast query` calls, answered by `answer`; null when no
 * socket is used (see `socketPath`) or another live server holds it. Never throws: a socket that
 * cannot be made is logged and the server serves without it.
 */
export async function listenLocal(endpoint: LocalEndpoint, answer: (request: LocalRequest) => Promise<LocalReply>, log: (line: string) => void): Promise<LocalListener | null> {
  const path = socketPath(endpoint.stateDir);
  if (path === null) return null;
  const tokenPath = join(endpoint.stateDir, TOKEN_FILE);
  try {
    if (inodeOf(path) !== null) {
      // Only a killed server's socket is taken over; another live server keeps it (and anything else is left alone).
      if (!(await stale(path))) return null;
      unlinkSync(path);
    }
    const token = randomHex(32);
    // Open connections, closed with the server (one that never sends its line must not hold its exit).
    const open = new Set<Socket>();
    const server: Server = createServer((socket) => {
      open.add(socket);
      socket.once("close", () => open.delete(socket));
      socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
      void serveConnection(socket, endpoint, token, answer, log);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(path, () => {
        server.off("error", reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    const socketIno = inodeOf(path);
    // The token file is made anew (never written through whatever had its name) and readable by this user only.
    try {
      unlinkSync(tokenPath);
    } catch {
      // None yet.
    }
    const fd = openSync(tokenPath, "wx", 0o600);
    try {
      writeSync(fd, token);
    } finally {
      closeSync(fd);
    }
    const tokenIno = inodeOf(tokenPath);
    server.on("error", (err) => log(`mast serve: local socket: ${errorMessage(err)}`));
    return {
      close: () =>
        new Promise<void>((resolve) => {
          unlinkIfSame(tokenPath, tokenIno);
          unlinkIfSame(path, socketIno);
          server.close(() => resolve());
          for (const socket of open) socket.destroy();
        }),
    };
  } catch (err) {
    log(`mast serve: no local socket for \`mast query\` (${errorMessage(err)}); it answers in its own process`);
    return null;
  }
}

async function serveConnection(socket: Socket, endpoint: LocalEndpoint, token: string, answer: (request: LocalRequest) => Promise<LocalReply>, log: (line: string) => void): Promise<void> {
  socket.on("error", () => undefined);
  let reply: LocalReply;
  try {
    const lines = lineReader(socket);
    const request = JSON.parse(await lines.next()) as Record<string, unknown>;
    // Another server's check that this one is alive: nothing to answer.
    if (request.probe === true) return void socket.end();
    if (request.v !== PROTOCOL || request.version !== endpoint.version) reply = { unavailable: `the server runs mast ${endpoint.version}` };
    else if (request.token !== token) reply = { unavailable: "wrong token" };
    else if (request.root !== endpoint.root || request.state_dir !== endpoint.stateDir) reply = { unavailable: `the server serves ${endpoint.root} (${endpoint.stateDir})` };
    else if (typeof request.tool !== "string") reply = { unavailable: "no tool named" };
    else {
      // The call runs only once the CLI says go: a CLI that stopped waiting for the accept has answered in-process.
      socket.write(`${JSON.stringify({ accepted: true })}\n`);
      if ((JSON.parse(await lines.next()) as { go?: unknown }).go !== true) return void socket.destroy();
      // The call may take longer than a request line may.
      socket.setTimeout(0);
      reply = await answer({ tool: request.tool, arguments: request.arguments ?? {} });
    }
  } catch (err) {
    log(`mast serve: local socket: a request not read: ${errorMessage(err)}`);
    socket.destroy();
    return;
  }
  socket.end(`${JSON.stringify(reply)}\n`);
}

/**
 * Asks the server running on `endpoint`'s state dir to run one tool. Null when none can be asked
 * (no socket, not this user's, refused, another version, root or state dir, a tool it does not
 * offer): the caller answers in-process. A server that took the request and then closed without
 * a reply throws (the call may have run).
 */
export async function askRunningServer(endpoint: LocalEndpoint, request: LocalRequest): Promise<Exclude<LocalReply, { unavailable: string }> | null> {
  const path = socketPath(endpoint.stateDir);
  if (path === null || !ownSocket(path)) return null;
  let token: string;
  try {
    token = readFileSync(join(endpoint.stateDir, TOKEN_FILE), "utf8").trim();
  } catch {
    return null;
  }
  const line = `${JSON.stringify({ v: PROTOCOL, version: endpoint.version, token, root: endpoint.root, state_dir: endpoint.stateDir, tool: request.tool, arguments: request.arguments })}\n`;
  // A request past the server's line limit is answered in-process (an edit of a large file).
  if (Buffer.byteLength(line) > MAX_LINE_BYTES) return null;
  const socket = await new Promise<Socket | null>((resolve) => {
    const s = connect(path);
    const timer = setTimeout(() => {
      s.destroy();
      resolve(null);
    }, CONNECT_TIMEOUT_MS);
    s.once("connect", () => {
      clearTimeout(timer);
      resolve(s);
    });
    s.once("error", () => {
      clearTimeout(timer);
      resolve(null);
    });
  });
  if (socket === null) return null;
  try {
    socket.write(line);
    // Taken, or passed over before the call starts (refused, or no answer in ACCEPT_TIMEOUT_MS: a stopped server).
    const lines = lineReader(socket);
    const first = await Promise.race([lines.next().catch(() => null), new Promise<null>((resolve) => setTimeout(() => resolve(null), ACCEPT_TIMEOUT_MS).unref())]);
    if (first === null) return null;
    const taken = JSON.parse(first) as LocalReply | { accepted: true };
    if (!("accepted" in taken)) return "unavailable" in taken ? null : taken;
    socket.write(`${JSON.stringify({ go: true })}\n`);
    let answer: string;
    try {
      answer = await lines.next();
    } catch (err) {
      throw new MastError("SERVER_LOST", `the running mast serve (${path}) took the call and closed without an answer: ${errorMessage(err)}`, { cause: err });
    }
    const reply = JSON.parse(answer) as LocalReply;
    return "unavailable" in reply ? null : reply;
  } finally {
    socket.destroy();
  }
}
