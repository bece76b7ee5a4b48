# Front door of the project. `make help` lists the targets.

SHELL := /usr/bin/env bash
.DEFAULT_GOAL := help

FORCE ?=
VERSION ?=
FOCUS ?=
SKIP ?=
HOSTS ?=
CYCLES ?=
TOPOLOGY ?=
COUNT ?=
PODS ?=
ONLY ?=
# skip_env passes SKIP to a script when it was given (even empty), and nothing otherwise: each
# script then skips what it skips by default (benchmarks, or [Slow] in the guest).
skip_env = $(if $(filter command line environment,$(origin SKIP)),SKIP='$(SKIP)')
WHAT ?= kubelet kube-apiserver

.PHONY: help
help: ## Show this help.
	@echo "Pluggable resource management for the kubelet: patch series and harness."
	@echo
	@awk 'BEGIN {FS = ":.*## "} /^[a-z0-9-]+:.*## / {printf "  make %-16s %s\n", $$1, $$2}' $(MAKEFILE_LIST)
	@echo
	@echo "Variables: FORCE=1 (make tree: discard unexported work), VERSION=vX.Y.Z (make rebase),"
	@echo "           WHAT='kubelet kube-apiserver ...' (make build), FOCUS= / SKIP= (make e2e-node*, e2e-cluster),"
	@echo "           HOSTS=root@host1,... (make e2e-node-remote), TOPOLOGY=numa2-smt|numa2 (make e2e-node-vm)"
	@echo "           CYCLES= (make churn), COUNT= / PODS= / ONLY=admission|pod-start (make bench)"

.PHONY: tree
tree: ## Assemble upstream into _output/kubernetes and apply patches/ (reused when unchanged).
	@hack/tree.sh $(if $(FORCE),--force)

.PHONY: export
export: ## Write the tree's commits (upstream..HEAD) to patches/ and staging/.
	@hack/export.sh

.PHONY: check-exported
check-exported: ## Fail when the tree has commits or edits that are not in patches/.
	@hack/check-exported.sh

.PHONY: verify
verify: ## From scratch: the series applies cleanly, exports byte for byte, passes the checks.
	@hack/verify.sh

.PHONY: rebase
rebase: ## Rebase the series onto another upstream release: make rebase VERSION=v1.37.3
	@test -n "$(VERSION)" || { echo "usage: make rebase VERSION=vX.Y.Z" >&2; exit 2; }
	@hack/rebase.sh $(VERSION)

.PHONY: rebase-continue
rebase-continue: ## Finish a rebase after resolving its conflicts.
	@hack/rebase.sh --continue

.PHONY: build
build: tree ## Build the patched binaries into _output/bin (WHAT=...).
	@hack/build.sh $(WHAT)

.PHONY: driver-image
driver-image: ## Build the example driver binary and its container image tarball (offline).
	@scripts/driver-image.sh

.PHONY: driver-sanity
driver-sanity: tree ## Run the driver sanity suite against the example, minimal and e2e test drivers (DRIVERS=...).
	@scripts/driver-sanity.sh $(DRIVERS)

.PHONY: test
test: ## Run the tests: assemble, build, upstream unit tests of touched packages, project tests.
	@hack/test.sh

.PHONY: e2e-node
e2e-node: ## Run the node e2e suite on this machine (root; FOCUS=, SKIP= Ginkgo regexps).
	@FOCUS='$(FOCUS)' $(skip_env) scripts/e2e-node.sh

.PHONY: bench
bench: tree ## Ratios of what the feature costs, measured in one run: admission, pod start (root; COUNT=, PODS=, ONLY=).
	@COUNT=$(COUNT) PODS=$(PODS) ONLY=$(ONLY) scripts/bench.sh

.PHONY: churn
churn: tree ## Pod churn with driver and kubelet restarts on this node, as root (CYCLES=500): leaks must be 0.
	@CYCLES=$(CYCLES) scripts/churn.sh

.PHONY: e2e-node-vm
e2e-node-vm: ## Run the node e2e suite in a multi-NUMA qemu guest (TOPOLOGY=numa2-smt|numa2; FOCUS=, SKIP=).
	@TOPOLOGY='$(TOPOLOGY)' FOCUS='$(FOCUS)' $(skip_env) scripts/e2e-node-vm.sh

.PHONY: e2e-node-remote
e2e-node-remote: ## Run the node e2e suite on hosts over ssh: HOSTS=root@host1,root@host2 (binaries are sent).
	@test -n "$(HOSTS)" || { echo "usage: make e2e-node-remote HOSTS=root@host1[,root@host2...] [SSH_OPTS=...]" >&2; exit 2; }
	@FOCUS='$(FOCUS)' $(skip_env) scripts/e2e-node-remote.sh '$(HOSTS)'

.PHONY: e2e-cluster
e2e-cluster: ## Run the cluster e2e specs (e2e.test): on KUBECONFIG=..., or on a kind cluster of their own.
	@FOCUS='$(FOCUS)' $(skip_env) scripts/e2e-cluster.sh

.PHONY: kind-image
kind-image: ## Build the kind node image of the patched build, offline.
	@scripts/kind-image.sh

.PHONY: kind-up
kind-up: ## Bring up a patched kind cluster with the example driver (KIND_CONFIG=kind-config/....yaml).
	@scripts/kind-up.sh

.PHONY: kind-down
kind-down: ## Remove the kind cluster of make kind-up.
	@scripts/kind-down.sh

.PHONY: demo
demo: ## A driver-placed pod next to a plain pod, and who got which CPUs (kind, or this node without Docker).
	@scripts/demo.sh

.PHONY: clean-cache
clean-cache: ## Empty the build cache outside the checkout (~/.cache/pluggable-rm) and the kind images.
	@hack/clean-cache.sh

.PHONY: clean
clean: ## Remove _output/ (the checkout's tree copy and binaries; the build cache and Go caches stay).
	@chmod -R u+w _output 2>/dev/null || true
	@rm -rf _output
