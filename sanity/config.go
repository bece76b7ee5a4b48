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

package sanity

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/kubelet/pkg/resourcemanager/topology"
	"k8s.io/utils/cpuset"
)

// DefaultCallTimeout is how long the kubelet waits for a driver's answer
// (the resource manager's DefaultCallTimeout).
const DefaultCallTimeout = 2 * time.Second

// Config says which driver to test and what node to pretend it runs on.
type Config struct {
	// Endpoint is the driver's service socket: a path, or a "unix://" URL.
	Endpoint string

	// RegistrationSocket is the driver's socket in the kubelet's plugin
	// registration directory. Empty skips the registration specs.
	RegistrationSocket string

	// CPUs are the node's online CPUs, which the suite offers as the shared
	// pool. Drivers read the node's topology from sysfs, so they are the
	// machine's online CPUs (the default) or some of them.
	CPUs cpuset.CPUSet

	// NUMANodes are the NUMA nodes an answer's memory_nodes may name
	// (default: the machine's online nodes).
	NUMANodes cpuset.CPUSet

	// CallTimeout bounds every call, as the kubelet's call timeout does
	// (default DefaultCallTimeout).
	CallTimeout time.Duration

	// Concurrency is how many Admit calls the concurrency spec makes at
	// once (default 8).
	Concurrency int
}

// complete fills in the defaults and checks the config.
func (c *Config) complete(sysfs string) error {
	c.Endpoint = strings.TrimPrefix(c.Endpoint, "unix://")
	if c.Endpoint == "" {
		return errors.New("the driver's endpoint is not set: pass the path of its service socket, for example unix:///var/lib/kubelet/plugins/cpu.example.com/driver.sock")
	}
	if c.CPUs.IsEmpty() || c.NUMANodes.IsEmpty() {
		// What drivers read too: the SDK's view of the node.
		topo, err := topology.Read(sysfs)
		if err != nil {
			return fmt.Errorf("the node's CPUs and NUMA nodes (set them explicitly instead): %w", err)
		}
		if c.CPUs.IsEmpty() {
			c.CPUs = topo.All()
		}
		if c.NUMANodes.IsEmpty() {
			c.NUMANodes = cpuset.New(topo.NUMANodes()...)
		}
	}
	if c.CallTimeout <= 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	return nil
}
