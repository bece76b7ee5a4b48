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

package driverplugin_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/kubelet/pkg/resourcemanager/driverplugin"
	"k8s.io/kubelet/pkg/resourcemanager/fakekubelet"
)

// recordingDriver answers with fixed sets and records what it was told.
type recordingDriver struct {
	mutex       sync.Mutex
	admitted    []string
	removed     []string
	synced      [][]*api.Allocation
	admitErr    error
	inAdmit     int
	maxParallel int
	admitDelay  time.Duration
}

func (d *recordingDriver) Admit(ctx context.Context, req *api.AdmitRequest) (*api.ResourceSet, error) {
	d.mutex.Lock()
	d.inAdmit++
	d.maxParallel = max(d.maxParallel, d.inAdmit)
	d.mutex.Unlock()
	time.Sleep(d.admitDelay)
	d.mutex.Lock()
	defer d.mutex.Unlock()
	d.inAdmit--
	if d.admitErr != nil {
		return nil, d.admitErr
	}
	d.admitted = append(d.admitted, req.Pod.Uid+"/"+req.Container.Name)
	return &api.ResourceSet{Cpus: "1", Exclusive: true}, nil
}

func (d *recordingDriver) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) error {
	d.mutex.Lock()
	defer d.mutex.Unlock()
	d.removed = append(d.removed, req.PodUid+"/"+req.ContainerName+"/"+req.ContainerId)
	return nil
}

func (d *recordingDriver) Sync(ctx context.Context, allocations []*api.Allocation) error {
	d.mutex.Lock()
	defer d.mutex.Unlock()
	d.synced = append(d.synced, allocations)
	return nil
}

// adderDriver also implements ContainerAdder.
type adderDriver struct {
	recordingDriver
}

func (d *adderDriver) AddContainer(ctx context.Context, req *api.AddContainerRequest) (*api.ResourceSet, error) {
	return &api.ResourceSet{Cpus: req.Admitted.Cpus + ",3", Exclusive: req.Admitted.Exclusive}, nil
}

type dirs struct{ plugin, registry string }

func newDirs(t *testing.T) dirs {
	// Unix socket paths are short: keep them out of long test directory names.
	root, err := os.MkdirTemp("", "rm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	d := dirs{plugin: filepath.Join(root, "plugin"), registry: filepath.Join(root, "registry")}
	if err := os.Mkdir(d.registry, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d dirs) options() []driverplugin.Option {
	return []driverplugin.Option{driverplugin.PluginDataDirectoryPath(d.plugin), driverplugin.RegistrarDirectoryPath(d.registry)}
}

func (d dirs) registrationSocket(driver string) string {
	return filepath.Join(d.registry, driver+"-reg.sock")
}

func start(t *testing.T, ctx context.Context, d dirs, driver driverplugin.Driver, opts ...driverplugin.Option) *driverplugin.Helper {
	t.Helper()
	h, err := driverplugin.Start(ctx, "cpu.example.com", driver, append(d.options(), opts...)...)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(h.Stop)
	return h
}

func TestRegistrationAndCalls(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := newDirs(t)
	driver := &recordingDriver{}
	h := start(t, ctx, d, driver)

	existing := &api.Allocation{PodUid: "p0", ContainerName: "c", Resources: &api.ResourceSet{Cpus: "0"}}
	k, err := fakekubelet.Register(ctx, d.registrationSocket("cpu.example.com"), existing)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	defer func() { _ = k.Close() }()

	wantInfo := &registerapi.PluginInfo{
		Type:              registerapi.ResourceDriver,
		Name:              "cpu.example.com",
		Endpoint:          filepath.Join(d.plugin, "driver.sock"),
		SupportedVersions: []string{api.ResourceDriverService},
	}
	if !proto.Equal(k.Info, wantInfo) {
		t.Errorf("plugin info = %v, want %v", k.Info, wantInfo)
	}
	if status := h.RegistrationStatus(); status == nil || !status.PluginRegistered {
		t.Errorf("registration status = %v, want registered", status)
	}
	if len(driver.synced) != 1 || len(driver.synced[0]) != 1 || !proto.Equal(driver.synced[0][0], existing) {
		t.Errorf("synced = %v, want one Sync with %v", driver.synced, existing)
	}

	pod := &api.PodInfo{Uid: "p1", Namespace: "default", Name: "pod"}
	admit, err := k.Admit(ctx, &api.AdmitRequest{Pod: pod, Container: &api.ContainerInfo{Name: "c"}, AvailableCpus: "1-3"})
	if err != nil {
		t.Fatalf("Admit: %v", err)
	}
	if want := (&api.ResourceSet{Cpus: "1", Exclusive: true}); !proto.Equal(admit.Resources, want) {
		t.Errorf("Admit = %v, want %v", admit.Resources, want)
	}
	// Without ContainerAdder, AddContainer keeps the admitted set.
	add, err := k.AddContainer(ctx, &api.AddContainerRequest{Pod: pod, Container: &api.ContainerInfo{Name: "c"}, ContainerId: "id1", Admitted: admit.Resources})
	if err != nil || add.Resources != nil {
		t.Errorf("AddContainer = %v, %v; want no update", add, err)
	}
	if _, err := k.RemoveContainer(ctx, &api.RemoveContainerRequest{PodUid: "p1", ContainerName: "c", ContainerId: "id1"}); err != nil {
		t.Errorf("RemoveContainer: %v", err)
	}
	if got, want := strings.Join(driver.admitted, " "), "p1/c"; got != want {
		t.Errorf("admitted %q, want %q", got, want)
	}
	if got, want := strings.Join(driver.removed, " "), "p1/c/id1"; got != want {
		t.Errorf("removed %q, want %q", got, want)
	}
}

func TestContainerAdder(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := newDirs(t)
	start(t, ctx, d, &adderDriver{})
	k, err := fakekubelet.Register(ctx, d.registrationSocket("cpu.example.com"))
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	defer func() { _ = k.Close() }()
	add, err := k.AddContainer(ctx, &api.AddContainerRequest{Admitted: &api.ResourceSet{Cpus: "1", Exclusive: true}})
	if err != nil {
		t.Fatalf("AddContainer: %v", err)
	}
	if want := (&api.ResourceSet{Cpus: "1,3", Exclusive: true}); !proto.Equal(add.Resources, want) {
		t.Errorf("AddContainer = %v, want %v", add.Resources, want)
	}
}

func TestDriverErrorsReachTheKubelet(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := newDirs(t)
	start(t, ctx, d, &recordingDriver{admitErr: errors.New("no CPU left on NUMA node 0")})
	k, err := fakekubelet.Register(ctx, d.registrationSocket("cpu.example.com"))
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	defer func() { _ = k.Close() }()
	_, err = k.Admit(ctx, &api.AdmitRequest{Pod: &api.PodInfo{}, Container: &api.ContainerInfo{}})
	if err == nil || !strings.Contains(err.Error(), "no CPU left on NUMA node 0") {
		t.Errorf("Admit error = %v, want the driver's message", err)
	}
}

// A registration the kubelet refuses is reported back to the driver.
func TestRegistrationFailureIsReported(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := newDirs(t)
	h := start(t, ctx, d, &recordingDriver{})

	// A kubelet that refuses the driver, as the real one does for a
	// duplicate name: only the registration service is used.
	conn, err := grpc.NewClient("unix:"+d.registrationSocket("cpu.example.com"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	_, err = registerapi.NewRegistrationClient(conn).NotifyRegistrationStatus(ctx, &registerapi.RegistrationStatus{Error: "driver cpu.example.com is already registered"})
	if err != nil {
		t.Fatal(err)
	}
	status := h.RegistrationStatus()
	if status == nil || status.PluginRegistered || status.Error != "driver cpu.example.com is already registered" {
		t.Errorf("registration status = %v, want the kubelet's refusal", status)
	}
}

func TestSerializedByDefault(t *testing.T) {
	for name, tc := range map[string]struct {
		opts         []driverplugin.Option
		wantParallel bool
	}{
		"default":        {},
		"not serialized": {opts: []driverplugin.Option{driverplugin.Serialize(false)}, wantParallel: true},
	} {
		t.Run(name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			d := newDirs(t)
			driver := &recordingDriver{admitDelay: 100 * time.Millisecond}
			start(t, ctx, d, driver, tc.opts...)
			k, err := fakekubelet.Register(ctx, d.registrationSocket("cpu.example.com"))
			if err != nil {
				t.Fatalf("Register: %v", err)
			}
			defer func() { _ = k.Close() }()
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					if _, err := k.Admit(ctx, &api.AdmitRequest{Pod: &api.PodInfo{}, Container: &api.ContainerInfo{}}); err != nil {
						t.Errorf("Admit: %v", err)
					}
				})
			}
			wg.Wait()
			if parallel := driver.maxParallel > 1; parallel != tc.wantParallel {
				t.Errorf("max parallel Admit calls = %d, want parallel: %v", driver.maxParallel, tc.wantParallel)
			}
		})
	}
}

// listenUnix serves path until the test ends. A stale listener is closed at
// once but leaves its socket file, as a killed driver does.
func listenUnix(t *testing.T, path string, stale bool) {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	if stale {
		l.SetUnlinkOnClose(false)
		_ = l.Close()
		return
	}
	t.Cleanup(func() { _ = l.Close() })
	// Accept, so that a dial is answered as a live server would answer it.
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			_ = conn.Close()
		}
	}()
}

// TestStartWithExistingSockets checks that Start replaces the sockets a
// crashed driver left, and refuses those that another instance serves.
func TestStartWithExistingSockets(t *testing.T) {
	const served = `is served by another process: is another instance of driver "cpu.example.com" running? Stop it first`
	for name, tc := range map[string]struct {
		// registration says whether the existing socket is the
		// registration socket rather than the driver socket.
		registration bool
		stale        bool
		wantErr      string
	}{
		"stale driver socket":        {stale: true},
		"stale registration socket":  {registration: true, stale: true},
		"served driver socket":       {wantErr: served},
		"served registration socket": {registration: true, wantErr: served},
	} {
		t.Run(name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			d := newDirs(t)
			if err := os.MkdirAll(d.plugin, 0o755); err != nil {
				t.Fatal(err)
			}
			registrationSocket := filepath.Join(d.registry, "other-reg.sock")
			path := filepath.Join(d.plugin, "other.sock")
			if tc.registration {
				path = registrationSocket
			}
			listenUnix(t, path, tc.stale)

			h, err := driverplugin.Start(ctx, "cpu.example.com", &recordingDriver{},
				driverplugin.PluginDataDirectoryPath(d.plugin),
				driverplugin.PluginSocket("other.sock"),
				driverplugin.RegistrarDirectoryPath(d.registry),
				driverplugin.RegistrarSocketFilename("other-reg.sock"),
			)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Start: %v", err)
				}
				t.Cleanup(h.Stop)
				k, err := fakekubelet.Register(ctx, registrationSocket)
				if err != nil {
					t.Fatalf("Register after restart: %v", err)
				}
				_ = k.Close()
				return
			}

			if err == nil {
				h.Stop()
				t.Fatalf("Start succeeded, want error containing %q", tc.wantErr)
			}
			if wantErr := "socket " + path + " " + tc.wantErr; !strings.Contains(err.Error(), wantErr) {
				t.Errorf("error %q does not contain %q", err, wantErr)
			}
			// The other instance still owns its socket.
			conn, err := net.DialTimeout("unix", path, time.Second)
			if err != nil {
				t.Fatalf("socket of the other instance no longer served: %v", err)
			}
			_ = conn.Close()
		})
	}
}

func TestCancelStopsAndRemovesSockets(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := newDirs(t)
	ctx, cancel := context.WithCancel(ctx)
	h, err := driverplugin.Start(ctx, "cpu.example.com", &recordingDriver{}, d.options()...)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	h.Stop() // waits for the shutdown that cancel started
	for _, path := range []string{h.Endpoint(), d.registrationSocket("cpu.example.com")} {
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("socket %s still exists after cancel: %v", path, err)
		}
	}
	if _, err := fakekubelet.Register(context.Background(), d.registrationSocket("cpu.example.com")); err == nil {
		t.Error("Register succeeded after the driver stopped")
	}
}

func TestStartValidates(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := newDirs(t)
	for name, tc := range map[string]struct {
		driverName string
		driver     driverplugin.Driver
		opts       []driverplugin.Option
		wantErr    string
	}{
		"upper case":  {driverName: "CPU.example.com", driver: &recordingDriver{}, wantErr: `invalid driver name "CPU.example.com"`},
		"too long":    {driverName: strings.Repeat("a", 64), driver: &recordingDriver{}, wantErr: "must be no more than 63 characters"},
		"no driver":   {driverName: "cpu.example.com", wantErr: "driver must not be nil"},
		"no registry": {driverName: "cpu.example.com", driver: &recordingDriver{}, opts: []driverplugin.Option{driverplugin.RegistrarDirectoryPath(filepath.Join(d.registry, "missing"))}, wantErr: "serve the registration socket"},
	} {
		t.Run(name, func(t *testing.T) {
			h, err := driverplugin.Start(ctx, tc.driverName, tc.driver, append(d.options(), tc.opts...)...)
			if err == nil {
				h.Stop()
				t.Fatalf("Start succeeded, want error containing %q", tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not contain %q", err, tc.wantErr)
			}
			// A failed start leaves no driver socket behind.
			if _, err := os.Stat(filepath.Join(d.plugin, "driver.sock")); !os.IsNotExist(err) {
				t.Errorf("driver socket left behind: %v", err)
			}
		})
	}
}

// The interceptor option sees every call, as e2e tests use it to record calls.
func TestInterceptors(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	d := newDirs(t)
	var mutex sync.Mutex
	var methods []string
	record := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		mutex.Lock()
		methods = append(methods, filepath.Base(info.FullMethod))
		mutex.Unlock()
		return handler(ctx, req)
	}
	start(t, ctx, d, &recordingDriver{}, driverplugin.GRPCInterceptors(record))
	k, err := fakekubelet.Register(ctx, d.registrationSocket("cpu.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = k.Close() }()
	if _, err := k.RemoveContainer(ctx, &api.RemoveContainerRequest{}); err != nil {
		t.Fatal(err)
	}
	mutex.Lock()
	defer mutex.Unlock()
	if got, want := strings.Join(methods, " "), "Sync RemoveContainer"; got != want {
		t.Errorf("recorded calls %q, want %q", got, want)
	}
}

// TestLogsNoRequests checks that calls are logged by pod and container only:
// requests carry the pod's labels and annotations, which may hold secrets.
func TestLogsNoRequests(t *testing.T) {
	const secret = "s3cr3t-annotation-value"
	pod := &api.PodInfo{
		Uid:         "uid-1",
		Namespace:   "ns",
		Name:        "pod",
		Labels:      map[string]string{"label": secret},
		Annotations: map[string]string{"example.com/token": secret},
	}
	container := &api.ContainerInfo{Name: "ctr", Requests: map[string]string{"cpu": "2"}}
	for name, tc := range map[string]struct {
		driver   driverplugin.Driver
		call     func(ctx context.Context, k *fakekubelet.Driver) error
		wantLogs []string
	}{
		"Admit": {
			driver: &recordingDriver{},
			call: func(ctx context.Context, k *fakekubelet.Driver) error {
				_, err := k.Admit(ctx, &api.AdmitRequest{Pod: pod, Container: container, AvailableCpus: "0-3"})
				return err
			},
			wantLogs: []string{"Handled request", `method="/`, `pod="ns/pod"`, `podUID="uid-1"`, `containerName="ctr"`, `duration=`},
		},
		"AddContainer": {
			driver: &adderDriver{},
			call: func(ctx context.Context, k *fakekubelet.Driver) error {
				_, err := k.AddContainer(ctx, &api.AddContainerRequest{Pod: pod, Container: container, ContainerId: "id-1", Admitted: &api.ResourceSet{Cpus: "1"}})
				return err
			},
			wantLogs: []string{"Handled request", `pod="ns/pod"`, `containerName="ctr"`},
		},
		"RemoveContainer": {
			driver: &recordingDriver{},
			call: func(ctx context.Context, k *fakekubelet.Driver) error {
				_, err := k.RemoveContainer(ctx, &api.RemoveContainerRequest{PodUid: "uid-1", ContainerName: "ctr", ContainerId: "id-1"})
				return err
			},
			wantLogs: []string{"Handled request", `podUID="uid-1"`, `containerName="ctr"`},
		},
		// The driver's message may quote the request: only its code is logged.
		"failed Admit": {
			driver: &recordingDriver{admitErr: errors.New("cannot place pod with token " + secret)},
			call: func(ctx context.Context, k *fakekubelet.Driver) error {
				if _, err := k.Admit(ctx, &api.AdmitRequest{Pod: pod, Container: container}); err == nil {
					return errors.New("Admit succeeded, want the driver's error")
				}
				return nil
			},
			wantLogs: []string{"Request failed", `pod="ns/pod"`, `code="Unknown"`, `duration=`},
		},
	} {
		t.Run(name, func(t *testing.T) {
			// The kubelet side logs elsewhere: the buffer holds only what the driver logs.
			_, kubeletCtx := ktesting.NewTestContext(t)
			logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(10), ktesting.BufferLogs(true)))
			ctx := klog.NewContext(kubeletCtx, logger)
			d := newDirs(t)
			start(t, ctx, d, tc.driver)
			k, err := fakekubelet.Register(kubeletCtx, d.registrationSocket("cpu.example.com"))
			if err != nil {
				t.Fatalf("Register: %v", err)
			}
			defer func() { _ = k.Close() }()
			if err := tc.call(kubeletCtx, k); err != nil {
				t.Fatal(err)
			}

			logs := logger.GetSink().(ktesting.Underlier).GetBuffer().String()
			if strings.Contains(logs, secret) {
				t.Errorf("logs contain the annotation value %q:\n%s", secret, logs)
			}
			for _, want := range tc.wantLogs {
				if !strings.Contains(logs, want) {
					t.Errorf("logs do not contain %q:\n%s", want, logs)
				}
			}
		})
	}
}
