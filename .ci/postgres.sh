#!/usr/bin/env bash
# A throwaway PostgreSQL server on 127.0.0.1 for the storage tests.
#   .ci/postgres.sh [start [OWNER_PID]]  start one; print its folder and URL
#   .ci/postgres.sh stop DIR             stop it and delete its folder
# Installs Debian's server package when it is missing. Each server lives in its own
# lattice-pg.* folder in the temp folder; a start first removes the folders of owners that
# are gone (a run killed with SIGKILL could not clean up after itself).
set -euo pipefail
# A free port unless one is given, so two runs on one machine (two clones) never collide.
port=${LATTICE_PG_PORT:-$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
tmp=${TMPDIR:-/tmp}

pg_bin() { ls -d /usr/lib/postgresql/*/bin | tail -n1; }

remove() {  # stop the server of folder $1 (if any) and delete the folder
  case "$(basename "$1")" in lattice-pg.??????) ;; *) echo "not a lattice-pg folder: $1" >&2; return 1 ;; esac
  if [ -f "$1/data/postmaster.pid" ]; then
    su postgres -c "$(pg_bin)/pg_ctl -D '$1/data' stop -m immediate" >/dev/null 2>&1 || true
  fi
  rm -rf "$1"
}

if [ "${1:-}" = stop ]; then
  remove "$2"
  exit 0
fi
for old in "$tmp"/lattice-pg.??????; do
  [ -f "$old/owner" ] || continue
  kill -0 "$(cat "$old/owner")" 2>/dev/null || remove "$old"
done
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  for attempt in 1 2 3; do
    if apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2; then
      break
    fi
    sleep 5
  done
fi
bin=$(pg_bin)
folder=$(mktemp -d "$tmp/lattice-pg.XXXXXX")
trap 'remove "$folder"' EXIT  # until the server is up and its folder handed over
[ -n "${2:-}" ] && echo "$2" >"$folder/owner"
chown postgres "$folder"
su postgres -c "$bin/initdb -D '$folder/data' -A trust -U postgres" >/dev/null
su postgres -c "$bin/pg_ctl -D '$folder/data' -w -l '$folder/server.log' \
  -o \"-p $port -k '$folder' -c listen_addresses=127.0.0.1 -c fsync=off\" start" >/dev/null
trap - EXIT
echo "$folder postgresql://postgres@127.0.0.1:$port/postgres"
