// Command golangci-lint is golangci-lint with the module plugins that upstream Kubernetes'
// hack/golangci.yaml uses compiled in: logcheck (sigs.k8s.io/logtools), kubeapilinter
// (sigs.k8s.io/kube-api-linter) and sorted (./sorted, the project's own version of upstream's
// hack/tools/golangci-lint/sorted, which the Kubernetes module zip does not contain).
//
// It is what `golangci-lint custom` would build, made without cloning golangci-lint: the versions
// are those of go.mod, all from the Go module proxy. hack/install-golangci-lint.sh builds it; the
// configuration then names the plugins with `type: module` instead of upstream's `path: *.so`.
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"github.com/golangci/golangci-lint/v2/pkg/commands"
	"github.com/golangci/golangci-lint/v2/pkg/exitcodes"

	// The plugins register themselves with github.com/golangci/plugin-module-register.
	_ "github.com/pluggable-rm/harness/hack/tools/golangci-lint/sorted"
	_ "sigs.k8s.io/kube-api-linter"
	_ "sigs.k8s.io/logtools/logcheck/gclplugin"
)

const golangciModule = "github.com/golangci/golangci-lint/v2"

func main() {
	info := commands.BuildInfo{Version: "unknown", Commit: "?", Date: "(unknown)", GoVersion: "unknown"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		info.GoVersion = bi.GoVersion
		var plugins []string
		for _, dep := range bi.Deps {
			switch dep.Path {
			case golangciModule:
				info.Version = strings.TrimPrefix(dep.Version, "v")
			case "sigs.k8s.io/logtools", "sigs.k8s.io/kube-api-linter":
				plugins = append(plugins, dep.Path+"@"+dep.Version)
			}
		}
		info.Commit = "custom build with " + strings.Join(append(plugins, "sorted"), ", ")
	}
	if err := commands.Execute(info); err != nil {
		_, _ = fmt.Fprintf(os.Stderr, "The command is terminated due to an error: %v\n", err)
		os.Exit(exitcodes.Failure)
	}
}
