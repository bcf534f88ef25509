// Worker-thread entry of grep-many's search (edit/grep.ts): runs one search and exits; the
// thread that started it watches the shared progress and terminates it when it stalls or runs
// out of time.
import { parentPort, workerData } from "node:worker_threads";
import { workerSearch, type GrepRequest } from "./grep.js";

const { req, shared } = workerData as { req: GrepRequest; shared: SharedArrayBuffer };
workerSearch(req, shared, (msg) => parentPort!.postMessage(msg));
