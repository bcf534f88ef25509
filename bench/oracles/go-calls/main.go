// go-calls: the call sites of a Go module's own functions and methods, as go/types resolves them
// — the ground truth of bench/callers-oracle.mjs for Go. Standard library only (go/parser,
// go/types, go/importer), so it runs offline with Debian's golang-go:
//
//	GO111MODULE=off go run bench/oracles/go-calls/main.go <module dir>
//
// Every package directory under <module dir> (vendor and hidden directories left out; testdata
// is walked too, its packages are real when the module imports them)
// is type-checked from source — the files the default build context selects (go/build's
// MatchFile: build tags, GOOS/GOARCH) — each package with its own _test.go files, and each
// external test package (`package x_test`) on its own; the files it leaves out are printed as
// {"excluded": path} lines last. Packages of the module are imported from their source
// (without tests); anything else through the "source" importer (GOROOT and GOPATH). Type errors
// are tolerated: what cannot be typed is not reported. Output: one JSON object per line,
// {"file","line","target_file","target_line","name"} for each call whose callee is a function or
// method declared in the module (interface methods included), paths relative to <module dir>.
//
// With -refs (bench/intent-rename.mjs --language go), the references of declarations instead:
//
//	GO111MODULE=off go run bench/oracles/go-calls/main.go -refs <module dir> < positions
//
// stdin: one declaration name's position a line, `file:line:col` (file relative to <module dir>,
// 1-based line and byte column). Output: {"target","file","line","col"} for every identifier the
// type checker resolves to that declaration (its Defs and Uses: the declaration itself, each use,
// in every package of the module with its tests), same coordinates.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

var fset = token.NewFileSet()

// excluded: the files the default build context leaves out.
var excluded = map[string]bool{}

type moduleImporter struct {
	root, module string
	fallback     types.Importer
	cache        map[string]*types.Package
}

func (m *moduleImporter) Import(path string) (*types.Package, error) {
	return m.ImportFrom(path, "", 0)
}

func (m *moduleImporter) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if path != m.module && !strings.HasPrefix(path, m.module+"/") {
		if from, ok := m.fallback.(types.ImporterFrom); ok {
			return from.ImportFrom(path, dir, mode)
		}
		return m.fallback.Import(path)
	}
	if pkg, ok := m.cache[path]; ok {
		return pkg, nil
	}
	files := parseDir(filepath.Join(m.root, strings.TrimPrefix(strings.TrimPrefix(path, m.module), "/")), func(name string, pkg string) bool {
		return !strings.HasSuffix(name, "_test.go")
	})
	conf := types.Config{Importer: m, Error: func(error) {}}
	pkg, _ := conf.Check(path, fset, files, nil)
	m.cache[path] = pkg
	return pkg, nil
}

func parseDir(dir string, keep func(name, pkg string) bool) []*ast.File {
	entries, _ := os.ReadDir(dir)
	var files []*ast.File
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		// Files the default build leaves out (build tags, GOOS/GOARCH suffixes, `ignore`) are not
		// checked; they are listed so the bench leaves their sites and symbols out too.
		if ok, err := build.Default.MatchFile(dir, e.Name()); err == nil && !ok {
			excluded[filepath.Join(dir, e.Name())] = true
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil && f == nil {
			continue
		}
		if keep(e.Name(), f.Name.Name) {
			files = append(files, f)
		}
	}
	return files
}

type site struct {
	File       string `json:"file"`
	Line       int    `json:"line"`
	TargetFile string `json:"target_file"`
	TargetLine int    `json:"target_line"`
	Name       string `json:"name"`
}

type ref struct {
	Target string `json:"target"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Col    int    `json:"col"`
}

func main() {
	refsMode := len(os.Args) > 2 && os.Args[1] == "-refs"
	targets := map[string]bool{}
	if refsMode {
		os.Args = os.Args[1:]
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			if t := strings.TrimSpace(sc.Text()); t != "" {
				targets[t] = true
			}
		}
	}
	var refs []ref
	root, _ := filepath.Abs(os.Args[1])
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "go-calls: no go.mod in", root)
		os.Exit(2)
	}
	module := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindStringSubmatch(string(mod))[1]
	imp := &moduleImporter{root: root, module: module, fallback: importer.ForCompiler(fset, "source", nil), cache: map[string]*types.Package{}}
	var dirs []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			name := d.Name()
			if p != root && (name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
		}
		return nil
	})
	var out []site
	seen := map[string]bool{}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		path := module
		if rel != "." {
			path = module + "/" + filepath.ToSlash(rel)
		}
		all := parseDir(dir, func(string, string) bool { return true })
		byPkg := map[string][]*ast.File{}
		for _, f := range all {
			byPkg[f.Name.Name] = append(byPkg[f.Name.Name], f)
		}
		for name, files := range byPkg {
			info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Defs: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
			pkgPath := path
			if strings.HasSuffix(name, "_test") {
				pkgPath = path + "_test"
			}
			conf := types.Config{Importer: imp, Error: func(error) {}}
			conf.Check(pkgPath, fset, files, info)
			if refsMode {
				// A package's objects and the importer's copy of them are different objects: the
				// declaration is matched by its position (one FileSet for every parse).
				for _, m := range []map[*ast.Ident]types.Object{info.Defs, info.Uses} {
					for id, obj := range m {
						if obj == nil || !obj.Pos().IsValid() {
							continue
						}
						d := fset.Position(obj.Pos())
						t := fmt.Sprintf("%s:%d:%d", relTo(root, d.Filename), d.Line, d.Column)
						if !targets[t] {
							continue
						}
						p := fset.Position(id.Pos())
						k := fmt.Sprintf("%s>%s:%d:%d", t, p.Filename, p.Line, p.Column)
						if !seen[k] {
							seen[k] = true
							refs = append(refs, ref{Target: t, File: relTo(root, p.Filename), Line: p.Line, Col: p.Column})
						}
					}
				}
				continue
			}
			for _, f := range files {
				ast.Inspect(f, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					fun := call.Fun
					for {
						p, ok := fun.(*ast.ParenExpr)
						if !ok {
							break
						}
						fun = p.X
					}
					switch x := fun.(type) {
					case *ast.IndexExpr:
						fun = x.X
					case *ast.IndexListExpr:
						fun = x.X
					}
					var id *ast.Ident
					switch x := fun.(type) {
					case *ast.Ident:
						id = x
					case *ast.SelectorExpr:
						id = x.Sel
					}
					if id == nil {
						return true
					}
					fn, ok := info.Uses[id].(*types.Func)
					if !ok || !fn.Pos().IsValid() {
						return true
					}
					target := fset.Position(fn.Pos())
					if !strings.HasPrefix(target.Filename, root+string(filepath.Separator)) {
						return true
					}
					s := site{File: relTo(root, fset.Position(id.Pos()).Filename), Line: fset.Position(id.Pos()).Line, TargetFile: relTo(root, target.Filename), TargetLine: target.Line, Name: fn.Name()}
					key := fmt.Sprintf("%s:%d>%s:%d", s.File, s.Line, s.TargetFile, s.TargetLine)
					if !seen[key] {
						seen[key] = true
						out = append(out, s)
					}
					return true
				})
			}
		}
	}
	if refsMode {
		sort.Slice(refs, func(i, j int) bool {
			a, b := refs[i], refs[j]
			if a.Target != b.Target {
				return a.Target < b.Target
			}
			if a.File != b.File {
				return a.File < b.File
			}
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Col < b.Col
		})
		enc := json.NewEncoder(os.Stdout)
		for _, r := range refs {
			enc.Encode(r)
		}
		return
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	enc := json.NewEncoder(os.Stdout)
	for _, s := range out {
		enc.Encode(s)
	}
	var skipped []string
	for f := range excluded {
		skipped = append(skipped, relTo(root, f))
	}
	sort.Strings(skipped)
	for _, f := range skipped {
		enc.Encode(map[string]string{"excluded": f})
	}
}

func relTo(root, p string) string {
	r, _ := filepath.Rel(root, p)
	return filepath.ToSlash(r)
}
