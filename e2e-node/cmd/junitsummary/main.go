// Command junitsummary prints what a Ginkgo JUnit report says ran: one line per spec that the
// focus selected (PASS, FAIL, or SKIP with its reason), then `N passed, N failed, N skipped`.
// It exits 1 when a spec failed or none passed.
//
//	junitsummary [-must-run REGEXP] REPORT.xml...
//
// With -must-run, the specs whose names match REGEXP must run on this node: one that skipped
// itself counts as failed (a multi-NUMA lane where the NUMA specs skip must not pass), and so does
// a run in which no spec matched.
//
// Ginkgo lists every spec of the suite in the report, and the suite's setup nodes (counted only
// when they fail). The ones the focus or skip regexps left out
// are "skipped" with the bare message "skipped"; they are not counted. Specs that skipped
// themselves say why ("skipped - needs 4 CPUs").
package main

import (
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
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

// Counts are the specs of a report by outcome. MustRun counts the specs that matched the
// must-run regexp and ran (passed or failed).
type Counts struct{ Passed, Failed, Skipped, MustRun int }

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "Usage: junitsummary [-must-run REGEXP] REPORT.xml...")
		flag.PrintDefaults()
	}
	mustRunExpr := flag.String("must-run", "", "specs matching this regexp count as failed when they skip; no match at all fails the run")
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	var mustRun *regexp.Regexp
	if *mustRunExpr != "" {
		var err error
		if mustRun, err = regexp.Compile(*mustRunExpr); err != nil {
			fmt.Fprintf(os.Stderr, "-must-run %q: %v\n", *mustRunExpr, err)
			os.Exit(2)
		}
	}
	var total Counts
	for _, path := range flag.Args() {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		c, err := summarize(data, mustRun, os.Stdout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", path, err)
			os.Exit(2)
		}
		total.Passed += c.Passed
		total.Failed += c.Failed
		total.Skipped += c.Skipped
		total.MustRun += c.MustRun
	}
	fmt.Printf("%d passed, %d failed, %d skipped\n", total.Passed, total.Failed, total.Skipped)
	if mustRun != nil && total.MustRun == 0 {
		fmt.Printf("no spec matching -must-run %q ran\n", mustRun)
		os.Exit(1)
	}
	if total.Failed > 0 || total.Passed == 0 {
		os.Exit(1)
	}
}

// summarize writes one line per selected spec of a JUnit report and counts them. A spec matching
// mustRun (when not nil) that skipped itself is counted as failed.
func summarize(data []byte, mustRun *regexp.Regexp, out io.Writer) (Counts, error) {
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
			mustRunThis := mustRun != nil && strings.HasPrefix(tc.Name, "[It]") && mustRun.MatchString(tc.Name)
			switch {
			case tc.Failure != nil || tc.Error != nil || tc.Status == "failed" || tc.Status == "panicked" ||
				tc.Status == "interrupted" || tc.Status == "aborted" || tc.Status == "timedout":
				c.Failed++
				if mustRunThis {
					c.MustRun++
				}
				fmt.Fprintf(out, "FAIL %s\n", tc.Name)
				writeFailure(out, tc)
			case tc.Skipped != nil || tc.Status == "skipped" || tc.Status == "pending":
				reason := ""
				if tc.Skipped != nil {
					reason = tc.Skipped.Message
				}
				if reason == "skipped" || tc.Status == "pending" {
					continue // not selected by the focus
				}
				reason = strings.TrimPrefix(reason, "skipped - ")
				if mustRunThis {
					c.Failed++
					fmt.Fprintf(out, "FAIL %s: skipped where it must run: %s\n", tc.Name, reason)
					continue
				}
				c.Skipped++
				fmt.Fprintf(out, "SKIP %s: %s\n", tc.Name, reason)
			case !strings.HasPrefix(tc.Name, "[It]"):
				continue // a suite node ([SynchronizedBeforeSuite], ...) that did not fail: not a spec
			default:
				c.Passed++
				if mustRunThis {
					c.MustRun++
				}
				fmt.Fprintf(out, "PASS %s\n", tc.Name)
			}
		}
	}
	return c, nil
}

// failureLines is how much of a failure's message is printed under its spec: enough for the
// assertion and its values, the rest is in the report and the logs.
const failureLines = 15

// writeFailure prints the start of a failed spec's message, indented, so that a CI log says why.
func writeFailure(out io.Writer, tc testCase) {
	text := ""
	for _, m := range []*message{tc.Failure, tc.Error} {
		if m != nil && strings.TrimSpace(m.Message) != "" {
			text = m.Message
			break
		}
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i, line := range lines {
		if text == "" {
			break
		}
		if i == failureLines {
			fmt.Fprintf(out, "    | ... (%d more lines in the report)\n", len(lines)-failureLines)
			break
		}
		fmt.Fprintf(out, "    | %s\n", line)
	}
}
