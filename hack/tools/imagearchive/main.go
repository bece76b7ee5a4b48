// Command imagearchive merges image tarballs in the docker-archive format (written by ociimage,
// `docker save`) into one archive that holds all their images, with a `repositories` entry first.
//
//	imagearchive -out all.tar etcd.tar coredns.tar pause.tar=docker.io/kindest/kindnetd:v1
//
// `kind build node-image` reads the tags of each image archive from its first `manifest.json` or
// `repositories` entry, and for manifest.json only those of the first image; it pulls every image
// the node needs whose tag it did not see. With `repositories` first it sees every tag of the
// merged archive and pulls nothing, and containerd imports every image of it. IN=TAG,... adds tags
// to the single image of IN.
package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// manifestEntry is one image of a docker-archive manifest.json.
type manifestEntry struct {
	Config   string
	RepoTags []string
	Layers   []string
}

func main() {
	out := flag.String("out", "", "the merged archive to write (required)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: imagearchive -out OUT.tar IN.tar[=REPO:TAG,...]...\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *out == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	tags, err := merge(*out, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %s\n", *out, strings.Join(tags, " "))
}

// merge writes the images of the inputs into out and returns their tags.
func merge(out string, inputs []string) ([]string, error) {
	var manifest []manifestEntry
	var files []*tar.Header
	contents := map[string][]byte{}
	for _, input := range inputs {
		path, extra, _ := strings.Cut(input, "=")
		entries, err := readArchive(path, &files, contents)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if extra != "" {
			if len(entries) != 1 {
				return nil, fmt.Errorf("%s: extra tags need an archive with one image, it has %d", path, len(entries))
			}
			entries[0].RepoTags = append(entries[0].RepoTags, strings.Split(extra, ",")...)
		}
		manifest = append(manifest, entries...)
	}
	// repositories: {repo: {tag: image id}}, the legacy index kind reads first.
	repositories := map[string]map[string]string{}
	var tags []string
	for _, e := range manifest {
		id := strings.TrimSuffix(e.Config, ".json")
		id = id[strings.LastIndex(id, "/")+1:]
		for _, rt := range e.RepoTags {
			i := strings.LastIndex(rt, ":")
			if i < 0 || strings.Contains(rt[i:], "/") {
				return nil, fmt.Errorf("tag %q has no :TAG", rt)
			}
			if repositories[rt[:i]] == nil {
				repositories[rt[:i]] = map[string]string{}
			}
			repositories[rt[:i]][rt[i+1:]] = id
			tags = append(tags, rt)
		}
	}
	sort.Strings(tags)
	f, err := os.Create(out)
	if err != nil {
		return nil, err
	}
	w := tar.NewWriter(f)
	for _, meta := range []struct {
		name  string
		value any
	}{{"repositories", repositories}, {"manifest.json", manifest}} {
		data, err := json.Marshal(meta.value)
		if err != nil {
			return nil, err
		}
		if err := w.WriteHeader(&tar.Header{Name: meta.name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
	}
	for _, h := range files {
		if err := w.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := w.Write(contents[h.Name]); err != nil {
			return nil, err
		}
	}
	if err := errors.Join(w.Close(), f.Close()); err != nil {
		return nil, err
	}
	return tags, nil
}

// readArchive adds the blobs of a docker-archive to files (once per name: images share layers)
// and returns its manifest.
func readArchive(path string, files *[]*tar.Header, contents map[string][]byte) ([]manifestEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var manifest []manifestEntry
	found := false
	r := tar.NewReader(f)
	for {
		h, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		switch h.Name {
		case "manifest.json":
			if err := json.Unmarshal(data, &manifest); err != nil {
				return nil, fmt.Errorf("manifest.json: %w", err)
			}
			found = true
			continue
		case "repositories", "index.json", "oci-layout":
			continue
		}
		if _, ok := contents[h.Name]; ok {
			if !bytes.Equal(contents[h.Name], data) {
				return nil, fmt.Errorf("%s differs from the file of the same name in another archive", h.Name)
			}
			continue
		}
		contents[h.Name] = data
		*files = append(*files, h)
	}
	if !found {
		return nil, errors.New("no manifest.json: not a docker-archive image tarball")
	}
	return manifest, nil
}
