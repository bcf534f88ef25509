// mast_implementors on Go: interfaces that embed standard-library interfaces (`fmt.Stringer`,
// `error`) and project ones are matched by their whole method set, and an interface method answers
// the implementing types' methods wherever in the package they are declared.
import { describe, expect, it } from "vitest";
import { indexedProject } from "../helpers/indexed.js";

const source = (...lines: string[]): string => [...lines, ""].join("\n");

describe("mast_implementors (go)", () => {
  const p = indexedProject({
    "go.mod": source("module example.com/cli", "", "go 1.21"),
    "flag.go": source(
      "package cli",
      "",
      'import "fmt"',
      "",
      "type Flag interface {",
      "\tfmt.Stringer",
      "\tNames() []string",
      "}",
      "",
      "type RequiredFlag interface {",
      "\tFlag",
      "\tIsRequired() bool",
      "}",
      "",
      "type MultiError interface {",
      "\terror",
      "\tErrors() []error",
      "}",
      "",
      "type Unknown interface {",
      "\tfmt.Formatter2",
      "\tNames() []string",
      "}",
    ),
    "bool.go": source(
      "package cli",
      "",
      "type BoolFlag struct{ Name string }",
      "",
      "func (f *BoolFlag) String() string { return f.Name }",
      "",
      "type plainNames struct{}",
      "",
      "func (plainNames) Names() []string { return nil }",
      "",
      "type errs []error",
      "",
      "func (e errs) Errors() []error { return e }",
      "",
      "type multi []error",
      "",
      "func (m multi) Errors() []error { return m }",
      'func (m multi) Error() string   { return "" }',
    ),
    "bool_names.go": source("package cli", "", "func (f *BoolFlag) Names() []string { return []string{f.Name} }", "func (f *BoolFlag) IsRequired() bool { return false }"),
  });

  it("an interface embedding fmt.Stringer lists the types with String and its own methods, and the interfaces embedding it", async () => {
    const r = await p.call("mast_implementors", { interface_name: "Flag" });
    expect(r.implementors.map((i: { class_name: string; file_path: string; line: number; relation: string }) => [i.class_name, i.file_path, i.line, i.relation])).toEqual([
      ["BoolFlag", "bool.go", 3, "implements"],
      ["RequiredFlag", "flag.go", 10, "extends"],
    ]);
  });

  it("an interface embedding a project interface takes in its method set, `error` is Error()", async () => {
    const required = await p.call("mast_implementors", { interface_name: "RequiredFlag" });
    expect(required.implementors.map((i: { class_name: string }) => i.class_name)).toEqual(["BoolFlag"]);
    const multi = await p.call("mast_implementors", { interface_name: "MultiError" });
    expect(multi.implementors.map((i: { class_name: string }) => i.class_name)).toEqual(["multi"]);
  });

  it("an interface embedding one neither the project nor the table knows has no implementors", async () => {
    expect((await p.call("mast_implementors", { interface_name: "Unknown" })).implementors).toEqual([]);
  });

  it("an interface method answers the implementing methods, also from another file of the package", async () => {
    const r = await p.call("mast_implementors", { interface_name: "Flag.Names" });
    expect(r.implementors).toEqual([{ method: "BoolFlag.Names", file_path: "bool_names.go", line: 3, relation: "implements" }]);
  });
});
