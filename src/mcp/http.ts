// `mast serve --http`: the MCP SDK's streamable HTTP transport on node:http, at `/mcp`. Each
// client's initialize opens a session with its own transport and Server (made by the caller);
// requests carry the session id. Sessions are bounded: closed after an idle time (no request or
// stream open) and capped in number (a new one closes the longest idle, or is refused with 503).
// Loopback by default, with the SDK's DNS-rebinding check on the Host header and a browser Origin
// other than loopback (or the --host) refused; an optional bearer token (MAST_HTTP_TOKEN, 16
// characters or more) is required of every request when set, compared in constant time, and never
// logged. The only importer of the SDK's HTTP transport.
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { MastError } from "../base/errors.js";
import { MAX_REQUEST_BYTES, requestTooLarge } from "./stdio.js";

/** What a session needs of the MCP Server the caller makes for it. */
interface SessionServer {
  connect(transport: StreamableHTTPServerTransport): Promise<void>;
  close(): Promise<void>;
}

export interface HttpOptions {
  readonly host: string;
  /** 0 picks a free port (the log line says which). */
  readonly port: number;
  /** Required as `Authorization: Bearer <token>` when set. */
  readonly token?: string;
  /** A session with no request or stream open for this long is closed. */
  readonly idleMs: number;
  /** Sessions open at once. */
  readonly maxSessions: number;
}

const MIN_TOKEN_CHARS = 16;

interface Session {
  readonly transport: StreamableHTTPServerTransport;
  readonly server: SessionServer;
  /** Requests and streams of the session not yet closed. */
  open: number;
  /** When the last of them closed. */
  idleSince: number;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function jsonError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, data?: Record<string, unknown>): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: status === 404 ? -32001 : -32000, message, ...(data ? { data } : {}) }, id: null }));
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        // Stop keeping the body but let it drain, so the 413 reaches the client (a destroyed socket would only reset it).
        req.removeAllListeners("data");
        req.resume();
        resolve(null);
        return;
      }
      parts.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(parts)));
    req.on("error", reject);
  });
}

function authorized(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(header);
  if (!m) return false;
  const given = Buffer.from(m[1]!.trim());
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

const isInitialize = (body: unknown) => typeof body === "object" && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === "initialize";

/** A browser's Origin names a loopback host or the --host (no Origin: not a browser). */
function originAllowed(origin: string | undefined, host: string): boolean {
  if (origin === undefined) return true;
  try {
    const name = new URL(origin).hostname.replace(/^\[(.*)\]$/, "$1");
    return isLoopback(name) || name === host;
  } catch {
    return false;
  }
}

/** The options' refusals, before anything starts: a network address without a token, a token too short to be a secret. */
export function checkHttpOptions(options: HttpOptions): void {
  if (!isLoopback(options.host) && !options.token) {
    throw new MastError("INVALID_ARGUMENT", `--host ${options.host} would serve this project's code to the network without a token`, {
      hint: "Set MAST_HTTP_TOKEN to a secret (clients send it as `Authorization: Bearer …`), or keep the default --host 127.0.0.1.",
    });
  }
  if (options.token !== undefined && options.token.length < MIN_TOKEN_CHARS) {
    throw new MastError("INVALID_ARGUMENT", `MAST_HTTP_TOKEN is ${options.token.length} characters; a bearer token needs at least ${MIN_TOKEN_CHARS}`, {
      hint: "Set MAST_HTTP_TOKEN to a random secret (e.g. the output of `openssl rand -hex 32`), or unset it to serve loopback only without a token.",
    });
  }
}

/** The open sessions by id: each closed after `idleMs` with no request or stream open, or to make room for a new one. */
class SessionPool {
  private readonly sessions = new Map<string, Session>();
  private readonly expiry: NodeJS.Timeout;

  constructor(
    private readonly idleMs: number,
    readonly maxSessions: number,
  ) {
    this.expiry = setInterval(() => this.expire(), Math.min(60_000, Math.max(50, idleMs / 4)));
    this.expiry.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  get(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  /** Adds a session, let go when its transport closes. */
  add(id: string, session: Session): void {
    this.sessions.set(id, session);
    session.transport.onclose = () => this.sessions.delete(id);
  }

  close(id: string, session: Session): void {
    this.sessions.delete(id);
    void session.server.close().catch(() => undefined);
  }

  /** Whether a new session fits: when the pool is full, the session idle longest is closed; false when every session has a request or stream open. */
  makeRoom(): boolean {
    if (this.sessions.size < this.maxSessions) return true;
    let idlest: [string, Session] | undefined;
    for (const entry of this.sessions) if (entry[1].open === 0 && (idlest === undefined || entry[1].idleSince < idlest[1].idleSince)) idlest = entry;
    if (idlest) this.close(...idlest);
    return idlest !== undefined;
  }

  async closeAll(): Promise<void> {
    clearInterval(this.expiry);
    for (const s of this.sessions.values()) await s.server.close().catch(() => undefined);
    this.sessions.clear();
  }

  private expire(): void {
    const now = Date.now();
    for (const [id, session] of this.sessions) if (session.open === 0 && now - session.idleSince >= this.idleMs) this.close(id, session);
  }
}

/** What serving a request needs: the options, the sessions, the caller's Server maker and the Host headers the DNS-rebinding check allows (known once listening). */
interface Endpoint {
  readonly options: HttpOptions;
  readonly pool: SessionPool;
  readonly makeServer: () => SessionServer;
  allowedHosts: string[];
}

/** How long an idle HTTP connection is kept open, ms. */
const KEEP_ALIVE_MS = 65_000;

export async function serveHttp(makeServer: () => SessionServer, options: HttpOptions): Promise<{ url: string; close(): Promise<void> }> {
  checkHttpOptions(options);
  const endpoint: Endpoint = { options, pool: new SessionPool(options.idleMs, options.maxSessions), makeServer, allowedHosts: [] };
  const http = createServer((req, res) => {
    handle(endpoint, req, res).catch((err: unknown) => jsonError(res, 500, err instanceof Error ? err.message : String(err)));
  });
  // An idle connection is left for the client to close: Node's 5 s default races clients that keep
  // one for 4 s (undici, the SDK's fetch), and a server slowed by a busy machine closed sockets
  // clients were sending on (ECONNRESET).
  http.keepAliveTimeout = KEEP_ALIVE_MS;
  http.headersTimeout = KEEP_ALIVE_MS + 1_000;
  await listen(http, options);
  const port = (http.address() as AddressInfo).port;
  endpoint.allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${options.host}:${port}`];
  const hostPart = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostPart}:${port}/mcp`,
    async close() {
      await endpoint.pool.closeAll();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

function listen(http: Server, options: HttpOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    http.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new MastError("INVALID_ARGUMENT", `cannot listen on ${options.host}:${options.port}: ${err.code ?? err.message}`, {
          hint: err.code === "EADDRINUSE" ? "Another process has the port: pick another with --port." : "Check --host and --port.",
        }),
      ),
    );
    http.listen(options.port, options.host, () => resolve());
  });
}

/** One request: refused at the door, or read and handed to its session's transport (a new session for an initialize). */
async function handle(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!admitted(req, res, endpoint.options)) return;
  let body: unknown;
  if (req.method === "POST") {
    const read = await readJson(req, res);
    if (read === null) return;
    body = read.body;
  }
  const found = await sessionFor(endpoint, req, res, body);
  if (found === null) return;
  const { session, opened } = found;
  session.open++;
  res.once("close", () => {
    session.open--;
    session.idleSince = Date.now();
  });
  await session.transport.handleRequest(req, res, body);
  // An initialize the transport refused opened no session.
  if (opened !== undefined && session.transport.sessionId === undefined) endpoint.pool.close(opened, session);
}

/** Whether the request may be served: at /mcp, from no browser Origin but this server's, with the token when one is set; if not, it is answered. */
function admitted(req: IncomingMessage, res: ServerResponse, options: HttpOptions): boolean {
  const path = (req.url ?? "/").split("?")[0];
  if (path !== "/mcp") {
    jsonError(res, 404, "not found: the MCP endpoint is /mcp");
    return false;
  }
  const origin = req.headers.origin;
  if (!originAllowed(origin, options.host)) {
    jsonError(res, 403, `forbidden: Origin ${origin} is not this server's (loopback or ${options.host})`);
    return false;
  }
  if (options.token && !authorized(req, options.token)) {
    jsonError(res, 401, "unauthorized: send Authorization: Bearer <token>", { "www-authenticate": 'Bearer realm="mast"' });
    return false;
  }
  return true;
}

/** A POST's body as JSON; null once a body too large or not JSON is answered. */
async function readJson(req: IncomingMessage, res: ServerResponse): Promise<{ body: unknown } | null> {
  const raw = await readBody(req);
  if (raw === null) {
    const err = requestTooLarge(null);
    jsonError(res, 413, err.message, {}, { code: err.code, hint: err.hint, ...err.details });
    return null;
  }
  try {
    return { body: JSON.parse(raw.toString("utf8")) };
  } catch {
    jsonError(res, 400, "the request body is not JSON");
    return null;
  }
}

/** The session the request names, or one opened for an initialize (`opened`, its id); null once the request is refused. */
async function sessionFor(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<{ session: Session; opened?: string } | null> {
  const { pool, options } = endpoint;
  const sid = req.headers["mcp-session-id"];
  const id = Array.isArray(sid) ? sid[0] : sid;
  const session = id === undefined ? undefined : pool.get(id);
  if (session) return { session };
  if (id !== undefined) {
    jsonError(res, 404, "session not found: initialize again");
    return null;
  }
  if (req.method !== "POST" || !isInitialize(body)) {
    jsonError(res, 400, "no session: the first request must be initialize");
    return null;
  }
  if (!pool.makeRoom()) {
    jsonError(res, 503, `${pool.size} sessions are open and none is idle (--max-sessions ${pool.maxSessions}): close one (DELETE /mcp with its Mcp-Session-Id) or retry later`, {
      "retry-after": "5",
    });
    return null;
  }
  const newId = randomUUID();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => newId,
    ...(isLoopback(options.host) ? { enableDnsRebindingProtection: true, allowedHosts: endpoint.allowedHosts } : {}),
  });
  const opened: Session = { transport, server: endpoint.makeServer(), open: 0, idleSince: Date.now() };
  pool.add(newId, opened);
  await opened.server.connect(transport);
  return { session: opened, opened: newId };
}
