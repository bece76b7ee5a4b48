package main

import (
	"reflect"
	"testing"

	podresourcesapi "k8s.io/kubelet/pkg/apis/podresources/v1"
)

func TestFormat(t *testing.T) {
	resp := &podresourcesapi.ListPodResourcesResponse{PodResources: []*podresourcesapi.PodResources{
		{Namespace: "demo", Name: "pinned", Containers: []*podresourcesapi.ContainerResources{
			{Name: "app", CpuIds: []int64{3, 1, 2}},
		}},
		{Namespace: "kube-system", Name: "coredns", Containers: []*podresourcesapi.ContainerResources{{Name: "coredns"}}},
		{Namespace: "demo", Name: "plain", Containers: []*podresourcesapi.ContainerResources{
			{Name: "app", Devices: []*podresourcesapi.ContainerDevices{{ResourceName: "example.com/dev", DeviceIds: []string{"a", "b"}}}},
		}},
	}}
	got := format(resp, "demo")
	want := []string{
		"demo/pinned/app cpus=1-3 memory= devices=",
		"demo/plain/app cpus= memory= devices=example.com/dev=a+b",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
