// Command ociimage builds a single-layer container image from local files, offline (no Docker, no
// registry, no base image), and writes it as a tarball that `ctr images import`, `docker load` and
// `kind load image-archive` read.
//
//	ociimage -name registry.k8s.io/e2e-test-images/busybox:1.37.0-2 -out busybox.tar \
//	    -file /bin/busybox=/bin/busybox -symlink busybox=/bin/sh -cmd sh
//
// Besides files it writes symbolic links and empty directories and sets the image's user, so it
// builds the example driver's image as well as the busybox and pause images of the e2e-node suite.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

type listFlag []string

func (f *listFlag) String() string     { return strings.Join(*f, ",") }
func (f *listFlag) Set(v string) error { *f = append(*f, v); return nil }

// spec is what goes into the image.
type spec struct {
	ref        string
	files      []string // SRC=DEST
	symlinks   []string // TARGET=LINK
	dirs       []string // DEST (mode 0755; /tmp gets 1777)
	entrypoint []string
	cmd        []string
	user       string
	env        []string
}

func main() {
	var s spec
	var files, symlinks, dirs, env listFlag
	out := flag.String("out", "", "output tarball (required)")
	flag.StringVar(&s.ref, "name", "", "image reference, e.g. registry.k8s.io/pause:3.10.2 (required)")
	entrypoint := flag.String("entrypoint", "", "entrypoint, words separated by spaces")
	cmd := flag.String("cmd", "", "default command (arguments of the entrypoint), words separated by spaces")
	flag.StringVar(&s.user, "user", "", "user of the image's processes, e.g. 65535:65535")
	flag.Var(&files, "file", "SRC=DEST: put local file SRC at absolute path DEST (repeatable)")
	flag.Var(&symlinks, "symlink", "TARGET=LINK: a symbolic link LINK (absolute) pointing to TARGET (repeatable)")
	flag.Var(&dirs, "dir", "DEST: an empty directory (repeatable; /tmp gets mode 1777)")
	flag.Var(&env, "env", "KEY=VALUE in the image config (repeatable; default PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: ociimage -name REF -out TAR [-file SRC=DEST]... [-symlink TARGET=LINK]... [-dir DEST]...\n"+
			"               [-entrypoint CMD] [-cmd ARGS] [-user UID:GID] [-env K=V]...\n\n"+
			"Builds a one-layer image (no base) from local files, offline, as a tarball for `ctr images import`.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 || s.ref == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	s.files, s.symlinks, s.dirs = files, symlinks, dirs
	s.entrypoint, s.cmd = strings.Fields(*entrypoint), strings.Fields(*cmd)
	s.env = env
	if len(s.env) == 0 {
		s.env = []string{"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"}
	}
	if err := build(s, *out); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func build(s spec, out string) error {
	tag, err := name.NewTag(s.ref, name.StrictValidation)
	if err != nil {
		return fmt.Errorf("image name %q: %w", s.ref, err)
	}
	if len(s.files) == 0 {
		return errors.New("no -file given: the image would be empty")
	}
	layerTar, err := layerOf(s)
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
	cfg.Config = v1.Config{Entrypoint: s.entrypoint, Cmd: s.cmd, User: s.user, Env: s.env}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return err
	}
	return tarball.WriteToFile(out, tag, img)
}

// entry is one tar entry of the layer, before it is written.
type entry struct {
	hdr     tar.Header
	content []byte
}

// layerOf writes the files, links and directories, and the directories above them, into one tar
// layer, sorted by path and with fixed times so that the same input gives the same image.
func layerOf(s spec) ([]byte, error) {
	entries := map[string]entry{}
	epoch := time.Unix(0, 0)
	add := func(dest string, e entry) error {
		if !path.IsAbs(dest) || path.Clean(dest) != dest || dest == "/" {
			return fmt.Errorf("%q: want a clean absolute path", dest)
		}
		if _, dup := entries[dest]; dup {
			return fmt.Errorf("%q given twice", dest)
		}
		for d := path.Dir(dest); d != "/"; d = path.Dir(d) {
			if old, ok := entries[d]; ok && old.hdr.Typeflag != tar.TypeDir {
				return fmt.Errorf("%q: parent %q is not a directory", dest, d)
			}
			if _, ok := entries[d]; !ok {
				entries[d] = entry{hdr: tar.Header{Typeflag: tar.TypeDir, Mode: 0o755}}
			}
		}
		e.hdr.ModTime = epoch
		entries[dest] = e
		return nil
	}
	for _, f := range s.files {
		src, dest, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("-file %q: want SRC=/absolute/dest", f)
		}
		info, err := os.Stat(src)
		if err != nil {
			return nil, err
		}
		if !info.Mode().IsRegular() {
			return nil, fmt.Errorf("-file %q: %s is not a regular file", f, src)
		}
		content, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		mode := int64(0o644)
		if info.Mode()&0o111 != 0 {
			mode = 0o755
		}
		if err := add(dest, entry{hdr: tar.Header{Typeflag: tar.TypeReg, Mode: mode, Size: int64(len(content))}, content: content}); err != nil {
			return nil, fmt.Errorf("-file %q: %w", f, err)
		}
	}
	for _, l := range s.symlinks {
		target, link, ok := strings.Cut(l, "=")
		if !ok || target == "" {
			return nil, fmt.Errorf("-symlink %q: want TARGET=/absolute/link", l)
		}
		if err := add(link, entry{hdr: tar.Header{Typeflag: tar.TypeSymlink, Linkname: target, Mode: 0o777}}); err != nil {
			return nil, fmt.Errorf("-symlink %q: %w", l, err)
		}
	}
	for _, d := range s.dirs {
		mode := int64(0o755)
		if d == "/tmp" {
			mode = 0o1777
		}
		if old, ok := entries[d]; ok && old.hdr.Typeflag == tar.TypeDir {
			old.hdr.Mode = mode
			entries[d] = old
			continue
		}
		if err := add(d, entry{hdr: tar.Header{Typeflag: tar.TypeDir, Mode: mode}}); err != nil {
			return nil, fmt.Errorf("-dir %q: %w", d, err)
		}
	}

	paths := make([]string, 0, len(entries))
	for p := range entries {
		paths = append(paths, p)
	}
	sort.Strings(paths) // a parent sorts before its children
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, p := range paths {
		e := entries[p]
		e.hdr.Name = strings.TrimPrefix(p, "/")
		if e.hdr.Typeflag == tar.TypeDir {
			e.hdr.Name += "/"
		}
		e.hdr.ModTime = epoch
		if err := tw.WriteHeader(&e.hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.content); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
