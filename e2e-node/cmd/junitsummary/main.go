// Command junitsummary prints what a Ginkgo JUnit report says ran: one line per spec that the
// focus selected (PASS, FAIL, or SKIP with its reason), then `N passed, N failed, N skipped`.
// It exits 1 when a spec failed or none passed.
//
//	junitsummary REPORT.xml...
//
// Ginkgo lists every spec of the suite in the report, and the suite's setup nodes (counted only
// when they fail). The ones the focus or skip regexps left out
// are "skipped" with the bare message "skipped"; they are not counted. Specs that skipped
// themselves say why ("skipped - needs 4 CPUs").
package main

import (
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
)

type testSuites struct {
	Suites []testSuite `xml:"testsuite"`
}

type testSuite struct {
	Cases []testCase `xml:"testcase"`
}

type testCase struct {
	Name    string   `xml:"name,attr"`
	Status  string   `xml:"status,attr"`
	Skipped *message `xml:"skipped"`
	Failure *message `xml:"failure"`
	Error   *message `xml:"error"`
}

type message struct {
	Message string `xml:"message,attr"`
}

// Counts are the specs of a report by outcome.
type Counts struct{ Passed, Failed, Skipped int }

func main() {
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fmt.Fprintln(os.Stderr, "Usage: junitsummary REPORT.xml...")
		os.Exit(2)
	}
	var total Counts
	for _, path := range os.Args[1:] {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		c, err := summarize(data, os.Stdout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(2)
		}
		total.Passed += c.Passed
		total.Failed += c.Failed
		total.Skipped += c.Skipped
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", total.Passed, total.Failed, total.Skipped)
	if total.Failed > 0 || total.Passed == 0 {
		os.Exit(1)
	}
}

// summarize writes one line per selected spec of a JUnit report and counts them.
func summarize(data []byte, out io.Writer) (Counts, error) {
	var suites testSuites
	if err := xml.Unmarshal(data, &suites); err != nil {
		// A report may also be a single <testsuite>.
		var suite testSuite
		if err2 := xml.Unmarshal(data, &suite); err2 != nil {
			return Counts{}, fmt.Errorf("not a JUnit report: %w", err)
		}
		suites.Suites = []testSuite{suite}
	}
	var c Counts
	for _, s := range suites.Suites {
		for _, tc := range s.Cases {
			switch {
			case tc.Failure != nil || tc.Error != nil || tc.Status == "failed" || tc.Status == "panicked" ||
				tc.Status == "interrupted" || tc.Status == "aborted" || tc.Status == "timedout":
				c.Failed++
				fmt.Fprintf(out, "FAIL %s\n", tc.Name)
			case tc.Skipped != nil || tc.Status == "skipped" || tc.Status == "pending":
				reason := ""
				if tc.Skipped != nil {
					reason = tc.Skipped.Message
				}
				if reason == "skipped" || tc.Status == "pending" {
					continue // not selected by the focus
				}
				c.Skipped++
				fmt.Fprintf(out, "SKIP %s: %s\n", tc.Name, strings.TrimPrefix(reason, "skipped - "))
			case !strings.HasPrefix(tc.Name, "[It]"):
				continue // a suite node ([SynchronizedBeforeSuite], ...) that did not fail: not a spec
			default:
				c.Passed++
				fmt.Fprintf(out, "PASS %s\n", tc.Name)
			}
		}
	}
	return c, nil
}
