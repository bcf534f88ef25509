// gotypes-checker: the Go backend of mast's checker pass (src/query/checker-go.ts). Standard
// library only; compiled once with the user's `go` into mast's state dir, never into the project.
//
// Input on stdin: the project root on the first line, then the walked .go files, one relative
// path a line. Only those files are read (each checked to lie under the root once symlinks are
// resolved), plus the go.mod files of their directories up to the root, plus the standard library
// from GOROOT: its export data where the toolchain ships it (GOROOT/pkg, up to Go 1.19), else
// go/importer's "source" importer (GO111MODULE=off and CGO_ENABLED=0 in the environment: go/build
// never runs `go list` nor cgo). Each module's packages (module path from the nearest go.mod) are
// type-checked from source by an importer that checks them on first import; anything else that
// cannot be found is a tolerated error (types.Config.Error), never a download.
//
// Output on stdout, one record a line, tab-separated, paths relative to the root:
//
//	F <file>                                  a file type-checked: its calls above are all of them
//	C <file> <line> <name> <kind> [<file:line> ...]
//	                                          a call expression whose callee is named <name> on <line>:
//	                                          kind d: a function or method declared at the position given
//	                                          kind x: something declared outside the project (the standard
//	                                                  library, a builtin, a conversion)
//	                                          kind u: go/types cannot tell (a func value, an untyped receiver)
//	                                          kind i: an interface method (dynamic dispatch): its declaration
//	                                          (or "-" outside the project), then the id of an R record
//	                                          (none: no method of the project's types may be reached)
//	R <id> [<file:line> ...]                  the project's methods an interface method call may dispatch to
//	                                          (written after every C record)
//	I <typefile> <line> <type> <ifacefile> <line> <iface> <ptr>
//	                                          a named type of the project implements an interface
//	                                          of the project (ptr 1: only its pointer does)
//	Q <file> <line> <name>                    a named type or interface of the project whose method
//	                                          set go/types knows whole (nothing in it, its fields or
//	                                          its methods' signatures failed to type): for a pair of
//	                                          these, no I record means it does not implement
package main

import (
	"bufio"
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
	"strconv"
	"strings"
)

// debug: MAST_GOCHECK_DEBUG set prints the tolerated type errors on stderr.
var debug = os.Getenv("MAST_GOCHECK_DEBUG") != ""

func typeError(err error) {
	if debug {
		os.Stderr.WriteString(err.Error() + "\n")
	}
}

var (
	fset     = token.NewFileSet()
	root     string
	out      *bufio.Writer
	ctxt     = build.Default
	modRe    = regexp.MustCompile(`(?m)^\s*module\s+"?([^"\s]+)"?`)
	stdlib   types.Importer
	gc       types.Importer
	exported = map[string]*types.Package{}
	pkgs     = map[string]*pkgInfo{} // by directory (relative, slash-separated)
	modCache = map[string]*module{}
	named    []*types.TypeName // the project's named types (package level and local)
	// The interface method calls' dispatch sets, by interface and method name: an id each, listed at the end.
	dispatch = map[string]int{}
	methods  []dispatchSet
)

type dispatchSet struct {
	iface *types.Interface
	name  string
}

type module struct {
	dir, path string // dir relative to root ("." for the root)
}

type pkgInfo struct {
	dir       string
	files     []string // relative paths of the walked .go files in the directory
	importing bool
	checked   *types.Package
	info      *types.Info
	plain     []*ast.File // non-test files of the package
	tests     []*ast.File // in-package _test.go files
	xtests    []*ast.File // package x_test files
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	if !in.Scan() {
		os.Exit(2)
	}
	r, err := filepath.EvalSymlinks(in.Text())
	if err != nil {
		os.Stderr.WriteString("gotypes-checker: " + err.Error() + "\n")
		os.Exit(2)
	}
	root, _ = filepath.Abs(r)
	out = bufio.NewWriterSize(os.Stdout, 1<<16)
	defer out.Flush()
	// cgo files are checked (with a fake "C"), not left out.
	ctxt.CgoEnabled = true
	stdlib = importer.ForCompiler(fset, "source", nil)
	gc = importer.ForCompiler(fset, "gc", nil)
	var dirs []string
	for in.Scan() {
		rel := filepath.ToSlash(filepath.Clean(in.Text()))
		if rel == "." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) || !strings.HasSuffix(rel, ".go") || !inside(filepath.Join(root, rel)) {
			continue
		}
		dir := pathDir(rel)
		p := pkgs[dir]
		if p == nil {
			p = &pkgInfo{dir: dir}
			pkgs[dir] = p
			dirs = append(dirs, dir)
		}
		p.files = append(p.files, rel)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		parse(pkgs[dir])
	}
	// Each package is checked (its importable form, then with its tests, then its external tests),
	// its calls written and its type info let go; the named types are kept for the implementations.
	for _, dir := range dirs {
		p := pkgs[dir]
		path := importPath(dir)
		if len(p.tests) == 0 {
			importPkg(p, path)
			if p.info != nil {
				emitPackage(p.plain, p.info)
			}
		} else {
			files := append(append([]*ast.File{}, p.plain...), p.tests...)
			info, _ := check(path, files)
			emitPackage(files, info)
		}
		p.info = nil
		if len(p.xtests) > 0 {
			info, _ := check(path+"_test", p.xtests)
			emitPackage(p.xtests, info)
		}
		// The syntax is let go once nothing will check it again (an importer may still check the plain files).
		p.tests, p.xtests = nil, nil
		if p.checked != nil {
			p.plain = nil
		}
	}
	sort.Slice(named, func(i, j int) bool { return named[i].Pos() < named[j].Pos() })
	indexMethods()
	emitDispatch()
	emitImplements()
}

// inside: whether a path lies under the root once symlinks are resolved.
func inside(p string) bool {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return false
	}
	return r == root || strings.HasPrefix(r, root+string(filepath.Separator))
}

func pathDir(rel string) string {
	if i := strings.LastIndex(rel, "/"); i >= 0 {
		return rel[:i]
	}
	return "."
}

// moduleOf: the module of a directory, from the nearest go.mod up to the root.
func moduleOf(dir string) *module {
	if m, ok := modCache[dir]; ok {
		return m
	}
	var m *module
	file := filepath.Join(root, filepath.FromSlash(dir), "go.mod")
	if data, err := os.ReadFile(file); err == nil && inside(file) {
		if sub := modRe.FindStringSubmatch(string(data)); sub != nil {
			m = &module{dir: dir, path: sub[1]}
		}
	}
	if m == nil && dir != "." {
		m = moduleOf(pathDir(dir))
	}
	modCache[dir] = m
	return m
}

// importPath: a directory's import path in its module (the directory itself without one).
func importPath(dir string) string {
	m := moduleOf(dir)
	if m == nil {
		return dir
	}
	if dir == m.dir {
		return m.path
	}
	rest := dir
	if m.dir != "." {
		rest = strings.TrimPrefix(dir, m.dir+"/")
	}
	return m.path + "/" + rest
}

// dirOf: the project directory an import path names, or "" when it is not the project's.
func dirOf(path string) string {
	for dir := range pkgs {
		if importPath(dir) == path {
			return dir
		}
	}
	return ""
}

func parse(p *pkgInfo) {
	sort.Strings(p.files)
	byName := map[string]int{}
	var parsed []*ast.File
	var names []string
	for _, rel := range p.files {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if ok, err := ctxt.MatchFile(filepath.Dir(abs), filepath.Base(abs)); err == nil && !ok {
			continue // another GOOS/GOARCH, or a build tag the default build leaves out
		}
		f, _ := parser.ParseFile(fset, abs, nil, parser.SkipObjectResolution)
		if f == nil || f.Name == nil {
			continue
		}
		parsed = append(parsed, f)
		names = append(names, rel)
		if !strings.HasSuffix(rel, "_test.go") {
			byName[f.Name.Name]++
		}
	}
	// The package is the name most of its non-test files give (a stray `package main` helper is left out).
	main := ""
	for name, n := range byName {
		if n > byName[main] || (n == byName[main] && name < main) {
			main = name
		}
	}
	for i, f := range parsed {
		name := f.Name.Name
		test := strings.HasSuffix(names[i], "_test.go")
		switch {
		case !test && name == main:
			p.plain = append(p.plain, f)
		case test && (name == main || main == "" && !strings.HasSuffix(name, "_test")):
			p.tests = append(p.tests, f)
		case test && strings.HasSuffix(name, "_test"):
			p.xtests = append(p.xtests, f)
		}
	}
}

type projectImporter struct{}

func (projectImporter) Import(path string) (*types.Package, error) {
	return projectImporter{}.ImportFrom(path, "", 0)
}

func (projectImporter) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if d := dirOf(path); d != "" {
		p := pkgs[d]
		if p.importing {
			return nil, os.ErrInvalid // an import cycle
		}
		return importPkg(p, path), nil
	}
	// The toolchain's export data first (GOROOT/pkg, shipped up to Go 1.19: fast), else from source.
	if pkg, ok := exported[path]; ok {
		return pkg, nil
	}
	if pkg, err := gc.Import(path); err == nil {
		exported[path] = pkg
		return pkg, nil
	}
	if from, ok := stdlib.(types.ImporterFrom); ok {
		return from.ImportFrom(path, dir, mode)
	}
	return stdlib.Import(path)
}

func importPkg(p *pkgInfo, path string) *types.Package {
	if p.checked == nil && !p.importing {
		p.importing = true
		p.info, p.checked = check(path, p.plain)
		p.importing = false
	}
	return p.checked
}

func check(path string, files []*ast.File) (*types.Info, *types.Package) {
	info := &types.Info{
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: projectImporter{}, Error: typeError, FakeImportC: true}
	pkg, _ := conf.Check(path, fset, files, info)
	return info, pkg
}

// rel: the position's path relative to the root and its line, when it lies under the root.
func rel(pos token.Pos) (string, int, bool) {
	if !pos.IsValid() {
		return "", 0, false
	}
	p := fset.Position(pos)
	if !strings.HasPrefix(p.Filename, root+string(filepath.Separator)) {
		return "", 0, false
	}
	return filepath.ToSlash(p.Filename[len(root)+1:]), p.Line, true
}

func project(pos token.Pos) bool {
	_, _, ok := rel(pos)
	return ok
}

func at(pos token.Pos) string {
	f, l, ok := rel(pos)
	if !ok {
		return "-"
	}
	return f + ":" + strconv.Itoa(l)
}

// emitPackage: a checked package's named types kept, its calls written.
func emitPackage(files []*ast.File, info *types.Info) {
	for id, obj := range info.Defs {
		if tn, ok := obj.(*types.TypeName); ok && id != nil && !tn.IsAlias() && project(tn.Pos()) {
			if _, ok := tn.Type().(*types.Named); ok && !seenType[tn] {
				seenType[tn] = true
				named = append(named, tn)
			}
		}
	}
	for _, f := range files {
		emitFile(f, info)
	}
}

// emitFile: a file's calls, then its F record; a file whose walk fails gets none (its candidates are left as they were).
func emitFile(f *ast.File, info *types.Info) {
	defer func() {
		if r := recover(); r != nil {
			os.Stderr.WriteString("gotypes-checker: " + fset.Position(f.Pos()).Filename + ": " + fmt.Sprint(r) + "\n")
		}
	}()
	emitCalls(f, info)
	if file, _, ok := rel(f.Pos()); ok {
		out.WriteString("F\t" + file + "\n")
	}
}

var seenType = map[*types.TypeName]bool{}

func emitCalls(f *ast.File, info *types.Info) {
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fun := unparen(call.Fun)
		switch x := fun.(type) {
		case *ast.IndexExpr:
			fun = unparen(x.X)
		case *ast.IndexListExpr:
			fun = unparen(x.X)
		}
		var id *ast.Ident
		var sel *ast.SelectorExpr
		switch x := fun.(type) {
		case *ast.Ident:
			id = x
		case *ast.SelectorExpr:
			id, sel = x.Sel, x
		default:
			return true
		}
		file, line, ok := rel(id.Pos())
		if !ok {
			return true
		}
		head := "C\t" + file + "\t" + strconv.Itoa(line) + "\t" + id.Name + "\t"
		obj := info.Uses[id]
		switch o := obj.(type) {
		case *types.Func:
			if recv := o.Type().(*types.Signature).Recv(); recv != nil && types.IsInterface(recv.Type()) {
				out.WriteString(head + "i\t" + at(o.Pos()) + dispatchID(sel, info, o) + "\n")
				return true
			}
			if !project(o.Pos()) {
				out.WriteString(head + "x\n")
			} else {
				out.WriteString(head + "d\t" + at(o.Pos()) + "\n")
			}
		case *types.Builtin, *types.TypeName:
			out.WriteString(head + "x\n")
		default:
			// A variable, a field or a parameter of func type: whatever it holds.
			out.WriteString(head + "u\n")
		}
		return true
	})
}

// dispatchID: the tab-led id of the dispatch set of an interface method call (the interface the
// receiver has, the method's name), or "" when the receiver's interface is not known.
func dispatchID(sel *ast.SelectorExpr, info *types.Info, m *types.Func) string {
	var iface types.Type
	if sel != nil {
		if s := info.Selections[sel]; s != nil {
			iface = s.Recv()
		}
	}
	if iface == nil {
		iface = m.Type().(*types.Signature).Recv().Type()
	}
	if p, ok := iface.(*types.Pointer); ok {
		iface = p.Elem()
	}
	it, ok := iface.Underlying().(*types.Interface)
	if !ok {
		return ""
	}
	// One set per interface (a named one by its declaration, any other by its method set as written) and method.
	key := types.TypeString(it, nil)
	if n, ok := iface.(*types.Named); ok {
		key = at(n.Obj().Pos()) + "\x00" + types.TypeString(n, nil)
	}
	key += "\x00" + m.Name()
	id, ok := dispatch[key]
	if !ok {
		id = len(methods)
		dispatch[key] = id
		methods = append(methods, dispatchSet{it, m.Name()})
	}
	return "\t" + strconv.Itoa(id)
}

// withMethod: the project's non-interface named types by the names of their methods (T's and *T's,
// promoted ones included), so an interface is tested only against the types that have its rarest method.
var withMethod map[string][]*types.TypeName

func indexMethods() {
	withMethod = map[string][]*types.TypeName{}
	for _, tn := range named {
		if types.IsInterface(tn.Type()) {
			continue
		}
		ms := types.NewMethodSet(types.NewPointer(tn.Type()))
		for i := 0; i < ms.Len(); i++ {
			name := ms.At(i).Obj().Name()
			withMethod[name] = append(withMethod[name], tn)
		}
	}
}

// candidates: the types that may implement `it` (all of them for an interface without methods).
func candidates(it *types.Interface) []*types.TypeName {
	if it.NumMethods() == 0 {
		return nil
	}
	best := withMethod[it.Method(0).Name()]
	for i := 1; i < it.NumMethods(); i++ {
		if c := withMethod[it.Method(i).Name()]; len(c) < len(best) {
			best = c
		}
	}
	return best
}

// emitDispatch: each dispatch set, the methods of the project's named types (T or *T
// implementing the interface) that a call of its method may reach.
func emitDispatch() {
	for id, d := range methods {
		var list []string
		for _, tn := range candidates(d.iface) {
			t := tn.Type()
			if !types.Implements(t, d.iface) && !types.Implements(types.NewPointer(t), d.iface) {
				continue
			}
			obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), false, tn.Pkg(), d.name)
			if fn, ok := obj.(*types.Func); ok && project(fn.Pos()) {
				list = append(list, at(fn.Pos()))
			}
		}
		out.WriteString("R\t" + strconv.Itoa(id))
		for _, decl := range list {
			out.WriteString("\t" + decl)
		}
		out.WriteString("\n")
	}
}

// emitImplements: each named type of the project and each interface of the project it implements.
func emitImplements() {
	var ifaces []*types.TypeName
	for _, tn := range named {
		if it, ok := tn.Type().Underlying().(*types.Interface); ok && it.NumMethods() > 0 && it.IsMethodSet() {
			ifaces = append(ifaces, tn)
		}
	}
	for _, tn := range named {
		if whole(tn) {
			f, l, _ := rel(tn.Pos())
			out.WriteString("Q\t" + f + "\t" + strconv.Itoa(l) + "\t" + tn.Name() + "\n")
		}
	}
	for _, in := range ifaces {
		if in.Type().(*types.Named).TypeParams().Len() > 0 {
			continue
		}
		it := in.Type().Underlying().(*types.Interface)
		for _, tn := range candidates(it) {
			t := tn.Type()
			if n, ok := t.(*types.Named); ok && n.TypeParams().Len() > 0 {
				continue // a generic type implements only as instantiated
			}
			ptr := ""
			if types.Implements(t, it) {
				ptr = "0"
			} else if types.Implements(types.NewPointer(t), it) {
				ptr = "1"
			} else {
				continue
			}
			tf, tl, _ := rel(tn.Pos())
			inf, il, _ := rel(in.Pos())
			out.WriteString("I\t" + tf + "\t" + strconv.Itoa(tl) + "\t" + tn.Name() + "\t" + inf + "\t" + strconv.Itoa(il) + "\t" + in.Name() + "\t" + ptr + "\n")
		}
	}
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

// whole: whether a named type's method set is known in full: its underlying type, and the
// signatures of its methods (its own and promoted ones), hold no type that failed to check.
func whole(tn *types.TypeName) bool {
	t := tn.Type()
	if n, ok := t.(*types.Named); ok && n.TypeParams().Len() > 0 {
		return false
	}
	if strings.Contains(types.TypeString(t.Underlying(), nil), "invalid type") {
		return false
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := 0; i < ms.Len(); i++ {
		if strings.Contains(types.TypeString(ms.At(i).Type(), nil), "invalid type") {
			return false
		}
	}
	return true
}
