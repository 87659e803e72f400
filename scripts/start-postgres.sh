#!/usr/bin/env bash
# Installs (Debian's apt) and starts a local PostgreSQL for the repository tests, then prints the
# connection URL on stdout. Used by .ci/run; handy for running the Postgres suites locally:
#   export SVC_TEST_POSTGRES_URL=$(bash scripts/start-postgres.sh)
# Usage: start-postgres.sh [port]   (default 5432, the cluster "main"; another port gets a cluster of its
# own, "svc<port>", which a fault test may stop and start without disturbing anyone else's database)
set -euo pipefail
port="${1:-5432}"
cluster=main
[ "$port" != 5432 ] && cluster="svc$port"
{
  if ! command -v pg_ctlcluster >/dev/null 2>&1 || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    bash "$(dirname "$0")/apt-update-if-stale.sh"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
  fi
  version=$(ls /usr/lib/postgresql | sort -n | tail -n 1)
  if ! pg_lsclusters -h | grep -q "^$version $cluster "; then
    if [ "$cluster" = main ]; then pg_createcluster "$version" main >/dev/null
    else pg_createcluster -p "$port" "$version" "$cluster" >/dev/null; fi
  fi
  pg_ctlcluster "$version" "$cluster" start 2>/dev/null || true
  for _ in $(seq 1 30); do
    su postgres -c "psql -p $port -qtAc 'select 1'" >/dev/null 2>&1 && break
    sleep 1
  done
  su postgres -c "psql -p $port -qtAc \"DO \\\$\\\$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'svc') THEN CREATE ROLE svc LOGIN PASSWORD 'svc'; END IF; END \\\$\\\$;\""
  su postgres -c "psql -p $port -qtAc \"SELECT 1 FROM pg_database WHERE datname = 'svc_test'\"" | grep -q 1 ||
    su postgres -c "createdb -p $port -O svc svc_test"
} >&2
echo "postgres://svc:svc@127.0.0.1:$port/svc_test"
