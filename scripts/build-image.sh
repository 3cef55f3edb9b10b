#!/usr/bin/env bash
# Builds the portal's image with podman on no base image (image/Containerfile), so
# no registry is needed: the static binary, Debian's CA certificates, a writable
# /tmp, /data for the portal's user (10001) and /etc/passwd naming it.
# Usage: scripts/build-image.sh TAG   (prints the image's id; make assets first)
set -euo pipefail

tag=$1
uid=10001
root=$(realpath -m .data/image)
rootfs=$root/rootfs

rm -rf "$root"
mkdir -p "$rootfs/usr/local/bin" "$rootfs/etc/ssl/certs" "$rootfs/tmp" "$root/data"
chmod 1777 "$rootfs/tmp"
# internal/testutil/portalproc builds the same way, so the tests run this binary.
echo "build-image.sh: building the static binary" >&2
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$rootfs/usr/local/bin/portal" ./cmd/portal
cp /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nportal:x:%s:%s:portal:/data:/sbin/nologin\n' "$uid" "$uid" >"$rootfs/etc/passwd"
printf 'root:x:0:\nportal:x:%s:\n' "$uid" >"$rootfs/etc/group"

echo "build-image.sh: podman build -t $tag" >&2
podman build --quiet --iidfile "$root/iid" -t "$tag" -f image/Containerfile "$root" >/dev/null
cat "$root/iid"
echo
