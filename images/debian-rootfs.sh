#!/usr/bin/env bash
# debian-rootfs.sh WORKDIR — make the root filesystem of killchain's Debian
# sandbox base offline from Docker's point of view: debootstrap a minimal
# bookworm from the apt mirror this host already uses, with the speech,
# transcription and PDF programs installed, strip caches and docs, and write
# WORKDIR/rootfs.tar for the Docker API's image import.
#
# Run as root (killchain runs it through sudo -n when it is not). It installs
# debootstrap with apt-get when missing. Progress goes to stderr.
#
# The package list below is part of the image's content hash (killchain
# hashes this file, embedded in the binary), so editing it rebuilds the image.
set -euo pipefail

SUITE=bookworm
PACKAGES=espeak-ng,pocketsphinx,pocketsphinx-en-us,sox,poppler-utils

log() { printf 'debian-rootfs: %s\n' "$*" >&2; }

# apt_wait waits, up to APT_WAIT seconds (default 600), while another
# program (an unattended upgrade, a second apt-get) holds one of apt's
# locks, saying who holds it every 15 seconds; then apt-get is run with the
# same bound on dpkg's own lock. APT_LOCKS overrides the lock files (tests).
apt_wait() {
	local locks=${APT_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}
	local limit=${APT_WAIT:-600} waited=0 holder l
	while :; do
		holder=""
		for l in $locks; do
			holder=$(lslocks -n -o PID,COMMAND,PATH 2>/dev/null | awk -v p="$l" '$3 == p { print $2 " (pid " $1 ")"; exit }')
			[ -n "$holder" ] && break
		done
		[ -z "$holder" ] && return 0
		if [ "$waited" -ge "$limit" ]; then
			log "gave up after ${limit}s: $l is still held by $holder"
			return 1
		fi
		[ $((waited % 15)) -eq 0 ] && log "waiting for $l, held by $holder (${waited}s of ${limit}s)"
		sleep 1
		waited=$((waited + 1))
	done
}

# apt_get runs apt-get once apt's locks are free, dpkg's lock waited for too.
apt_get() {
	apt_wait || return 1
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="${APT_WAIT:-600}" "$@" >&2
}

work=${1:?usage: debian-rootfs.sh WORKDIR}
if [ "$(id -u)" -ne 0 ]; then
	log "must run as root (debootstrap and chroot need it)"
	exit 1
fi
mkdir -p "$work"
root="$work/rootfs"
tarball="$work/rootfs.tar"
rm -rf "$root" "$tarball"

# mirror prints the Debian mirror apt uses on this host: the first URI of a
# deb822 or one-line source that serves bookworm, else deb.debian.org.
mirror() {
	local files=() f uri
	[ -f /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && files+=("$f")
	done
	if [ ${#files[@]} -gt 0 ]; then
		# deb822: a URIs: line in a stanza whose Suites: holds the suite.
		uri=$(awk -v suite="$SUITE" '
			/^[[:space:]]*$/ { if (u != "" && s ~ "(^| )" suite "( |$)") { print u; exit } u = ""; s = ""; next }
			tolower($1) == "uris:" { u = $2 }
			tolower($1) == "suites:" { $1 = ""; s = $0 " " }
			END { if (u != "" && s ~ "(^| )" suite "( |$)") print u }
		' "${files[@]}" | grep -v -e security -e updates | head -n1 || true)
		if [ -z "$uri" ]; then
			# one-line: deb [opts] URI SUITE COMPONENTS
			uri=$(grep -h -E '^[[:space:]]*deb[[:space:]]' "${files[@]}" 2>/dev/null |
				sed -E 's/\[[^]]*\]//' |
				awk -v suite="$SUITE" '$3 == suite { print $2; exit }' || true)
		fi
	fi
	printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

if ! command -v debootstrap >/dev/null 2>&1; then
	log "installing debootstrap with apt-get"
	apt_get install -y --no-install-recommends debootstrap ||
		{ apt_get update && apt_get install -y --no-install-recommends debootstrap; }
fi
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
if [ ! -f "$keyring" ]; then
	log "installing debian-archive-keyring with apt-get"
	apt_get install -y --no-install-recommends debian-archive-keyring ||
		{ apt_get update && apt_get install -y --no-install-recommends debian-archive-keyring; }
fi

m=$(mirror)
log "debootstrap --variant=minbase $SUITE from $m with $PACKAGES"
start=$(date +%s)
debootstrap --variant=minbase --keyring="$keyring" --include="$PACKAGES" "$SUITE" "$root" "$m" >&2
log "debootstrap done in $(($(date +%s) - start))s"

# The programs must be there; a partial bootstrap must not become an image.
for bin in espeak-ng pocketsphinx_continuous sox pdftotext; do
	chroot "$root" /bin/sh -c "command -v $bin" >/dev/null || { log "missing $bin in the root filesystem"; exit 1; }
done
test -f "$root/usr/share/pocketsphinx/model/en-us/en-us.lm.bin" || { log "missing the pocketsphinx English model"; exit 1; }

log "cleaning caches and docs"
chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/* "$root"/var/cache/debconf/*-old \
	"$root"/var/log/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* \
	"$root"/usr/share/lintian "$root"/tmp/* "$root"/var/tmp/*
# Keep the copyright notices, drop the rest of the documentation.
find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
# Reproducible-ish identity: no machine id, a plain hostname.
: >"$root/etc/machine-id"
echo killchain >"$root/etc/hostname"

log "writing $tarball"
tar --numeric-owner --xattrs -C "$root" -cf "$tarball" .
rm -rf "$root"
log "root filesystem ready ($(du -h "$tarball" | cut -f1))"
