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

// Package topology reads a node's CPU topology (sockets, physical cores,
// NUMA nodes) from sysfs, for resource drivers.
package topology

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"k8s.io/utils/cpuset"
)

// CPU is one online logical CPU.
type CPU struct {
	// ID is the logical CPU number.
	ID int
	// Socket is the physical package the CPU is on.
	Socket int
	// Core is the physical core id, unique within its socket. SMT siblings
	// share Socket and Core.
	Core int
	// NUMANode is the NUMA node of the CPU.
	NUMANode int
}

// Topology is the set of online CPUs of a node.
type Topology struct {
	// CPUs are the online CPUs, ordered by ID.
	CPUs []CPU
}

// Read reads the topology from a sysfs tree mounted at root (normally
// "/sys"; tests pass a directory of their own). A node without NUMA
// information in sysfs is one NUMA node, 0.
func Read(root string) (*Topology, error) {
	online, err := readCPUSet(filepath.Join(root, "devices/system/cpu/online"))
	if err != nil {
		return nil, fmt.Errorf("read online CPUs: %w", err)
	}
	nodeOf, err := readNUMANodes(root)
	if err != nil {
		return nil, err
	}
	t := &Topology{}
	for _, id := range online.List() {
		dir := filepath.Join(root, "devices/system/cpu", "cpu"+strconv.Itoa(id), "topology")
		socket, err := readInt(filepath.Join(dir, "physical_package_id"))
		if err != nil {
			return nil, fmt.Errorf("read socket of CPU %d: %w", id, err)
		}
		core, err := readInt(filepath.Join(dir, "core_id"))
		if err != nil {
			return nil, fmt.Errorf("read core of CPU %d: %w", id, err)
		}
		t.CPUs = append(t.CPUs, CPU{ID: id, Socket: socket, Core: core, NUMANode: nodeOf[id]})
	}
	return t, nil
}

// readNUMANodes maps CPU ids to NUMA nodes from devices/system/node/node*/cpulist.
func readNUMANodes(root string) (map[int]int, error) {
	nodeOf := map[int]int{}
	dirs, err := filepath.Glob(filepath.Join(root, "devices/system/node/node[0-9]*"))
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		node, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "node"))
		if err != nil {
			continue
		}
		cpus, err := readCPUSet(filepath.Join(dir, "cpulist"))
		if err != nil {
			return nil, fmt.Errorf("read CPUs of NUMA node %d: %w", node, err)
		}
		for _, id := range cpus.List() {
			nodeOf[id] = node
		}
	}
	return nodeOf, nil
}

// All is the set of all online CPUs.
func (t *Topology) All() cpuset.CPUSet {
	return t.filter(func(CPU) bool { return true })
}

// NUMANodes lists the NUMA nodes that have online CPUs, in order.
func (t *Topology) NUMANodes() []int {
	seen := map[int]bool{}
	var nodes []int
	for _, c := range t.CPUs {
		if !seen[c.NUMANode] {
			seen[c.NUMANode] = true
			nodes = append(nodes, c.NUMANode)
		}
	}
	sort.Ints(nodes)
	return nodes
}

// CPUsInNUMANode is the set of online CPUs of a NUMA node.
func (t *Topology) CPUsInNUMANode(node int) cpuset.CPUSet {
	return t.filter(func(c CPU) bool { return c.NUMANode == node })
}

// Siblings is the set of CPUs on the same physical core as cpu, cpu
// included. It is empty for a CPU that is not online.
func (t *Topology) Siblings(cpu int) cpuset.CPUSet {
	for _, c := range t.CPUs {
		if c.ID == cpu {
			return t.filter(func(o CPU) bool { return o.Socket == c.Socket && o.Core == c.Core })
		}
	}
	return cpuset.New()
}

// CPUsPerCore is the number of hardware threads per physical core (1
// without SMT), taken from the first CPU.
func (t *Topology) CPUsPerCore() int {
	if len(t.CPUs) == 0 {
		return 0
	}
	return t.Siblings(t.CPUs[0].ID).Size()
}

// NUMANodeOf returns the NUMA node of an online CPU.
func (t *Topology) NUMANodeOf(cpu int) (int, bool) {
	for _, c := range t.CPUs {
		if c.ID == cpu {
			return c.NUMANode, true
		}
	}
	return 0, false
}

func (t *Topology) filter(keep func(CPU) bool) cpuset.CPUSet {
	var ids []int
	for _, c := range t.CPUs {
		if keep(c) {
			ids = append(ids, c.ID)
		}
	}
	return cpuset.New(ids...)
}

func readCPUSet(path string) (cpuset.CPUSet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return cpuset.New(), err
	}
	return cpuset.Parse(strings.TrimSpace(string(b)))
}

func readInt(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// Uniform builds the topology of a machine with the given number of
// sockets, each one NUMA node with coresPerSocket physical cores of
// threadsPerCore hardware threads. CPUs are numbered as Linux does on x86:
// first thread of every core, then the second threads, and so on. It is
// meant for tests.
func Uniform(sockets, coresPerSocket, threadsPerCore int) *Topology {
	t := &Topology{}
	cores := sockets * coresPerSocket
	for thread := 0; thread < threadsPerCore; thread++ {
		for core := 0; core < cores; core++ {
			socket := core / coresPerSocket
			t.CPUs = append(t.CPUs, CPU{ID: thread*cores + core, Socket: socket, Core: core % coresPerSocket, NUMANode: socket})
		}
	}
	return t
}
