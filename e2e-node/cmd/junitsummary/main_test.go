package main

import (
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
	var out strings.Builder
	c, err := summarize([]byte(report), &out)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Counts{Passed: 1, Failed: 2, Skipped: 1}); c != want {
		t.Errorf("counts %+v, want %+v", c, want)
	}
	want := "PASS [It] passes\nFAIL [It] fails\nSKIP [It] needs more CPUs: needs 4 CPUs\nFAIL [SynchronizedAfterSuite]\n"
	if out.String() != want {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	if _, err := summarize([]byte("not xml"), &out); err == nil {
		t.Error("no error for a report that is not XML")
	}
}
