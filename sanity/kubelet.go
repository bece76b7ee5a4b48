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
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	grpcstatus "google.golang.org/grpc/status"

	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/utils/cpuset"
)

// kubelet plays the kubelet's side against the driver: it offers the shared
// pool as the kubelet computes it (the node's CPUs minus every CPU held
// exclusively), keeps what the driver answered, and bounds every call by
// the kubelet's call timeout. Its methods may be called concurrently.
type kubelet struct {
	config *Config
	conn   *grpc.ClientConn
	driver api.ResourceDriverClient

	mutex sync.Mutex
	// held are the allocations the kubelet holds, by pod UID and container.
	held map[containerKey]*api.Allocation
	// admitted are all containers admitted in this spec, held or not, so
	// that the spec can release them at its end.
	admitted []containerKey
}

type containerKey struct{ podUID, container string }

func connect(config *Config) (*kubelet, error) {
	conn, err := grpc.NewClient("unix:"+config.Endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("connect to the driver at %s: %w", config.Endpoint, err)
	}
	return &kubelet{
		config: config,
		conn:   conn,
		driver: api.NewResourceDriverClient(conn),
		held:   map[containerKey]*api.Allocation{},
	}, nil
}

func (k *kubelet) close() { _ = k.conn.Close() }

// callError says what went wrong with a call in the words of the protocol.
func (k *kubelet) callError(method string, err error, took time.Duration) error {
	switch grpcstatus.Code(err) {
	case codes.DeadlineExceeded:
		return fmt.Errorf("%s did not answer within %s, the kubelet's call timeout (it took %s): the kubelet fails the call, and the pod with it: %w", method, k.config.CallTimeout, took.Round(time.Millisecond), err)
	case codes.Unavailable:
		return fmt.Errorf("%s: the driver does not answer on %s (%w): did it crash? A driver must answer every call, with an error if need be", method, k.config.Endpoint, err)
	}
	return fmt.Errorf("%s: %w", method, err)
}

// callFailed says whether err is the call failing rather than the driver
// answering with an error: the driver did not answer in time, or is not
// there.
func callFailed(err error) bool {
	var status interface{ GRPCStatus() *grpcstatus.Status }
	if !errors.As(err, &status) {
		return false
	}
	code := status.GRPCStatus().Code()
	return code == codes.DeadlineExceeded || code == codes.Unavailable
}

// call runs one call with the kubelet's call timeout.
func (k *kubelet) call(ctx context.Context, method string, do func(ctx context.Context) error) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, k.config.CallTimeout)
	defer cancel()
	start := time.Now()
	err := do(ctx)
	took := time.Since(start)
	if err != nil {
		return took, k.callError(method, err, took)
	}
	return took, nil
}

// available is the shared pool as the kubelet offers it.
func (k *kubelet) available() cpuset.CPUSet {
	k.mutex.Lock()
	defer k.mutex.Unlock()
	return k.availableLocked()
}

func (k *kubelet) availableLocked() cpuset.CPUSet {
	free := k.config.CPUs
	for _, a := range k.held {
		if a.Resources.GetExclusive() {
			if cpus, err := cpuset.Parse(a.Resources.GetCpus()); err == nil {
				free = free.Difference(cpus)
			}
		}
	}
	return free
}

// admission is the result of one Admit call.
type admission struct {
	pod       *api.PodInfo
	container *api.ContainerInfo
	// offered is the available_cpus the call carried.
	offered cpuset.CPUSet
	// answer is what the driver answered, nil when it refused.
	answer *api.ResourceSet
	// refusal is the driver's error, nil when it answered.
	refusal error
	// failed says the call itself failed: no answer in time, or no driver.
	failed bool
	took   time.Duration
}

// admit calls Admit for one container, offering the current shared pool, or
// offered when it is set.
func (k *kubelet) admit(ctx context.Context, pod *api.PodInfo, container *api.ContainerInfo, offered *cpuset.CPUSet) admission {
	a := admission{pod: pod, container: container}
	if offered != nil {
		a.offered = *offered
	} else {
		a.offered = k.available()
	}
	k.mutex.Lock()
	k.admitted = append(k.admitted, containerKey{pod.Uid, container.Name})
	k.mutex.Unlock()
	a.took, a.refusal = k.call(ctx, "Admit", func(ctx context.Context) error {
		resp, err := k.driver.Admit(ctx, &api.AdmitRequest{Pod: pod, Container: container, AvailableCpus: a.offered.String()})
		if err == nil {
			a.answer = resp.GetResources()
			if a.answer == nil {
				a.answer = &api.ResourceSet{}
			}
		}
		return err
	})
	a.failed = callFailed(a.refusal)
	return a
}

// hold records an accepted answer as the kubelet's allocation.
func (k *kubelet) hold(a admission) {
	k.mutex.Lock()
	defer k.mutex.Unlock()
	k.held[containerKey{a.pod.Uid, a.container.Name}] = &api.Allocation{
		PodUid:        a.pod.Uid,
		PodNamespace:  a.pod.Namespace,
		PodName:       a.pod.Name,
		ContainerName: a.container.Name,
		Resources:     a.answer,
	}
}

// addContainer calls AddContainer for a container the kubelet created.
func (k *kubelet) addContainer(ctx context.Context, pod *api.PodInfo, container *api.ContainerInfo, admitted *api.ResourceSet) (*api.ResourceSet, time.Duration, error) {
	var answer *api.ResourceSet
	took, err := k.call(ctx, "AddContainer", func(ctx context.Context) error {
		resp, err := k.driver.AddContainer(ctx, &api.AddContainerRequest{
			Pod:           pod,
			Container:     container,
			ContainerId:   "sanity-" + pod.Uid + "-" + container.Name,
			Cgroup:        "/kubepods/pod" + pod.Uid,
			AvailableCpus: k.available().String(),
			Admitted:      admitted,
		})
		answer = resp.GetResources()
		return err
	})
	return answer, took, err
}

// remove calls RemoveContainer and forgets the allocation, as the kubelet
// does whether the call succeeds or not.
func (k *kubelet) remove(ctx context.Context, podUID, container string) (time.Duration, error) {
	k.mutex.Lock()
	delete(k.held, containerKey{podUID, container})
	k.mutex.Unlock()
	return k.call(ctx, "RemoveContainer", func(ctx context.Context) error {
		_, err := k.driver.RemoveContainer(ctx, &api.RemoveContainerRequest{PodUid: podUID, ContainerName: container})
		return err
	})
}

// sync sends the kubelet's allocations, as after a registration.
func (k *kubelet) sync(ctx context.Context) (time.Duration, error) {
	k.mutex.Lock()
	allocations := make([]*api.Allocation, 0, len(k.held))
	for _, a := range k.held {
		allocations = append(allocations, a)
	}
	k.mutex.Unlock()
	return k.call(ctx, "Sync", func(ctx context.Context) error {
		_, err := k.driver.Sync(ctx, &api.SyncRequest{Allocations: allocations})
		return err
	})
}

// forget drops the kubelet's allocations without telling the driver, as a
// kubelet that lost its pods while the driver was away does: the next Sync
// tells the driver.
func (k *kubelet) forget() {
	k.mutex.Lock()
	defer k.mutex.Unlock()
	k.held = map[containerKey]*api.Allocation{}
}

// releaseAll removes every container admitted in the spec, so that the
// next spec starts from a driver that holds nothing, even one whose Sync
// is broken. Errors are the specs' business, not the cleanup's.
func (k *kubelet) releaseAll(ctx context.Context) {
	k.mutex.Lock()
	admitted := k.admitted
	k.admitted = nil
	k.mutex.Unlock()
	for _, c := range admitted {
		_, _ = k.remove(ctx, c.podUID, c.container)
	}
}
