#!/usr/bin/env bash
# Installs the Debian packages the tests use when they are missing:
# poppler-utils (the PDF tests run pdftotext and pdfinfo), espeak-ng,
# pocketsphinx with its English model and sox (the audio tests speak and
# transcribe on the host as well as in the Debian image), and chromium (the
# HTML report's browser test), and what the test Kubernetes cluster runs on
# (scripts/kube/cluster.sh: containerd, runc, the CNI plugins, Debian's
# docker-registry, iproute2, curl, openssl). Under CI a missing one fails
# its tests; elsewhere they skip (internal/testenv).
set -euo pipefail
need=()
command -v pdftotext >/dev/null || need+=(poppler-utils)
command -v espeak-ng >/dev/null || need+=(espeak-ng)
command -v sox >/dev/null || need+=(sox)
command -v pocketsphinx_continuous >/dev/null || need+=(pocketsphinx)
[ -e /usr/share/pocketsphinx/model/en-us/en-us.lm.bin ] || need+=(pocketsphinx-en-us)
command -v containerd >/dev/null || need+=(containerd)
command -v runc >/dev/null || need+=(runc)
[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
command -v docker-registry >/dev/null || need+=(docker-registry)
command -v ip >/dev/null || need+=(iproute2)
command -v curl >/dev/null || need+=(curl)
command -v openssl >/dev/null || need+=(openssl)
want=()
command -v chromium >/dev/null || want+=(chromium)
[ ${#need[@]} -eq 0 ] && [ ${#want[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  [ ${#need[@]} -eq 0 ] && exit 0
  echo "deps: missing ${need[*]}; install them (apt-get install ${need[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Wait for apt's locks as the Debian base's script does (one definition:
# apt_wait in images/debian-rootfs.sh), and for dpkg's lock inside apt-get.
log() { printf 'deps: %s\n' "$*" >&2; }
eval "$(sed -n '/^apt_wait() {/,/^}/p' "$(dirname "$0")/../images/debian-rootfs.sh")"
apt_wait
lock=(-o DPkg::Lock::Timeout="${APT_WAIT:-600}")
apt-get "${lock[@]}" update -qq
if [ ${#need[@]} -gt 0 ]; then
  apt-get "${lock[@]}" install -y -qq "${need[@]}" >/dev/null
fi
if [ ${#want[@]} -gt 0 ]; then
  apt-get "${lock[@]}" install -y -qq --no-install-recommends "${want[@]}" >/dev/null ||
    echo "deps: could not install ${want[*]}; the HTML report's browser test will skip" >&2
fi
