// Command minimal-driver is the smallest useful resource driver: every container of a pod that
// names it gets one exclusive CPU, the lowest free one. The kubelet gives exclusive CPUs only to
// containers of Guaranteed pods, as many as their CPU request: so each must request one CPU.
package main

import (
	"context"
	"flag"
	"fmt"
	"os/signal"
	"syscall"

	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/kubelet/pkg/resourcemanager/driverplugin"
	"k8s.io/utils/cpuset"
)

type driver struct {
	held map[string]cpuset.CPUSet // by pod UID + "/" + container name
}

func (d *driver) Admit(ctx context.Context, req *api.AdmitRequest) (*api.ResourceSet, error) {
	if req.Pod.QosClass != "Guaranteed" || req.Container.Requests["cpu"] != "1" {
		return nil, fmt.Errorf("container %q: minimal.example.com gives each container one exclusive CPU: "+
			"set its CPU request and limit to 1 and its memory request to its limit", req.Container.Name)
	}
	free, err := cpuset.Parse(req.AvailableCpus)
	if err != nil {
		return nil, err
	}
	for _, cpus := range d.held {
		free = free.Difference(cpus)
	}
	if free.IsEmpty() {
		return nil, fmt.Errorf("no free CPU for container %q", req.Container.Name)
	}
	cpu := cpuset.New(free.List()[0])
	d.held[req.Pod.Uid+"/"+req.Container.Name] = cpu
	return &api.ResourceSet{Cpus: cpu.String(), Exclusive: true}, nil
}

func (d *driver) RemoveContainer(ctx context.Context, req *api.RemoveContainerRequest) error {
	delete(d.held, req.PodUid+"/"+req.ContainerName)
	return nil
}

func (d *driver) Sync(ctx context.Context, allocations []*api.Allocation) error {
	d.held = map[string]cpuset.CPUSet{}
	for _, a := range allocations {
		cpus, err := cpuset.Parse(a.Resources.Cpus)
		if err != nil {
			return err
		}
		d.held[a.PodUid+"/"+a.ContainerName] = cpus
	}
	return nil
}

func main() {
	registry := flag.String("registry-dir", "/var/lib/kubelet/plugins_registry", "the kubelet's plugin registration directory")
	plugin := flag.String("plugin-dir", "/var/lib/kubelet/plugins/minimal.example.com", "directory of the driver's socket")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	helper, err := driverplugin.Start(ctx, "minimal.example.com", &driver{held: map[string]cpuset.CPUSet{}},
		driverplugin.RegistrarDirectoryPath(*registry), driverplugin.PluginDataDirectoryPath(*plugin))
	if err != nil {
		panic(err)
	}
	<-ctx.Done()
	helper.Stop()
}
