// Package sorted is the golangci-lint module plugin "sorted" that upstream's hack/golangci.yaml
// enables: in the files its settings list (the feature gate lists), every const and var block with
// more than one declaration, and every map literal keyed by a featuregate.Feature, must be in
// alphabetical (byte) order of the names. Upstream's implementation lives in its hack/tools module,
// which the Kubernetes module zip leaves out; this one checks the same rule.
package sorted

import (
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"
)

func init() {
	register.Plugin("sorted", New)
}

// Settings are the plugin's settings in the golangci-lint configuration.
type Settings struct {
	// Files are the files to check, relative to the module root (matched as a path suffix).
	Files []string `json:"files"`
}

type plugin struct {
	settings Settings
}

// New decodes the settings.
func New(conf any) (register.LinterPlugin, error) {
	s, err := register.DecodeSettings[Settings](conf)
	if err != nil {
		return nil, err
	}
	return &plugin{settings: s}, nil
}

func (p *plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	return []*analysis.Analyzer{NewAnalyzer(p.settings.Files)}, nil
}

func (p *plugin) GetLoadMode() string { return register.LoadModeSyntax }

// NewAnalyzer checks the files whose path ends in one of files.
func NewAnalyzer(files []string) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name: "sorted",
		Doc:  "checks that feature gate declarations and feature gate maps are sorted alphabetically",
		Run: func(pass *analysis.Pass) (any, error) {
			for _, f := range pass.Files {
				if wanted(files, pass.Fset.File(f.Pos()).Name()) {
					checkFile(pass, f)
				}
			}
			return nil, nil
		},
	}
}

func wanted(files []string, name string) bool {
	name = filepath.ToSlash(name)
	for _, f := range files {
		if name == f || strings.HasSuffix(name, "/"+strings.TrimPrefix(f, "/")) {
			return true
		}
	}
	return false
}

type entry struct {
	name string
	pos  token.Pos
}

func checkFile(pass *analysis.Pass, f *ast.File) {
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || (gd.Tok != token.CONST && gd.Tok != token.VAR) {
			continue
		}
		if len(gd.Specs) > 1 {
			var names []entry
			for _, s := range gd.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok && len(vs.Names) > 0 {
					names = append(names, entry{vs.Names[0].Name, vs.Pos()})
				}
			}
			report(pass, gd.Tok.String()+" block", names)
		}
		if gd.Tok == token.VAR {
			for _, s := range gd.Specs {
				vs, ok := s.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for i, v := range vs.Values {
					if keys, ok := featureMapKeys(v); ok && i < len(vs.Names) {
						report(pass, fmt.Sprintf("map %s: keys", vs.Names[i].Name), keys)
					}
				}
			}
		}
	}
}

// featureMapKeys returns the keys of a map literal whose key type is Feature or x.Feature.
func featureMapKeys(e ast.Expr) ([]entry, bool) {
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return nil, false
	}
	mt, ok := cl.Type.(*ast.MapType)
	if !ok {
		return nil, false
	}
	switch k := mt.Key.(type) {
	case *ast.Ident:
		ok = k.Name == "Feature"
	case *ast.SelectorExpr:
		ok = k.Sel.Name == "Feature"
	default:
		ok = false
	}
	if !ok {
		return nil, false
	}
	var keys []entry
	for _, elt := range cl.Elts {
		kv, isKV := elt.(*ast.KeyValueExpr)
		if !isKV {
			continue
		}
		switch k := kv.Key.(type) {
		case *ast.Ident:
			keys = append(keys, entry{k.Name, k.Pos()})
		case *ast.SelectorExpr:
			if x, isIdent := k.X.(*ast.Ident); isIdent {
				keys = append(keys, entry{x.Name + "." + k.Sel.Name, k.Pos()})
			}
		}
	}
	return keys, true
}

// report names the first entry that comes before its predecessor, where the entries belong.
func report(pass *analysis.Pass, what string, entries []entry) {
	for i := 1; i < len(entries); i++ {
		if entries[i].name < entries[i-1].name {
			want := i - 1
			for want > 0 && entries[i].name < entries[want-1].name {
				want--
			}
			pass.Reportf(entries[i].pos, "%s not sorted alphabetically: %s must come before %s",
				what, entries[i].name, entries[want].name)
			return
		}
	}
}
