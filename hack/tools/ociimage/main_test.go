package main

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "busybox")
	if err := os.WriteFile(bin, []byte("#!/bin/true\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image.tar")
	s := spec{
		ref:      "registry.k8s.io/e2e-test-images/busybox:1.37.0-2",
		files:    []string{bin + "=/bin/busybox"},
		symlinks: []string{"busybox=/bin/sh", "/bin/busybox=/usr/bin/env"},
		dirs:     []string{"/tmp", "/proc"},
		cmd:      []string{"sh"},
		user:     "65535:65535",
		env:      []string{"PATH=/bin"},
	}
	if err := build(s, out); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag(s.ref)
	img, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Config.Cmd, []string{"sh"}) || cfg.Config.User != "65535:65535" || cfg.OS != "linux" || cfg.Architecture != "amd64" {
		t.Errorf("config = %+v", cfg)
	}

	want := map[string]tar.Header{
		"bin":         {Typeflag: tar.TypeDir, Mode: 0o755},
		"bin/busybox": {Typeflag: tar.TypeReg, Mode: 0o755},
		"bin/sh":      {Typeflag: tar.TypeSymlink, Linkname: "busybox"},
		"usr":         {Typeflag: tar.TypeDir, Mode: 0o755},
		"usr/bin":     {Typeflag: tar.TypeDir, Mode: 0o755},
		"usr/bin/env": {Typeflag: tar.TypeSymlink, Linkname: "/bin/busybox"},
		"tmp":         {Typeflag: tar.TypeDir, Mode: 0o1777},
		"proc":        {Typeflag: tar.TypeDir, Mode: 0o755},
	}
	var got []string
	tr := tar.NewReader(mutate.Extract(img))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, h.Name)
		w, ok := want[strings.TrimSuffix(h.Name, "/")]
		if !ok {
			t.Errorf("unexpected entry %q", h.Name)
			continue
		}
		if h.Typeflag != w.Typeflag || h.Linkname != w.Linkname || (w.Mode != 0 && h.Mode != w.Mode) {
			t.Errorf("%s: type %c link %q mode %o, want type %c link %q mode %o", h.Name, h.Typeflag, h.Linkname, h.Mode, w.Typeflag, w.Linkname, w.Mode)
		}
	}
	if len(got) != len(want) {
		t.Errorf("entries %q, want %d entries", got, len(want))
	}
	if !slices.IsSorted(got) {
		t.Errorf("entries not sorted: %q", got)
	}
}

func TestBuildRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "image.tar")
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]spec{
		"no files":           {ref: "example.com/x:v1"},
		"no equals":          {ref: "example.com/x:v1", files: []string{"x"}},
		"relative dest":      {ref: "example.com/x:v1", files: []string{file + "=relative"}},
		"missing source":     {ref: "example.com/x:v1", files: []string{"/does/not/exist=/x"}},
		"directory source":   {ref: "example.com/x:v1", files: []string{dir + "=/x"}},
		"duplicate dest":     {ref: "example.com/x:v1", files: []string{file + "=/x", file + "=/x"}},
		"link over file":     {ref: "example.com/x:v1", files: []string{file + "=/x"}, symlinks: []string{"y=/x"}},
		"file under a file":  {ref: "example.com/x:v1", files: []string{file + "=/x", file + "=/x/y"}},
		"unclean link":       {ref: "example.com/x:v1", files: []string{file + "=/x"}, symlinks: []string{"x=/a/../b"}},
		"bad name":           {ref: "Not A Name", files: []string{file + "=/x"}},
		"name without a tag": {ref: "example.com/x@sha256:abc", files: []string{file + "=/x"}},
	} {
		t.Run(name, func(t *testing.T) {
			if err := build(s, out); err == nil {
				t.Errorf("build(%+v) succeeded", s)
			}
		})
	}
}
