// The formats a project's manifests are written in, each read by its own library (this file is the
// only importer of jsonc-parser, yaml and smol-toml): tsconfig.json's JSON with comments and
// trailing commas, pnpm-workspace.yaml, Cargo.toml and pyproject.toml. Each parse throws on a
// syntax error, as JSON.parse does; the caller decides what a broken manifest means.
import { parse as parseJsoncText, printParseErrorCode, type ParseError } from "jsonc-parser";
import { parse as parseTomlText } from "smol-toml";
import { parse as parseYamlText } from "yaml";

/** JSON with `//` and block comments and trailing commas, as TypeScript reads tsconfig.json. */
export function parseJsonc(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parseJsoncText(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) throw new SyntaxError(`${printParseErrorCode(first.error)} at offset ${first.offset}`);
  return value;
}

/** A TOML document (1.0) as plain values: tables as objects, arrays of tables as arrays. */
export function parseToml(text: string): Record<string, unknown> {
  return parseTomlText(text) as Record<string, unknown>;
}

/** A YAML document (1.2) as plain values. */
export function parseYaml(text: string): unknown {
  return parseYamlText(text);
}
