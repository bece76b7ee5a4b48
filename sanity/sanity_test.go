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

package sanity_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"

	"github.com/pluggable-rm/harness/sanity"
	"k8s.io/apimachinery/pkg/api/resource"
	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/kubelet/pkg/resourcemanager/driverplugin"
	"k8s.io/utils/cpuset"
)

// The suite's own tests run drivers with known flaws and check that exactly
// the specs for the rules they break fail. Ginkgo runs one suite per
// process, and a driver that panics takes its process with it, so the test
// binary runs itself: once as each driver, once as the suite against it.
const (
	driverEnv = "SANITY_TEST_DRIVER" // run as the reference driver with this flaw ("none" for none)
	suiteEnv  = "SANITY_TEST_SUITE"  // run as the suite against the driver in this directory
	dirEnv    = "SANITY_TEST_DIR"
	testCPUs  = "0-3" // the node both pretend to have
)

func TestMain(m *testing.M) {
	flag.Parse()
	switch {
	case os.Getenv(driverEnv) != "":
		serveDriver(os.Getenv(driverEnv), os.Getenv(dirEnv))
	case os.Getenv(suiteEnv) != "":
		dir := os.Getenv(dirEnv)
		ok := sanity.Run(sanity.Config{
			Endpoint:           filepath.Join(dir, "driver.sock"),
			RegistrationSocket: filepath.Join(dir, "reference.example.com-reg.sock"),
			CPUs:               mustParse(testCPUs),
			NUMANodes:          cpuset.New(0),
		})
		if !ok {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The specs each flaw must fail, by their leaf text.
const (
	secondContainer = "never gives a second container an exclusive CPU that is still held"
	freedCPU        = "frees what Admit held: a freed CPU can be handed out again"
	syncKeeps       = "keeps CPUs held by the allocations it lists from the next admissions"
	syncForgets     = "forgets allocations absent from its list"
	concurrent      = "never gives the same exclusive CPU twice to concurrent Admit calls"
	emptyPool       = "refuses, without crashing, an Admit whose available_cpus is empty"
	unknownAdd      = "answers AddContainer for a container it never admitted with an error or no change, without crashing"
)

func TestFlawedDrivers(t *testing.T) {
	for _, tc := range []struct {
		flaw string
		// failing are the specs that must fail, and no others.
		failing []string
	}{
		{flaw: "none"},
		// Answers the node's first CPU whatever it is offered and holds.
		{flaw: "first-cpu", failing: []string{secondContainer, freedCPU, syncKeeps, syncForgets, concurrent, emptyPool}},
		// Answers from the CPUs offered but reserves nothing, so calls that
		// come at once get the same CPU.
		{flaw: "no-reservation", failing: []string{concurrent}},
		// Keeps its own bookkeeping but ignores Sync.
		{flaw: "ignore-sync", failing: []string{syncForgets}},
		// Dereferences its record of the container in AddContainer.
		{flaw: "panic-on-unknown", failing: []string{unknownAdd}},
	} {
		t.Run(tc.flaw, func(t *testing.T) {
			dir := t.TempDir()
			startDriver(t, tc.flaw, dir)
			failed := runSuite(t, dir)
			names := slices.Sorted(maps.Keys(failed))
			for _, name := range names {
				t.Logf("failed: %q:\n%s", name, failed[name])
			}
			want := slices.Sorted(slices.Values(tc.failing))
			if !slices.Equal(names, want) {
				t.Errorf("failed specs:\n  %s\nwant:\n  %s", strings.Join(names, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// startDriver runs the test binary as a driver with the flaw.
func startDriver(t *testing.T, flaw, dir string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), driverEnv+"="+flaw, dirEnv+"="+dir)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("the driver's output:\n%s", output.String())
		}
	})
	socket := filepath.Join(dir, "reference.example.com-reg.sock")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(socket); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the driver did not create %s", socket)
		}
	}
}

// runSuite runs the suite against the driver in dir and returns the failed
// specs' messages by leaf text.
func runSuite(t *testing.T, dir string) map[string]string {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-ginkgo.no-color", "-ginkgo.json-report="+report)
	cmd.Env = append(os.Environ(), suiteEnv+"=1", dirEnv+"="+dir)
	out, runErr := cmd.CombinedOutput()
	var exit *exec.ExitError
	if runErr != nil && !errors.As(runErr, &exit) {
		t.Fatalf("run the suite: %v\n%s", runErr, out)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("the suite wrote no report: %v\n%s", err, out)
	}
	var reports []types.Report
	if err := json.Unmarshal(data, &reports); err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	ran := 0
	for _, r := range reports {
		for _, spec := range r.SpecReports {
			if spec.LeafNodeType != types.NodeTypeIt {
				continue
			}
			ran++
			if spec.State.Is(types.SpecStateFailureStates) {
				failed[spec.LeafNodeText] = spec.Failure.Message
			} else if spec.State != types.SpecStatePassed {
				t.Errorf("spec %q: %s, want it run", spec.LeafNodeText, spec.State)
			}
		}
	}
	if ran == 0 {
		t.Fatalf("the suite ran no spec:\n%s", out)
	}
	if (len(failed) == 0) != (runErr == nil) {
		t.Errorf("the suite exited with %v and %d failed specs", runErr, len(failed))
	}
	return failed
}

// serveDriver runs the reference driver with a flaw until SIGTERM.
func serveDriver(flaw, dir string) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	helper, err := driverplugin.Start(ctx, "reference.example.com", &referenceDriver{flaw: flaw, node: mustParse(testCPUs), held: map[string]*api.ResourceSet{}},
		driverplugin.PluginDataDirectoryPath(dir), driverplugin.RegistrarDirectoryPath(dir), driverplugin.GRPCVerbosity(-1))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	<-ctx.Done()
	helper.Stop()
	os.Exit(0)
}

// referenceDriver places as a driver should, except for its flaw: exclusive
// CPUs from the CPUs offered minus those it reserved, for the containers
// that may hold them, the whole offered pool shared for the others.
type referenceDriver struct {
	flaw string
	node cpuset.CPUSet
	held map[string]*api.ResourceSet
}

func (d *referenceDriver) Admit(_ context.Context, req *api.AdmitRequest) (*api.ResourceSet, error) {
	available, err := cpuset.Parse(req.AvailableCpus)
	if err != nil {
		return nil, err
	}
	request, err := resource.ParseQuantity(req.Container.Requests["cpu"])
	if req.Pod.QosClass != "Guaranteed" || err != nil || request.MilliValue()%1000 != 0 {
		if available.IsEmpty() {
			return nil, errors.New("no shared CPUs")
		}
		return &api.ResourceSet{Cpus: available.String()}, nil
	}
	free := available
	for _, set := range d.held {
		if set.Exclusive {
			free = free.Difference(mustParse(set.Cpus))
		}
	}
	if d.flaw == "first-cpu" {
		free = d.node
	}
	n := int(request.Value())
	if free.Size() < n {
		return nil, fmt.Errorf("%d CPUs requested, %d free", n, free.Size())
	}
	set := &api.ResourceSet{Cpus: cpuset.New(free.List()[:n]...).String(), Exclusive: true}
	if d.flaw != "no-reservation" {
		d.held[req.Pod.Uid+"/"+req.Container.Name] = set
	}
	return set, nil
}

func (d *referenceDriver) AddContainer(_ context.Context, req *api.AddContainerRequest) (*api.ResourceSet, error) {
	if d.flaw == "panic-on-unknown" {
		held := d.held[req.Pod.Uid+"/"+req.Container.Name]
		_ = held.Cpus // a nil pointer for a container it does not know
	}
	return nil, nil // keeps the admitted set
}

func (d *referenceDriver) RemoveContainer(_ context.Context, req *api.RemoveContainerRequest) error {
	delete(d.held, req.PodUid+"/"+req.ContainerName)
	return nil
}

func (d *referenceDriver) Sync(_ context.Context, allocations []*api.Allocation) error {
	if d.flaw == "ignore-sync" {
		return nil
	}
	d.held = map[string]*api.ResourceSet{}
	for _, a := range allocations {
		d.held[a.PodUid+"/"+a.ContainerName] = a.Resources
	}
	return nil
}

func mustParse(list string) cpuset.CPUSet {
	set, err := cpuset.Parse(list)
	if err != nil {
		panic(err)
	}
	return set
}
