// Command podresources prints the CPUs, memory and devices the kubelet's pod resources API reports
// for each container, one line per container:
//
//	podresources [-socket /var/lib/kubelet/pod-resources/kubelet.sock] [-namespace NS]
//	default/pinned/app cpus=1 memory= devices=
//
// It is static, so that it also runs inside a kind node (docker cp, docker exec).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
	"k8s.io/utils/cpuset"
)

func main() {
	socket := flag.String("socket", "/var/lib/kubelet/pod-resources/kubelet.sock", "the kubelet's pod resources socket")
	namespace := flag.String("namespace", "", "only pods of this namespace")
	timeout := flag.Duration("timeout", 10*time.Second, "how long to wait for the kubelet")
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	lines, err := list(*socket, *namespace, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	for _, l := range lines {
		fmt.Println(l)
	}
}

func list(socket, namespace string, timeout time.Duration) ([]string, error) {
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	resp, err := podresourcesapi.NewPodResourcesListerClient(conn).List(ctx, &podresourcesapi.ListPodResourcesRequest{})
	if err != nil {
		return nil, fmt.Errorf("list pod resources at %s: %w", socket, err)
	}
	return format(resp, namespace), nil
}

// format renders a List response, sorted, one line per container.
func format(resp *podresourcesapi.ListPodResourcesResponse, namespace string) []string {
	var lines []string
	for _, pod := range resp.GetPodResources() {
		if namespace != "" && pod.GetNamespace() != namespace {
			continue
		}
		for _, c := range pod.GetContainers() {
			var cpus []int
			for _, id := range c.GetCpuIds() {
				cpus = append(cpus, int(id))
			}
			var memory, devices []string
			for _, m := range c.GetMemory() {
				var nodes []string
				for _, n := range m.GetTopology().GetNodes() {
					nodes = append(nodes, fmt.Sprint(n.GetID()))
				}
				memory = append(memory, fmt.Sprintf("%s:%d@%s", m.GetMemoryType(), m.GetSize(), strings.Join(nodes, "+")))
			}
			for _, d := range c.GetDevices() {
				devices = append(devices, fmt.Sprintf("%s=%s", d.GetResourceName(), strings.Join(d.GetDeviceIds(), "+")))
			}
			lines = append(lines, fmt.Sprintf("%s/%s/%s cpus=%s memory=%s devices=%s", pod.GetNamespace(), pod.GetName(), c.GetName(),
				cpuset.New(cpus...).String(), strings.Join(memory, ","), strings.Join(devices, ",")))
		}
	}
	sort.Strings(lines)
	return lines
}
