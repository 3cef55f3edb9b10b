#!/usr/bin/env bash
# `make test`: every phase, timed, then a summary. The tests run uncached
# (-count=1): a machine that ran them before must prove them again, as a clean
# clone would. The linter runs beside the tests; the image is built first, since
# a test starts it.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
export GOBIN=${GOBIN:-$($GO env GOPATH)/bin}
export PATH="$GOBIN:$PATH"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
started=$(now_ms)
summary=()
record() { # name start_ms status
	local secs
	secs=$(awk -v ms="$(( $(now_ms) - $2 ))" 'BEGIN { printf "%.1f", ms / 1000 }')
	summary+=("$(printf '  %-34s %7s s  %s' "$1" "$secs" "$([ "$3" -eq 0 ] && echo ok || echo FAILED)")")
}
phase() { # name command...
	local name=$1 s rc
	shift
	echo "== $name" >&2
	s=$(now_ms)
	"$@"
	rc=$?
	record "$name" "$s" "$rc"
	return $rc
}
finish() {
	echo
	echo "make test: phases (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
	printf '%s\n' "${summary[@]}"
	echo "  total: $(awk -v ms="$(( $(now_ms) - started ))" 'BEGIN { printf "%.1f", ms / 1000 }') s"
	exit "$1"
}

phase "tools (install if missing)" make -s tools-test tools-image || finish 1
phase "front-end assets" make -s assets || finish 1
phase "OpenAPI lint (Spectral)" make -s lint-api || finish 1
start_pg() { PORTAL_TEST_DATABASE_URL=$(scripts/postgres.sh .data/postgres-test 54330 postgres test); }
phase "test PostgreSQL cluster" start_pg || finish 1
export PORTAL_TEST_DATABASE_URL
build_image() { PORTAL_TEST_IMAGE=$(scripts/build-image.sh "localhost/portal:test-$(basename "$PWD")"); }
phase "image (static binary, podman)" build_image || finish 1
export PORTAL_TEST_IMAGE

lint_log=$(mktemp)
lint_times=$(mktemp)
(
	s=$(now_ms)
	tidy=0
	$GO mod tidy -diff || { tidy=1; echo "go.mod is not tidy: run go mod tidy"; }
	golangci-lint run --allow-parallel-runners ./...
	rc=$?
	[ $tidy -eq 0 ] || rc=1
	echo "$s $(now_ms) $rc" >"$lint_times"
	exit $rc
) >"$lint_log" 2>&1 &
lint_pid=$!

test_log=$(mktemp)
s=$(now_ms)
echo "== go test -race -count=1 ./... (golangci-lint beside it)" >&2
$GO test -race -count=1 -timeout 30m ./... 2>&1 | tee "$test_log"
test_status=${PIPESTATUS[0]}
record "go test -race -count=1 ./..." "$s" "$test_status"

wait $lint_pid
lint_status=$?
echo "golangci-lint and go mod tidy:"
cat "$lint_log"
read -r ls le _ <"$lint_times" || { ls=$s; le=$(now_ms); }
summary+=("$(printf '  %-34s %7s s  %s' "lint (beside the tests)" "$(awk -v ms="$((le - ls))" 'BEGIN { printf "%.1f", ms / 1000 }')" "$([ $lint_status -eq 0 ] && echo ok || echo FAILED)")")
[ $lint_status -eq 0 ] || echo "lint failed: a wrong arrow between packages, a habit of .golangci.yml, or an untidy go.mod"

echo
echo "The slowest test packages (wall time, run two at a time):"
awk '$1 == "ok" || $1 == "FAIL" { if ($3 ~ /s$/) print $3, $2 }' "$test_log" | sort -rn | head -8 | sed 's/^/  /'
rm -f "$lint_log" "$lint_times" "$test_log"
[ "$test_status" -eq 0 ] && [ $lint_status -eq 0 ]
finish $?
