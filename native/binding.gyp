# mast's native half: tree-sitter's own runtime (compiled from the installed tree-sitter package's
# vendored sources, so it is always the runtime the grammars were loaded with), flat_tree.c,
# which parses a text and returns its whole syntax tree as one flat Uint32Array, and lstat_many.c
# (many lstat calls in one, for the file walk) and deflate.c (raw deflate on kept streams, zlib's
# own through the symbols Node exports); addon.c registers them. sqlite_ext.c is a SQLite
# extension in the same library (mast_ids and FTS5 functions, loaded into a connection by SQLite's
# load_extension; its headers from the installed better-sqlite3: fts5.h cut from its amalgamation by
# scripts/fts5-header.mjs while gyp configures). Built by
# scripts/build-native.mjs during `npm ci` / `npm install`; mast runs without it (slower).
{
  "variables": {
    "tree_sitter_lib%": "<!(node -p \"require('path').relative(process.cwd(), require('path').join(require('path').dirname(require.resolve('tree-sitter/package.json')), 'vendor', 'tree-sitter', 'lib'))\")",
    "fts5_include%": "<!(node ../scripts/fts5-header.mjs)",
    "sqlite_include%": "<!(node -p \"require('path').relative(process.cwd(), require('path').join(require('path').dirname(require.resolve('better-sqlite3/package.json')), 'deps', 'sqlite3'))\")",
  },
  "targets": [
    {
      "target_name": "mast_native",
      "sources": ["addon.c", "flat_tree.c", "lstat_many.c", "deflate.c", "sqlite_ext.c", "<(tree_sitter_lib)/src/lib.c"],
      "include_dirs": ["<(tree_sitter_lib)/include", "<(tree_sitter_lib)/src", "<(sqlite_include)", "<(fts5_include)"],
      "defines": ["_POSIX_C_SOURCE=200112L", "_DEFAULT_SOURCE", "NAPI_VERSION=8"],
      "conditions": [
        ["OS!='win'", { "libraries": ["-lm"], "cflags_c": ["-std=c11", "-O2", "-fvisibility=hidden"] }, { "msvs_settings": { "VCCLCompilerTool": { "AdditionalOptions": ["/std:c11"] } } }],
      ],
    },
  ],
}
