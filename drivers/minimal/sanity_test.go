package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pluggable-rm/harness/sanity"
	"k8s.io/kubelet/pkg/resourcemanager/driverplugin"
	"k8s.io/utils/cpuset"
)

// TestSanity runs the driver sanity suite against this driver in the test
// process, as a driver's own tests can (one sanity.Test per test binary).
func TestSanity(t *testing.T) {
	dir := t.TempDir()
	helper, err := driverplugin.Start(context.Background(), "minimal.example.com", &driver{held: map[string]cpuset.CPUSet{}},
		driverplugin.RegistrarDirectoryPath(dir), driverplugin.PluginDataDirectoryPath(dir), driverplugin.GRPCVerbosity(-1))
	if err != nil {
		t.Fatal(err)
	}
	defer helper.Stop()
	sanity.Test(t, sanity.Config{
		Endpoint:           helper.Endpoint(),
		RegistrationSocket: filepath.Join(dir, "minimal.example.com-reg.sock"),
		CPUs:               cpuset.New(0, 1, 2, 3), // the driver takes what it is offered
	})
}
