#!/usr/bin/env bash
# Builds the Helm CLI the chart's tests run (HelmChartTest, docs/kubernetes.md "How the chart is validated") from its Go
# module, into DIR/helm: no helm package exists in Debian bookworm and nothing but the package registries is reachable,
# so the Go toolchain builds it from the Go module proxy. The modules and the build cache stay in Go's own caches
# (~/go/pkg/mod, ~/.cache/go-build): a second build, in another checkout too, takes seconds.
#   install-helm.sh [DIR]    (default: .sluice/helm/VERSION under the checkout); prints the binary's path
# One build at a time per DIR (flock): .ci/run starts it early in the background, and the test waits for it.
set -euo pipefail
HELM_VERSION=v4.3.2
root="$(cd "$(dirname "$0")/../../../../.." && pwd)"
dir="${1:-$root/.sluice/helm/$HELM_VERSION}"
mkdir -p "$dir"
exec 9>"$dir/install.lock"
flock 9
if [ -x "$dir/helm" ]; then
  echo "$dir/helm"
  exit 0
fi
command -v go >/dev/null 2>&1 || { echo "install-helm.sh: no 'go' on the PATH to build helm $HELM_VERSION with" >&2; exit 3; }
start=$(date +%s)
echo "install-helm.sh: building helm $HELM_VERSION with $(go version) into $dir (first run only; a few minutes on 2 cores)" >&2
rm -rf "$dir/bin"
# GOTOOLCHAIN=local: never try to download another Go toolchain (not reachable); -modcacherw: the module cache can be deleted.
GOBIN="$dir/bin" GOTOOLCHAIN=local GOFLAGS="${GOFLAGS:-} -modcacherw" go install -trimpath \
  -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" "helm.sh/helm/v4/cmd/helm@$HELM_VERSION"
mv "$dir/bin/helm" "$dir/helm"
rmdir "$dir/bin"
echo "install-helm.sh: helm $HELM_VERSION built in $(( $(date +%s) - start )) s" >&2
echo "$dir/helm"
