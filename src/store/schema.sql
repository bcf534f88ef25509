-- graph.db: files, symbols, chunks, imports, edges and the two FTS5 indexes (spec §6). A chunk
-- keeps where its text is in its file, not the text (answers read it from the file: query/source.ts),
-- except a class outline's, which no file holds. Both FTS5 indexes are contentless (they keep the
-- index, not the text), fed as chunks are written; an FTS row's rowid is its chunk's id, and a
-- file's FTS rows go by exact-rowid deletes.

CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS files (
  id                INTEGER PRIMARY KEY,
  path              TEXT NOT NULL UNIQUE,
  language          TEXT NOT NULL,
  mtime             REAL NOT NULL,   -- the stat of the read that made the rows: mtime (ms), size, inode, ctime (ms)
  size              INTEGER NOT NULL,
  ino               INTEGER NOT NULL,
  ctime             REAL NOT NULL,
  content_hash      TEXT NOT NULL,   -- sha256 of the file's bytes: freshness is by content
  stat_clean        INTEGER NOT NULL, -- 1: an equal stat later proves these bytes (index/read.ts RACY_WINDOW_MS)
  line_count        INTEGER NOT NULL,
  has_syntax_errors INTEGER NOT NULL DEFAULT 0,
  is_test           INTEGER NOT NULL DEFAULT 0, -- base/paths.ts isTestPath: a test file by its name or directory
  chunk_rows        INTEGER NOT NULL DEFAULT 0, -- the file's chunks and symbols (kind module aside), written with them:
  symbol_rows       INTEGER NOT NULL DEFAULT 0  --   the store's totals are a sum over files, not a count of millions of rows
);

CREATE TABLE IF NOT EXISTS symbols (
  id               INTEGER PRIMARY KEY,
  name             TEXT NOT NULL,
  tail             TEXT,            -- a qualified name's last segment (`Class.method` -> method); NULL for a plain name
  kind             TEXT NOT NULL,   -- function | class | interface | type | const | variable | enum | namespace | method | export
  file_id          INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  line             INTEGER NOT NULL,
  end_line         INTEGER NOT NULL,
  is_exported      INTEGER NOT NULL DEFAULT 0,
  has_body         INTEGER NOT NULL DEFAULT 0, -- 1: a declaration with a body (a definition, not a prototype or a bodiless signature)
  parent_name      TEXT,            -- enclosing class for methods
  reexport_module  TEXT,            -- marker symbols (kind export): the module re-exported from
  reexport_name    TEXT,            -- ... and the name taken from it ('*' for a namespace)
  alias_of         TEXT,            -- export aliases (`export { local as name }`): the local name this row copies
  return_type      TEXT             -- functions and methods: the annotated return type, as written
);

-- Each symbol's signature, doc comment and parameters (functions and methods: JSON [[name, type, 1
-- if optional], ...], store/param-rows.ts), kept per file, in the order `texts` lists them
-- (store/symbol-texts.ts: JSON, deflated): the symbols' ids are first_id, first_id + 1, ... — or,
-- where a rewrite kept some rows and added others (store/link-face.ts), those `ids` list (JSON).
CREATE TABLE IF NOT EXISTS symbol_texts (
  file_id  INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
  first_id INTEGER NOT NULL,
  ids      TEXT,
  texts    BLOB NOT NULL
);

CREATE TABLE IF NOT EXISTS edges (
  from_id    INTEGER NOT NULL REFERENCES symbols(id) ON DELETE CASCADE,
  to_id      INTEGER NOT NULL REFERENCES symbols(id) ON DELETE CASCADE,
  edge_type  INTEGER NOT NULL,      -- POTENTIAL_CALL | PARENT_OF | IMPLEMENTS | EXTENDS | RE_EXPORTS, by code (store/edge-codes.ts)
  resolution INTEGER,               -- a call's: import | same_file | this_method | ... | checker, by code; NULL for the rest
  call_line  INTEGER                 -- POTENTIAL_CALL: the call site's line (one edge per site, unique per (from_id, to_id, edge_type, call_line): index/link.ts writes each once; answers read its text from the file); NULL otherwise
);

-- The checker pass's verdicts (query/checker.ts, spec §10.3.2): how the TypeScript checker resolved
-- a potential match `line` of `file_id` for the target symbol. `calls_target` comes with a
-- POTENTIAL_CALL edge of resolution 'checker' (when the line has an enclosing symbol);
-- `resolves_to_different` and `non_call_site` take the line out of the target's potential matches;
-- `unresolved` only records that it was checked. A rewritten call-site file loses its verdicts
-- (Store.deleteFileContents), a rewritten target's file its target rows (ON DELETE CASCADE).
CREATE TABLE IF NOT EXISTS checker_verdicts (
  target_id INTEGER NOT NULL REFERENCES symbols(id) ON DELETE CASCADE,
  file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  line      INTEGER NOT NULL,
  verdict   TEXT NOT NULL,       -- calls_target | resolves_to_different | non_call_site | unresolved
  PRIMARY KEY (target_id, file_id, line)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idx_checker_verdicts_file ON checker_verdicts(file_id);

CREATE TABLE IF NOT EXISTS re_export_files (
  from_file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  to_file_id   INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  PRIMARY KEY (from_file_id, to_file_id)
);

CREATE TABLE IF NOT EXISTS imports (
  id            INTEGER PRIMARY KEY,
  file_id       INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  module        TEXT NOT NULL,
  symbols       TEXT NOT NULL,      -- JSON array of imported names ('default', '*', or the exported name)
  bound_as      TEXT,               -- JSON array of the local binding of each name (same order) where one differs; NULL: the names themselves (four imports in five)
  locals        TEXT GENERATED ALWAYS AS (coalesce(bound_as, symbols)) VIRTUAL, -- what readers read: each name's local binding (stored as nothing more)
  kind          TEXT NOT NULL,      -- import | export_from | export_star | require | dynamic_import
  line          INTEGER NOT NULL,
  is_external   INTEGER NOT NULL DEFAULT 0,
  resolved_file_id INTEGER          -- the indexed file the module resolves to (its path is that row's); NULL for external or unresolvable modules
);

-- Call sites and `new` expressions (the call graph's input): edges are derived from these rows,
-- the symbols and the imports by index/link.ts after every run that changed any of them.
-- One row per file with call sites, packed (store/call-rows.ts): each site's line, caller (the
-- enclosing declaration, `fn`, `Class.method`, `Class`; none at top level), callee, receiver (bare |
-- this | super | typed | namespace | static | returned | implicit | fixture), receiver name (the
-- class, type or namespace-import name the receiver refers to; for returned, the producing call's
-- callee; for fixture, the fixture's name), resolution (typed receivers: field_type | parameter_type
-- | new_expression) and whether it is a `new`.
CREATE TABLE IF NOT EXISTS file_calls (
  file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
  calls   BLOB NOT NULL               -- the bytes of store/call-rows.ts storedCalls (packCalls deflated)
);

-- `class A extends B implements C`: one row per relation.
CREATE TABLE IF NOT EXISTS heritage (
  file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  class_name TEXT NOT NULL,
  relation   TEXT NOT NULL,         -- extends | implements
  target     TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS chunks (
  -- Also the rowid of the chunk's FTS rows. AUTOINCREMENT: an id is never given twice, so "the chunks
  -- above id N" are always the ones written after it (the FTS indexes are kept in step by id ranges).
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
  chunk_key          INTEGER NOT NULL,      -- base/hash.ts hashKey of the chunk id, sha256(file_path + ":" + start_line[ + ":" + n]): ties are ordered by it
  file_id            INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  start_line         INTEGER NOT NULL,
  end_line           INTEGER NOT NULL,
  content_start_line INTEGER NOT NULL,
  content_end_line   INTEGER NOT NULL,      -- the text is the file's lines content_start_line..content_end_line,
  cut_from           INTEGER,               --   or, for a piece cut from inside one long line, its [cut_from, cut_to)
  cut_to             INTEGER,
  content            BLOB,                  -- a class outline's synthesized text, deflated (base/deflate.ts); NULL for every chunk the file holds
  chunk_type         TEXT NOT NULL,
  symbol_name        TEXT,
  symbol_tail        TEXT,                  -- lower-cased last '.'-segment of symbol_name (ranker D's key)
  parent_symbol      TEXT,
  is_exported        INTEGER NOT NULL DEFAULT 0,
  part               INTEGER NOT NULL DEFAULT 0
);

-- The text index: each chunk's text without its context lines, by word. `words` is the text itself,
-- tokenized whole (`hashPassword` -> hashpassword, `MAX_RETRIES` -> max_retries); `parts` the words
-- inside its compound identifiers (base/text.ts identifierParts: hash password max retries).
-- Contentless, with deletes by rowid. detail=full: bm25() counts a term's occurrences in a row only
-- from its positions (detail=column scores every match 0), and a term with punctuation is a phrase.
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_words USING fts5(
  words,
  parts,
  content     = '',
  contentless_delete = 1,
  detail      = full,
  tokenize    = "unicode61 tokenchars '_$'"
);

-- The words of each file's path (its directories and stem, split as identifiers: base/text.ts
-- splitTerms), by file id: which files a task's words name. Written and deleted with the file's row.
CREATE VIRTUAL TABLE IF NOT EXISTS path_words USING fts5(
  words,
  content     = '',
  contentless_delete = 1,
  detail      = none
);

-- identifiers: the chunk's identifier bag (code tokens, space-separated); name_terms: its symbol name
-- split into words (`TrieRouter.match` -> trie router match), stemmed, so "router matching" reaches
-- the method. A chunk with neither has no row.
CREATE VIRTUAL TABLE IF NOT EXISTS identifier_fts USING fts5(
  identifiers,
  name_terms,
  content     = '',
  contentless_delete = 1,
  tokenize    = "porter unicode61 separators '.-_/()[]{}<>:;,=+*&|!?'"
);

CREATE INDEX IF NOT EXISTS idx_symbols_lookup   ON symbols(name, file_id, line, kind);
CREATE INDEX IF NOT EXISTS idx_symbols_file     ON symbols(file_id);
CREATE INDEX IF NOT EXISTS idx_symbols_tail     ON symbols(tail) WHERE tail IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_edges_from       ON edges(from_id);
CREATE INDEX IF NOT EXISTS idx_edges_to         ON edges(to_id);
CREATE INDEX IF NOT EXISTS idx_imports_file     ON imports(file_id);
CREATE INDEX IF NOT EXISTS idx_imports_target   ON imports(resolved_file_id, file_id) WHERE resolved_file_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS idx_chunks_file      ON chunks(file_id, start_line);
-- Which of many chunks are class outlines, answered without reading their rows (query/graph.ts mentionLines).
CREATE INDEX IF NOT EXISTS idx_chunks_shell     ON chunks(id) WHERE chunk_type = 'class_shell';
CREATE INDEX IF NOT EXISTS idx_heritage_file    ON heritage(file_id);
CREATE INDEX IF NOT EXISTS idx_chunks_symbol    ON chunks(symbol_name);
CREATE INDEX IF NOT EXISTS idx_chunks_tail      ON chunks(symbol_tail);
-- The types a task's lower-case word names, found without reading the rows of every method and
-- function of that name (query/search.ts typeNameRanking; the query repeats this WHERE to use it).
CREATE INDEX IF NOT EXISTS idx_chunks_type_tail ON chunks(symbol_tail) WHERE chunk_type IN ('class_shell', 'interface', 'type');
