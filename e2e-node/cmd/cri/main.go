// Command cri is a minimal CRI client for the e2e-node harness, for machines without crictl
// (Debian does not package cri-tools). It talks to a container runtime's CRI v1 gRPC API.
//
//	cri -endpoint unix:///tmp/ctrd/containerd.sock version
//	cri -endpoint unix:///tmp/ctrd/containerd.sock status -wait 30s
//	cri -endpoint unix:///tmp/ctrd/containerd.sock images
//	cri -endpoint unix:///tmp/ctrd/containerd.sock ps
//	cri -endpoint unix:///tmp/ctrd/containerd.sock rmpods
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
)

const usage = `Usage: cri -endpoint unix:///PATH/TO/SOCK [-timeout 10s] COMMAND [FLAGS]

Commands:
  version             the runtime's name and versions (CRI Version)
  status [-wait D]    the runtime's conditions; exits 1 unless RuntimeReady and NetworkReady are true,
                      retrying for up to D (e.g. 30s) first
  images              the image references the runtime holds
  ps                  pod sandboxes and containers, with their states
  rmpods              stops and removes every pod sandbox and its containers (cleanup after a test)

Flags:
`

func main() {
	endpoint := flag.String("endpoint", "", "CRI endpoint, unix:///path/to/socket (required)")
	timeout := flag.Duration("timeout", 10*time.Second, "timeout of each CRI call")
	flag.Usage = func() {
		fmt.Fprint(flag.CommandLine.Output(), usage)
		flag.PrintDefaults()
	}
	flag.Parse()
	if *endpoint == "" || flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*endpoint, *timeout, flag.Arg(0), flag.Args()[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

type client struct {
	rt      runtimeapi.RuntimeServiceClient
	img     runtimeapi.ImageServiceClient
	timeout time.Duration
}

func (c *client) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), c.timeout)
}

func run(endpoint string, timeout time.Duration, cmd string, args []string) error {
	if !strings.HasPrefix(endpoint, "unix://") {
		return fmt.Errorf("endpoint %q: want unix:///path", endpoint)
	}
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer conn.Close()
	c := &client{rt: runtimeapi.NewRuntimeServiceClient(conn), img: runtimeapi.NewImageServiceClient(conn), timeout: timeout}
	switch cmd {
	case "version":
		return c.version()
	case "status":
		fs := flag.NewFlagSet("status", flag.ExitOnError)
		wait := fs.Duration("wait", 0, "retry for up to this long until the runtime is ready")
		_ = fs.Parse(args)
		return c.status(*wait)
	case "images":
		return c.images()
	case "ps":
		return c.ps()
	case "rmpods":
		return c.rmpods()
	}
	return fmt.Errorf("unknown command %q (see -help)", cmd)
}

func (c *client) version() error {
	ctx, cancel := c.ctx()
	defer cancel()
	v, err := c.rt.Version(ctx, &runtimeapi.VersionRequest{})
	if err != nil {
		return err
	}
	fmt.Printf("RuntimeName: %s\nRuntimeVersion: %s\nRuntimeApiVersion: %s\n", v.RuntimeName, v.RuntimeVersion, v.RuntimeApiVersion)
	return nil
}

func (c *client) status(wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := c.statusOnce()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(time.Second)
	}
}

func (c *client) statusOnce() error {
	ctx, cancel := c.ctx()
	defer cancel()
	s, err := c.rt.Status(ctx, &runtimeapi.StatusRequest{})
	if err != nil {
		return err
	}
	ready := map[string]bool{}
	for _, cond := range s.Status.GetConditions() {
		ready[cond.Type] = cond.Status
		line := fmt.Sprintf("%s=%v", cond.Type, cond.Status)
		if cond.Reason != "" || cond.Message != "" {
			line += fmt.Sprintf(" (%s: %s)", cond.Reason, cond.Message)
		}
		fmt.Println(line)
	}
	var notReady []string
	for _, t := range []string{runtimeapi.RuntimeReady, runtimeapi.NetworkReady} {
		if !ready[t] {
			notReady = append(notReady, t)
		}
	}
	if len(notReady) > 0 {
		return fmt.Errorf("not ready: %s", strings.Join(notReady, ", "))
	}
	return nil
}

func (c *client) images() error {
	ctx, cancel := c.ctx()
	defer cancel()
	r, err := c.img.ListImages(ctx, &runtimeapi.ListImagesRequest{})
	if err != nil {
		return err
	}
	var refs []string
	for _, img := range r.Images {
		refs = append(refs, img.RepoTags...)
	}
	sort.Strings(refs)
	for _, ref := range refs {
		fmt.Println(ref)
	}
	return nil
}

func (c *client) ps() error {
	ctx, cancel := c.ctx()
	defer cancel()
	pods, err := c.rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return err
	}
	ctrs, err := c.rt.ListContainers(ctx, &runtimeapi.ListContainersRequest{})
	if err != nil {
		return err
	}
	for _, p := range pods.Items {
		fmt.Printf("pod %.13s %s/%s %s\n", p.Id, p.Metadata.GetNamespace(), p.Metadata.GetName(), p.State)
		for _, ct := range ctrs.Containers {
			if ct.PodSandboxId == p.Id {
				fmt.Printf("  container %.13s %s attempt=%d %s\n", ct.Id, ct.Metadata.GetName(), ct.Metadata.GetAttempt(), ct.State)
			}
		}
	}
	return nil
}

func (c *client) rmpods() error {
	ctx, cancel := c.ctx()
	defer cancel()
	pods, err := c.rt.ListPodSandbox(ctx, &runtimeapi.ListPodSandboxRequest{})
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range pods.Items {
		name := p.Metadata.GetNamespace() + "/" + p.Metadata.GetName()
		if _, err := c.rt.StopPodSandbox(ctx, &runtimeapi.StopPodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			errs = append(errs, fmt.Errorf("stop pod %s: %w", name, err))
			continue
		}
		if _, err := c.rt.RemovePodSandbox(ctx, &runtimeapi.RemovePodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			errs = append(errs, fmt.Errorf("remove pod %s: %w", name, err))
			continue
		}
		fmt.Printf("removed pod %.13s %s\n", p.Id, name)
	}
	return errors.Join(errs...)
}
