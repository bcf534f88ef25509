// `mast structural serve`: the structural index's remote provider — the five operations over HTTP
// (`POST /v1/<operation>` with the JSON arguments; `GET /v1/health`), answered by query.ts over the
// local build or a PostgreSQL store's (structural/store.ts), so a consumer with
// MANTIS_STRUCTURAL_INDEX_URL set gets exactly what a query of that build gives. Loopback unless
// told otherwise; bodies over 1 MiB are refused.
import { createServer, type Server } from "node:http";
import { isMastError, errorMessage, ERROR_CODES } from "../base/errors.js";
import { isStructuralOperation } from "./query.js";

const MAX_BODY = 1024 * 1024;

/** A server answering each operation with `answer` (query.ts's queryLocal over a layout, or structural/store.ts's queryStore). */
export function structuralServer(answer: (op: string, args: unknown) => Record<string, unknown>): Server {
  return createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
      res.end(text);
    };
    const url = new URL(req.url ?? "/", "http://localhost");
    const match = /^\/v1\/([a-z_]+)$/.exec(url.pathname);
    if (req.method === "GET" && url.pathname === "/v1/health") return send(200, { ok: true });
    if (!match || !isStructuralOperation(match[1]!))
      return send(404, {
        error: { code: "INVALID_ARGUMENT", message: `no operation at ${url.pathname}`, hint: "POST /v1/<resolve_symbol|find_callers|find_callees|get_function_boundary|get_coverage>" },
      });
    if (req.method !== "POST") return send(405, { error: { code: "INVALID_ARGUMENT", message: "operations are POSTed", hint: "POST the JSON arguments." } });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        send(413, { error: { code: "INVALID_ARGUMENT", message: "the arguments are over 1 MiB", hint: ERROR_CODES.INVALID_ARGUMENT } });
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => {
      if (size > MAX_BODY) return;
      let args: unknown;
      try {
        args = chunks.length === 0 ? {} : JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch (err) {
        return send(400, { error: { code: "INVALID_ARGUMENT", message: `the arguments are not JSON: ${errorMessage(err)}`, hint: ERROR_CODES.INVALID_ARGUMENT } });
      }
      try {
        send(200, answer(match[1]!, args));
      } catch (err) {
        if (isMastError(err)) send(err.code === "INVALID_ARGUMENT" ? 400 : 500, { error: { code: err.code, message: err.message, hint: err.hint } });
        else send(500, { error: { code: "READ_FAILED", message: errorMessage(err), hint: ERROR_CODES.READ_FAILED } });
      }
    });
  });
}
