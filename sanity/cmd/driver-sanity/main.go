/*
Copyright The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Command driver-sanity checks a running resource driver against the rules
// of the resource driver protocol, playing the kubelet over the driver's
// socket:
//
//	driver-sanity --endpoint unix:///var/lib/kubelet/plugins/cpu.example.com/driver.sock \
//	    --registration-socket /var/lib/kubelet/plugins_registry/cpu.example.com-reg.sock
//
// Ginkgo's flags narrow or report the run: --ginkgo.focus, --ginkgo.v,
// --ginkgo.junit-report. It exits 1 when a spec fails, 2 on bad flags.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pluggable-rm/harness/sanity"
	"k8s.io/utils/cpuset"
)

func main() {
	var config sanity.Config
	var cpus, numaNodes string
	flag.StringVar(&config.Endpoint, "endpoint", "", "the driver's service socket (a path or unix:// URL); required")
	flag.StringVar(&config.RegistrationSocket, "registration-socket", "", "the driver's registration socket; without it the registration specs are skipped")
	flag.StringVar(&cpus, "cpus", "", "the CPUs to offer the driver as the node's, in cpuset list syntax (default: the machine's online CPUs)")
	flag.StringVar(&numaNodes, "numa-nodes", "", "the NUMA nodes memory_nodes may name (default: the machine's online nodes)")
	flag.DurationVar(&config.CallTimeout, "call-timeout", sanity.DefaultCallTimeout, "how long a call may take, as the kubelet's call timeout")
	flag.IntVar(&config.Concurrency, "concurrency", 8, "how many Admit calls the concurrency spec makes at once")
	flag.CommandLine.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage: %s --endpoint unix:///path/driver.sock [--registration-socket PATH] [flags]\n\n"+
			"Plays the kubelet against a running resource driver and checks each rule of the protocol in its own spec.\n\nFlags:\n", os.Args[0])
		flag.VisitAll(func(f *flag.Flag) {
			if !strings.HasPrefix(f.Name, "ginkgo.") {
				fmt.Fprintf(flag.CommandLine.Output(), "  --%s (default %q)\n    \t%s\n", f.Name, f.DefValue, f.Usage)
			}
		})
		fmt.Fprintf(flag.CommandLine.Output(), "\nGinkgo's flags work too, for example --ginkgo.focus REGEXP, --ginkgo.v, --ginkgo.junit-report FILE.\n")
	}
	flag.Parse()
	if flag.NArg() > 0 {
		usageError("unexpected argument %q", flag.Arg(0))
	}
	if config.Endpoint == "" {
		usageError("--endpoint is required: the path of the driver's service socket")
	}
	config.CPUs = parseList("--cpus", cpus)
	config.NUMANodes = parseList("--numa-nodes", numaNodes)
	if config.CallTimeout <= 0 || config.CallTimeout > time.Hour {
		usageError("--call-timeout %s: must be positive (the kubelet's is %s)", config.CallTimeout, sanity.DefaultCallTimeout)
	}
	if config.Concurrency < 1 {
		usageError("--concurrency %d: must be at least 1", config.Concurrency)
	}
	if _, err := os.Stat(strings.TrimPrefix(config.Endpoint, "unix://")); err != nil {
		usageError("--endpoint: %v: is the driver running, and is this its service socket?", err)
	}
	if !sanity.Run(config) {
		os.Exit(1)
	}
}

func parseList(flagName, value string) cpuset.CPUSet {
	list, err := cpuset.Parse(value)
	if err != nil {
		usageError("%s %q: not in cpuset list syntax such as \"0-3,6\": %v", flagName, value, err)
	}
	return list
}

func usageError(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "driver-sanity: "+format+"\n", args...)
	fmt.Fprintf(os.Stderr, "Run %s --help for the flags.\n", os.Args[0])
	os.Exit(2)
}
