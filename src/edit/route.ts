// Which route an edit takes (docs/editing.md#routes): AST when the file's language
// has edit rules and the operation is an AST operation, hash when the
// operation is hash-anchored, diff otherwise — then the route policy's language and operation
// overrides, with its conflict resolution. Every step is a reason in the explanation.
import { extname } from "node:path";
import { extensionInfo } from "../lang/languages.js";
import { AST_OPERATIONS } from "../lang/edit-rules.js";
import type { Route, RoutePolicy } from "./config.js";

/** The operations route-edit and batch take. */
export const ROUTED_OPERATIONS = ["rename-symbol", "replace-body", "add-import", "remove-import", "insert-before", "insert-after", "replace-hash", "replace-content"] as const;
export type RoutedOperation = (typeof ROUTED_OPERATIONS)[number];

/** Operations the contract routes to AST when the language allows. */
const AST_ROUTED: ReadonlySet<string> = new Set(AST_OPERATIONS);
const HASH_OPERATIONS = new Set(["replace-hash"]);
const ORDER: Record<Route, number> = { diff: 0, hash: 1, ast: 2 };

/** The language key policies use: the grammar's language (tsx apart), else the extension. */
export function languageKey(file: string): string {
  const info = extensionInfo(file);
  if (info?.grammar === "tsx") return "tsx";
  if (info) return info.language;
  return extname(file).slice(1).toLowerCase() || "unknown";
}

export interface RouteExplanation {
  route: Route;
  reasons: string[];
  policyApplied: boolean;
  policySource?: "language" | "operation";
}

export interface RouteData {
  file: string;
  operation: string;
  language: string;
  route: Route;
  explanation: RouteExplanation;
}

export function chooseRoute(file: string, operation: string, policy: RoutePolicy): RouteData {
  const language = languageKey(file);
  const reasons: string[] = [];
  const edits = file.endsWith(".d.ts") ? undefined : extensionInfo(file)?.spec.edits;
  let route: Route;
  if (AST_ROUTED.has(operation) && edits !== undefined) {
    route = "ast";
    reasons.push(`Language '${language}' supports AST operations`);
  } else {
    if (AST_ROUTED.has(operation)) reasons.push(`Language '${language}' has no AST edits in this build`);
    route = HASH_OPERATIONS.has(operation) ? "hash" : "diff";
    reasons.push(route === "hash" ? `'${operation}' is anchored by content hashes` : `'${operation}' falls back to a diff`);
  }
  const byLanguage = policy.languageOverrides?.[language];
  const byOperation = policy.operationOverrides?.[operation];
  let source: "language" | "operation" | undefined;
  if (byLanguage !== undefined && byOperation !== undefined) {
    const mode = policy.conflictResolution ?? "operation";
    source = mode === "language" ? "language" : mode === "operation" ? "operation" : ORDER[byLanguage] <= ORDER[byOperation] ? "language" : "operation";
    reasons.push(`Policy overrides for both language '${language}' and operation '${operation}': ${mode} resolution picks the ${source} override`);
  } else if (byLanguage !== undefined) source = "language";
  else if (byOperation !== undefined) source = "operation";
  if (source !== undefined) {
    route = source === "language" ? byLanguage! : byOperation!;
    reasons.push(source === "language" ? `Policy language override for '${language}' forces route '${route}'` : `Policy operation override for '${operation}' forces route '${route}'`);
  }
  return { file, operation, language, route, explanation: { route, reasons, policyApplied: source !== undefined, ...(source ? { policySource: source } : {}) } };
}
