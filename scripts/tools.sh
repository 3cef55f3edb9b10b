#!/usr/bin/env bash
# Installs what `make test` needs and the machine lacks, with one `apt-get update`
# for every Debian package (each update costs seconds to minutes on a fresh machine):
# PostgreSQL, Chromium, HAProxy, podman and runc (the image), CA certificates, and
# promtool taken out of Debian's prometheus package (no Prometheus server is
# installed). Go tools (versitygw, golangci-lint) are built into GOBIN by the Makefile.
set -euo pipefail

sudo_cmd=""
[ "$(id -u)" = 0 ] || sudo_cmd="sudo"
gobin=${GOBIN:-$(go env GOPATH)/bin}

missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql postgresql-contrib)
command -v chromium >/dev/null || missing+=(chromium)
command -v haproxy >/dev/null || missing+=(haproxy)
command -v podman >/dev/null || missing+=(podman)
command -v runc >/dev/null || missing+=(runc)
[ -f /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)
need_promtool=false
command -v promtool >/dev/null || [ -x "$gobin/promtool" ] || need_promtool=true

if [ ${#missing[@]} -gt 0 ] || $need_promtool; then
	export DEBIAN_FRONTEND=noninteractive
	echo "tools.sh: installing ${missing[*]} $($need_promtool && echo promtool) from Debian" >&2
	$sudo_cmd apt-get update -qq
	[ ${#missing[@]} -eq 0 ] || $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if $need_promtool; then
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download prometheus >/dev/null && dpkg-deb -x prometheus_*.deb .)
	mkdir -p "$gobin"
	install -m 0755 "$tmp/usr/bin/promtool" "$gobin/promtool"
	rm -rf "$tmp"
fi
