package main

import (
	"context"
	"strings"
	"testing"

	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/kubelet/pkg/resourcemanager/topology"
	"k8s.io/utils/cpuset"
)

type admission struct {
	pod, container string
	cpu            string // CPU request
	limit          string // CPU limit, the request when empty
	qos            string // the pod's QoS class, Guaranteed when empty
	policy         string // PolicyAnnotation, "" for the default
	want           *api.ResourceSet
	wantErr        string
}

func admitRequest(a admission, available string) *api.AdmitRequest {
	req := &api.AdmitRequest{
		Pod:           &api.PodInfo{Uid: a.pod, QosClass: "Guaranteed", Annotations: map[string]string{}},
		Container:     &api.ContainerInfo{Name: a.container, Requests: map[string]string{}, Limits: map[string]string{}},
		AvailableCpus: available,
	}
	if a.qos != "" {
		req.Pod.QosClass = a.qos
	}
	if a.policy != "" {
		req.Pod.Annotations[PolicyAnnotation] = a.policy
	}
	if a.cpu != "" {
		req.Container.Requests["cpu"] = a.cpu
		req.Container.Limits["cpu"] = a.cpu
	}
	if a.limit != "" {
		req.Container.Limits["cpu"] = a.limit
	}
	return req
}

func set(cpus string, exclusive bool, mems string) *api.ResourceSet {
	return &api.ResourceSet{Cpus: cpus, Exclusive: exclusive, MemoryNodes: mems}
}

func TestAdmit(t *testing.T) {
	for name, tc := range map[string]struct {
		topo       *topology.Topology
		available  string // all online CPUs when empty
		admissions []admission
	}{
		"one NUMA node, no SMT": {
			topo: topology.Uniform(1, 2, 1),
			admissions: []admission{
				{pod: "a", container: "c", cpu: "1", want: set("0", true, "0")},
				{pod: "b", container: "c", cpu: "1", want: set("1", true, "0")},
				{pod: "c", container: "c", cpu: "1", wantErr: "1 exclusive CPUs requested, only 0 free"},
			},
		},
		"SMT: whole cores first": {
			topo: topology.Uniform(1, 4, 2), // cores {0,4} {1,5} {2,6} {3,7}
			admissions: []admission{
				{pod: "a", container: "c", cpu: "1", want: set("0", true, "0")},
				{pod: "b", container: "c", cpu: "2", want: set("1,5", true, "0")},
				// The sibling of CPU 0 before breaking up another core.
				{pod: "c", container: "c", cpu: "1", want: set("4", true, "0")},
				{pod: "d", container: "c", cpu: "3", want: set("2-3,6", true, "0")},
			},
		},
		"two NUMA nodes: one node, best fit": {
			topo: topology.Uniform(2, 2, 1), // node 0: 0-1, node 1: 2-3
			admissions: []admission{
				{pod: "a", container: "c", cpu: "1", want: set("0", true, "0")},
				// Node 0 has one free CPU left: a 2-CPU request goes to node 1.
				{pod: "b", container: "c", cpu: "2", want: set("2-3", true, "1")},
				{pod: "c", container: "c", cpu: "1", want: set("1", true, "0")},
			},
		},
		"two NUMA nodes with SMT: spanning nodes when one is not enough": {
			topo: topology.Uniform(2, 2, 2), // node 0: 0-1,4-5; node 1: 2-3,6-7
			admissions: []admission{
				{pod: "a", container: "c", cpu: "6", want: set("0-2,4-6", true, "0-1")},
			},
		},
		"only available CPUs": {
			topo: topology.Uniform(1, 4, 1), available: "2-3",
			admissions: []admission{
				{pod: "a", container: "c", cpu: "1", want: set("2", true, "0")},
				{pod: "b", container: "c", cpu: "2", wantErr: "2 exclusive CPUs requested, only 1 free (\"3\")"},
			},
		},
		"shared: the node with most shared CPUs": {
			topo: topology.Uniform(2, 2, 1), available: "0,2-3",
			admissions: []admission{
				{pod: "a", container: "c", cpu: "500m", want: set("2-3", false, "1")},
				{pod: "b", container: "c", cpu: "2", policy: "shared", want: set("2-3", false, "1")},
			},
		},
		"shared for the containers the kubelet does not let have exclusive CPUs": {
			topo: topology.Uniform(1, 2, 1),
			admissions: []admission{
				{pod: "a", container: "c", cpu: "1", qos: "Burstable", limit: "2", want: set("0-1", false, "0")},
				{pod: "b", container: "c", qos: "BestEffort", want: set("0-1", false, "0")},
				{pod: "c", container: "c", cpu: "1500m", want: set("0-1", false, "0")},
				// Pod-level resources make a Guaranteed pod whose container's limit differs.
				{pod: "d", container: "c", cpu: "1", limit: "2", want: set("0-1", false, "0")},
			},
		},
		"exclusive asked for where the kubelet refuses it": {
			topo: topology.Uniform(1, 2, 1),
			admissions: []admission{
				{pod: "a", container: "c", qos: "BestEffort", policy: "exclusive", wantErr: `exclusive CPUs are only for containers of Guaranteed pods with an integer CPU request, and the pod's QoS class is "BestEffort"`},
				{pod: "b", container: "c", cpu: "50m", policy: "exclusive", wantErr: "and the CPU request is 50m"},
				{pod: "c", container: "c", cpu: "1", limit: "2", policy: "exclusive", wantErr: "and the CPU limit (2000m) differs from the request (1000m)"},
			},
		},
		"bad input": {
			topo: topology.Uniform(1, 2, 1),
			admissions: []admission{
				{pod: "a", container: "c", cpu: "1", policy: "fastest", wantErr: `annotation cpu.example.com/policy: "fastest" is neither`},
				{pod: "b", container: "c", policy: "exclusive", wantErr: "and the CPU request is 0m"},
				{pod: "c", container: "c", cpu: "lots", wantErr: `CPU request "lots"`},
				{pod: "d", container: "c", cpu: "1", limit: "lots", wantErr: `CPU limit "lots"`},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			p := newPolicy(tc.topo)
			available := tc.available
			if available == "" {
				available = tc.topo.All().String()
			}
			for _, a := range tc.admissions {
				got, err := p.Admit(context.Background(), admitRequest(a, available))
				if a.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), a.wantErr) {
						t.Errorf("%s/%s: error %v, want %q", a.pod, a.container, err, a.wantErr)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s/%s: %v", a.pod, a.container, err)
				}
				if got.String() != a.want.String() {
					t.Errorf("%s/%s: got %v, want %v", a.pod, a.container, got, a.want)
				}
			}
			assertNoDoubleExclusive(t, p)
		})
	}
}

// assertNoDoubleExclusive fails when two held exclusive sets share a CPU.
func assertNoDoubleExclusive(t *testing.T, p *policy) {
	t.Helper()
	seen := cpuset.New()
	for k, s := range p.held {
		if !s.Exclusive {
			continue
		}
		cpus, err := cpuset.Parse(s.Cpus)
		if err != nil {
			t.Fatalf("%s holds an invalid set %q: %v", k, s.Cpus, err)
		}
		if overlap := seen.Intersection(cpus); !overlap.IsEmpty() {
			t.Errorf("CPUs %s handed out exclusively twice (again to %s)", overlap, k)
		}
		seen = seen.Union(cpus)
	}
}

// Exclusive CPUs are never handed out twice, whatever the order of requests and releases.
func TestNeverTwice(t *testing.T) {
	for _, topo := range []*topology.Topology{topology.Uniform(1, 2, 1), topology.Uniform(2, 4, 2)} {
		p := newPolicy(topo)
		for i := 0; i < 200; i++ {
			pod := string(rune('a' + i%7))
			if i%3 == 2 {
				_ = p.RemoveContainer(context.Background(), &api.RemoveContainerRequest{PodUid: pod, ContainerName: "c"})
				continue
			}
			_, _ = p.Admit(context.Background(), admitRequest(admission{pod: pod, container: "c", cpu: []string{"1", "2", "3"}[i%3]}, topo.All().String()))
			assertNoDoubleExclusive(t, p)
		}
	}
}

func TestReleaseAndReadmit(t *testing.T) {
	p := newPolicy(topology.Uniform(1, 2, 1))
	ctx := context.Background()
	first, err := p.Admit(ctx, admitRequest(admission{pod: "a", container: "c", cpu: "2"}, "0-1"))
	if err != nil || first.Cpus != "0-1" {
		t.Fatalf("Admit = %v, %v", first, err)
	}
	// Asked again (kubelet restart): the same answer, not a second reservation.
	again, err := p.Admit(ctx, admitRequest(admission{pod: "a", container: "c", cpu: "2"}, "0-1"))
	if err != nil || again.Cpus != "0-1" {
		t.Fatalf("second Admit = %v, %v", again, err)
	}
	if _, err := p.Admit(ctx, admitRequest(admission{pod: "b", container: "c", cpu: "1"}, "0-1")); err == nil {
		t.Fatal("Admit succeeded with every CPU held")
	}
	if err := p.RemoveContainer(ctx, &api.RemoveContainerRequest{PodUid: "a", ContainerName: "c"}); err != nil {
		t.Fatal(err)
	}
	if got, err := p.Admit(ctx, admitRequest(admission{pod: "b", container: "c", cpu: "1"}, "0-1")); err != nil || got.Cpus != "0" {
		t.Errorf("Admit after release = %v, %v", got, err)
	}
}

// A restarted driver learns what is held from Sync and does not hand it out again.
func TestSyncRebuildsState(t *testing.T) {
	ctx := context.Background()
	p := newPolicy(topology.Uniform(1, 4, 1))
	if _, err := p.Admit(ctx, admitRequest(admission{pod: "old", container: "c", cpu: "1"}, "0-3")); err != nil {
		t.Fatal(err)
	}
	err := p.Sync(ctx, []*api.Allocation{
		{PodUid: "a", ContainerName: "c", Resources: set("0-1", true, "0")},
		{PodUid: "b", ContainerName: "c", Resources: set("2-3", false, "0")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.held[key("old", "c")]; ok {
		t.Error("an allocation the kubelet does not hold survived Sync")
	}
	got, err := p.Admit(ctx, admitRequest(admission{pod: "c", container: "c", cpu: "2"}, "0-3"))
	if err != nil || got.Cpus != "2-3" {
		t.Errorf("Admit after Sync = %v, %v; want 2-3 (0-1 are held)", got, err)
	}
	assertNoDoubleExclusive(t, p)
}
