// Command doccheck checks that the documents say only what exists: every name, flag, option,
// metric and path written as inline code (`...`) in them, and every quoted e2e spec name, is
// found in the project's files, in the assembled Kubernetes tree, or is a file or directory there.
//
//	doccheck -root . -tree _output/kubernetes KEP.md README.md docs/driver-guide.md
//
// It prints each name it cannot find with the document and line, and exits 1 if there is one.
// Where a name is found:
//   - make targets (`make X`, also after VAR=value words): a rule "X:" in the project's or the
//     tree's Makefile; other commands by their first word when it is a relative path (a script);
//   - paths: a file or directory of the project, the document's directory, the tree or a staging
//     module (a <placeholder> part matches any name); paths under _output/ by the scripts naming
//     their first directory; absolute paths and images by their text up to a <placeholder>;
//   - Go test and benchmark names: a func of that name;
//   - kubelet_* metrics: the name, or its part after the subsystem prefixes, as text;
//   - flags: --name, -name or "name" as text; Go selectors and calls (Type.Method(x)): the last name;
//   - quoted spec names ("should ...") and any other name: as text.
//
// Text is searched with git grep in the tracked and untracked files of the project and the tree;
// the checked documents and docs/research do not count.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	root := flag.String("root", ".", "the project's root (a git checkout)")
	tree := flag.String("tree", "_output/kubernetes", "the assembled Kubernetes tree (a git checkout)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: doccheck [-root DIR] [-tree DIR] DOCUMENT.md...")
		os.Exit(2)
	}
	problems, err := check(*root, *tree, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "doccheck:", err)
		os.Exit(2)
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Printf("%d name(s) in the documents do not exist in the code\n", len(problems))
		os.Exit(1)
	}
}

// A ref is one thing a document names.
type ref struct {
	doc  string
	line int
	text string
	spec bool // a quoted e2e spec name
}

var (
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	specName = regexp.MustCompile(`"(should [^"]+)"`)
	goTest   = regexp.MustCompile(`^(Test|Benchmark)[A-Za-z0-9_]+$`)
)

// extract returns the inline code spans and the quoted spec names of a Markdown document,
// outside fenced code blocks. A spec name may be wrapped over two lines.
func extract(doc string, data []byte) []ref {
	var refs []ref
	lines := strings.Split(string(data), "\n")
	fenced := false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(strings.TrimSpace(line), "<!--") {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			refs = append(refs, ref{doc: doc, line: i + 1, text: m[1]})
		}
		// A spec name may continue on the next line.
		joined := line
		if at := strings.LastIndex(line, `"should `); at >= 0 && !strings.Contains(line[at+1:], `"`) && i+1 < len(lines) {
			joined = line + " " + strings.TrimSpace(lines[i+1])
		}
		for _, m := range specName.FindAllStringSubmatchIndex(joined, -1) {
			if m[0] < len(line) {
				refs = append(refs, ref{doc: doc, line: i + 1, text: joined[m[2]:m[3]], spec: true})
			}
		}
	}
	return refs
}

func check(root, tree string, docs []string) ([]string, error) {
	var refs []ref
	for _, doc := range docs {
		data, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			return nil, err
		}
		refs = append(refs, extract(doc, data)...)
	}
	var makefiles []byte
	for _, m := range []string{filepath.Join(root, "Makefile"), filepath.Join(tree, "build/root/Makefile")} {
		data, err := os.ReadFile(m)
		if err != nil {
			return nil, err
		}
		makefiles = append(makefiles, data...)
	}

	// Everything searched as text is searched in one git grep per checkout and round; git grep
	// -o reports one of overlapping matches, so the rounds go on while they find more.
	var words []string
	for _, r := range refs {
		for _, c := range alternatives(r) {
			if c.text != "" {
				words = append(words, c.text)
			}
		}
	}
	found := map[string]bool{}
	for {
		before := len(found)
		for _, dir := range []string{root, tree} {
			if err := grepFixed(dir, words, docs, found); err != nil {
				return nil, err
			}
		}
		if len(found) == before {
			break
		}
	}

	var problems []string
	for _, r := range refs {
		ok := false
		for _, c := range alternatives(r) {
			switch {
			case c.always:
				ok = true
			case c.text != "":
				ok = found[c.text]
			case c.path != "":
				ok = pathExists(root, tree, filepath.Dir(r.doc), c.path)
			case c.target != "":
				ok = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(c.target) + `:`).Match(makefiles)
			}
			if ok {
				break
			}
		}
		if !ok {
			problems = append(problems, fmt.Sprintf("%s:%d: %q is not in the code", r.doc, r.line, r.text))
		}
	}
	return problems, nil // in the order of the documents
}

// A lookup is one way a ref can be found: as text, as a path, as a make target, or always (a
// phrase or a command that is checked by running it).
type lookup struct {
	text, path, target string
	always             bool
}

var (
	envAssignment = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=(\S*)\s+`)
	labels        = regexp.MustCompile(`\{[^}]*\}$`)
	callOrField   = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*\.)*([A-Za-z_][A-Za-z0-9_]*)(\(.*\))?$`)
	sysctl        = regexp.MustCompile(`^[a-z]+(\.[a-z_]+)+$`)
)

// alternatives lists the ways a ref can be found; it is found when one of them succeeds.
func alternatives(r ref) []lookup {
	t := r.text
	if r.spec {
		return []lookup{{text: t}}
	}
	var checks []lookup
	for {
		m := envAssignment.FindStringSubmatch(t)
		if m == nil {
			break
		}
		t = t[len(m[0]):]
	}
	if f := strings.Fields(t); len(f) > 1 {
		switch {
		case f[0] == "make":
			return []lookup{{target: f[1]}}
		case strings.Contains(f[0], "/") && !strings.HasPrefix(f[0], "/"):
			return []lookup{{path: f[0]}}
		}
		return []lookup{{always: true}}
	}
	if strings.HasPrefix(t, "_output/") {
		// Made by the scripts: the scripts must name its first directory.
		first := strings.SplitN(strings.TrimPrefix(t, "_output/"), "/", 2)[0]
		return []lookup{{text: "_output/" + first}, {text: "/" + first + "/"}}
	}
	checks = append(checks, lookup{path: t})
	if strings.Contains(t, "<") {
		// An image or a name with a placeholder: its fixed beginning is in the code.
		checks = append(checks, lookup{text: strings.TrimSuffix(placeholderFree(t), "/")})
	}
	t = strings.TrimPrefix(t, "...")
	t = labels.ReplaceAllString(t, "")
	t = strings.TrimSuffix(t, "*")
	checks = append(checks, lookup{text: t})
	switch {
	case goTest.MatchString(t):
		return []lookup{{text: "func " + t + "("}}
	case strings.HasPrefix(t, "kubelet_"):
		rest := strings.TrimPrefix(t, "kubelet_")
		checks = append(checks, lookup{text: rest}, lookup{text: strings.TrimPrefix(rest, "resource_manager_")})
	case strings.HasPrefix(t, "-"):
		name, _, _ := strings.Cut(strings.TrimLeft(t, "-"), "=")
		checks = append(checks, lookup{text: `"` + name + `"`}, lookup{text: "-" + name})
	case sysctl.MatchString(t):
		checks = append(checks, lookup{text: strings.ReplaceAll(t, ".", "/")})
	}
	if m := callOrField.FindStringSubmatch(t); m != nil && strings.ContainsAny(t, ".(") {
		// Go: Type.Method(args), pkg.Func, Type.field: the last name is in the code.
		checks = append(checks, lookup{text: m[2]})
	}
	return checks
}

// placeholderFree cuts a path before its first <placeholder>.
func placeholderFree(p string) string {
	if i := strings.Index(p, "<"); i >= 0 {
		return p[:i]
	}
	return p
}

// pathExists says whether p exists relative to the project, the document's directory, the tree
// or a staging module of either; a <placeholder> part matches any name.
func pathExists(root, tree, docDir, p string) bool {
	if strings.Contains(p, "://") || strings.ContainsAny(p, " \t") {
		return false
	}
	pattern := regexp.MustCompile(`<[^>]*>`).ReplaceAllString(strings.TrimSuffix(p, "/"), "*")
	if strings.HasPrefix(pattern, "/") || pattern == "" {
		return false
	}
	for _, dir := range []string{root, filepath.Join(root, docDir), tree, filepath.Join(root, "staging/src/*/*"), filepath.Join(tree, "staging/src")} {
		if matches, _ := filepath.Glob(filepath.Join(dir, pattern)); len(matches) > 0 {
			return true
		}
	}
	return false
}

// grepFixed marks in found each of words that occurs in the tracked files of the git checkout
// dir, except the documents being checked.
func grepFixed(dir string, words, docs []string, found map[string]bool) error {
	var patterns bytes.Buffer
	seen := map[string]bool{}
	for _, w := range words {
		if w != "" && !seen[w] && !found[w] {
			seen[w] = true
			patterns.WriteString(w + "\n")
		}
	}
	if patterns.Len() == 0 {
		return nil
	}
	args := []string{"-C", dir, "grep", "--untracked", "-I", "-h", "-o", "-F", "-f", "-", "--", "."}
	for _, d := range docs {
		args = append(args, ":(exclude)"+d)
	}
	args = append(args, ":(exclude)docs/research")
	cmd := exec.Command("git", args...)
	cmd.Stdin = &patterns
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	scanner := bufio.NewScanner(out)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		found[scanner.Text()] = true
	}
	if err := cmd.Wait(); err != nil {
		if exit, ok := err.(*exec.ExitError); ok && exit.ExitCode() == 1 {
			return nil // nothing found
		}
		return fmt.Errorf("git grep in %s: %w", dir, err)
	}
	return scanner.Err()
}
