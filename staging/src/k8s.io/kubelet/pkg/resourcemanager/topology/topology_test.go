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

package topology

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
)

// writeSysfs writes the sysfs files Read looks at for the given topology.
// withNUMA=false leaves out devices/system/node, as on kernels without NUMA.
func writeSysfs(t *testing.T, topo *Topology, online string, withNUMA bool) string {
	t.Helper()
	root := t.TempDir()
	write := func(path, content string) {
		path = filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("devices/system/cpu/online", online)
	for _, c := range topo.CPUs {
		dir := "devices/system/cpu/cpu" + strconv.Itoa(c.ID) + "/topology/"
		write(dir+"physical_package_id", strconv.Itoa(c.Socket))
		write(dir+"core_id", strconv.Itoa(c.Core))
	}
	if withNUMA {
		for _, node := range topo.NUMANodes() {
			write("devices/system/node/node"+strconv.Itoa(node)+"/cpulist", topo.CPUsInNUMANode(node).String())
		}
	}
	return root
}

func TestRead(t *testing.T) {
	for name, tc := range map[string]struct {
		topo     *Topology
		online   string
		withNUMA bool
		want     *Topology
	}{
		"one socket, no SMT":  {topo: Uniform(1, 2, 1), online: "0-1", withNUMA: true, want: Uniform(1, 2, 1)},
		"two NUMA nodes, SMT": {topo: Uniform(2, 2, 2), online: "0-7", withNUMA: true, want: Uniform(2, 2, 2)},
		"no NUMA in sysfs": {
			topo: Uniform(1, 2, 2), online: "0-3", withNUMA: false, want: Uniform(1, 2, 2),
		},
		"offline CPU left out": {
			topo: Uniform(1, 2, 1), online: "0", withNUMA: true,
			want: &Topology{CPUs: []CPU{{ID: 0}}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Read(writeSysfs(t, tc.topo, tc.online, tc.withNUMA))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Read = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	if _, err := Read(t.TempDir()); err == nil {
		t.Error("Read of an empty directory succeeded")
	}
	root := writeSysfs(t, Uniform(1, 2, 1), "0-1", true)
	if err := os.Remove(filepath.Join(root, "devices/system/cpu/cpu1/topology/core_id")); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(root); err == nil {
		t.Error("Read with a missing core_id succeeded")
	}
}

func TestQueries(t *testing.T) {
	topo := Uniform(2, 2, 2) // CPUs 0-3 first threads, 4-7 their siblings; node 0: cores 0,1 of socket 0
	if got := topo.All().String(); got != "0-7" {
		t.Errorf("All = %s", got)
	}
	if got := topo.NUMANodes(); !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("NUMANodes = %v", got)
	}
	if got := topo.CPUsInNUMANode(1).String(); got != "2-3,6-7" {
		t.Errorf("CPUsInNUMANode(1) = %s", got)
	}
	if got := topo.Siblings(1).String(); got != "1,5" {
		t.Errorf("Siblings(1) = %s", got)
	}
	if got := topo.Siblings(42).Size(); got != 0 {
		t.Errorf("Siblings of an offline CPU: %d CPUs", got)
	}
	if got := topo.CPUsPerCore(); got != 2 {
		t.Errorf("CPUsPerCore = %d", got)
	}
	if got := Uniform(1, 2, 1).CPUsPerCore(); got != 1 {
		t.Errorf("CPUsPerCore without SMT = %d", got)
	}
	if node, ok := topo.NUMANodeOf(6); !ok || node != 1 {
		t.Errorf("NUMANodeOf(6) = %d, %v", node, ok)
	}
	if _, ok := topo.NUMANodeOf(8); ok {
		t.Error("NUMANodeOf an offline CPU succeeded")
	}
}
