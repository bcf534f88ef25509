# MANTIS_HELPER_VERSION = 5
"""The structural index's query helper (Python standard library only).

Written by `mast structural build` to <state_root>/workspace/helpers/; answers the five operations
of the consumption contract exactly as `mast structural query` does, over the published
catalog.sqlite and its shards (a committed build whose catalog is still in tmp/ is read there),
the compatibility JSONL when no catalog is there, or a remote provider when
MANTIS_STRUCTURAL_INDEX_URL is set.

    python3 query_structural_index.py <operation> ['<json arguments>'] [--index-dir DIR]

Operations: resolve_symbol, find_callers, find_callees, get_function_boundary, get_coverage.
Prints the JSON answer; a bad argument prints {"error": {...}} and exits 2.
"""
import json
import os
import sqlite3
import sys
import urllib.error
import urllib.request

OPERATIONS = ("resolve_symbol", "find_callers", "find_callees", "get_function_boundary", "get_coverage")
KNOWN_ARGS = {
    "resolve_symbol": ("name", "language", "file", "namespace", "limit", "offset"),
    "find_callers": ("symbol_id", "limit", "offset"),
    "find_callees": ("symbol_id", "limit", "offset"),
    "get_function_boundary": ("file", "line"),
    "get_coverage": ("file", "language"),
}
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
MAX_SAFE_INTEGER = 2**53 - 1
CATALOG_SCHEMA_VERSION = "1"
SYMBOL_COLUMNS = ("symbol_id", "name", "qualified_name", "namespace", "language", "file_path", "start_line", "end_line", "kind", "signature", "precision", "backend")
EDGE_COLUMNS = ("caller_id", "caller_name", "callee_id", "callee_name", "file_path", "line", "edge_kind", "precision", "backend")


class InvalidArgument(Exception):
    pass


class RemoteError(Exception):
    pass


def code_units(s):
    """A key that orders strings as JavaScript does (UTF-16 code units)."""
    return s.encode("utf-16-be")


def site_key(r):
    return (code_units(r["file_path"]), r.get("line", r.get("start_line", 0)) or 0)


# ---- where the index is ----

def read_json(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            value = json.load(f)
        return value if isinstance(value, dict) else None
    except (OSError, ValueError):
        return None


def open_catalog(path):
    if not os.path.isfile(path):
        return None
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        db.row_factory = sqlite3.Row
        row = db.execute("SELECT value FROM schema_meta WHERE key = 'catalog_schema'").fetchone()
        if row is not None and row[0] == CATALOG_SCHEMA_VERSION:
            return db
        db.close()
    except sqlite3.Error:
        pass
    return None


def build_id_of(path):
    db = open_catalog(path)
    if db is None:
        return None
    try:
        row = db.execute("SELECT value FROM schema_meta WHERE key = 'build_id'").fetchone()
        return row[0] if row else None
    finally:
        db.close()


class Source:
    def __init__(self, index_dir):
        self.index_dir = index_dir
        self.manifest = None
        self.dbs = None
        self.jsonl = None
        self.baseline = None
        self.superseded = set()
        manifest = read_json(os.path.join(index_dir, "manifest.json"))
        if manifest and manifest.get("schema_version") == 1 and isinstance(manifest.get("build_id"), str):
            self.manifest = manifest
            self.dbs = open_published(index_dir, manifest)
        if self.dbs is None:
            self.jsonl = read_jsonl(os.path.join(os.path.dirname(index_dir), "structural_index.jsonl"))
        elif (manifest.get("provider") or {}).get("kind") == "baseline+overlay" and (manifest.get("baseline") or {}).get("manifest_path"):
            base_dir = os.path.dirname(manifest["baseline"]["manifest_path"])
            base = read_json(os.path.join(base_dir, "manifest.json"))
            wanted = manifest["baseline"].get("build_id")
            if base and isinstance(base.get("build_id"), str) and (wanted is None or base["build_id"] == wanted):
                self.baseline = open_published(base_dir, base)
                self.superseded = set((manifest.get("overlay") or {}).get("files") or [])

    def layers(self):
        """Each database with the files whose rows it must not answer for (a baseline's superseded files)."""
        return [(db, None) for db in self.dbs or []] + [(db, self.superseded) for db in self.baseline or []]

    def close(self):
        for d in (self.dbs or []) + (self.baseline or []):
            d.close()


def open_published(index_dir, manifest):
    build = manifest["build_id"]
    tmp = os.path.join(index_dir, "tmp")
    published = os.path.join(index_dir, "catalog.sqlite")
    pending = os.path.join(tmp, "catalog-%s.sqlite" % build)
    path = published if build_id_of(published) == build else pending if build_id_of(pending) == build else None
    if path is None:
        return None
    dbs = [open_catalog(path)]
    for shard in manifest.get("shards", []):
        candidates = [os.path.join(index_dir, shard["path"]), os.path.join(tmp, "shards-%s" % build, shard["path"][len("shards/"):] if shard["path"].startswith("shards/") else shard["path"])]
        found = None
        for c in candidates:
            if build_id_of(c) == build:
                found = open_catalog(c)
                break
        if found is None:
            for d in dbs:
                d.close()
            return None
        dbs.append(found)
    return dbs


def read_jsonl(path):
    try:
        with open(path, "r", encoding="utf-8") as f:
            lines = [l for l in f.read().split("\n") if l.strip()]
    except OSError:
        return None
    try:
        header = json.loads(lines[0]) if lines else None
    except ValueError:
        return None
    # A header-only export (over the threshold) holds no records to answer from.
    if not isinstance(header, dict) or header.get("_provenance") is not True or header.get("full_export") is not True:
        return None
    symbols, edges, boundaries = [], [], []
    for line in lines[1:]:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("_type") == "function":
            s = {k: r.get(k) for k in SYMBOL_COLUMNS}
            symbols.append(s)
            if r.get("boundary"):
                boundaries.append({"symbol_id": s["symbol_id"], "name": s["qualified_name"], "file_path": s["file_path"], "start_line": s["start_line"], "end_line": s["end_line"], "signature": s["signature"], "language": s["language"], "precision": s["precision"], "backend": s["backend"]})
        elif r.get("_type") == "call_edge":
            edges.append({"caller_id": r.get("caller_id"), "caller_name": None, "callee_id": r.get("callee_id"), "callee_name": r.get("callee_name"), "file_path": r.get("file"), "line": r.get("line"), "edge_kind": r.get("edge_kind"), "precision": r.get("precision"), "backend": r.get("backend")})
    names = {s["symbol_id"]: s["qualified_name"] for s in symbols}
    for e in edges:
        e["caller_name"] = names.get(e["caller_id"])
    return {"header": header, "symbols": symbols, "edges": edges, "boundaries": boundaries}


# ---- coverage ----

def partition_status(c):
    if c["total_files"] == 0:
        return "empty"
    if c["indexed_files"] == c["total_files"]:
        return "complete"
    if c["deferred"] > 0:
        return "partial"
    if c["indexed_files"] == 0:
        return "failed" if c["failed"] > 0 else "empty"
    return "partial"


def coverage_counts(db, file=None, languages=None, exclude=()):
    where = ("(:file IS NULL OR file_path = :file) AND (:languages IS NULL OR EXISTS (SELECT 1 FROM json_each(:languages) l WHERE substr(partition_key, 6, length(l.value) + 1) = l.value || ':')) "
             "AND NOT EXISTS (SELECT 1 FROM json_each(:exclude) x WHERE x.value = file_path)")
    params = {"file": file, "languages": None if languages is None else json.dumps(list(languages)), "exclude": json.dumps(sorted(exclude))}
    row = db.execute(
        "SELECT count(*), coalesce(sum(indexed), 0), coalesce(sum(status = 'failed'), 0), coalesce(sum(status = 'deferred'), 0) FROM coverage WHERE " + where,
        params,
    ).fetchone()
    backends = [r[0] for r in db.execute("SELECT DISTINCT backend FROM coverage WHERE " + where + " AND (indexed = 1 OR status = 'deferred') ORDER BY backend", params)]
    return {"total_files": row[0], "indexed_files": row[1], "failed": row[2], "deferred": row[3], "backends_used": backends}


def coverage_of(source, file=None, languages=None):
    snapshot = None
    stale = False
    if source.manifest is not None:
        snapshot = source.manifest.get("snapshot_id")
        stale = bool(source.manifest.get("stale", False))
    elif source.jsonl is not None and isinstance(source.jsonl["header"].get("snapshot_id"), str):
        snapshot = source.jsonl["header"]["snapshot_id"]
    if source.dbs:
        counts = coverage_counts(source.dbs[0], file, languages)
        if source.baseline:
            base = coverage_counts(source.baseline[0], file, languages, source.superseded)
            for k in ("total_files", "indexed_files", "failed", "deferred"):
                counts[k] += base[k]
            counts["backends_used"] = sorted(set(counts["backends_used"]) | set(base["backends_used"]))
    elif source.jsonl is not None:
        c = source.jsonl["header"].get("coverage") or {}
        counts = {"total_files": c.get("total_files", 0), "indexed_files": c.get("indexed_files", 0), "failed": c.get("failed", 0), "deferred": c.get("deferred", 0), "backends_used": c.get("backends_used", [])}
        if file is not None:
            has = any(s["file_path"] == file for s in source.jsonl["symbols"])
            counts.update({"total_files": 1 if has else 0, "indexed_files": 1 if has else 0, "failed": 0, "deferred": 0})
    else:
        counts = {"total_files": 0, "indexed_files": 0, "failed": 0, "deferred": 0, "backends_used": []}
    status = partition_status(counts)
    # An overlay whose baseline cannot be read answers for its own files only: never complete.
    if source.manifest is not None and (source.manifest.get("provider") or {}).get("kind") == "baseline+overlay" and source.baseline is None and status == "complete":
        status = "partial"
    out = {"partition_status": status}
    out.update(counts)
    out["snapshot_id"] = snapshot
    out["stale"] = stale
    return out


# ---- arguments ----

def string_arg(args, key, required):
    v = args.get(key)
    if v is None:
        if required:
            raise InvalidArgument("%s is required" % key)
        return None
    if not isinstance(v, str) or v.strip() == "":
        raise InvalidArgument("%s must be a non-empty string" % key)
    return v


def int_arg(args, key, fallback, lo, hi):
    v = args.get(key)
    if v is None:
        return fallback
    try:
        ok = not isinstance(v, bool) and isinstance(v, (int, float)) and int(v) == v and lo <= v <= hi
    except (OverflowError, ValueError):
        ok = False
    if not ok:
        raise InvalidArgument("%s must be an integer from %d to %d" % (key, lo, hi))
    return int(v)


def check_args(op, args):
    if op not in OPERATIONS:
        raise InvalidArgument("unknown operation %s" % json.dumps(op))
    if not isinstance(args, dict):
        raise InvalidArgument("the arguments must be a JSON object")
    unknown = [k for k in args if k not in KNOWN_ARGS[op]]
    if unknown:
        raise InvalidArgument("%s takes no %s" % (op, ", ".join(unknown)))
    return args


def page(rows, limit, offset):
    return rows[offset:offset + limit], len(rows), offset + limit < len(rows)


def rows_of(cursor, columns):
    return [{c: r[c] for c in columns} for r in cursor]


def from_layers(source, read):
    """What each layer answers, a baseline's rows for superseded files left out."""
    out = []
    for db, superseded in source.layers():
        out += [r for r in read(db) if not (superseded and r["file_path"] in superseded)]
    return out


# ---- the operations ----

def find_symbol(source, symbol_id):
    if source.dbs:
        for db, superseded in source.layers():
            row = db.execute("SELECT %s FROM symbols WHERE symbol_id = ?" % ", ".join(SYMBOL_COLUMNS), (symbol_id,)).fetchone()
            if row is not None and not (superseded and row["file_path"] in superseded):
                return {c: row[c] for c in SYMBOL_COLUMNS}
        return None
    for s in (source.jsonl or {}).get("symbols", []):
        if s["symbol_id"] == symbol_id:
            return s
    return None


def calling_languages(source, language):
    """The languages whose files can call a symbol of `language`, as the catalog records them."""
    if language is None:
        return []
    maps = []
    if source.dbs:
        for db in [source.dbs[0]] + ([source.baseline[0]] if source.baseline else []):
            row = db.execute("SELECT value FROM schema_meta WHERE key = 'call_languages'").fetchone()
            maps.append(json.loads(row[0]) if row else {})
    elif source.jsonl is not None:
        maps.append(source.jsonl["header"].get("call_languages") or {})
    found = sorted(set(l for m in maps for l in m.get(language, [])))
    return found or [language]


def edge_sql(where):
    return ("SELECT e.caller_id, s.qualified_name AS caller_name, e.callee_id, e.callee_name, e.file_path, e.line, e.edge_kind, e.precision, e.backend "
            "FROM call_edges e LEFT JOIN symbols s ON s.symbol_id = e.caller_id WHERE " + where)


def run(source, op, a):
    if op == "resolve_symbol":
        name = string_arg(a, "name", True)
        language = string_arg(a, "language", False)
        file = string_arg(a, "file", False)
        namespace = string_arg(a, "namespace", False)
        if source.dbs:
            found = from_layers(source, lambda db: rows_of(db.execute(
                    "SELECT %s FROM symbols WHERE (name = :name OR qualified_name = :name) AND (:language IS NULL OR language = :language) AND (:file IS NULL OR file_path = :file) AND (:namespace IS NULL OR namespace = :namespace) ORDER BY file_path, start_line, qualified_name, symbol_id" % ", ".join(SYMBOL_COLUMNS),
                    {"name": name, "language": language, "file": file, "namespace": namespace}), SYMBOL_COLUMNS))
        else:
            found = [s for s in (source.jsonl or {}).get("symbols", []) if (s["name"] == name or s["qualified_name"] == name) and (language is None or s["language"] == language) and (file is None or s["file_path"] == file) and (namespace is None or s["namespace"] == namespace)]
        found.sort(key=site_key)
        results, total, has_more = page(found, int_arg(a, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT), int_arg(a, "offset", 0, 0, MAX_SAFE_INTEGER))
        return {"results": results, "total": total, "ambiguous": total > 1, "has_more": has_more, "coverage": coverage_of(source, file, None if language is None else [language])}
    if op in ("find_callers", "find_callees"):
        symbol_id = string_arg(a, "symbol_id", True)
        limit = int_arg(a, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
        offset = int_arg(a, "offset", 0, 0, MAX_SAFE_INTEGER)
        symbol = find_symbol(source, symbol_id)
        edges = (source.jsonl or {}).get("edges", [])
        if op == "find_callers":
            name = symbol["name"] if symbol else symbol_id
            languages = calling_languages(source, symbol["language"] if symbol else None)
            if source.dbs:
                resolved = from_layers(source, lambda db: rows_of(db.execute(edge_sql("e.callee_id = ? ORDER BY e.file_path, e.line, e.caller_id, e.edge_id"), (symbol_id,)), EDGE_COLUMNS))
                unresolved = from_layers(source, lambda db: rows_of(db.execute(edge_sql(
                    "e.callee_id IS NULL AND e.callee_name = ? AND e.edge_kind = 'unresolved' "
                    "AND EXISTS (SELECT 1 FROM json_each(?) l WHERE substr(e.partition_key, 6, length(l.value) + 1) = l.value || ':') "
                    "ORDER BY e.file_path, e.line, e.caller_id, e.edge_id"), (name, json.dumps(languages))), EDGE_COLUMNS))
                if len(source.layers()) > 1:
                    resolved.sort(key=site_key)
                    unresolved.sort(key=site_key)
                found = resolved + unresolved
            else:
                language_of = {s["symbol_id"]: s["language"] for s in source.jsonl["symbols"]}
                found = sorted([e for e in edges if e["callee_id"] == symbol_id], key=site_key) + sorted([e for e in edges if e["callee_id"] is None and e["edge_kind"] == "unresolved" and e["callee_name"] == name and language_of.get(e["caller_id"], "") in languages], key=site_key)
        else:
            if source.dbs:
                found = from_layers(source, lambda db: rows_of(db.execute(edge_sql("e.caller_id = ? ORDER BY e.file_path, e.line, e.callee_name, e.edge_id"), (symbol_id,)), EDGE_COLUMNS))
            else:
                found = [e for e in edges if e["caller_id"] == symbol_id]
            found.sort(key=site_key)
        results, total, has_more = page(found, limit, offset)
        # Callers may be in any language that can call the symbol: coverage counts their files.
        scope = None if symbol is None else (calling_languages(source, symbol["language"]) if op == "find_callers" else [symbol["language"]])
        return {"results": results, "total": total, "has_more": has_more, "symbol_found": symbol is not None, "coverage": coverage_of(source, None, scope)}
    if op == "get_function_boundary":
        file = string_arg(a, "file", True)
        if a.get("line") is None:
            raise InvalidArgument("line is required")
        line = int_arg(a, "line", 0, 1, MAX_SAFE_INTEGER)
        found = None
        if source.dbs:
            for db, superseded in source.layers():
                if superseded and file in superseded:
                    continue
                row = db.execute(
                    "SELECT b.symbol_id, s.qualified_name AS name, b.file_path, b.start_line, b.end_line, b.signature, b.language, s.precision, s.backend "
                    "FROM function_boundaries b JOIN symbols s ON s.symbol_id = b.symbol_id WHERE b.file_path = :file AND b.start_line <= :line AND b.end_line >= :line "
                    "ORDER BY b.end_line - b.start_line, b.start_line DESC, b.symbol_id LIMIT 1", {"file": file, "line": line}).fetchone()
                if row is not None:
                    b = dict(row)
                    if found is None or b["end_line"] - b["start_line"] < found["end_line"] - found["start_line"]:
                        found = b
        else:
            for b in (source.jsonl or {}).get("boundaries", []):
                if b["file_path"] == file and b["start_line"] <= line <= b["end_line"]:
                    span = b["end_line"] - b["start_line"]
                    if found is None or span < found["end_line"] - found["start_line"] or (span == found["end_line"] - found["start_line"] and b["start_line"] > found["start_line"]):
                        found = b
        coverage = coverage_of(source, file, None)
        if found is None:
            return {"symbol_id": None, "name": None, "file_path": file, "start_line": None, "end_line": None, "signature": None, "language": None, "precision": None, "backend": None, "coverage": coverage}
        out = {k: found[k] for k in ("symbol_id", "name", "file_path", "start_line", "end_line", "signature", "language", "precision", "backend")}
        out["coverage"] = coverage
        return out
    if op == "get_coverage":
        language = string_arg(a, "language", False)
        c = coverage_of(source, string_arg(a, "file", False), None if language is None else [language])
        status = source.manifest.get("status") if source.manifest is not None else c["partition_status"]
        return {"total_files": c["total_files"], "indexed_files": c["indexed_files"], "failed": c["failed"], "deferred": c["deferred"], "partition_status": c["partition_status"], "backends_used": c["backends_used"], "snapshot_id": c["snapshot_id"], "stale": c["stale"], "status": status}
    raise InvalidArgument("unknown operation %s" % json.dumps(op))


def remote_url(index_dir):
    env = (os.environ.get("MANTIS_STRUCTURAL_INDEX_URL") or "").strip()
    if env:
        return env
    manifest = read_json(os.path.join(index_dir, "manifest.json"))
    provider = (manifest or {}).get("provider") or {}
    catalog = provider.get("catalog") or ""
    return catalog if provider.get("kind") == "remote" and catalog.startswith(("http://", "https://")) else None


def query(index_dir, op, args):
    check_args(op, args)
    url = remote_url(index_dir)
    if url is not None:
        request = urllib.request.Request(url.rstrip("/") + "/v1/" + op, data=json.dumps(args).encode("utf-8"), headers={"content-type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as err:
            try:
                body = json.loads(err.read().decode("utf-8"))
            except ValueError:
                body = {}
            error = body.get("error") or {}
            if error.get("code") == "INVALID_ARGUMENT":
                raise InvalidArgument(error.get("message", "invalid argument"))
            raise RemoteError("the structural index at %s answered %d: %s" % (url, err.code, error.get("message", "no JSON body")))
        except (urllib.error.URLError, OSError) as err:
            raise RemoteError("the structural index at %s did not answer: %s" % (url, err))
    source = Source(index_dir)
    try:
        return run(source, op, args)
    finally:
        source.close()


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    index_dir = os.path.join(os.path.dirname(here), "kb", "structural_index")
    rest = []
    i = 0
    while i < len(argv):
        if argv[i] == "--index-dir" and i + 1 < len(argv):
            index_dir = os.path.abspath(argv[i + 1])
            i += 2
            continue
        rest.append(argv[i])
        i += 1
    if not rest:
        sys.stderr.write(__doc__)
        return 2
    op = rest[0]
    try:
        args = json.loads(rest[1]) if len(rest) > 1 else {}
        answer = query(index_dir, op, args)
    except ValueError as err:
        answer, code = {"error": {"code": "INVALID_ARGUMENT", "message": "the arguments are not JSON: %s" % err}}, 2
    except InvalidArgument as err:
        answer, code = {"error": {"code": "INVALID_ARGUMENT", "message": str(err)}}, 2
    except RemoteError as err:
        answer, code = {"error": {"code": "READ_FAILED", "message": str(err)}}, 1
    else:
        code = 0
    sys.stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
