package main

import (
	"archive/tar"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

func writeImage(t *testing.T, dir, ref string) string {
	t.Helper()
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.Base(tag.RepositoryStr())+".tar")
	if err := tarball.WriteToFile(path, tag, img); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	etcd := writeImage(t, dir, "registry.k8s.io/etcd:3.7.0-0")
	pause := writeImage(t, dir, "registry.k8s.io/pause:3.10.2")
	out := filepath.Join(dir, "all.tar")
	tags, err := merge(out, []string{etcd, pause + "=docker.io/kindest/kindnetd:v1"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"docker.io/kindest/kindnetd:v1", "registry.k8s.io/etcd:3.7.0-0", "registry.k8s.io/pause:3.10.2"}
	if !reflect.DeepEqual(tags, want) {
		t.Errorf("tags %v, want %v", tags, want)
	}

	// repositories comes first and lists every tag.
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := tar.NewReader(f).Next()
	if err != nil {
		t.Fatal(err)
	}
	if h.Name != "repositories" {
		t.Fatalf("first entry %q, want repositories", h.Name)
	}
	var repositories map[string]map[string]string
	if err := json.NewDecoder(io.LimitReader(f, h.Size)).Decode(&repositories); err != nil {
		t.Fatal(err)
	}
	for _, repo := range []string{"docker.io/kindest/kindnetd", "registry.k8s.io/etcd", "registry.k8s.io/pause"} {
		if len(repositories[repo]) != 1 {
			t.Errorf("repositories has %v for %s", repositories[repo], repo)
		}
	}

	// Every image loads from the merged archive by its tag.
	for _, ref := range want {
		tag, err := name.NewTag(ref)
		if err != nil {
			t.Fatal(err)
		}
		img, err := tarball.ImageFromPath(out, &tag)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if _, err := img.Digest(); err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
	}
}

func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	notAnImage := filepath.Join(dir, "x.tar")
	if err := os.WriteFile(notAnImage, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := merge(filepath.Join(dir, "out.tar"), []string{notAnImage}); err == nil {
		t.Error("no error for an archive without manifest.json")
	}
	if _, err := merge(filepath.Join(dir, "out.tar"), []string{filepath.Join(dir, "missing.tar")}); err == nil {
		t.Error("no error for a missing input")
	}
}
