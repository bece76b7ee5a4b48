// Command example-driver is a resource driver built on the driverplugin SDK. Pods that name it in
// spec.resourceDriver get exclusive CPUs (whole physical cores first, one NUMA node when possible,
// memory from the same node) or the shared CPUs of one NUMA node; see PolicyAnnotation.
package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"
	"k8s.io/kubelet/pkg/resourcemanager/driverplugin"
	"k8s.io/kubelet/pkg/resourcemanager/topology"
)

func main() {
	name := flag.String("driver-name", "cpu.example.com", "the name pods use in spec.resourceDriver")
	sysfs := flag.String("sysfs", "/sys", "where sysfs is mounted (the node's CPU topology is read from it)")
	pluginDir := flag.String("plugin-dir", "", "directory of the driver socket (default /var/lib/kubelet/plugins/<driver name>)")
	registryDir := flag.String("registry-dir", "/var/lib/kubelet/plugins_registry", "the kubelet's plugin registration directory")
	klog.InitFlags(nil)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := klog.FromContext(ctx)

	topo, err := topology.Read(*sysfs)
	if err != nil {
		logger.Error(err, "Reading the CPU topology")
		os.Exit(1)
	}
	opts := []driverplugin.Option{driverplugin.RegistrarDirectoryPath(*registryDir)}
	if *pluginDir != "" {
		opts = append(opts, driverplugin.PluginDataDirectoryPath(*pluginDir))
	}
	helper, err := driverplugin.Start(ctx, *name, newPolicy(topo), opts...)
	if err != nil {
		logger.Error(err, "Starting the driver")
		os.Exit(1)
	}
	logger.Info("Serving", "driver", *name, "cpus", topo.All().String(), "numaNodes", topo.NUMANodes())
	<-ctx.Done()
	helper.Stop()
}
