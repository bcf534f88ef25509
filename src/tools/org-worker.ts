// Worker-thread entry of tools/org-threads.ts: answers the store server's calls one at a time over
// the replicas each names, with the tool contexts this thread keeps (tools/org.ts OrgContexts).
import { parentPort } from "node:worker_threads";
import { errorData } from "../base/errors.js";
import { OrgContexts } from "./org.js";
import type { OrgThreadReply, OrgThreadRequest } from "./org-threads.js";

const port = parentPort!;
const contexts = new OrgContexts();

port.on("message", (request: OrgThreadRequest) => {
  const reply = (r: OrgThreadReply) => port.postMessage(r);
  if (request.type === "close") {
    contexts.close(request.dirs);
    reply({ id: request.id, ok: true, value: null });
    return;
  }
  const work = request.type === "outcomes" ? contexts.outcomes(request.replicas, request.name, request.rest) : contexts.answer(request.replicas, request.name, request.args, request.plan);
  work.then(
    (value) => reply({ id: request.id, ok: true, value }),
    (err: unknown) => reply({ id: request.id, ok: false, error: errorData(err) }),
  );
});
