#!/usr/bin/env bash
# Upstream's API documentation checks on the versioned API types (staging/src/k8s.io/api/*/v*/types.go,
# which the series changes): hack/verify-description.sh (every field documented, no descriptions in
# struct tags, cmd/genswaggertypedocs) and hack/verify-fieldname-docs.sh (a field's doc names it by
# its JSON name, cmd/fieldnamedocscheck).
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
run_upstream_check verify-description.sh
run_upstream_check verify-fieldname-docs.sh
