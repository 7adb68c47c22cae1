#!/usr/bin/env bash
# Builds the test cluster's programs from the Go module proxy into a cache
# folder, once: etcd (over go.etcd.io/etcd/server/v3/etcdmain), and
# kube-apiserver, kube-controller-manager, kube-scheduler and kubelet from
# k8s.io/kubernetes with one replace line per staging module (the way
# Kubernetes' own go.mod builds them). A later call finds the binaries and
# returns at once. Prints the bin folder.
#
#   KILLCHAIN_KUBE_CACHE  cache folder (default ~/.cache/killchain/kube)
#   KUBE_VERSION          Kubernetes version (default v1.34.4; this machine's
#                         cgroup v1 needs 1.34 or earlier)
#   ETCD_VERSION          etcd version (default v3.6.4)
set -euo pipefail
KUBE_VERSION=${KUBE_VERSION:-v1.34.4}
ETCD_VERSION=${ETCD_VERSION:-v3.6.4}
cache=${KILLCHAIN_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/killchain/kube}
bin=$cache/$KUBE_VERSION/bin
progs=(etcd kube-apiserver kube-controller-manager kube-scheduler kubelet pause)
missing=0
for p in "${progs[@]}"; do [ -x "$bin/$p" ] || missing=1; done
if [ $missing -eq 0 ]; then echo "$bin"; exit 0; fi
mkdir -p "$bin"
export CGO_ENABLED=0 GOFLAGS=-mod=mod GOWORK=off
start=$(date +%s)
log() { echo "kube build: $* ($(( $(date +%s) - start )) s)" >&2; }

# etcd: its own module, so its dependencies never meet Kubernetes'.
if [ ! -x "$bin/etcd" ]; then
  d=$(mktemp -d)
  cat >"$d/main.go" <<'GO'
// Command etcd is etcd's server, built from its module.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  printf 'module killchain.test/etcd\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >"$d/go.mod"
  (cd "$d" && go mod tidy >&2 && go build -trimpath -o "$bin/etcd.tmp" . && mv "$bin/etcd.tmp" "$bin/etcd")
  rm -rf "$d"
  log "etcd $ETCD_VERSION"
fi

# pause: the pod sandbox's init, a static program that waits for a signal.
if [ ! -x "$bin/pause" ]; then
  d=$(mktemp -d)
  cat >"$d/main.go" <<'GO'
// Command pause holds a pod's namespaces: it waits for SIGTERM or SIGINT
// and reaps children.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range sig {
		if s == syscall.SIGCHLD {
			for {
				var ws syscall.WaitStatus
				if pid, _ := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 {
					break
				}
			}
			continue
		}
		os.Exit(0)
	}
}
GO
  printf 'module killchain.test/pause\n\ngo 1.24\n' >"$d/go.mod"
  (cd "$d" && go build -trimpath -ldflags=-s -o "$bin/pause" .)
  rm -rf "$d"
fi

# Kubernetes: a scratch module that requires k8s.io/kubernetes and replaces
# each staging module (./staging/src/k8s.io/X in its go.mod) by its release.
k8s=()
for p in kube-apiserver kube-controller-manager kube-scheduler kubelet; do
  [ -x "$bin/$p" ] || k8s+=("$p")
done
if [ ${#k8s[@]} -gt 0 ]; then
  d=$cache/$KUBE_VERSION/src
  mkdir -p "$d"
  staging=v0.${KUBE_VERSION#v1.}
  gomod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  {
    printf 'module killchain.test/kube\n\ngo 1.24\n\nrequire k8s.io/kubernetes %s\n\n' "$KUBE_VERSION"
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#replace \1 => \1 '"$staging"'#p' "$gomod"
  } >"$d/go.mod"
  printf '// Package kube only anchors the module that builds the test cluster.\npackage kube\n' >"$d/kube.go"
  ver="-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1"
  ver+=" -X k8s.io/component-base/version.gitMinor=$(echo "$KUBE_VERSION" | cut -d. -f2)"
  ver+=" -X k8s.io/component-base/version.gitTreeState=clean"
  ver+=" -X k8s.io/client-go/pkg/version.gitVersion=$KUBE_VERSION"
  pkgs=()
  for p in "${k8s[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$p"); done
  (cd "$d" && go get "${pkgs[@]/%/@$KUBE_VERSION}" >&2 &&
    go build -trimpath -ldflags "-s -w $ver" -o "$bin/" "${pkgs[@]}")
  log "${k8s[*]} $KUBE_VERSION"
fi
echo "$bin"
