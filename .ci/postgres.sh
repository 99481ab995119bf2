#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on 127.0.0.1 for the storage tests; print its URL.
# Installs Debian's server package when it is missing. Stop it with: .ci/postgres.sh stop DIR
set -euo pipefail
port=${LATTICE_PG_PORT:-55432}
if [ "${1:-}" = stop ]; then
  su postgres -c "$(ls -d /usr/lib/postgresql/*/bin | tail -n1)/pg_ctl -D '$2' stop -m fast" >/dev/null 2>&1 || true
  exit 0
fi
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  for attempt in 1 2 3; do
    if apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2; then
      break
    fi
    sleep 5
  done
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | tail -n1)
data=$(mktemp -d /tmp/lattice-pg.XXXXXX)
chown postgres "$data"
su postgres -c "$bin/initdb -D '$data' -A trust -U postgres" >/dev/null
su postgres -c "$bin/pg_ctl -D '$data' -w -l '$data/server.log' \
  -o \"-p $port -k '$data' -c listen_addresses=127.0.0.1 -c fsync=off\" start" >/dev/null
echo "$data postgresql://postgres@127.0.0.1:$port/postgres"
