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

// Package v1alpha1 is the API between the kubelet and resource drivers:
// node-local plugins that decide the CPU set and memory NUMA nodes of the
// containers of pods whose spec.resourceDriver names them.
//
// A driver serves the ResourceDriver gRPC service on a unix socket and
// registers it through the kubelet's plugin registration directory with the
// plugin type "ResourceDriver" (k8s.io/kubelet/pkg/apis/pluginregistration/v1)
// and ResourceDriverService among its supported versions.
package v1alpha1

const (
	// ResourceDriverService must be listed in the supported versions of a
	// driver's registration: it says the driver implements this version of
	// the ResourceDriver service.
	ResourceDriverService = "v1alpha1.ResourceDriver"

	// KubeletPluginsDir is where drivers conventionally create their
	// service socket, in a directory of their own named after the driver:
	// <KubeletPluginsDir>/<driver name>/driver.sock.
	KubeletPluginsDir = "/var/lib/kubelet/plugins"

	// KubeletRegistryDir is the kubelet's plugin registration directory.
	// A driver creates its registration socket there, conventionally named
	// <driver name>-reg.sock.
	KubeletRegistryDir = "/var/lib/kubelet/plugins_registry"
)
