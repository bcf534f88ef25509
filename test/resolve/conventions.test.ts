// The breadth languages' import resolution by layout convention: Ruby's load path in a repository
// of gems (the sinatra and jekyll layouts) and PHP's composer autoload maps (psr-4 with several
// directories and nested packages, psr-0, classmap, the suffix fallback) as pure functions over
// file sets, then through an index run: a resolved `use` is internal, its static calls become
// edges, and an edited composer.json relinks on an incremental run like a fresh build.
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { runIndex } from "../../src/index/run.js";
import { statePaths } from "../../src/index/state.js";
import { createPhpResolver, createRubyResolver, readComposerAutoload } from "../../src/resolve/conventions.js";
import { makeProject, type TestProject } from "../helpers/project.js";
import { dumpStore, edgeResolution, queryStore } from "../helpers/store-dump.js";
import { EDGE } from "../../src/store/edge-codes.js";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

describe("Ruby require", () => {
  // sinatra's layout: the main gem at the root, two sub-gems beside it, tests and specs in each.
  const files = new Set([
    "lib/sinatra.rb",
    "lib/sinatra/base.rb",
    "lib/sinatra/version.rb",
    "test/test_helper.rb",
    "test/routing_test.rb",
    "test/integration/helper.rb",
    "test/integration/app_test.rb",
    "rack-protection/lib/rack/protection.rb",
    "rack-protection/lib/rack/protection/base.rb",
    "rack-protection/lib/rack/protection/version.rb",
    "rack-protection/spec/spec_helper.rb",
    "rack-protection/spec/support/shared.rb",
    "rack-protection/spec/lib/rack/protection/base_spec.rb",
    "sinatra-contrib/lib/sinatra/contrib.rb",
    "sinatra-contrib/lib/sinatra/contrib/version.rb",
    "sinatra-contrib/lib/sinatra/json.rb",
    "sinatra-contrib/spec/spec_helper.rb",
    "sinatra-contrib/spec/json_spec.rb",
  ]);
  const resolve = createRubyResolver(files);

  it("finds a require in the file's own gem, then in the other gems of the repository", () => {
    expect(resolve("lib/sinatra/base.rb", "rack/protection")).toBe("rack-protection/lib/rack/protection.rb");
    expect(resolve("lib/sinatra/base.rb", "sinatra/version")).toBe("lib/sinatra/version.rb");
    expect(resolve("sinatra-contrib/lib/sinatra/json.rb", "sinatra/base")).toBe("lib/sinatra/base.rb");
    expect(resolve("sinatra-contrib/lib/sinatra/contrib.rb", "sinatra/contrib/version")).toBe("sinatra-contrib/lib/sinatra/contrib/version.rb");
    expect(resolve("rack-protection/lib/rack/protection.rb", "rack/protection/base.rb")).toBe("rack-protection/lib/rack/protection/base.rb");
    // rack-protection's spec/lib mirrors lib/ for its specs: not on another gem's load path.
    expect(resolve("lib/sinatra/base.rb", "rack/protection/base_spec")).toBeNull();
    expect(resolve("rack-protection/spec/spec_helper.rb", "rack/protection/base_spec")).toBe("rack-protection/spec/lib/rack/protection/base_spec.rb");
    expect(resolve("test/routing_test.rb", "sinatra")).toBe("lib/sinatra.rb");
  });

  it("finds spec and test helpers in the spec/ and test/ of the file's gem, nearest first", () => {
    expect(resolve("sinatra-contrib/spec/json_spec.rb", "spec_helper")).toBe("sinatra-contrib/spec/spec_helper.rb");
    expect(resolve("rack-protection/spec/lib/rack/protection/base_spec.rb", "spec_helper")).toBe("rack-protection/spec/spec_helper.rb");
    expect(resolve("rack-protection/spec/lib/rack/protection/base_spec.rb", "support/shared")).toBe("rack-protection/spec/support/shared.rb");
    expect(resolve("test/routing_test.rb", "test_helper")).toBe("test/test_helper.rb");
    expect(resolve("test/integration/app_test.rb", "test_helper")).toBe("test/test_helper.rb");
    // Not another gem's helpers: sinatra's tests have no spec_helper of their own.
    expect(resolve("test/routing_test.rb", "spec_helper")).toBeNull();
    // A library file has no test helpers on its load path.
    expect(resolve("lib/sinatra/base.rb", "test_helper")).toBeNull();
  });

  it("keeps require_relative relative to the file and leaves gems outside the project", () => {
    expect(resolve("test/integration/app_test.rb", "./helper")).toBe("test/integration/helper.rb");
    expect(resolve("sinatra-contrib/spec/json_spec.rb", "./../lib/sinatra/json")).toBe("sinatra-contrib/lib/sinatra/json.rb");
    expect(resolve("test/routing_test.rb", "./../../outside")).toBeNull();
    expect(resolve("lib/sinatra/base.rb", "rack")).toBeNull();
    expect(resolve("lib/sinatra/base.rb", "json")).toBeNull();
  });

  it("reads jekyll's layout: one gem at the root, `helper` in test/, fixture gems below test/", () => {
    const jekyll = createRubyResolver(
      new Set([
        "lib/jekyll.rb",
        "lib/jekyll/site.rb",
        "test/helper.rb",
        "test/test_site.rb",
        "test/fixtures/test-theme/lib/test-theme.rb",
        "test/fixtures/test-theme/lib/test-theme/version.rb",
        "features/step_definitions.rb",
      ]),
    );
    expect(jekyll("test/test_site.rb", "helper")).toBe("test/helper.rb");
    expect(jekyll("test/test_site.rb", "jekyll/site")).toBe("lib/jekyll/site.rb");
    expect(jekyll("lib/jekyll.rb", "jekyll/site")).toBe("lib/jekyll/site.rb");
    // A fixture gem's lib/ serves its own files only.
    expect(jekyll("test/fixtures/test-theme/lib/test-theme.rb", "test-theme/version")).toBe("test/fixtures/test-theme/lib/test-theme/version.rb");
    expect(jekyll("test/test_site.rb", "test-theme")).toBeNull();
    expect(jekyll("lib/jekyll.rb", "test-theme/version")).toBeNull();
    // features/ is not under test/: its `helper` is not test/'s.
    expect(jekyll("features/step_definitions.rb", "helper")).toBeNull();
  });
});

/** A PHP resolver over `files`, with composer.json texts by directory. */
function php(files: readonly string[], composer: Record<string, unknown>) {
  const texts = new Map(Object.entries(composer).map(([dir, json]) => [dir === "" ? "composer.json" : `${dir}/composer.json`, typeof json === "string" ? json : JSON.stringify(json)]));
  const dirs = new Set([""]);
  for (const f of files) for (let d = posix.dirname(f); d !== "."; d = posix.dirname(d)) dirs.add(d);
  return createPhpResolver(
    new Set(files),
    readComposerAutoload(dirs, (rel) => texts.get(rel) ?? null),
  );
}

describe("PHP use through composer autoload", () => {
  it("maps psr-4 prefixes (autoload and autoload-dev, several directories) to paths, longest prefix first", () => {
    // guzzle's layout: the namespace is not in the path, so no suffix of it matches.
    const resolve = php(["src/Client.php", "src/Middleware.php", "src/Handler/CurlHandler.php", "tests/Server.php", "tests/Handler/CurlHandler.php", "lib/Extra/Tool.php", "pool/Pool.php"], {
      "": {
        autoload: { "psr-4": { "GuzzleHttp\\": ["src/", "lib/"], "GuzzleHttp\\Pool\\": "pool" } },
        "autoload-dev": { "psr-4": { "GuzzleHttp\\Tests\\": "tests/" } },
      },
    });
    expect(resolve("src/Client.php", "GuzzleHttp\\Middleware")).toBe("src/Middleware.php");
    expect(resolve("src/Client.php", "\\GuzzleHttp\\Handler\\CurlHandler")).toBe("src/Handler/CurlHandler.php");
    expect(resolve("tests/Server.php", "GuzzleHttp\\Tests\\Handler\\CurlHandler")).toBe("tests/Handler/CurlHandler.php");
    expect(resolve("src/Client.php", "GuzzleHttp\\Extra\\Tool")).toBe("lib/Extra/Tool.php");
    expect(resolve("src/Client.php", "GuzzleHttp\\Pool\\Pool")).toBe("pool/Pool.php");
    expect(resolve("src/Client.php", "GuzzleHttp\\Missing")).toBeNull();
    expect(resolve("src/Client.php", "Psr\\Http\\Message\\RequestInterface")).toBeNull();
  });

  it("reads nested packages' composer.json, the importing file's package first for one prefix", () => {
    const resolve = php(["src/Logger.php", "packages/bridge/src/Logger.php", "packages/bridge/src/Bridge.php", "packages/bridge/src/Other.php"], {
      "": { autoload: { "psr-4": { "App\\": "src" } } },
      "packages/bridge": { autoload: { "psr-4": { "App\\": "src/", "Bridge\\": "src/" } } },
    });
    expect(resolve("src/Logger.php", "App\\Logger")).toBe("src/Logger.php");
    expect(resolve("packages/bridge/src/Bridge.php", "App\\Logger")).toBe("packages/bridge/src/Logger.php");
    expect(resolve("src/Logger.php", "App\\Bridge")).toBe("packages/bridge/src/Bridge.php");
    expect(resolve("src/Logger.php", "Bridge\\Other")).toBe("packages/bridge/src/Other.php");
  });

  it("maps psr-0 names, underscores of the class name as directories", () => {
    const resolve = php(["lib/Twig/Environment.php", "lib/Twig/Node/Expr.php", "src/Acme/Util/Str.php"], {
      "": { autoload: { "psr-0": { Twig_: "lib/", "Acme\\": "src" } } },
    });
    expect(resolve("src/Acme/Util/Str.php", "Twig_Environment")).toBe("lib/Twig/Environment.php");
    expect(resolve("src/Acme/Util/Str.php", "Twig_Node_Expr")).toBe("lib/Twig/Node/Expr.php");
    expect(resolve("lib/Twig/Environment.php", "Acme\\Util\\Str")).toBe("src/Acme/Util/Str.php");
  });

  it("finds a classmap class as the one file of its name in the classmap directories", () => {
    const resolve = php(["legacy/models/Order.php", "legacy/Helpers.php", "legacy/a/Dup.php", "legacy/b/Dup.php", "src/Order.php", "app/Kernel.php"], {
      "": { autoload: { classmap: ["legacy/", "app/Kernel.php"] } },
    });
    expect(resolve("app/Kernel.php", "Shop\\Order")).toBe("legacy/models/Order.php");
    expect(resolve("legacy/Helpers.php", "Kernel")).toBe("app/Kernel.php");
    expect(resolve("app/Kernel.php", "Shop\\Dup")).toBeNull();
  });

  it("falls back to the path suffix, and to nothing for a composer.json that is not JSON", () => {
    const resolve = php(["src/Monolog/Logger.php", "src/Monolog/Handler/StreamHandler.php"], { "": "{ not json" });
    expect(resolve("src/Monolog/Logger.php", "Monolog\\Handler\\StreamHandler")).toBe("src/Monolog/Handler/StreamHandler.php");
    expect(resolve("src/Monolog/Handler/StreamHandler.php", "Monolog\\Logger")).toBe("src/Monolog/Logger.php");
    expect(resolve("src/Monolog/Logger.php", "./Handler/StreamHandler.php")).toBe("src/Monolog/Handler/StreamHandler.php");
    // A byte-order mark before the JSON is not an error.
    expect(php(["lib/A.php"], { "": `\uFEFF${JSON.stringify({ autoload: { "psr-4": { "Vendor\\": "lib" } } })}` })("lib/A.php", "Vendor\\A")).toBe("lib/A.php");
  });

  it("keeps composer paths inside the project", () => {
    const resolve = php(["src/A.php"], { "": { autoload: { "psr-4": { "X\\": "../outside/", "Y\\": "" } } } });
    expect(resolve("src/A.php", "X\\A")).toBeNull();
    expect(resolve("src/A.php", "Y\\src\\A")).toBe("src/A.php");
  });
});

describe("composer autoload in an index run", () => {
  function project(files: Record<string, string>): TestProject {
    const p = makeProject(files);
    cleanups.push(() => p.cleanup());
    return p;
  }
  function stateDir(): string {
    const state = mkdtempSync(join(tmpdir(), "mast-conventions-"));
    cleanups.push(() => rmSync(state, { recursive: true, force: true }));
    return state;
  }
  const sources = {
    "src/Middleware.php": "<?php\nnamespace GuzzleHttp;\n\nclass Middleware\n{\n    public static function tap($before)\n    {\n        return $before;\n    }\n}\n",
    "src/Client.php": "<?php\nnamespace GuzzleHttp;\n\nuse GuzzleHttp\\Middleware;\n\nclass Client\n{\n    public function send()\n    {\n        return Middleware::tap(null);\n    }\n}\n",
  };

  it("resolves a psr-4 use to an internal import whose static call is an edge, and relinks when composer.json changes", async () => {
    const p = project({ ...sources, "composer.json": JSON.stringify({ autoload: { "psr-4": { "Other\\": "src/" } } }) });
    // Older than the racy window: the next run trusts the stats and must still see the edit.
    const past = new Date(Date.now() - 3_600_000);
    for (const f of [...Object.keys(sources), "composer.json"]) utimesSync(join(p.root, f), past, past);
    const state = stateDir();
    await runIndex(p.config({ stateDir: state }), { mode: "full" });
    const graph = statePaths(state).graphDb;
    const imports = () =>
      queryStore(graph, "SELECT f.path, i.module, i.is_external, (SELECT path FROM files WHERE id = i.resolved_file_id) AS resolved_path FROM imports i JOIN files f ON f.id = i.file_id ORDER BY 1");
    const calls = () =>
      queryStore(
        graph,
        `SELECT a.name AS source, b.name AS target, ${edgeResolution("e")} AS resolution, e.call_line FROM edges e JOIN symbols a ON a.id = e.from_id JOIN symbols b ON b.id = e.to_id WHERE e.edge_type = ${EDGE.POTENTIAL_CALL}`,
      );
    expect(imports()).toEqual([{ path: "src/Client.php", module: "GuzzleHttp\\Middleware", is_external: 1, resolved_path: null }]);
    expect(calls()).toEqual([]);

    p.write("composer.json", JSON.stringify({ autoload: { "psr-4": { "GuzzleHttp\\": "src/" } } }));
    expect(await runIndex(p.config({ stateDir: state }), { mode: "incremental" })).toMatchObject({ files_indexed: 0 });
    expect(imports()).toEqual([{ path: "src/Client.php", module: "GuzzleHttp\\Middleware", is_external: 0, resolved_path: "src/Middleware.php" }]);
    expect(calls()).toEqual([{ source: "Client.send", target: "Middleware.tap", resolution: "import", call_line: 10 }]);

    const fresh = stateDir();
    await runIndex(p.config({ stateDir: fresh }), { mode: "full" });
    expect(dumpStore(graph)).toEqual(dumpStore(statePaths(fresh).graphDb));
  });
});
