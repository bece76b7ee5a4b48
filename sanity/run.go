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

// Package sanity is a conformance kit for resource drivers: a Ginkgo suite
// that plays the kubelet against a running driver, over the driver's real
// gRPC API on its unix socket, and says in words which rule of the
// protocol the driver breaks.
//
// Point the driver-sanity command at a driver's socket, or call Test from a
// Go test of the driver:
//
//	func TestSanity(t *testing.T) {
//		// start the driver, then:
//		sanity.Test(t, sanity.Config{Endpoint: endpoint, RegistrationSocket: registrationSocket})
//	}
//
// Ginkgo runs one suite per process: Test and Run may be called once.
package sanity

import (
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
)

const suiteName = "Resource driver sanity"

// Test runs the suite from a Go test.
func Test(t *testing.T, config Config) {
	DefineSpecs(&config)
	gomega.RegisterFailHandler(ginkgo.Fail)
	ginkgo.RunSpecs(t, suiteName)
}

// Run runs the suite outside of a Go test (the driver-sanity command) and
// says whether every spec passed. Ginkgo reads its flags (--ginkgo.focus,
// --ginkgo.junit-report, ...) from the command line, which the caller has
// parsed.
func Run(config Config) bool {
	DefineSpecs(&config)
	gomega.RegisterFailHandler(ginkgo.Fail)
	var t failRecorder
	return ginkgo.RunSpecs(&t, suiteName) && !t.failed
}

// failRecorder is the testing.T Ginkgo needs, outside of a Go test.
type failRecorder struct{ failed bool }

func (f *failRecorder) Fail() { f.failed = true }
