// Package seriestest tests the series tooling in hack/ (tree, export, check-exported, verify,
// rebase) on a small fake upstream, so that its rules are checked in seconds and without the
// Go module proxy.
package seriestest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// env is one isolated copy of the tooling's inputs and outputs.
type env struct {
	t        *testing.T
	hack     string // the project's hack/ directory
	upstream string // UPSTREAM_SRC: one directory per release
	pin      string
	tree     string
	patches  string
	staging  string
	verifyD  string // the checks verify.sh runs; empty: none
	cache    string // PRM_CACHE: the build cache of this copy alone
}

func newEnv(t *testing.T) *env {
	t.Helper()
	// go test runs in the package directory, hack/seriestest.
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := &env{
		t:        t,
		hack:     filepath.Dir(cwd),
		upstream: filepath.Join(dir, "upstream"),
		pin:      filepath.Join(dir, "upstream.env"),
		tree:     filepath.Join(dir, "tree"),
		patches:  filepath.Join(dir, "patches"),
		staging:  filepath.Join(dir, "staging"),
		cache:    filepath.Join(dir, "cache"),
	}
	for _, d := range []string{e.patches, e.staging} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Two releases that differ in an unrelated line, so a rebase between them is a real 3-way merge.
	e.writeRelease("v1.37.2", "release = 2\n")
	e.writeRelease("v1.37.3", "release = 3\n")
	e.setPin("v1.37.2")
	return e
}

func (e *env) writeRelease(version, releaseLine string) {
	root := filepath.Join(e.upstream, version)
	files := map[string]string{
		"go.mod":            "module k8s.io/kubernetes\n\ngo 1.26.0\n",
		"pkg/features/f.go": "package features\n\n// Gates.\nconst (\n\tA = \"A\"\n\tB = \"B\"\n)\n",
		"VERSION":           releaseLine,
		"testdata/crlf.txt": "dos\r\nline\r\n",
	}
	for name, content := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) setPin(version string) {
	pin := "KUBE_VERSION=" + version + "\nSTAGING_VERSION=v0." + strings.TrimPrefix(version, "v1.") + "\n"
	if err := os.WriteFile(e.pin, []byte(pin), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// run runs a hack/ script and returns its combined output and whether it succeeded.
func (e *env) run(script string, args ...string) (string, bool) {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(e.hack, script), args...)
	cmd.Env = append(os.Environ(),
		"UPSTREAM_SRC="+e.upstream, "PIN_FILE="+e.pin, "TREE="+e.tree,
		"PATCHES="+e.patches, "STAGING_OUT="+e.staging, "TMPDIR="+e.t.TempDir(), "PRM_CACHE="+e.cache,
		// The real checks and staging modules need a real Kubernetes tree.
		"VERIFY_D="+e.verifyDir(), "STAGING_LIST="+filepath.Join(e.t.TempDir(), "none"),
		// Step times go to the test's output, not to the file of a CI run around it.
		"STEP_TIMES_FILE=", "STEP_SPANS_FILE=", "STEP_PREFIX=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err == nil
}

// verifyDir is the directory of checks verify.sh runs: the real ones need a real Kubernetes tree.
func (e *env) verifyDir() string {
	if e.verifyD == "" {
		return e.t.TempDir()
	}
	return e.verifyD
}

func (e *env) mustRun(script string, args ...string) string {
	e.t.Helper()
	out, ok := e.run(script, args...)
	if !ok {
		e.t.Fatalf("%s %v failed:\n%s", script, args, out)
	}
	return out
}

func (e *env) git(args ...string) string {
	e.t.Helper()
	out, err := exec.Command("git", append([]string{"-C", e.tree}, args...)...).CombinedOutput()
	if err != nil {
		e.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit edits a file of the tree and commits it.
func (e *env) commit(file, content, message string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.tree, file), []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	e.git("add", file)
	e.git("commit", "-q", "-m", message)
}

func (e *env) patchFiles() []string {
	e.t.Helper()
	files, err := filepath.Glob(filepath.Join(e.patches, "*.patch"))
	if err != nil {
		e.t.Fatal(err)
	}
	return files
}

// withOnePatch assembles the tree and exports a one-patch series.
func withOnePatch(t *testing.T) *env {
	e := newEnv(t)
	e.mustRun("tree.sh")
	e.commit("pkg/features/f.go", "package features\n\n// Gates.\nconst (\n\tA = \"A\"\n\tB = \"B\"\n\tC = \"C\"\n)\n", "features: add C\n\nA gate for C.")
	e.mustRun("export.sh")
	return e
}

func TestTreeAssemblesAndIsReused(t *testing.T) {
	e := withOnePatch(t)
	if got := e.git("log", "-1", "--format=%s", "upstream"); got != "upstream: k8s.io/kubernetes v1.37.2" {
		t.Errorf("upstream commit subject = %q", got)
	}
	crlf, err := os.ReadFile(filepath.Join(e.tree, "testdata/crlf.txt"))
	if err != nil || string(crlf) != "dos\r\nline\r\n" {
		t.Errorf("CRLF test data changed in the tree: %q, %v", crlf, err)
	}
	out := e.mustRun("tree.sh")
	if !strings.Contains(out, "nothing to do") {
		t.Errorf("second tree.sh did not reuse the tree:\n%s", out)
	}
	// A fresh assembly reproduces the same commits, ids included (builds are keyed on them).
	head := e.git("rev-parse", "HEAD")
	if err := os.RemoveAll(e.tree); err != nil {
		t.Fatal(err)
	}
	e.mustRun("tree.sh")
	if got := e.git("rev-parse", "HEAD"); got != head {
		t.Errorf("re-assembled tree differs: %s != %s", got, head)
	}
}

// The cache outside the checkout: a new checkout reuses the trees, a changed patch builds a new
// series tree on the reused upstream, and an entry that a killed build left, or that was damaged
// afterwards, is never used.
func TestTreeCache(t *testing.T) {
	e := withOnePatch(t)
	fresh := func() string {
		t.Helper()
		if err := os.RemoveAll(e.tree); err != nil {
			t.Fatal(err)
		}
		return e.mustRun("tree.sh")
	}
	fresh() // the cache has the series tree of withOnePatch's first tree.sh, without its patch
	if out := fresh(); !strings.Contains(out, ": reused (key series/") || strings.Contains(out, "assembling upstream") {
		t.Errorf("a new checkout did not reuse the cached series tree:\n%s", out)
	}

	// One patch changed: a new series tree, on the cached upstream.
	e.commit("VERSION", "release = 2, patched\n", "touch VERSION")
	e.mustRun("export.sh")
	out := fresh()
	if !strings.Contains(out, ": reused (key upstream/") || !strings.Contains(out, ": built (key series/") {
		t.Errorf("a changed series did not build a new series tree on the cached upstream:\n%s", out)
	}
	if got := string(mustRead(t, filepath.Join(e.tree, "VERSION"))); got != "release = 2, patched\n" {
		t.Errorf("tree does not have the changed series: VERSION = %q", got)
	}

	// A damaged entry (a file changed after it was made) is found, removed and built again.
	entries, err := filepath.Glob(filepath.Join(e.cache, "series", "*", "VERSION"))
	if err != nil || len(entries) != 3 {
		t.Fatalf("series entries = %v, %v", entries, err)
	}
	for _, f := range entries {
		writeFile(t, f, []byte("damaged\n"))
	}
	out = fresh()
	if !strings.Contains(out, "incomplete or damaged") || !strings.Contains(out, ": built (key series/") {
		t.Errorf("a damaged series tree was not rebuilt:\n%s", out)
	}
	if got := string(mustRead(t, filepath.Join(e.tree, "VERSION"))); got != "release = 2, patched\n" {
		t.Errorf("tree from a damaged entry: VERSION = %q", got)
	}

	// A build killed half way leaves a temporary directory, never an entry: it is removed, and
	// an entry without its completion mark is not used.
	killed := filepath.Join(e.cache, "series", ".tmp.0123.999999999")
	if err := os.MkdirAll(killed, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(killed, "VERSION"), []byte("half\n"))
	upstream, _ := filepath.Glob(filepath.Join(e.cache, "upstream", "[0-9a-f]*"))
	if len(upstream) != 1 {
		t.Fatalf("upstream entries = %v", upstream)
	}
	if err := os.Remove(filepath.Join(upstream[0], ".prm-complete")); err != nil {
		t.Fatal(err)
	}
	series, _ := filepath.Glob(filepath.Join(e.cache, "series", "[0-9a-f]*"))
	for _, d := range series {
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
	}
	out = fresh()
	if !strings.Contains(out, ": built (key upstream/") || !strings.Contains(out, ": built (key series/") {
		t.Errorf("an incomplete upstream entry was used:\n%s", out)
	}
	if _, err := os.Stat(killed); !os.IsNotExist(err) {
		t.Errorf("the killed build's directory is still there (%v)", err)
	}
}

func TestExportIsDeterministic(t *testing.T) {
	e := withOnePatch(t)
	files := e.patchFiles()
	if len(files) != 1 || !strings.HasSuffix(files[0], "0001-features-add-C.patch") {
		t.Fatalf("patches = %v", files)
	}
	before, _ := os.ReadFile(files[0])
	for _, forbidden := range []string{"\nFrom " + e.git("rev-parse", "HEAD")} {
		if bytes.Contains(before, []byte(forbidden)) {
			t.Errorf("patch contains a commit id: %q", forbidden)
		}
	}
	e.mustRun("export.sh")
	after, _ := os.ReadFile(files[0])
	if !bytes.Equal(before, after) {
		t.Errorf("exporting an unchanged tree changed the patch:\n%s\n---\n%s", before, after)
	}
}

func TestCheckExportedFindsUnexportedWork(t *testing.T) {
	e := withOnePatch(t)
	if out, ok := e.run("check-exported.sh"); !ok {
		t.Fatalf("check-exported failed on an exported tree:\n%s", out)
	}
	e.commit("VERSION", "release = 2, patched\n", "unexported change")
	out, ok := e.run("check-exported.sh")
	if ok || !strings.Contains(out, "0002-unexported-change.patch") {
		t.Errorf("check-exported did not report the unexported commit (ok=%v):\n%s", ok, out)
	}
	// tree.sh must not throw that work away.
	if err := os.WriteFile(filepath.Join(e.patches, "0001-features-add-C.patch"), append(mustRead(t, e.patchFiles()[0]), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, ok := e.run("tree.sh"); ok || !strings.Contains(out, "not in patches/") {
		t.Errorf("tree.sh with local work: ok=%v\n%s", ok, out)
	}
	e.mustRun("export.sh")
	if out, ok := e.run("check-exported.sh"); !ok {
		t.Errorf("check-exported failed after export:\n%s", out)
	}
	// Uncommitted edits count too.
	if err := os.WriteFile(filepath.Join(e.tree, "VERSION"), []byte("dirty\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, ok := e.run("check-exported.sh"); ok || !strings.Contains(out, "uncommitted edits") {
		t.Errorf("check-exported missed an uncommitted edit (ok=%v):\n%s", ok, out)
	}
}

func TestVerify(t *testing.T) {
	e := withOnePatch(t)
	if out, ok := e.run("verify.sh"); !ok {
		t.Fatalf("verify failed on a good series:\n%s", out)
	}
	patch := e.patchFiles()[0]
	good := mustRead(t, patch)

	// A corrupted line of the diff: the patch no longer applies, and the error names it.
	bad := bytes.Replace(good, []byte("\tB = \"B\"\n"), []byte("\tB = \"b\"\n"), 1)
	if bytes.Equal(bad, good) {
		t.Fatal("test bug: nothing corrupted")
	}
	writeFile(t, patch, bad)
	out, ok := e.run("verify.sh")
	if ok || !strings.Contains(out, "0001-features-add-C.patch") {
		t.Errorf("verify with a corrupted patch: ok=%v\n%s", ok, out)
	}

	// A hand edit outside the diff: it applies, but export no longer reproduces the file.
	writeFile(t, patch, bytes.Replace(good, []byte("1 file changed"), []byte("1 file changed (edited)"), 1))
	if out, ok := e.run("verify.sh"); ok || !strings.Contains(out, "does not reproduce patches/") {
		t.Errorf("verify with a hand-edited patch: ok=%v\n%s", ok, out)
	}

	// Trailing whitespace added by a patch is refused.
	writeFile(t, patch, bytes.Replace(good, []byte("+\tC = \"C\"\n"), []byte("+\tC = \"C\" \n"), 1))
	if out, ok := e.run("verify.sh"); ok || !strings.Contains(out, "0001-features-add-C.patch") {
		t.Errorf("verify with a whitespace error: ok=%v\n%s", ok, out)
	}

	// A check of verify.d that fails fails verify, which names it; the checks run on the patched tree.
	writeFile(t, patch, good)
	e.verifyD = t.TempDir()
	writeFile(t, filepath.Join(e.verifyD, "50-gofmt.sh"), []byte("#!/bin/sh\nout=$(gofmt -l \"$TREE/pkg\") && test -z \"$out\" || { echo \"not gofmt-clean: $out\"; exit 1; }\n"))
	if err := os.Chmod(filepath.Join(e.verifyD, "50-gofmt.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, ok := e.run("verify.sh"); !ok {
		t.Errorf("verify with a passing check failed:\n%s", out)
	}
	e.mustRun("tree.sh")
	e.commit("pkg/features/g.go", "package features\nconst   D = \"D\"\n", "features: add D")
	e.mustRun("export.sh")
	if out, ok := e.run("verify.sh"); ok || !strings.Contains(out, "FAIL: 50-gofmt.sh") || !strings.Contains(out, "pkg/features/g.go") {
		t.Errorf("verify with unformatted Go: ok=%v\n%s", ok, out)
	}
}

func TestRebase(t *testing.T) {
	e := withOnePatch(t)
	e.mustRun("rebase.sh", "v1.37.3")
	if pin := string(mustRead(t, e.pin)); !strings.Contains(pin, "KUBE_VERSION=v1.37.3") || !strings.Contains(pin, "STAGING_VERSION=v0.37.3") {
		t.Errorf("pin not moved:\n%s", pin)
	}
	if got := e.git("log", "-1", "--format=%s", "upstream"); got != "upstream: k8s.io/kubernetes v1.37.3" {
		t.Errorf("upstream tag = %q", got)
	}
	if got := string(mustRead(t, filepath.Join(e.tree, "VERSION"))); got != "release = 3\n" {
		t.Errorf("tree not on the new release: VERSION = %q", got)
	}
	if out, ok := e.run("check-exported.sh"); !ok {
		t.Errorf("series not exported after rebase:\n%s", out)
	}
	if out, ok := e.run("verify.sh"); !ok {
		t.Errorf("verify after rebase:\n%s", out)
	}
	// And back.
	e.mustRun("rebase.sh", "v1.37.2")
	if got := string(mustRead(t, filepath.Join(e.tree, "VERSION"))); got != "release = 2\n" {
		t.Errorf("tree not back on v1.37.2: VERSION = %q", got)
	}
}

func TestRebaseConflictStopsWithInstructions(t *testing.T) {
	e := newEnv(t)
	e.mustRun("tree.sh")
	e.commit("VERSION", "release = 2, patched\n", "touch VERSION")
	e.mustRun("export.sh")
	out, ok := e.run("rebase.sh", "v1.37.3")
	if ok || !strings.Contains(out, "does not apply cleanly to v1.37.3") || !strings.Contains(out, "rebase.sh --continue") {
		t.Fatalf("rebase with a conflict: ok=%v\n%s", ok, out)
	}
	writeFile(t, filepath.Join(e.tree, "VERSION"), []byte("release = 3, patched\n"))
	e.git("add", "VERSION")
	e.mustRun("rebase.sh", "--continue")
	patch := string(mustRead(t, e.patchFiles()[0]))
	if !strings.Contains(patch, "-release = 3\n+release = 3, patched") {
		t.Errorf("resolved patch not exported:\n%s", patch)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, content []byte) {
	t.Helper()
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The cache's file entries (binaries, tools, the guest image): a hit is checked against the
// manifest, so a changed, added or touched large file makes a rebuild; a failed build stores nothing.
func TestCacheFileEntries(t *testing.T) {
	e := newEnv(t)
	cached := func(build string) (string, bool) {
		t.Helper()
		script := `. "$1/lib.sh"
build() { ` + build + `; }
dir=$(cached things key1 "a thing" build)
echo "entry=$dir"`
		cmd := exec.Command("bash", "-c", script, "bash", e.hack)
		cmd.Env = append(os.Environ(), "PRM_CACHE="+e.cache, "PIN_FILE="+e.pin)
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	const good = `echo one >"$1/a"; mkdir "$1/d"; echo two >"$1/d/b"; truncate -s 1100M "$1/disk"`
	entry := filepath.Join(e.cache, "things", "key1")
	steps := []struct {
		name     string
		before   func()
		build    string
		wantOK   bool
		wantSays string
	}{
		{"first build", nil, good, true, "a thing: built (key things/key1)"},
		{"reused", nil, good, true, "a thing: reused (key things/key1)"},
		{"a changed file", func() { writeFile(t, filepath.Join(entry, "d", "b"), []byte("changed\n")) }, good, true, "incomplete or damaged"},
		{"an added file", func() { writeFile(t, filepath.Join(entry, "extra"), []byte("x\n")) }, good, true, "incomplete or damaged"},
		{"a large file touched", func() {
			now := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(entry, "disk"), now, now); err != nil {
				t.Fatal(err)
			}
		}, good, true, "incomplete or damaged"},
		{"no completion mark", func() {
			if err := os.Remove(filepath.Join(entry, ".prm-complete")); err != nil {
				t.Fatal(err)
			}
		}, good, true, "a thing: built (key things/key1)"},
		{"a failing build", func() {
			if err := os.RemoveAll(entry); err != nil {
				t.Fatal(err)
			}
		}, `echo half >"$1/a"; false; echo "not reached" >"$1/b"`, false, "building a thing failed"},
	}
	for _, step := range steps {
		if step.before != nil {
			step.before()
		}
		out, ok := cached(step.build)
		if ok != step.wantOK || !strings.Contains(out, step.wantSays) {
			t.Fatalf("%s: ok=%v, want %v and %q in:\n%s", step.name, ok, step.wantOK, step.wantSays, out)
		}
		if ok && string(mustRead(t, filepath.Join(entry, "d", "b"))) != "two\n" {
			t.Errorf("%s: the entry does not hold what the build made", step.name)
		}
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("a failed build left an entry (%v)", err)
	}
	if left, _ := filepath.Glob(filepath.Join(e.cache, "things", ".tmp.*")); len(left) != 0 {
		t.Errorf("a failed build left its temporary directory: %v", left)
	}
}
