package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	report := `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="5" disabled="0" errors="0" failures="1">
  <testsuite name="E2eNode Suite" tests="5">
    <testcase name="[SynchronizedBeforeSuite]" classname="E2eNode Suite" status="passed" time="1"></testcase>
    <testcase name="[It] passes" classname="E2eNode Suite" status="passed" time="1"></testcase>
    <testcase name="[It] fails" classname="E2eNode Suite" status="failed" time="1"><failure message="boom" type="failed">boom</failure></testcase>
    <testcase name="[It] needs more CPUs" classname="E2eNode Suite" status="skipped" time="0"><skipped message="skipped - needs 4 CPUs"></skipped></testcase>
    <testcase name="[It] not focused" classname="E2eNode Suite" status="skipped" time="0"><skipped message="skipped"></skipped></testcase>
    <testcase name="[SynchronizedAfterSuite]" classname="E2eNode Suite" status="failed" time="1"><failure message="cleanup" type="failed">cleanup</failure></testcase>
    <testcase name="[It] pending" classname="E2eNode Suite" status="pending" time="0"><skipped message="pending"></skipped></testcase>
  </testsuite>
</testsuites>`
	tests := []struct {
		name      string
		mustRun   string
		want      Counts
		wantLines string
	}{
		{
			name:      "no must-run",
			want:      Counts{Passed: 1, Failed: 2, Skipped: 1},
			wantLines: "PASS [It] passes\nFAIL [It] fails\n    | boom\nSKIP [It] needs more CPUs: needs 4 CPUs\nFAIL [SynchronizedAfterSuite]\n    | cleanup\n",
		},
		{
			name:      "a must-run spec skipped",
			mustRun:   "CPUs|passes",
			want:      Counts{Passed: 1, Failed: 3, MustRun: 1},
			wantLines: "PASS [It] passes\nFAIL [It] fails\n    | boom\nFAIL [It] needs more CPUs: skipped where it must run: needs 4 CPUs\nFAIL [SynchronizedAfterSuite]\n    | cleanup\n",
		},
		{
			name:      "must-run matches no spec",
			mustRun:   "NUMA",
			want:      Counts{Passed: 1, Failed: 2, Skipped: 1},
			wantLines: "PASS [It] passes\nFAIL [It] fails\n    | boom\nSKIP [It] needs more CPUs: needs 4 CPUs\nFAIL [SynchronizedAfterSuite]\n    | cleanup\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mustRun *regexp.Regexp
			if tt.mustRun != "" {
				mustRun = regexp.MustCompile(tt.mustRun)
			}
			var out strings.Builder
			c, err := summarize([]byte(report), mustRun, &out)
			if err != nil {
				t.Fatal(err)
			}
			if c != tt.want {
				t.Errorf("counts %+v, want %+v", c, tt.want)
			}
			if out.String() != tt.wantLines {
				t.Errorf("output:\n%s\nwant:\n%s", out.String(), tt.wantLines)
			}
		})
	}
	var out strings.Builder
	if _, err := summarize([]byte("not xml"), nil, &out); err == nil {
		t.Error("no error for a report that is not XML")
	}
}

func TestWriteFailureKeepsTheStart(t *testing.T) {
	var lines []string
	for i := range 20 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	var out strings.Builder
	writeFailure(&out, testCase{Failure: &message{Message: strings.Join(lines, "\n")}})
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(got) != failureLines+1 || got[0] != "    | line 0" || got[failureLines] != "    | ... (5 more lines in the report)" {
		t.Errorf("printed:\n%s", out.String())
	}
}
