package main

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/klog/v2/ktesting"
	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/kubelet/pkg/resourcemanager/driverplugin"
	"k8s.io/kubelet/pkg/resourcemanager/fakekubelet"
	"k8s.io/kubelet/pkg/resourcemanager/topology"
)

// The driver over its real gRPC API: registration, Sync of what a kubelet holds, then Admit.
func TestDriverOverUnixSockets(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	root, err := os.MkdirTemp("", "ex")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	registry := filepath.Join(root, "registry")
	if err := os.Mkdir(registry, 0o755); err != nil {
		t.Fatal(err)
	}
	helper, err := driverplugin.Start(ctx, "cpu.example.com", newPolicy(topology.Uniform(1, 4, 1)),
		driverplugin.PluginDataDirectoryPath(filepath.Join(root, "plugin")), driverplugin.RegistrarDirectoryPath(registry))
	if err != nil {
		t.Fatal(err)
	}
	defer helper.Stop()

	held := &api.Allocation{PodUid: "running", ContainerName: "c", Resources: set("0-1", true, "0")}
	kubelet, err := fakekubelet.Register(ctx, filepath.Join(registry, "cpu.example.com-reg.sock"), held)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = kubelet.Close() }()
	resp, err := kubelet.Admit(ctx, admitRequest(admission{pod: "new", container: "c", cpu: "2"}, "0-3"))
	if err != nil {
		t.Fatal(err)
	}
	if want := set("2-3", true, "0"); resp.Resources.String() != want.String() {
		t.Errorf("Admit = %v, want %v", resp.Resources, want)
	}
}
