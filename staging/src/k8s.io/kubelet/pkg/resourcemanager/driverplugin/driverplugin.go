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

// Package driverplugin is the SDK for resource drivers: node-local plugins
// that decide the CPU set and memory NUMA nodes of the containers of pods
// naming them in spec.resourceDriver.
//
// A driver implements [Driver] (and optionally [ContainerAdder]) and calls
// [Start]. Start serves the driver's gRPC service and the kubelet plugin
// registration handshake on unix sockets until the context is canceled or
// [Helper.Stop] is called. Calls are serialized by default, so a driver
// needs no locking of its own.
//
// CPU sets travel in Linux cpuset list syntax ("2-3,6"): parse and format
// them with k8s.io/utils/cpuset. The topology package next to this one
// reads the node's CPU topology from sysfs.
package driverplugin

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	grpcstatus "google.golang.org/grpc/status"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/klog/v2"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
)

// Driver is what every resource driver implements. The kubelet validates
// every ResourceSet a driver returns; an error returned here is reported to
// the pod (Admit) or logged by the kubelet (RemoveContainer, Sync).
type Driver interface {
	// Admit reserves a placement for one container of a pod being
	// admitted. It must not return a set that another container holds
	// exclusively.
	Admit(ctx context.Context, req *api.AdmitRequest) (*api.ResourceSet, error)

	// RemoveContainer releases what Admit reserved for the container. It
	// must succeed for containers the driver does not know.
	RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) error

	// Sync replaces the driver's view of its allocations with the
	// kubelet's: everything not in the list is free. It is called after
	// every registration, before any other call.
	Sync(ctx context.Context, allocations []*api.Allocation) error
}

// ContainerAdder is implemented by drivers that want to change a
// container's placement just before it starts. A returned nil set keeps
// the admitted one. Drivers that do not implement it keep the admitted set.
type ContainerAdder interface {
	AddContainer(ctx context.Context, req *api.AddContainerRequest) (*api.ResourceSet, error)
}

// Option changes how Start runs a driver.
type Option func(o *options) error

type options struct {
	pluginDir         string
	pluginSocket      string
	registrarDir      string
	registrarSocket   string
	pluginListen      listenFunc
	registrarListen   listenFunc
	serialize         bool
	grpcVerbosity     int
	unaryInterceptors []grpc.UnaryServerInterceptor
}

type listenFunc func(ctx context.Context, path string) (net.Listener, error)

// PluginDataDirectoryPath sets the directory of the driver's service socket.
// The default is /var/lib/kubelet/plugins/<driver name>. It is created if
// missing. The path must be the same inside and outside the driver's
// container.
func PluginDataDirectoryPath(path string) Option {
	return func(o *options) error { o.pluginDir = path; return nil }
}

// PluginSocket sets the name of the service socket in the plugin data
// directory. The default is "driver.sock".
func PluginSocket(name string) Option {
	return func(o *options) error { o.pluginSocket = name; return nil }
}

// RegistrarDirectoryPath sets the kubelet's plugin registration directory.
// The default is /var/lib/kubelet/plugins_registry. It must exist.
func RegistrarDirectoryPath(path string) Option {
	return func(o *options) error { o.registrarDir = path; return nil }
}

// RegistrarSocketFilename sets the name of the registration socket. The
// default is "<driver name>-reg.sock".
func RegistrarSocketFilename(name string) Option {
	return func(o *options) error { o.registrarSocket = name; return nil }
}

// PluginListener replaces how the service socket is created (tests). The
// default removes a stale socket file and listens on a new one; it refuses
// a socket that another process still serves.
func PluginListener(listen func(ctx context.Context, path string) (net.Listener, error)) Option {
	return func(o *options) error { o.pluginListen = listen; return nil }
}

// RegistrarListener replaces how the registration socket is created (tests).
func RegistrarListener(listen func(ctx context.Context, path string) (net.Listener, error)) Option {
	return func(o *options) error { o.registrarListen = listen; return nil }
}

// Serialize says whether the driver's methods are called one at a time.
// The default is true; pass false only for a driver that locks itself.
func Serialize(enabled bool) Option {
	return func(o *options) error { o.serialize = enabled; return nil }
}

// GRPCVerbosity sets the log verbosity of gRPC calls and their answers.
// The default is 5. A negative value disables that logging.
func GRPCVerbosity(level int) Option {
	return func(o *options) error { o.grpcVerbosity = level; return nil }
}

// GRPCInterceptors adds unary interceptors to the driver's gRPC server,
// for example to record calls in tests.
func GRPCInterceptors(interceptors ...grpc.UnaryServerInterceptor) Option {
	return func(o *options) error {
		o.unaryInterceptors = append(o.unaryInterceptors, interceptors...)
		return nil
	}
}

// Helper runs one driver. Create it with Start.
type Helper struct {
	driverName string
	endpoint   string
	plugin     *grpcServer
	registrar  *grpcServer
	stopOnce   sync.Once
	cancel     context.CancelFunc
	done       chan struct{}

	mutex  sync.Mutex
	status *registerapi.RegistrationStatus
}

// Start validates the options, serves the driver's service socket and its
// registration socket, and returns. The kubelet then finds the registration
// socket, asks for the driver's name and endpoint, connects and calls Sync.
// Serving stops when ctx is canceled or Stop is called; the sockets are
// removed then.
func Start(ctx context.Context, driverName string, driver Driver, opts ...Option) (result *Helper, finalErr error) {
	logger := klog.FromContext(ctx).WithName("driverplugin").WithValues("driver", driverName)
	if errs := validation.IsDNS1123Subdomain(driverName); len(errs) > 0 || len(driverName) > 63 {
		if len(driverName) > 63 {
			errs = append(errs, "must be no more than 63 characters")
		}
		return nil, fmt.Errorf("invalid driver name %q: %v", driverName, errs)
	}
	if driver == nil {
		return nil, errors.New("driver must not be nil")
	}
	o := options{
		pluginDir:       filepath.Join(api.KubeletPluginsDir, driverName),
		pluginSocket:    "driver.sock",
		registrarDir:    api.KubeletRegistryDir,
		registrarSocket: driverName + "-reg.sock",
		pluginListen:    unixListener(driverName),
		registrarListen: unixListener(driverName),
		serialize:       true,
		grpcVerbosity:   5,
	}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(o.pluginDir, 0o750); err != nil {
		return nil, fmt.Errorf("create plugin data directory: %w", err)
	}

	ctx, cancel := context.WithCancel(klog.NewContext(ctx, logger))
	h := &Helper{
		driverName: driverName,
		endpoint:   filepath.Join(o.pluginDir, o.pluginSocket),
		cancel:     cancel,
		done:       make(chan struct{}),
	}
	defer func() {
		if finalErr != nil {
			h.Stop()
		}
	}()

	service := &driverService{driver: driver, serialize: o.serialize}
	if adder, ok := driver.(ContainerAdder); ok {
		service.adder = adder
	}
	var err error
	h.plugin, err = startGRPCServer(ctx, o.grpcVerbosity, o.unaryInterceptors, o.pluginListen, h.endpoint, func(s *grpc.Server) {
		api.RegisterResourceDriverServer(s, service)
	})
	if err != nil {
		return nil, fmt.Errorf("serve the driver socket: %w", err)
	}
	// The registration socket comes last: once the kubelet can see it, the
	// driver socket must already answer.
	h.registrar, err = startGRPCServer(ctx, o.grpcVerbosity, nil, o.registrarListen, filepath.Join(o.registrarDir, o.registrarSocket), func(s *grpc.Server) {
		registerapi.RegisterRegistrationServer(s, &registrationService{helper: h})
	})
	if err != nil {
		return nil, fmt.Errorf("serve the registration socket: %w", err)
	}
	go func() {
		<-ctx.Done()
		h.Stop()
	}()
	logger.V(2).Info("Resource driver started", "endpoint", h.endpoint)
	return h, nil
}

// Stop stops serving and removes the sockets. It returns once the servers
// have stopped, and may be called more than once.
func (h *Helper) Stop() {
	h.stopOnce.Do(func() {
		h.cancel()
		// Registration first, so the kubelet stops seeing the driver before
		// its service socket goes away.
		if h.registrar != nil {
			h.registrar.stop()
		}
		if h.plugin != nil {
			h.plugin.stop()
		}
		close(h.done)
	})
	<-h.done
}

// Endpoint is the path of the driver's service socket.
func (h *Helper) Endpoint() string { return h.endpoint }

// RegistrationStatus returns what the kubelet last said about the
// registration, or nil when it has not said anything yet.
func (h *Helper) RegistrationStatus() *registerapi.RegistrationStatus {
	h.mutex.Lock()
	defer h.mutex.Unlock()
	return h.status
}

// registrationService answers the kubelet's plugin watcher.
type registrationService struct {
	registerapi.UnsafeRegistrationServer
	helper *Helper
}

func (r *registrationService) GetInfo(ctx context.Context, _ *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return &registerapi.PluginInfo{
		Type:              registerapi.ResourceDriver,
		Name:              r.helper.driverName,
		Endpoint:          r.helper.endpoint,
		SupportedVersions: []string{api.ResourceDriverService},
	}, nil
}

func (r *registrationService) NotifyRegistrationStatus(ctx context.Context, status *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	logger := klog.FromContext(ctx)
	if status.PluginRegistered {
		logger.V(2).Info("Registered with the kubelet")
	} else {
		logger.Error(nil, "The kubelet refused the registration", "reason", status.Error)
	}
	r.helper.mutex.Lock()
	defer r.helper.mutex.Unlock()
	r.helper.status = status
	return &registerapi.RegistrationStatusResponse{}, nil
}

// driverService adapts a Driver to the generated gRPC server interface.
type driverService struct {
	api.UnsafeResourceDriverServer
	driver    Driver
	adder     ContainerAdder
	serialize bool
	mutex     sync.Mutex
}

func (s *driverService) lock() func() {
	if !s.serialize {
		return func() {}
	}
	s.mutex.Lock()
	return s.mutex.Unlock
}

func (s *driverService) Admit(ctx context.Context, req *api.AdmitRequest) (*api.AdmitResponse, error) {
	defer s.lock()()
	set, err := s.driver.Admit(ctx, req)
	if err != nil {
		return nil, err
	}
	if set == nil {
		return nil, errors.New("the driver admitted the container without a resource set")
	}
	return &api.AdmitResponse{Resources: set}, nil
}

func (s *driverService) AddContainer(ctx context.Context, req *api.AddContainerRequest) (*api.AddContainerResponse, error) {
	if s.adder == nil {
		return &api.AddContainerResponse{}, nil
	}
	defer s.lock()()
	set, err := s.adder.AddContainer(ctx, req)
	if err != nil {
		return nil, err
	}
	return &api.AddContainerResponse{Resources: set}, nil
}

func (s *driverService) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) (*api.RemoveContainerResponse, error) {
	defer s.lock()()
	if err := s.driver.RemoveContainer(ctx, req); err != nil {
		return nil, err
	}
	return &api.RemoveContainerResponse{}, nil
}

func (s *driverService) Sync(ctx context.Context, req *api.SyncRequest) (*api.SyncResponse, error) {
	defer s.lock()()
	if err := s.driver.Sync(ctx, req.Allocations); err != nil {
		return nil, err
	}
	return &api.SyncResponse{}, nil
}

// staleSocketDialTimeout bounds how long Start waits for an existing socket
// to answer before it calls the socket stale.
const staleSocketDialTimeout = time.Second

// unixListener returns the default listenFunc: it removes a stale socket
// left by an earlier run, then listens.
func unixListener(driverName string) listenFunc {
	return func(ctx context.Context, path string) (net.Listener, error) {
		if err := removeStaleSocket(ctx, driverName, path); err != nil {
			return nil, err
		}
		var lc net.ListenConfig
		return lc.Listen(ctx, "unix", path)
	}
}

// removeStaleSocket removes the file at path unless a process serves it.
// Removing a live socket would not stop the other instance: both would run,
// and the kubelet would only reach the newer one.
func removeStaleSocket(ctx context.Context, driverName, path string) error {
	if _, err := os.Lstat(path); os.IsNotExist(err) {
		return nil
	}
	dialer := net.Dialer{Timeout: staleSocketDialTimeout}
	conn, err := dialer.DialContext(ctx, "unix", path)
	if err == nil {
		_ = conn.Close()
		return fmt.Errorf("socket %s is served by another process: is another instance of driver %q running? Stop it first", path, driverName)
	}
	// A full backlog or a slow answer means a process listens but is busy:
	// that socket is not stale either.
	var netErr net.Error
	if errors.Is(err, syscall.EAGAIN) || (errors.As(err, &netErr) && netErr.Timeout()) {
		return fmt.Errorf("socket %s is served by another process, which does not accept connections (%w): is another instance of driver %q running? Stop it first", path, err, driverName)
	}
	klog.FromContext(ctx).V(4).Info("Removing stale socket", "path", path, "dialError", err)
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("remove stale socket: %w", err)
	}
	return nil
}

// grpcServer is one gRPC server on one unix socket.
type grpcServer struct {
	path   string
	server *grpc.Server
	wg     sync.WaitGroup
}

var requestID atomic.Int64

func startGRPCServer(ctx context.Context, verbosity int, interceptors []grpc.UnaryServerInterceptor, listen listenFunc, path string, register func(*grpc.Server)) (*grpcServer, error) {
	listener, err := listen(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("listen on %q: %w", path, err)
	}
	logger := klog.FromContext(ctx)
	chain := append([]grpc.UnaryServerInterceptor{loggingInterceptor(logger, verbosity)}, interceptors...)
	s := &grpcServer{path: path, server: grpc.NewServer(grpc.ChainUnaryInterceptor(chain...))}
	register(s.server)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := s.server.Serve(listener); err != nil {
			logger.Error(err, "gRPC server failed", "endpoint", path)
		}
	}()
	return s, nil
}

func (s *grpcServer) stop() {
	s.server.Stop()
	s.wg.Wait()
	_ = os.Remove(s.path)
}

// loggingInterceptor gives each call a logger with the method and a
// request id, and logs calls at the given verbosity. It logs the pod and
// container a call is about, never the request itself: requests carry the
// pod's labels and annotations, which may hold secrets.
func loggingInterceptor(logger klog.Logger, verbosity int) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		logger := klog.LoggerWithValues(logger, append([]any{"method", info.FullMethod, "requestID", requestID.Add(1)}, requestKeys(req)...)...)
		ctx = klog.NewContext(ctx, logger)
		if verbosity >= 0 {
			logger.V(verbosity).Info("Handling request")
		}
		start := time.Now()
		resp, err := handler(ctx, req)
		duration := time.Since(start)
		switch {
		case err != nil:
			// The code only: a driver's message may quote the request.
			logger.V(2).Info("Request failed", "duration", duration, "code", grpcstatus.Code(err))
		case verbosity >= 0:
			logger.V(verbosity).Info("Handled request", "duration", duration)
		}
		return resp, err
	}
}

// requestKeys returns the log key/value pairs that say which pod and
// container a request is about.
func requestKeys(req any) []any {
	var kv []any
	switch r := req.(type) {
	case interface {
		GetPod() *api.PodInfo
		GetContainer() *api.ContainerInfo
	}:
		if pod := r.GetPod(); pod != nil {
			kv = append(kv, "pod", klog.KRef(pod.GetNamespace(), pod.GetName()), "podUID", pod.GetUid())
		}
		if container := r.GetContainer(); container != nil {
			kv = append(kv, "containerName", container.GetName())
		}
	case interface {
		GetPodUid() string
		GetContainerName() string
	}:
		kv = append(kv, "podUID", r.GetPodUid(), "containerName", r.GetContainerName())
	}
	return kv
}
