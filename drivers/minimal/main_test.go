package main

import (
	"context"
	"os"
	"strings"
	"testing"

	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/utils/cpuset"
)

func TestMinimalDriver(t *testing.T) {
	ctx := context.Background()
	d := &driver{held: map[string]cpuset.CPUSet{}}
	if err := d.Sync(ctx, []*api.Allocation{{PodUid: "old", ContainerName: "c", Resources: &api.ResourceSet{Cpus: "1"}}}); err != nil {
		t.Fatal(err)
	}
	admitAs := func(pod, qos, cpu string) (*api.ResourceSet, error) {
		return d.Admit(ctx, &api.AdmitRequest{Pod: &api.PodInfo{Uid: pod, QosClass: qos},
			Container: &api.ContainerInfo{Name: "c", Requests: map[string]string{"cpu": cpu}}, AvailableCpus: "1-2"})
	}
	admit := func(pod string) (*api.ResourceSet, error) { return admitAs(pod, "Guaranteed", "1") }
	for _, tc := range []struct{ qos, cpu string }{{"Guaranteed", "2"}, {"Guaranteed", "500m"}, {"Burstable", "1"}, {"BestEffort", ""}} {
		if got, err := admitAs("x", tc.qos, tc.cpu); err == nil || !strings.Contains(err.Error(), "set its CPU request and limit to 1") {
			t.Errorf("Admit of a %s container requesting %q CPU = %v, %v; want an error that says to request one CPU", tc.qos, tc.cpu, got, err)
		}
	}
	if got, err := admit("a"); err != nil || got.Cpus != "2" {
		t.Errorf("Admit = %v, %v; want CPU 2 (1 is held)", got, err)
	}
	if _, err := admit("b"); err == nil {
		t.Error("Admit succeeded with no free CPU")
	}
	if err := d.RemoveContainer(ctx, &api.RemoveContainerRequest{PodUid: "old", ContainerName: "c"}); err != nil {
		t.Fatal(err)
	}
	if got, err := admit("b"); err != nil || got.Cpus != "1" {
		t.Errorf("Admit after release = %v, %v; want CPU 1", got, err)
	}
}

// The driver author guide quotes this driver whole: it must be the code that is tested here.
func TestGuideQuotesThisDriver(t *testing.T) {
	code, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile("../../docs/driver-guide.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(guide), "```go\n"+string(code)+"```\n") {
		t.Error("docs/driver-guide.md does not quote drivers/minimal/main.go as it is: copy it into the guide's first code block")
	}
}
