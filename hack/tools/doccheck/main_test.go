package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
)

// gitDir makes a git checkout with files (tracked or not: doccheck searches both).
func gitDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	return dir
}

func TestCheck(t *testing.T) {
	root := gitDir(t, map[string]string{
		"Makefile":          "demo: ## the demo\n\t@scripts/demo.sh\n",
		"scripts/demo.sh":   "#!/bin/sh\nWORK=/var/lib/demo\nflag --driver-name\n",
		"tools/x/x_test.go": "package x\nfunc TestReal(t *testing.T) {}\n",
		"doc.md": "Run `make demo`, `FOCUS=x make demo`, `scripts/demo.sh --help`, `make nothing`,\n" +
			"`scripts/missing.sh -v`. Tests: `TestReal`, `TestFake`. Metric `kubelet_rm_calls_total{x=\"y\"}`,\n" +
			"`kubelet_rm_gone_total`. Paths: `scripts/demo.sh`, `scripts/gone.sh`, `/var/lib/demo/<pod>/state`,\n" +
			"`/etc/nowhere`, `/var/lib/demo/other`, `_output/bin/demo`. Names: `WORK`, `NOTHING_LIKE_IT`, `--driver-name`, `--no-flag`,\n" +
			"`pkg.Real(x)`, `image/name:<tag>`.\n\n```sh\nmake not-checked-in-fences\n```\n" +
			"Specs: \"should really exist\" and \"should not\n" +
			"exist\".\n",
	})
	tree := gitDir(t, map[string]string{
		"build/root/Makefile": "upstream-target:\n",
		"pkg/metrics.go":      "Name: \"rm_calls_total\"\nfunc Real() {}\nWORK _output/bin image/name:\n",
		"test/e2e_node/x.go":  "ginkgo.It(\"should really exist\")\n",
	})
	problems, err := check(root, tree, []string{"doc.md"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`doc.md:1: "make nothing" is not in the code`,
		`doc.md:2: "scripts/missing.sh -v" is not in the code`,
		`doc.md:2: "TestFake" is not in the code`,
		`doc.md:3: "kubelet_rm_gone_total" is not in the code`,
		`doc.md:3: "scripts/gone.sh" is not in the code`,
		`doc.md:4: "/etc/nowhere" is not in the code`,
		`doc.md:4: "/var/lib/demo/other" is not in the code`,
		`doc.md:4: "NOTHING_LIKE_IT" is not in the code`,
		`doc.md:4: "--no-flag" is not in the code`,
		`doc.md:10: "should not exist" is not in the code`,
	}
	if !reflect.DeepEqual(problems, want) {
		t.Errorf("problems:\n%q\nwant:\n%q", problems, want)
	}
}
