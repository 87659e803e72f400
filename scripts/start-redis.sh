#!/usr/bin/env bash
# Installs (Debian's apt) and starts a local Redis on loopback for the scale tests, then prints its URL
# on stdout. No persistence (tests only). Used by .ci/run; handy locally:
#   export SVC_TEST_REDIS_URL=$(bash scripts/start-redis.sh)
# Usage: start-redis.sh [port]   (default 6391; a test that stops Redis starts its own on another port)
set -euo pipefail
port="${1:-6391}"
{
  if ! command -v redis-server >/dev/null 2>&1; then
    bash "$(dirname "$0")/apt-update-if-stale.sh"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server >/dev/null
  fi
  if ! redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; then
    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --daemonize yes \
      --pidfile "/tmp/svc-redis-$port.pid" --logfile "/tmp/svc-redis-$port.log"
    for _ in $(seq 1 50); do
      redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && break
      sleep 0.1
    done
  fi
  redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null
} >&2
echo "redis://127.0.0.1:$port"
