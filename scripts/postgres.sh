#!/usr/bin/env bash
# Starts (creating on first use) a project-local PostgreSQL cluster and prints its URL.
# Usage: scripts/postgres.sh DATA_DIR PORT DBNAME [test]
# Installs PostgreSQL from Debian when it is missing. initdb refuses to run as root,
# so as root the cluster belongs to the postgres user and every server command runs
# through runuser.
set -euo pipefail

data_dir=$(realpath -m "$1")
port=$2
dbname=$3
mode=${4:-}

log() { echo "postgres.sh: $*" >&2; }

find_bindir() {
	local d
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && { echo "$d"; return 0; }
	done
	return 1
}

as_owner() {
	if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if ! bindir=$(find_bindir); then
	log "PostgreSQL is not installed; installing it with apt-get"
	sudo_cmd=""
	[ "$(id -u)" = "0" ] || sudo_cmd="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo_cmd apt-get update -qq >&2
	$sudo_cmd apt-get install -y -qq --no-install-recommends postgresql postgresql-contrib >&2
	bindir=$(find_bindir)
fi

socket_dir="$data_dir/run"
mkdir -p "$data_dir"
if [ "$(id -u)" = "0" ]; then chown postgres:postgres "$data_dir"; fi

if [ ! -f "$data_dir/db/PG_VERSION" ]; then
	log "creating a cluster in $data_dir/db"
	as_owner mkdir -p "$data_dir/db" "$socket_dir"
	as_owner "$bindir/initdb" -D "$data_dir/db" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
	{
		echo "listen_addresses = '127.0.0.1'"
		echo "port = $port"
		echo "unix_socket_directories = '$socket_dir'"
		echo "max_connections = 200"
		if [ "$mode" = "test" ]; then
			echo "fsync = off"
			echo "synchronous_commit = off"
			echo "full_page_writes = off"
		fi
	} | as_owner tee -a "$data_dir/db/postgresql.conf" >/dev/null
fi
as_owner mkdir -p "$socket_dir"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if ! as_owner "$bindir/pg_ctl" -D "$data_dir/db" status >/dev/null 2>&1; then
	# Another server (say a cluster of another checkout) may hold the port:
	# move this cluster to the next free one rather than fail.
	# A port nobody listens on may still be held by a client's connection (ports in
	# the ephemeral range): when the server cannot bind it, the next one is tried.
	configured=$(grep -E '^port = ' "$data_dir/db/postgresql.conf" | tail -n 1 | sed 's/port = //')
	port=${configured:-$port}
	for attempt in $(seq 1 20); do
		while port_busy "$port"; do
			log "port $port is taken; trying $((port + 1))"
			port=$((port + 1))
		done
		if [ "$port" != "$configured" ]; then
			echo "port = $port" | as_owner tee -a "$data_dir/db/postgresql.conf" >/dev/null
			configured=$port
		fi
		if as_owner "$bindir/pg_ctl" -D "$data_dir/db" -l "$data_dir/db/server.log" -w -t 30 start >/dev/null; then
			break
		fi
		if [ "$attempt" = 20 ] || ! tail -n 5 "$data_dir/db/server.log" | grep -q "could not bind"; then
			log "PostgreSQL did not start; see $data_dir/db/server.log"
			exit 1
		fi
		log "port $port could not be bound; trying $((port + 1))"
		port=$((port + 1))
	done
else
	port=$(grep -E '^port = ' "$data_dir/db/postgresql.conf" | tail -n 1 | sed 's/port = //')
fi

if ! "$bindir/psql" -h 127.0.0.1 -p "$port" -U postgres -tAc "select 1 from pg_database where datname='$dbname'" postgres | grep -q 1; then
	"$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres "$dbname"
fi

echo "postgres://postgres@127.0.0.1:$port/$dbname?sslmode=disable"
