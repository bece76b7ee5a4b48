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

// Package fakekubelet is the kubelet's side of the resource driver
// protocol, for tests of drivers: it performs the plugin registration
// handshake on a driver's registration socket and calls the driver over its
// real gRPC API on a real unix socket.
package fakekubelet

import (
	"context"
	"fmt"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
)

// Driver is a registered driver.
type Driver struct {
	// Info is what the driver said about itself at registration.
	Info *registerapi.PluginInfo
	api.ResourceDriverClient
	conn *grpc.ClientConn
}

// Register does what the kubelet's plugin watcher and resource manager do
// when a registration socket appears: ask the driver for its info, check
// the type and version, connect to its endpoint, call Sync with the given
// allocations, and report the result on the registration socket.
//
// An error that the kubelet would report to the driver (wrong type or
// version, failed Sync) is reported through NotifyRegistrationStatus and
// returned.
func Register(ctx context.Context, registrationSocket string, allocations ...*api.Allocation) (*Driver, error) {
	regConn, err := grpc.NewClient("unix:"+registrationSocket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("connect to registration socket: %w", err)
	}
	defer func() { _ = regConn.Close() }()
	registration := registerapi.NewRegistrationClient(regConn)
	info, err := registration.GetInfo(ctx, &registerapi.InfoRequest{})
	if err != nil {
		return nil, fmt.Errorf("get plugin info: %w", err)
	}

	driver, err := connect(ctx, info, allocations)
	status := &registerapi.RegistrationStatus{PluginRegistered: err == nil}
	if err != nil {
		status.Error = err.Error()
	}
	if _, notifyErr := registration.NotifyRegistrationStatus(ctx, status); notifyErr != nil && err == nil {
		_ = driver.Close()
		return nil, fmt.Errorf("notify registration status: %w", notifyErr)
	}
	return driver, err
}

func connect(ctx context.Context, info *registerapi.PluginInfo, allocations []*api.Allocation) (*Driver, error) {
	if info.Type != registerapi.ResourceDriver {
		return nil, fmt.Errorf("plugin type %q is not %q", info.Type, registerapi.ResourceDriver)
	}
	if !slices.Contains(info.SupportedVersions, api.ResourceDriverService) {
		return nil, fmt.Errorf("supported versions %v do not include %q", info.SupportedVersions, api.ResourceDriverService)
	}
	conn, err := grpc.NewClient("unix:"+info.Endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, fmt.Errorf("connect to driver endpoint %q: %w", info.Endpoint, err)
	}
	d := &Driver{Info: info, ResourceDriverClient: api.NewResourceDriverClient(conn), conn: conn}
	if _, err := d.Sync(ctx, &api.SyncRequest{Allocations: allocations}); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("sync: %w", err)
	}
	return d, nil
}

// Close closes the connection to the driver.
func (d *Driver) Close() error {
	return d.conn.Close()
}
