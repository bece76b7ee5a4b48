package main

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"
	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/kubelet/pkg/resourcemanager/topology"
	"k8s.io/utils/cpuset"
)

// PolicyAnnotation selects the placement of a pod's containers:
//
//	exclusive: as many CPUs of their own as the CPU request, whole physical cores first, on
//	           one NUMA node when possible, with memory from the same node(s). Only for the
//	           containers the kubelet lets have exclusive CPUs (see pinnable): the default for them.
//	shared:    the shared CPUs of the one NUMA node that has most of them, memory from it.
//	           The default otherwise.
const PolicyAnnotation = "cpu.example.com/policy"

// policy is the example driver's placement logic. The SDK serializes calls, so it needs no lock.
type policy struct {
	topo *topology.Topology
	// held are the placements this driver handed out, by pod UID and container name.
	held map[string]*api.ResourceSet
}

func newPolicy(topo *topology.Topology) *policy {
	return &policy{topo: topo, held: map[string]*api.ResourceSet{}}
}

func key(podUID, container string) string { return podUID + "/" + container }

func (p *policy) Admit(ctx context.Context, req *api.AdmitRequest) (*api.ResourceSet, error) {
	k := key(req.Pod.Uid, req.Container.Name)
	if set, ok := p.held[k]; ok {
		return set, nil // the kubelet asks again after a restart: same answer
	}
	available, err := cpuset.Parse(req.AvailableCpus)
	if err != nil {
		return nil, fmt.Errorf("available CPUs %q: %w", req.AvailableCpus, err)
	}
	request, err := millicores(req.Container.Requests, "request")
	if err != nil {
		return nil, err
	}
	limit, err := millicores(req.Container.Limits, "limit")
	if err != nil {
		return nil, err
	}
	whyNot := pinnable(req.Pod.QosClass, request, limit)
	mode := req.Pod.Annotations[PolicyAnnotation]
	if mode == "" {
		mode = "shared"
		if whyNot == "" {
			mode = "exclusive"
		}
	}
	var set *api.ResourceSet
	switch mode {
	case "exclusive":
		if whyNot != "" {
			err = fmt.Errorf("annotation %s: exclusive CPUs are only for containers of Guaranteed pods with an integer CPU request, and %s: use \"shared\" or no annotation", PolicyAnnotation, whyNot)
			break
		}
		set, err = p.exclusive(int(request/1000), available)
	case "shared":
		set, err = p.shared(available)
	default:
		err = fmt.Errorf("annotation %s: %q is neither \"exclusive\" nor \"shared\"", PolicyAnnotation, mode)
	}
	if err != nil {
		return nil, fmt.Errorf("container %q: %w", req.Container.Name, err)
	}
	p.held[k] = set
	klog.FromContext(ctx).V(2).Info("Placed container", "pod", req.Pod.Namespace+"/"+req.Pod.Name, "container", req.Container.Name,
		"mode", mode, "cpus", set.Cpus, "exclusive", set.Exclusive, "memoryNodes", set.MemoryNodes)
	return set, nil
}

func (p *policy) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) error {
	delete(p.held, key(req.PodUid, req.ContainerName))
	return nil
}

// Sync makes the kubelet's allocations the driver's own: a restarted driver starts from them.
func (p *policy) Sync(ctx context.Context, allocations []*api.Allocation) error {
	p.held = map[string]*api.ResourceSet{}
	for _, a := range allocations {
		p.held[key(a.PodUid, a.ContainerName)] = a.Resources
	}
	return nil
}

// millicores is the CPU in a container's requests or limits, in millicores (0 without one).
func millicores(resources map[string]string, what string) (int64, error) {
	value, ok := resources["cpu"]
	if !ok {
		return 0, nil
	}
	q, err := resource.ParseQuantity(value)
	if err != nil {
		return 0, fmt.Errorf("CPU %s %q: %w", what, value, err)
	}
	return q.MilliValue(), nil
}

// pinnable says why the kubelet would refuse exclusive CPUs for the container ("" when it would
// not): as the static CPU manager policy pins, only a container of a Guaranteed pod whose CPU
// request is a whole number of CPUs and equals its limit (which pod-level resources allow to
// differ). The kubelet checks the same rule on every answer.
func pinnable(qosClass string, request, limit int64) string {
	switch {
	case qosClass != "Guaranteed":
		return fmt.Sprintf("the pod's QoS class is %q", qosClass)
	case request == 0 || request%1000 != 0:
		return fmt.Sprintf("the CPU request is %dm", request)
	case limit != request:
		return fmt.Sprintf("the CPU limit (%dm) differs from the request (%dm)", limit, request)
	}
	return ""
}

// heldExclusively are the CPUs this driver gave out exclusively.
func (p *policy) heldExclusively() cpuset.CPUSet {
	held := cpuset.New()
	for _, set := range p.held {
		if set.Exclusive {
			cpus, err := cpuset.Parse(set.Cpus)
			if err == nil {
				held = held.Union(cpus)
			}
		}
	}
	return held
}

func (p *policy) exclusive(n int, available cpuset.CPUSet) (*api.ResourceSet, error) {
	free := available.Intersection(p.topo.All()).Difference(p.heldExclusively())
	if free.Size() < n {
		return nil, fmt.Errorf("%d exclusive CPUs requested, only %d free (%q)", n, free.Size(), free.String())
	}
	// Best fit: the NUMA node with the fewest free CPUs that still has enough.
	nodes := p.topo.NUMANodes()
	sort.SliceStable(nodes, func(i, j int) bool {
		return free.Intersection(p.topo.CPUsInNUMANode(nodes[i])).Size() < free.Intersection(p.topo.CPUsInNUMANode(nodes[j])).Size()
	})
	for _, node := range nodes {
		if onNode := free.Intersection(p.topo.CPUsInNUMANode(node)); onNode.Size() >= n {
			return p.resourceSet(p.takeCores(n, onNode), true), nil
		}
	}
	// No single node has enough: span nodes, still whole cores first.
	return p.resourceSet(p.takeCores(n, free), true), nil
}

// takeCores picks n CPUs from free: whole free physical cores first, then the CPUs of the cores
// with the fewest free threads, so that whole cores stay whole for later requests.
func (p *policy) takeCores(n int, free cpuset.CPUSet) cpuset.CPUSet {
	var whole, partial []cpuset.CPUSet
	seen := cpuset.New()
	for _, cpu := range free.List() {
		if seen.Contains(cpu) {
			continue
		}
		siblings := p.topo.Siblings(cpu)
		seen = seen.Union(siblings)
		if onCore := siblings.Intersection(free); onCore.Equals(siblings) {
			whole = append(whole, onCore)
		} else {
			partial = append(partial, onCore)
		}
	}
	sort.SliceStable(partial, func(i, j int) bool { return partial[i].Size() < partial[j].Size() })
	taken := cpuset.New()
	for _, core := range whole {
		if taken.Size()+core.Size() <= n {
			taken = taken.Union(core)
		}
	}
	// The rest from partly used cores first, so whole cores stay whole.
	for _, core := range append(partial, whole...) {
		for _, cpu := range core.Difference(taken).List() {
			if taken.Size() == n {
				return taken
			}
			taken = taken.Union(cpuset.New(cpu))
		}
	}
	return taken
}

// shared pins to the shared CPUs of the NUMA node that has the most of them.
func (p *policy) shared(available cpuset.CPUSet) (*api.ResourceSet, error) {
	best := cpuset.New()
	for _, node := range p.topo.NUMANodes() {
		if onNode := available.Intersection(p.topo.CPUsInNUMANode(node)); onNode.Size() > best.Size() {
			best = onNode
		}
	}
	if best.IsEmpty() {
		return nil, fmt.Errorf("no shared CPUs are available")
	}
	return p.resourceSet(best, false), nil
}

// resourceSet adds the NUMA nodes of the CPUs as the memory nodes.
func (p *policy) resourceSet(cpus cpuset.CPUSet, exclusive bool) *api.ResourceSet {
	var nodes []int
	for _, cpu := range cpus.List() {
		if node, ok := p.topo.NUMANodeOf(cpu); ok {
			nodes = append(nodes, node)
		}
	}
	return &api.ResourceSet{Cpus: cpus.String(), Exclusive: exclusive, MemoryNodes: cpuset.New(nodes...).String()}
}
