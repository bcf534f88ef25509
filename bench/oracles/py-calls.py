"""py-calls: the call sites of a Python project's own functions and methods, as jedi resolves
them -- the ground truth of bench/callers-oracle.mjs for Python. Runs offline with Debian's
python3-jedi:

    python3 bench/oracles/py-calls.py [--sites] <project dir>

The project's directory (and its src/ when it has one) come first on jedi's sys.path, so an
installed copy of the project never answers for it. Every call in every .py file under
<project dir> (hidden directories left out) is parsed with
the standard library's ast; jedi's goto (imports followed) names what the called name refers to.
Output: one JSON object per line, {"file","line","target_file","target_line","name"} for each
call whose callee is a function or method defined under <project dir>, paths relative to it;
the line is the called name's. With --sites, jedi is not asked: every call's called name as
{"file","line","col","name"} (bench/oracles/py-scip-calls.mjs resolves them with scip-python).

    python3 bench/oracles/py-calls.py --refs <project dir> < positions

With --refs (bench/intent-rename.mjs --language python): stdin has one declaration name's position
a line, `file:line:col` (file relative to <project dir>, 1-based line, 0-based column); for each,
jedi's get_references there (project scope) gives {"target","file","line","col"} lines for every
reference under <project dir>, the declaration included.
"""
import ast
import json
import os
import sys

import jedi


def call_sites(root):
    """Every call's called name: (path, source, line, col, name), hidden directories left out."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                source = f.read()
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            lines = source.split("\n")
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                if isinstance(func, ast.Name):
                    yield path, source, func.lineno, func.col_offset, func.id
                elif isinstance(func, ast.Attribute):
                    line = func.end_lineno
                    col = func.end_col_offset - len(func.attr)
                    if lines[line - 1][col:col + len(func.attr)] == func.attr:
                        yield path, source, line, col, func.attr


def jedi_project(root):
    """The project's own source first (its src layout too), before any installed copy of it."""
    own = [d for d in (os.path.join(root, "src"), root) if os.path.isdir(d)]
    default = jedi.get_default_environment().get_sys_path()
    return jedi.Project(root, sys_path=own + [d for d in default if d not in own])


def references(root):
    project = jedi_project(root)
    for target in sys.stdin.read().split():
        file, line, col = target.rsplit(":", 2)
        path = os.path.join(root, file)
        try:
            refs = jedi.Script(path=path, project=project).get_references(int(line), int(col))
        except Exception as e:
            print("py-calls: %s: %s" % (target, e), file=sys.stderr)
            continue
        seen = set()
        for r in refs:
            if r.module_path is None or r.line is None:
                continue
            p = os.path.realpath(str(r.module_path))
            if not p.startswith(root + os.sep):
                continue
            key = (os.path.relpath(p, root), r.line, r.column)
            if key not in seen:
                seen.add(key)
                print(json.dumps({"target": target, "file": key[0], "line": key[1], "col": key[2]}))


def main(root, sites_only):
    root = os.path.realpath(root)
    if sites_only:
        for path, _, line, col, called in call_sites(root):
            print(json.dumps({"file": os.path.relpath(path, root), "line": line, "col": col, "name": called}))
        return
    project = jedi_project(root)
    out = []
    scripts = {}
    for path, source, line, col, called in call_sites(root):
        if path not in scripts:
            scripts = {path: jedi.Script(source, path=path, project=project)}
        try:
            defs = scripts[path].goto(line, col, follow_imports=True)
            # jedi's answer for a pytest fixture's attribute depends on what the Script
            # inferred before: a name that went nowhere is asked again of a fresh Script.
            if not any(d.type == "function" for d in defs):
                defs = jedi.Script(source, path=path, project=project).goto(line, col, follow_imports=True)
        except Exception:
            continue
        for d in defs:
            if d.type != "function" or d.module_path is None:
                continue
            target = os.path.realpath(str(d.module_path))
            if not target.startswith(root + os.sep) or d.line is None:
                continue
            out.append({"file": os.path.relpath(path, root), "line": line, "target_file": os.path.relpath(target, root), "target_line": d.line, "name": called})
    seen = set()
    for s in sorted(out, key=lambda s: (s["file"], s["line"], s["target_file"], s["target_line"])):
        key = (s["file"], s["line"], s["target_file"], s["target_line"])
        if key not in seen:
            seen.add(key)
            print(json.dumps(s))


if __name__ == "__main__":
    if "--refs" in sys.argv[1:-1]:
        references(os.path.realpath(sys.argv[-1]))
    else:
        main(sys.argv[-1], "--sites" in sys.argv[1:-1])
