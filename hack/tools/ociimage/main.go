// Command ociimage builds a container image from local files, without Docker or a registry, and
// writes it as a tarball that `ctr images import`, `docker load` and `kind load image-archive` read.
//
//	ociimage -name example.com/driver:v1 -out driver.tar -file _output/bin/driver=/driver -entrypoint /driver
//
// The image has no base: one layer with the given files (mode 0755 for executables, 0644 otherwise).
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	var files fileList
	ref := flag.String("name", "", "image reference, e.g. registry.k8s.io/pause:3.10 (required)")
	out := flag.String("out", "", "output tarball (required)")
	entrypoint := flag.String("entrypoint", "", "entrypoint, words separated by spaces")
	flag.Var(&files, "file", "SRC=DEST: put local file SRC at DEST in the image (repeatable)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: ociimage -name REF -out TAR -file SRC=DEST... [-entrypoint CMD]\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *ref == "" || *out == "" || len(files) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := build(*ref, *out, files, strings.Fields(*entrypoint)); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func build(ref, out string, files []string, entrypoint []string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image name %q: %w", ref, err)
	}
	layerTar, err := layerOf(files)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = "amd64", "linux"
	cfg.Config.Entrypoint = entrypoint
	cfg.Config.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return err
	}
	return tarball.WriteToFile(out, tag, img)
}

// layerOf writes the files, and the directories above them, into one tar layer.
func layerOf(files []string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	epoch := time.Unix(0, 0)
	for _, spec := range files {
		src, dest, ok := strings.Cut(spec, "=")
		if !ok || !path.IsAbs(dest) {
			return nil, fmt.Errorf("-file %q: want SRC=/absolute/dest", spec)
		}
		content, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(src)
		if err != nil {
			return nil, err
		}
		var parents []string
		for d := path.Dir(dest); d != "/"; d = path.Dir(d) {
			parents = append([]string{d}, parents...)
		}
		for _, d := range parents {
			if !dirs[d] {
				dirs[d] = true
				if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: strings.TrimPrefix(d, "/") + "/", Mode: 0o755, ModTime: epoch}); err != nil {
					return nil, err
				}
			}
		}
		mode := int64(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(dest, "/"), Mode: mode, Size: int64(len(content)), ModTime: epoch}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(content); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
