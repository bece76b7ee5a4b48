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

	"k8s.io/apimachinery/pkg/api/resource"
	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/utils/cpuset"
)

// exclusiveCPUs is how many CPUs the kubelet lets a container hold
// exclusively, the static CPU manager policy's rule: its CPU request when
// the pod is Guaranteed and the request is a whole number of CPUs, none
// otherwise (then why says why).
func exclusiveCPUs(pod *api.PodInfo, container *api.ContainerInfo) (n int, why string) {
	if pod.QosClass != "Guaranteed" {
		return 0, fmt.Sprintf("the pod's QoS class is %s", pod.QosClass)
	}
	request, err := resource.ParseQuantity(container.Requests["cpu"])
	if err != nil || request.MilliValue()%1000 != 0 || request.Value() == 0 {
		return 0, fmt.Sprintf("the container requests %q CPU", container.Requests["cpu"])
	}
	return int(request.Value()), ""
}

// checkAnswer checks a driver's answer as the kubelet does, and says which
// rule of the protocol it breaks. offered is the available_cpus of the
// call; node the node's CPUs.
func checkAnswer(set *api.ResourceSet, offered cpuset.CPUSet, config *Config, pod *api.PodInfo, container *api.ContainerInfo) (cpuset.CPUSet, error) {
	if set == nil || set.Cpus == "" {
		return cpuset.CPUSet{}, errors.New("the answer has no CPUs: a resource set names at least one CPU (answer an error to refuse the container)")
	}
	cpus, err := cpuset.Parse(set.Cpus)
	if err != nil {
		return cpuset.CPUSet{}, fmt.Errorf("cpus %q is not in cpuset list syntax such as \"2-3,6\": %w", set.Cpus, err)
	}
	if unknown := cpus.Difference(config.CPUs); !unknown.IsEmpty() {
		return cpus, fmt.Errorf("CPUs %s are not CPUs of the node (%s)", unknown, config.CPUs)
	}
	kind := "a shared"
	if set.Exclusive {
		kind = "an exclusive"
		n, why := exclusiveCPUs(pod, container)
		if n == 0 {
			return cpus, fmt.Errorf("exclusive CPUs %s for a container that may hold none, since %s: exclusive CPUs are only for containers of Guaranteed pods with an integer CPU request; answer exclusive=false (a shared set) or an error", cpus, why)
		}
		if cpus.Size() != n {
			return cpus, fmt.Errorf("%d exclusive CPUs (%s) for a container that requests %d: an exclusive set has exactly as many CPUs as the CPU request", cpus.Size(), cpus, n)
		}
	}
	if outside := cpus.Difference(offered); !outside.IsEmpty() {
		return cpus, fmt.Errorf("%s set with CPUs %s that are not among the available CPUs offered (%q): they are held exclusively by other containers; every set must come from available_cpus", kind, outside, offered.String())
	}
	if set.MemoryNodes != "" {
		nodes, err := cpuset.Parse(set.MemoryNodes)
		if err != nil {
			return cpus, fmt.Errorf("memory_nodes %q is not in cpuset list syntax such as \"0-1\": %w", set.MemoryNodes, err)
		}
		if unknown := nodes.Difference(config.NUMANodes); !unknown.IsEmpty() {
			return cpus, fmt.Errorf("memory_nodes names NUMA nodes %s that the node does not have (%s)", unknown, config.NUMANodes)
		}
	}
	return cpus, nil
}
