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
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apimachinery/pkg/util/validation"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
	api "k8s.io/kubelet/pkg/apis/resourcemanager/v1alpha1"
	"k8s.io/utils/cpuset"
)

// DefineSpecs defines the suite's specs against the driver config
// describes, for a Ginkgo suite of one's own; Run and Test define and run
// them. Call it once, before ginkgo.RunSpecs. The config is read when the
// specs run, so flags may fill it in after this call.
//
// The specs run in the order they are defined, each from a fresh start: the
// suite registers anew (a Sync without allocations) before each spec and
// removes every container it admitted after it. The specs that call a
// driver about containers it never admitted come last, so that a driver
// that crashes there fails only them.
func DefineSpecs(config *Config) bool {
	return ginkgo.Describe("Resource driver", func() {
		var k *kubelet

		ginkgo.BeforeEach(func(ctx context.Context) {
			expectNoError(config.complete("/sys"), "the suite's configuration")
			var err error
			k, err = connect(config)
			expectNoError(err)
			ginkgo.DeferCleanup(k.close)
			_, err = k.sync(ctx)
			expectNoError(err,
				"Sync without allocations, as the kubelet calls it after every registration, failed: the kubelet does not register a driver whose Sync fails")
			ginkgo.DeferCleanup(k.releaseAll)
		})

		ginkgo.Describe("registration", func() {
			var info *registerapi.PluginInfo
			var registration registerapi.RegistrationClient

			ginkgo.BeforeEach(func(ctx context.Context) {
				if config.RegistrationSocket == "" {
					ginkgo.Skip("no registration socket given")
				}
				conn, err := grpc.NewClient("unix:"+strings.TrimPrefix(config.RegistrationSocket, "unix://"), grpc.WithTransportCredentials(insecure.NewCredentials()))
				expectNoError(err)
				ginkgo.DeferCleanup(conn.Close)
				registration = registerapi.NewRegistrationClient(conn)
				callCtx, cancel := context.WithTimeout(ctx, config.CallTimeout)
				defer cancel()
				info, err = registration.GetInfo(callCtx, &registerapi.InfoRequest{})
				expectNoError(err, "GetInfo on the registration socket %s", config.RegistrationSocket)
			})

			ginkgo.It("GetInfo answers the plugin type ResourceDriver", func() {
				gomega.Expect(info.Type).To(gomega.Equal(registerapi.ResourceDriver),
					"the kubelet hands a plugin to the resource manager only when its type is %q", registerapi.ResourceDriver)
			})

			ginkgo.It("GetInfo answers a valid driver name", func() {
				errs := validation.IsDNS1123Subdomain(info.Name)
				if len(info.Name) > 63 {
					errs = append(errs, "must be no more than 63 characters")
				}
				gomega.Expect(errs).To(gomega.BeEmpty(),
					"driver name %q: pods name the driver in spec.resourceDriver, which must be a DNS subdomain of at most 63 characters", info.Name)
			})

			ginkgo.It("GetInfo lists "+api.ResourceDriverService+" among its supported versions", func() {
				gomega.Expect(info.SupportedVersions).To(gomega.ContainElement(api.ResourceDriverService),
					"the kubelet refuses a driver that does not support %q", api.ResourceDriverService)
			})

			ginkgo.It("GetInfo names the socket that serves the driver as its endpoint", func() {
				gomega.Expect(info.Endpoint).To(gomega.Equal(config.Endpoint),
					"the kubelet connects to the endpoint GetInfo names, and this suite was told the driver serves %s", config.Endpoint)
			})

			ginkgo.It("NotifyRegistrationStatus is accepted", func(ctx context.Context) {
				callCtx, cancel := context.WithTimeout(ctx, config.CallTimeout)
				defer cancel()
				_, err := registration.NotifyRegistrationStatus(callCtx, &registerapi.RegistrationStatus{PluginRegistered: true})
				expectNoError(err, "the kubelet reports the registration's outcome and the driver must accept it")
			})
		})

		ginkgo.Describe("Admit", func() {
			ginkgo.It("answers a Guaranteed container with an integer CPU request with a valid set from the CPUs offered", func(ctx context.Context) {
				admitHeld(ctx, k, guaranteedPod("first", "1"))
			})

			ginkgo.It("gives an exclusive set exactly as many CPUs as requested", func(ctx context.Context) {
				for n := 1; n <= min(2, config.CPUs.Size()); n++ {
					pod := guaranteedPod(fmt.Sprintf("cpus-%d", n), fmt.Sprint(n))
					a := k.admit(ctx, pod.pod, pod.container, nil)
					if a.refusal != nil && !a.failed && n > 1 {
						ginkgo.By(fmt.Sprintf("the driver refused %d CPUs: %v", n, a.refusal))
						continue
					}
					expectAccepted(config, a)
					k.releaseAll(ctx)
				}
			})

			ginkgo.It("never gives a second container an exclusive CPU that is still held", func(ctx context.Context) {
				needCPUs(config, 2)
				first := admitHeld(ctx, k, guaranteedPod("first", "1"))
				second := k.admit(ctx, guaranteedPod("second", "1").pod, guaranteedPod("second", "1").container, nil)
				expectAnsweredOrRefused(second)
				if second.refusal == nil {
					cpus, err := checkAnswer(second.answer, second.offered, config, second.pod, second.container)
					if first.answer.Exclusive {
						expectRule(cpus.Intersection(first.cpus).IsEmpty(),
							"the second container got CPUs %s while the first holds %s exclusively: a CPU held exclusively goes to no other container until RemoveContainer (or a Sync without it) frees it", cpus, first.cpus)
					}
					expectNoError(err, "the answer for the second container breaks a rule")
				}
			})

			ginkgo.It("never gives a BestEffort container exclusive CPUs", func(ctx context.Context) {
				pod := newPod("besteffort", "BestEffort", nil, nil)
				expectNotExclusive(config, k.admit(ctx, pod.pod, pod.container, nil))
			})

			ginkgo.It("never gives a container with a fractional CPU request exclusive CPUs", func(ctx context.Context) {
				pod := newPod("burstable", "Burstable", map[string]string{"cpu": "500m", "memory": "64Mi"}, map[string]string{"cpu": "1", "memory": "64Mi"})
				expectNotExclusive(config, k.admit(ctx, pod.pod, pod.container, nil))
			})
		})

		ginkgo.Describe("AddContainer", func() {
			ginkgo.It("answers an admitted container with no change or a valid set", func(ctx context.Context) {
				pod := guaranteedPod("added", "1")
				admitted := admitHeld(ctx, k, pod)
				answer, _, err := k.addContainer(ctx, pod.pod, pod.container, admitted.answer)
				expectNoError(err, "AddContainer for a container the driver admitted: an error fails the container's start")
				if answer.GetCpus() == "" {
					return // keeps the admitted set
				}
				// The container may keep its own exclusive CPUs, which the
				// kubelet's shared pool leaves out.
				offered := k.available()
				if admitted.answer.Exclusive {
					offered = offered.Union(admitted.cpus)
				}
				_, err = checkAnswer(answer, offered, config, pod.pod, pod.container)
				expectNoError(err, "the set AddContainer answered breaks a rule")
			})
		})

		ginkgo.Describe("RemoveContainer", func() {
			ginkgo.It("is idempotent: removing a container twice succeeds", func(ctx context.Context) {
				pod := guaranteedPod("removed-twice", "1")
				admitHeld(ctx, k, pod)
				for i := 1; i <= 2; i++ {
					_, err := k.remove(ctx, pod.pod.Uid, pod.container.Name)
					expectNoError(err,
						"RemoveContainer #%d: the kubelet may call it more than once for a container (after a failed call, a restart), and it must succeed every time", i)
				}
			})

			ginkgo.It("succeeds for a container the driver never admitted", func(ctx context.Context) {
				_, err := k.remove(ctx, string(uuid.NewUUID()), "never-admitted")
				expectNoError(err,
					"the kubelet removes containers whose admission the driver may not have seen (a rolled back admission, a driver restart): RemoveContainer must succeed for them")
			})

			ginkgo.It("frees what Admit held: a freed CPU can be handed out again", func(ctx context.Context) {
				held := fillPool(ctx, k, "filler")
				ginkgo.By(fmt.Sprintf("removing the container holding %s", held[0].cpus))
				_, err := k.remove(ctx, held[0].pod.Uid, held[0].container.Name)
				expectNoError(err)
				pod := guaranteedPod("after-remove", "1")
				a := k.admit(ctx, pod.pod, pod.container, nil)
				expectNoError(a.refusal,
					"RemoveContainer freed CPUs %s, yet Admit of a new container offered %s refused it: RemoveContainer must free what Admit held", held[0].cpus, a.offered)
				expectAccepted(config, a)
			})
		})

		ginkgo.Describe("Sync", func() {
			ginkgo.It("keeps CPUs held by the allocations it lists from the next admissions", func(ctx context.Context) {
				needCPUs(config, 2)
				cpus := config.CPUs.List()
				synced := cpuset.New(cpus[:len(cpus)-1]...)
				for _, cpu := range synced.List() {
					pod := guaranteedPod(fmt.Sprintf("synced-%d", cpu), "1")
					k.hold(admission{pod: pod.pod, container: pod.container, answer: &api.ResourceSet{Cpus: cpuset.New(cpu).String(), Exclusive: true}})
				}
				_, err := k.sync(ctx)
				expectNoError(err, "Sync with %d exclusive allocations", synced.Size())
				pod := guaranteedPod("after-sync", "1")
				a := k.admit(ctx, pod.pod, pod.container, nil)
				expectAnsweredOrRefused(a)
				if a.refusal == nil {
					got, err := checkAnswer(a.answer, a.offered, config, pod.pod, pod.container)
					expectRule(got.Intersection(synced).IsEmpty(),
						"Admit after a Sync that holds CPUs %s exclusively answered %s: the allocations in Sync are the kubelet's, and their CPUs go to no other container", synced, got)
					expectNoError(err, "the answer after Sync breaks a rule")
				}
			})

			ginkgo.It("forgets allocations absent from its list", func(ctx context.Context) {
				held := fillPool(ctx, k, "before-sync")
				ginkgo.By(fmt.Sprintf("syncing without the %d allocations", len(held)))
				k.forget()
				_, err := k.sync(ctx)
				expectNoError(err, "Sync without allocations")
				for i := range held {
					pod := guaranteedPod(fmt.Sprintf("after-sync-%d", i), "1")
					a := k.admit(ctx, pod.pod, pod.container, nil)
					expectNoError(a.refusal,
						"after a Sync without any allocation, Admit of a container offered %s was refused: the driver still holds CPUs the kubelet no longer has; Sync must replace the driver's state, and what is not in it is free", a.offered)
					expectAccepted(config, a)
					k.hold(a)
				}
			})
		})

		ginkgo.Describe("timing", func() {
			ginkgo.It("answers every call within the kubelet's call timeout", func(ctx context.Context) {
				pod := guaranteedPod("timed", "1")
				a := k.admit(ctx, pod.pod, pod.container, nil)
				expectAnsweredOrRefused(a)
				took := map[string]time.Duration{"Admit": a.took}
				var err error
				admitted := a.answer
				if admitted == nil {
					admitted = &api.ResourceSet{Cpus: a.offered.String()}
				} else {
					k.hold(a)
				}
				_, took["AddContainer"], err = k.addContainer(ctx, pod.pod, pod.container, admitted)
				expectNoCallFailure(err)
				took["RemoveContainer"], err = k.remove(ctx, pod.pod.Uid, pod.container.Name)
				expectNoCallFailure(err)
				took["Sync"], err = k.sync(ctx)
				expectNoCallFailure(err)
				for method, d := range took {
					ginkgo.By(fmt.Sprintf("%s answered in %s", method, d))
					gomega.Expect(d).To(gomega.BeNumerically("<", config.CallTimeout),
						"%s took %s: the kubelet gives up after %s", method, d, config.CallTimeout)
				}
			})

			ginkgo.It("never gives the same exclusive CPU twice to concurrent Admit calls", func(ctx context.Context) {
				offered := k.available()
				results := make([]admission, config.Concurrency)
				var wg sync.WaitGroup
				for i := range results {
					wg.Go(func() {
						pod := guaranteedPod(fmt.Sprintf("concurrent-%d", i), "1")
						results[i] = k.admit(ctx, pod.pod, pod.container, &offered)
					})
				}
				wg.Wait()
				given := map[int]string{} // exclusive CPU -> pod that got it
				for _, a := range results {
					expectAnsweredOrRefused(a)
					if a.refusal != nil || !a.answer.Exclusive {
						continue
					}
					cpus, err := checkAnswer(a.answer, a.offered, config, a.pod, a.container)
					expectNoError(err, "the answer for %s breaks a rule", a.pod.Name)
					for _, cpu := range cpus.List() {
						_, twice := given[cpu]
						expectRule(!twice,
							"%d Admit calls at once: CPU %d went exclusively to both %s and %s; a driver serving calls concurrently must reserve a CPU before it answers", config.Concurrency, cpu, given[cpu], a.pod.Name)
						given[cpu] = a.pod.Name
					}
				}
			})
		})

		ginkgo.Describe("robustness", func() {
			ginkgo.It("answers for a pod with hundreds of labels and annotations", func(ctx context.Context) {
				pod := guaranteedPod("many-annotations", "1")
				for i := range 300 {
					pod.pod.Labels[fmt.Sprintf("example.com/label-%d", i)] = fmt.Sprintf("value-%d", i)
					pod.pod.Annotations[fmt.Sprintf("example.com/annotation-%d", i)] = strings.Repeat("x", 1000)
				}
				expectValidOrRefused(config, k.admit(ctx, pod.pod, pod.container, nil))
				expectStillAnswers(ctx, k)
			})

			ginkgo.It("answers for a pod with unicode in its names, labels and annotations", func(ctx context.Context) {
				pod := guaranteedPod("ünïcødé-名前-🚀", "1")
				pod.container.Name = "容器-ü"
				pod.pod.Namespace = "名前空間"
				pod.pod.Labels["example.com/ключ"] = "значение"
				pod.pod.Annotations["example.com/note"] = "\u202e\u0000\uFFFD日本語"
				expectValidOrRefused(config, k.admit(ctx, pod.pod, pod.container, nil))
				expectStillAnswers(ctx, k)
			})

			ginkgo.It("refuses, without crashing, an Admit whose available_cpus is empty", func(ctx context.Context) {
				pod := guaranteedPod("no-cpus", "1")
				empty := cpuset.New()
				a := k.admit(ctx, pod.pod, pod.container, &empty)
				expectAnsweredOrRefused(a)
				if a.refusal == nil {
					_, err := checkAnswer(a.answer, a.offered, config, pod.pod, pod.container)
					expectNoError(err, "with available_cpus empty every set breaks a rule: answer an error")
				}
				expectStillAnswers(ctx, k)
			})
		})

		// Last: drivers that crash on unknown containers fail only here.
		ginkgo.Describe("unknown containers", func() {
			ginkgo.It("answers AddContainer for a container it never admitted with an error or no change, without crashing", func(ctx context.Context) {
				pod := guaranteedPod("never-admitted", "1")
				answer, _, err := k.addContainer(ctx, pod.pod, pod.container, &api.ResourceSet{Cpus: k.available().String()})
				expectNoCallFailure(err)
				if err == nil && answer.GetCpus() != "" {
					_, err := checkAnswer(answer, k.available(), config, pod.pod, pod.container)
					expectNoError(err, "the set AddContainer answered for a container the driver never admitted breaks a rule")
				}
				expectStillAnswers(ctx, k)
			})
		})
	})
}

// testPod is a pod with one container.
type testPod struct {
	pod       *api.PodInfo
	container *api.ContainerInfo
}

func newPod(name, qos string, requests, limits map[string]string) testPod {
	return testPod{
		pod: &api.PodInfo{
			Uid:         string(uuid.NewUUID()),
			Namespace:   "driver-sanity",
			Name:        name,
			QosClass:    qos,
			Labels:      map[string]string{"app": "driver-sanity"},
			Annotations: map[string]string{},
		},
		container: &api.ContainerInfo{Name: "c", Kind: api.ContainerKind_REGULAR, Requests: requests, Limits: limits},
	}
}

// guaranteedPod is a Guaranteed pod whose container requests cpus CPUs.
func guaranteedPod(name, cpus string) testPod {
	resources := map[string]string{"cpu": cpus, "memory": "64Mi"}
	return newPod(name, "Guaranteed", resources, maps.Clone(resources))
}

func needCPUs(config *Config, n int) {
	if config.CPUs.Size() < n {
		ginkgo.Skip(fmt.Sprintf("needs %d CPUs to offer, the node has %s", n, config.CPUs))
	}
}

// heldContainer is a container the kubelet holds an allocation for.
type heldContainer struct {
	admission
	cpus cpuset.CPUSet
}

// admitHeld admits a container that any driver must place, checks the
// answer and holds it.
func admitHeld(ctx context.Context, k *kubelet, pod testPod) heldContainer {
	ginkgo.GinkgoHelper()
	a := k.admit(ctx, pod.pod, pod.container, nil)
	expectNoError(a.refusal,
		"Admit of a Guaranteed container requesting %s CPU, offered %s: a driver must place it while CPUs are free", pod.container.Requests["cpu"], a.offered)
	cpus := expectAccepted(k.config, a)
	k.hold(a)
	return heldContainer{admission: a, cpus: cpus}
}

// fillPool admits one-CPU containers until every CPU is held exclusively or
// the driver refuses, and returns them. It skips the spec for a driver that
// answers no exclusive CPUs.
func fillPool(ctx context.Context, k *kubelet, prefix string) []heldContainer {
	ginkgo.GinkgoHelper()
	var held []heldContainer
	for i := 0; i < k.config.CPUs.Size() && !k.available().IsEmpty(); i++ {
		pod := guaranteedPod(fmt.Sprintf("%s-%d", prefix, i), "1")
		a := k.admit(ctx, pod.pod, pod.container, nil)
		expectAnsweredOrRefused(a)
		if a.refusal != nil {
			break
		}
		cpus := expectAccepted(k.config, a)
		k.hold(a)
		if a.answer.Exclusive {
			held = append(held, heldContainer{admission: a, cpus: cpus})
		}
	}
	if len(held) == 0 {
		ginkgo.Skip("the driver answered no exclusive CPUs for Guaranteed containers requesting 1 CPU")
	}
	return held
}

// expectAccepted fails unless the driver answered with a set the kubelet
// accepts.
func expectAccepted(config *Config, a admission) cpuset.CPUSet {
	ginkgo.GinkgoHelper()
	expectNoError(a.refusal, "Admit of %s", a.pod.Name)
	cpus, err := checkAnswer(a.answer, a.offered, config, a.pod, a.container)
	expectNoError(err, "the answer for pod %s (offered %q) breaks a rule", a.pod.Name, a.offered.String())
	return cpus
}

// expectAnsweredOrRefused fails when the call itself failed: the driver did
// not answer in time or is gone.
func expectAnsweredOrRefused(a admission) {
	ginkgo.GinkgoHelper()
	if a.failed {
		ginkgo.Fail(a.refusal.Error())
	}
}

func expectNoCallFailure(err error) {
	ginkgo.GinkgoHelper()
	if callFailed(err) {
		ginkgo.Fail(err.Error())
	}
}

// expectValidOrRefused accepts a refusal or a valid set.
func expectValidOrRefused(config *Config, a admission) {
	ginkgo.GinkgoHelper()
	expectAnsweredOrRefused(a)
	if a.refusal == nil {
		_, err := checkAnswer(a.answer, a.offered, config, a.pod, a.container)
		expectNoError(err, "the answer breaks a rule")
	}
}

// expectNotExclusive accepts a refusal or a valid shared set.
func expectNotExclusive(config *Config, a admission) {
	ginkgo.GinkgoHelper()
	expectValidOrRefused(config, a)
	if a.refusal == nil {
		expectRule(!a.answer.Exclusive, "exclusive CPUs %s for a container of a %s pod requesting %q CPU: exclusive CPUs are only for containers of Guaranteed pods with an integer CPU request", a.answer.Cpus, a.pod.QosClass, a.container.Requests["cpu"])
	}
}

// expectStillAnswers checks that the driver still serves calls.
func expectStillAnswers(ctx context.Context, k *kubelet) {
	ginkgo.GinkgoHelper()
	_, err := k.remove(ctx, string(uuid.NewUUID()), "liveness")
	if callFailed(err) {
		ginkgo.Fail("after that call the driver no longer answers: " + err.Error())
	}
}

// expectNoError fails with the explanation (a format and its arguments),
// then err, when err is not nil.
func expectNoError(err error, explain ...any) {
	ginkgo.GinkgoHelper()
	if err == nil {
		return
	}
	message := err.Error()
	if len(explain) > 0 {
		message = fmt.Sprintf(explain[0].(string), explain[1:]...) + ":\n" + message
	}
	ginkgo.Fail(message)
}

// expectRule fails with the explanation (a format and its arguments) when
// the rule does not hold.
func expectRule(holds bool, explain string, args ...any) {
	ginkgo.GinkgoHelper()
	if !holds {
		ginkgo.Fail(fmt.Sprintf(explain, args...))
	}
}
