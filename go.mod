module github.com/pluggable-rm/harness

go 1.26.0
