#!/usr/bin/env bash
# A one-node Kubernetes cluster for killchain's tests, started inside a
# network namespace of its own so that nothing it runs listens outside it:
# etcd, kube-apiserver, kube-controller-manager and kube-scheduler on the
# namespace's 127.0.0.1, the kubelet on containerd (CRI) with the CNI bridge
# plugin, both in a private mount namespace where three kernel sysctls the
# kubelet sets are bind-mounted files (the host's values stay as they are).
# A registry for snapshot images runs twice over one storage folder: on the
# host's 127.0.0.1:5000 (docker pushes there) and on the namespace's (the
# node pulls from there), so one image name works on both sides.
#
#   cluster.sh up      build the programs when missing (scripts/kube/build.sh),
#                      start everything, wait for a Ready node, print the state
#                      folder; KUBECONFIG is STATE/kubeconfig
#   cluster.sh exec CMD…  run CMD inside the cluster's network namespace
#   cluster.sh import  read an image archive (docker save) on stdin into the
#                      node's containerd (the air-gapped way)
#   cluster.sh down    stop every process by its pid, kill the pods' shims,
#                      remove the cgroups, mounts, network namespace and state
#
#   KILLCHAIN_KUBE_STATE  state folder (default /var/tmp/killchain-kube)
#   KILLCHAIN_KUBE_NETNS  network namespace name (default killchain-kube)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
S=${KILLCHAIN_KUBE_STATE:-/var/tmp/killchain-kube}
NS=${KILLCHAIN_KUBE_NETNS:-killchain-kube}
NODE_IP=10.213.0.2 # on a veth pair whose both ends are inside the namespace
CGROOT=$NS # the kubelet's cgroup root, one per cluster
PAUSE=killchain.local/pause:3.10
start=$(date +%s)
say() { echo "kube: $* ($(( $(date +%s) - start )) s)" >&2; }
die() { say "error: $*"; exit 1; }

INNS=(nsenter --net="/run/netns/$NS")
inns() { "${INNS[@]}" "$@"; }

spawn() { # name cmd… : start a daemon, log to STATE/log/name.log, pid to STATE/pid/name
  local name=$1; shift
  "$@" >"$S/log/$name.log" 2>&1 &
  echo $! >"$S/pid/$name"
}

wait_for() { # what seconds cmd…
  local what=$1 secs=$2; shift 2
  local end=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || { tail_logs; die "$what not ready after ${secs}s"; }
    sleep 0.3
  done
}

tail_logs() { for f in "$S"/log/*.log; do echo "--- $f" >&2; tail -n 15 "$f" >&2; done; }

up() {
  [ -e "$S/pid" ] && die "a cluster is already up in $S (run: $0 down)"
  command -v containerd >/dev/null || die "containerd is missing (scripts/deps.sh installs it)"
  [ -x /usr/lib/cni/bridge ] || die "the CNI plugins are missing (scripts/deps.sh installs containernetworking-plugins)"
  local bin; bin=$("$here/build.sh")
  mkdir -p "$S"/{pid,log,pki,etcd,containerd,kubelet,cni/net.d,cni/ipam,sysctl,registry,run}
  echo "$bin" >"$S/bin"

  # Network namespace with loopback and, for the node's address, a veth pair
  # with both ends inside it.
  ip netns add "$NS"
  inns ip link set lo up
  inns ip link add kc-node type veth peer name kc-node-peer
  inns ip link set kc-node-peer up
  inns ip addr add "$NODE_IP/32" dev kc-node
  inns ip link set kc-node up

  # Credentials: a service-account key and a static token for killchain.
  openssl genrsa -out "$S/pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$S/pki/sa.key" -pubout -out "$S/pki/sa.pub" 2>/dev/null
  local token; token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  echo "$token,killchain,killchain,system:masters" >"$S/pki/tokens.csv"

  if (exec 3<>/dev/tcp/127.0.0.1/5000) 2>/dev/null; then
    die "127.0.0.1:5000 is taken (another registry or test cluster?); the snapshot registry needs it"
  fi
  spawn registry-host docker-registry serve "$(registry_conf 127.0.0.1:5000 host)"
  spawn registry-node "${INNS[@]}" docker-registry serve "$(registry_conf 127.0.0.1:5000 node)"

  wait_for registry 30 bash -c 'exec 3<>/dev/tcp/127.0.0.1/5000'
  spawn etcd "${INNS[@]}" "$bin/etcd" --name node --data-dir "$S/etcd" --unsafe-no-fsync \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster node=http://127.0.0.1:2380 --listen-metrics-urls '' --log-level warn
  wait_for etcd 30 inns bash -c 'exec 3<>/dev/tcp/127.0.0.1/2379'

  spawn apiserver "${INNS[@]}" "$bin/kube-apiserver" --etcd-servers http://127.0.0.1:2379 \
    --bind-address 127.0.0.1 --secure-port 6443 --advertise-address "$NODE_IP" \
    --cert-dir "$S/pki" --token-auth-file "$S/pki/tokens.csv" --authorization-mode RBAC \
    --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$S/pki/sa.pub" \
    --service-account-signing-key-file "$S/pki/sa.key" --service-cluster-ip-range 10.214.0.0/24 \
    --kubelet-preferred-address-types InternalIP --allow-privileged=false --profiling=false \
    --enable-priority-and-fairness=false
  wait_for apiserver-certificate 60 test -s "$S/pki/apiserver.crt"
  kubeconfig "$token" >"$S/kubeconfig"
  wait_for apiserver-health 90 healthz
  spawn controller-manager "${INNS[@]}" "$bin/kube-controller-manager" --kubeconfig "$S/kubeconfig" \
    --bind-address 127.0.0.1 --leader-elect=false --service-account-private-key-file "$S/pki/sa.key" \
    --use-service-account-credentials=false --controllers '*,-nodeipam,-service-lb-controller,-cloud-node-lifecycle'
  spawn scheduler "${INNS[@]}" "$bin/kube-scheduler" --kubeconfig "$S/kubeconfig" --bind-address 127.0.0.1 --leader-elect=false

  # The node: containerd and the kubelet share one private mount namespace.
  node_files
  spawn node "${INNS[@]}" unshare --mount --propagation private bash "$S/node.sh"
  wait_for containerd 60 test -S "$S/run/containerd.sock"
  docker image inspect "$PAUSE" >/dev/null 2>&1 || pause_image "$bin/pause"
  docker save "$PAUSE" | ctr --address "$S/run/containerd.sock" -n k8s.io images import - >/dev/null
  wait_for node-ready 120 node_ready
  echo "$S"
  say "up"
}

registry_conf() { # addr name → config file path
  local f=$S/registry/$2.yml
  cat >"$f" <<YML
version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: $S/registry/data}, delete: {enabled: true}}
http: {addr: $1}
YML
  echo "$f"
}

kubeconfig() {
  cat <<YML
apiVersion: v1
kind: Config
clusters:
- name: killchain-test
  cluster:
    server: https://127.0.0.1:6443
    certificate-authority: $S/pki/apiserver.crt
users:
- name: killchain
  user: {token: $1}
contexts:
- name: killchain-test
  context: {cluster: killchain-test, user: killchain}
current-context: killchain-test
YML
}

healthz() {
  local token; token=$(cut -d, -f1 "$S/pki/tokens.csv")
  inns curl -sf --cacert "$S/pki/apiserver.crt" -H "Authorization: Bearer $token" https://127.0.0.1:6443/readyz
}

node_ready() {
  local token; token=$(cut -d, -f1 "$S/pki/tokens.csv")
  inns curl -sf --cacert "$S/pki/apiserver.crt" -H "Authorization: Bearer $token" \
    https://127.0.0.1:6443/api/v1/nodes/killchain-node | grep -A1 '"type": "Ready"' | grep -q '"status": "True"'
}

pause_image() {
  local d; d=$(mktemp -d)
  cp "$1" "$d/pause"
  tar -C "$d" -cf "$d/rootfs.tar" pause
  docker import --change 'ENTRYPOINT ["/pause"]' --change 'USER 65535:65535' "$d/rootfs.tar" "$PAUSE" >/dev/null
  rm -rf "$d"
}

node_files() {
  local bin; bin=$(cat "$S/bin")
  echo 0 >"$S/sysctl/panic"; echo 0 >"$S/sysctl/panic_on_oops"; echo 0 >"$S/sysctl/overcommit_memory"
  cat >"$S/containerd.toml" <<TOML
version = 2
root = "$S/containerd/root"
state = "$S/containerd/state"
[grpc]
  address = "$S/run/containerd.sock"
[ttrpc]
  address = "$S/run/containerd.sock.ttrpc"
[debug]
  level = "warn"
[plugins."io.containerd.internal.v1.opt"]
  path = "$S/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE"
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$S/cni/net.d"
  [plugins."io.containerd.grpc.v1.cri".registry.mirrors."127.0.0.1:5000"]
    endpoint = ["http://127.0.0.1:5000"]
TOML
  cat >"$S/cni/net.d/10-killchain.conflist" <<JSON
{"cniVersion": "0.4.0", "name": "killchain", "plugins": [
  {"type": "bridge", "bridge": "kc0", "isGateway": true, "ipMasq": false,
   "ipam": {"type": "host-local", "dataDir": "$S/cni/ipam", "ranges": [[{"subnet": "10.215.0.0/24"}]]}}]}
JSON
  cat >"$S/kubelet.yaml" <<YML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
authentication: {anonymous: {enabled: true}, webhook: {enabled: false}}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupRoot: /$CGROOT
failSwapOn: false
podPidsLimit: 256
containerRuntimeEndpoint: unix://$S/run/containerd.sock
makeIPTablesUtilChains: false
serializeImagePulls: false
imageGCHighThresholdPercent: 100
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%, nodefs.inodesFree: 1%}
kubeAPIQPS: 100
kubeAPIBurst: 200
maxPods: 110
YML
  cat >"$S/node.sh" <<SH
set -e
# The kubelet's cgroup root, in every cgroup v1 hierarchy (cpuset needs its
# CPUs and memory nodes filled in from the parent).
for h in /sys/fs/cgroup/*/; do
  [ -e "\${h}cgroup.procs" ] && [ ! -e "\${h}cgroup.controllers" ] || continue
  mkdir -p "\${h}$CGROOT"
  for f in cpuset.cpus cpuset.mems; do
    [ -e "\${h}\$f" ] && cat "\${h}\$f" >"\${h}$CGROOT/\$f"
  done
done
mount --bind $S/sysctl/panic /proc/sys/kernel/panic
mount --bind $S/sysctl/panic_on_oops /proc/sys/kernel/panic_on_oops
mount --bind $S/sysctl/overcommit_memory /proc/sys/vm/overcommit_memory
containerd --config $S/containerd.toml >$S/log/containerd.log 2>&1 &
echo \$! >$S/pid/containerd
for i in \$(seq 100); do [ -S $S/run/containerd.sock ] && break; sleep 0.2; done
$bin/kubelet --config $S/kubelet.yaml --kubeconfig $S/kubeconfig --root-dir $S/kubelet \
  --cert-dir $S/kubelet/pki --node-ip $NODE_IP --hostname-override killchain-node >$S/log/kubelet.log 2>&1 &
echo \$! >$S/pid/kubelet
wait
SH
}

down() {
  [ -d "$S" ] || exit 0
  local bin; bin=$(cat "$S/bin" 2>/dev/null || true)
  # Pods first, so the kubelet stops their containers.
  if [ -s "$S/kubeconfig" ] && [ -e "/run/netns/$NS" ] && [ -s "$S/pid/kubelet" ]; then
    local token; token=$(cut -d, -f1 "$S/pki/tokens.csv")
    timeout 30 inns curl -sf --cacert "$S/pki/apiserver.crt" -H "Authorization: Bearer $token" \
      -X DELETE "https://127.0.0.1:6443/api/v1/namespaces?labelSelector=killchain.study" >/dev/null 2>&1 || true
  fi
  for p in kubelet scheduler controller-manager apiserver etcd registry-node registry-host containerd node; do
    [ -s "$S/pid/$p" ] && kill "$(cat "$S/pid/$p")" 2>/dev/null || true
  done
  sleep 1
  # Whatever is left: the processes named above, then the pods' shims and
  # the containers' processes (by the cgroups the kubelet made).
  for p in kubelet scheduler controller-manager apiserver etcd registry-node registry-host containerd node; do
    [ -s "$S/pid/$p" ] && kill -9 "$(cat "$S/pid/$p")" 2>/dev/null || true
  done
  pkill -9 -f "containerd-shim-runc-v2 .*-address $S/run/containerd.sock" 2>/dev/null || true
  for c in /sys/fs/cgroup/*/"$CGROOT"; do
    [ -d "$c" ] || continue
    find "$c" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  done
  sleep 0.5
  for c in /sys/fs/cgroup/*/"$CGROOT"; do
    [ -d "$c" ] && find "$c" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
  # Mounts left under the state folder (overlay roots, shm, emptyDirs).
  { grep -o " $S/[^ ]*" /proc/self/mountinfo || true; } | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  ip netns del "$NS" 2>/dev/null || true
  rm -rf "$S"
  # Prove it: nothing of the cluster may be left.
  local left=()
  [ -e "/run/netns/$NS" ] && left+=("network namespace $NS")
  for c in /sys/fs/cgroup/*/"$CGROOT"; do [ -d "$c" ] && left+=("cgroup $c"); done
  grep -q " $S/" /proc/self/mountinfo && left+=("mounts under $S")
  pgrep -f -- "$S/" >/dev/null && left+=("processes: $(pgrep -f -- "$S/" | tr '\n' ' ')")
  [ -e "$S" ] && left+=("state folder $S")
  if [ ${#left[@]} -gt 0 ]; then
    say "error: left behind: ${left[*]}"
    exit 1
  fi
  say "down"
}

case ${1:-} in
  up) up ;;
  down) down ;;
  exec) shift; exec nsenter --net="/run/netns/$NS" "$@" ;;
  import) exec ctr --address "$S/run/containerd.sock" -n k8s.io images import - ;;
  *) echo "usage: $0 up|down|exec CMD…|import" >&2; exit 2 ;;
esac
