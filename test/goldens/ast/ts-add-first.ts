import * as os from "node:os";

export function f() {
  return 1;
}
