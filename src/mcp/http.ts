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
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
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

export async function serveHttp(makeServer: () => SessionServer, options: HttpOptions): Promise<{ url: string; close(): Promise<void> }> {
  checkHttpOptions(options);
  const { idleMs, maxSessions } = options;
  const sessions = new Map<string, Session>();
  let allowedHosts: string[] = [];

  const closeSession = (id: string, session: Session): void => {
    sessions.delete(id);
    void session.server.close().catch(() => undefined);
  };
  /** Closes the session idle longest; false when every session has a request or stream open. */
  const closeIdlest = (): boolean => {
    let idlest: [string, Session] | undefined;
    for (const entry of sessions) if (entry[1].open === 0 && (idlest === undefined || entry[1].idleSince < idlest[1].idleSince)) idlest = entry;
    if (idlest) closeSession(...idlest);
    return idlest !== undefined;
  };
  const expiry = setInterval(
    () => {
      const now = Date.now();
      for (const [id, session] of sessions) if (session.open === 0 && now - session.idleSince >= idleMs) closeSession(id, session);
    },
    Math.min(60_000, Math.max(50, idleMs / 4)),
  );
  expiry.unref();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/mcp") return jsonError(res, 404, "not found: the MCP endpoint is /mcp");
    const origin = req.headers.origin;
    if (!originAllowed(origin, options.host)) return jsonError(res, 403, `forbidden: Origin ${origin} is not this server's (loopback or ${options.host})`);
    if (options.token && !authorized(req, options.token)) return jsonError(res, 401, "unauthorized: send Authorization: Bearer <token>", { "www-authenticate": 'Bearer realm="mast"' });
    let body: unknown;
    if (req.method === "POST") {
      const raw = await readBody(req);
      if (raw === null) {
        const err = requestTooLarge(null);
        return jsonError(res, 413, err.message, {}, { code: err.code, hint: err.hint, ...err.details });
      }
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return jsonError(res, 400, "the request body is not JSON");
      }
    }
    const sid = req.headers["mcp-session-id"];
    const id = Array.isArray(sid) ? sid[0] : sid;
    let session = id === undefined ? undefined : sessions.get(id);
    let opened: string | undefined;
    if (!session) {
      if (id !== undefined) return jsonError(res, 404, "session not found: initialize again");
      if (req.method !== "POST" || !isInitialize(body)) return jsonError(res, 400, "no session: the first request must be initialize");
      if (sessions.size >= maxSessions && !closeIdlest()) {
        return jsonError(res, 503, `${sessions.size} sessions are open and none is idle (--max-sessions ${maxSessions}): close one (DELETE /mcp with its Mcp-Session-Id) or retry later`, {
          "retry-after": "5",
        });
      }
      const newId = randomUUID();
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => newId,
        ...(isLoopback(options.host) ? { enableDnsRebindingProtection: true, allowedHosts } : {}),
      });
      session = { transport, server: makeServer(), open: 0, idleSince: Date.now() };
      sessions.set(newId, session);
      transport.onclose = () => sessions.delete(newId);
      await session.server.connect(transport);
      opened = newId;
    }
    const current = session;
    current.open++;
    res.once("close", () => {
      current.open--;
      current.idleSince = Date.now();
    });
    await current.transport.handleRequest(req, res, body);
    // An initialize the transport refused opened no session.
    if (opened !== undefined && current.transport.sessionId === undefined) closeSession(opened, current);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => jsonError(res, 500, err instanceof Error ? err.message : String(err)));
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new MastError("INVALID_ARGUMENT", `cannot listen on ${options.host}:${options.port}: ${err.code ?? err.message}`, {
          hint: err.code === "EADDRINUSE" ? "Another process has the port: pick another with --port." : "Check --host and --port.",
        }),
      ),
    );
    http.listen(options.port, options.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${options.host}:${port}`];
  const hostPart = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostPart}:${port}/mcp`,
    async close() {
      clearInterval(expiry);
      for (const s of sessions.values()) await s.server.close().catch(() => undefined);
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
