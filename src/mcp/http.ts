// `mast serve --http`: the MCP SDK's streamable HTTP transport on node:http, at `/mcp`. Each
// client's initialize opens a session with its own transport and Server (made by the caller);
// requests carry the session id the SDK issued. Loopback by default, with the SDK's DNS-rebinding
// check on the Host header; an optional bearer token (MAST_HTTP_TOKEN) is required of every
// request when set, compared in constant time, and never logged. The only importer of the SDK's
// HTTP transport.
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { randomUUID, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { MastError } from "../base/errors.js";

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
}

/** A request body past this is refused with 413 (a tool's arguments are far smaller). */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function jsonError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: status === 404 ? -32001 : -32000, message }, id: null }));
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
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

export async function serveHttp(makeServer: () => SessionServer, options: HttpOptions): Promise<{ url: string; close(): Promise<void> }> {
  if (!isLoopback(options.host) && !options.token) {
    throw new MastError("INVALID_ARGUMENT", `--host ${options.host} would serve this project's code to the network without a token`, {
      hint: "Set MAST_HTTP_TOKEN to a secret (clients send it as `Authorization: Bearer …`), or keep the default --host 127.0.0.1.",
    });
  }
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: SessionServer }>();
  let allowedHosts: string[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/mcp") return jsonError(res, 404, "not found: the MCP endpoint is /mcp");
    if (options.token && !authorized(req, options.token)) return jsonError(res, 401, "unauthorized: send Authorization: Bearer <token>", { "www-authenticate": 'Bearer realm="mast"' });
    let body: unknown;
    if (req.method === "POST") {
      const raw = await readBody(req);
      if (raw === null) return jsonError(res, 413, `request body over ${MAX_BODY_BYTES} bytes`);
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return jsonError(res, 400, "the request body is not JSON");
      }
    }
    const sid = req.headers["mcp-session-id"];
    const id = Array.isArray(sid) ? sid[0] : sid;
    let session = id === undefined ? undefined : sessions.get(id);
    if (!session) {
      if (id !== undefined) return jsonError(res, 404, "session not found: initialize again");
      if (req.method !== "POST" || !isInitialize(body)) return jsonError(res, 400, "no session: the first request must be initialize");
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (newId) => {
          sessions.set(newId, made);
        },
        ...(isLoopback(options.host) ? { enableDnsRebindingProtection: true, allowedHosts } : {}),
      });
      const server = makeServer();
      const made = { transport, server };
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      session = made;
    }
    await session.transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => jsonError(res, 500, err instanceof Error ? err.message : String(err)));
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", (err: NodeJS.ErrnoException) =>
      reject(new MastError("INVALID_ARGUMENT", `cannot listen on ${options.host}:${options.port}: ${err.code ?? err.message}`, { hint: err.code === "EADDRINUSE" ? "Another process has the port: pick another with --port." : "Check --host and --port." })),
    );
    http.listen(options.port, options.host, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${options.host}:${port}`];
  const hostPart = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${hostPart}:${port}/mcp`,
    async close() {
      for (const s of sessions.values()) await s.server.close().catch(() => undefined);
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
