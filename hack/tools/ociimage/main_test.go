package main

import (
	"archive/tar"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "driver")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "image.tar")
	if err := build("example.com/driver:v1", out, []string{bin + "=/usr/bin/driver"}, []string{"/usr/bin/driver", "-v=2"}); err != nil {
		t.Fatal(err)
	}
	tag, _ := name.NewTag("example.com/driver:v1")
	img, err := tarball.ImageFromPath(out, &tag)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Config.Entrypoint, []string{"/usr/bin/driver", "-v=2"}) || cfg.OS != "linux" {
		t.Errorf("config = %+v", cfg)
	}
	tr := tar.NewReader(mutate.Extract(img))
	found := false
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == "usr/bin/driver" {
			found = true
			if h.Mode != 0o755 {
				t.Errorf("mode = %o, want 755", h.Mode)
			}
		}
	}
	if !found {
		t.Error("usr/bin/driver not in the image")
	}
}

func TestBuildRejectsBadInput(t *testing.T) {
	out := filepath.Join(t.TempDir(), "image.tar")
	for _, files := range [][]string{{"x"}, {"x=relative/dest"}, {"/does/not/exist=/x"}} {
		if err := build("example.com/x:v1", out, files, nil); err == nil {
			t.Errorf("build with %v succeeded", files)
		}
	}
	if err := build("Not A Name", out, []string{"/etc/hostname=/x"}, nil); err == nil {
		t.Error("build with a bad name succeeded")
	}
}
