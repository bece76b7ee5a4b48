package sorted

import (
	"testing"

	"golang.org/x/tools/go/analysis/analysistest"
)

func TestSorted(t *testing.T) {
	analysistest.Run(t, analysistest.TestData(), NewAnalyzer([]string{"features/features.go"}), "features")
}

func TestWanted(t *testing.T) {
	for name, want := range map[string]bool{
		"/x/pkg/features/kube_features.go":      true,
		"/x/notpkg/features/kube_features.go":   false,
		"/x/pkg/features/kube_features_test.go": false,
	} {
		if got := wanted([]string{"pkg/features/kube_features.go"}, name); got != want {
			t.Errorf("wanted(%q) = %v, want %v", name, got, want)
		}
	}
}
