#!/usr/bin/env bash
# Starts a local S3-compatible server on loopback (s3rver, an npm devDependency installed by npm ci:
# a Node S3 server that stores objects on disk) with the bucket `svc`, then prints its endpoint on
# stdout. For the tests and for trying a multi-process setup on one machine; not for production
# (use AWS S3, MinIO, Ceph RGW, Garage...). Credentials: S3RVER / S3RVER.
#   export SVC_BLOB_STORE=s3 SVC_S3_BUCKET=svc SVC_S3_ENDPOINT=$(bash scripts/start-s3.sh)
#   export SVC_S3_ACCESS_KEY_ID=S3RVER SVC_S3_SECRET_ACCESS_KEY=S3RVER
# Usage: start-s3.sh [port] [directory]   (default 4569, /tmp/svc-s3-<port>); stop: kill $(cat /tmp/svc-s3-<port>.pid)
set -euo pipefail
cd "$(dirname "$0")/.."
port="${1:-4569}"
dir="${2:-/tmp/svc-s3-$port}"
bin="$(node -e "console.log(require('path').join(require('path').dirname(require.resolve('s3rver/package.json')), 'bin', 's3rver.js'))")"
up() { node -e "fetch('http://127.0.0.1:$port/svc').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"; }
{
  if ! up; then
    mkdir -p "$dir"
    nohup node "$bin" -d "$dir" -a 127.0.0.1 -p "$port" --silent --no-vhost-buckets --configure-bucket svc \
      >"/tmp/svc-s3-$port.log" 2>&1 &
    echo $! >"/tmp/svc-s3-$port.pid"
    for _ in $(seq 1 100); do
      up && break
      sleep 0.1
    done
  fi
  up || { cat "/tmp/svc-s3-$port.log"; exit 1; }
} >&2
echo "http://127.0.0.1:$port"
