#!/usr/bin/env bash
# The inner half of scripts/test-image.sh, run in a private network and mount namespace: starts the
# image's entrypoint from its mounted filesystem ROOT as a container runtime would, runs
# scripts/image-smoke-checks.mjs against it, and checks that it exits 0 after the SIGTERM those
# checks send. LAUNCH is a folder with the image's user, workdir, env and argv (one item a line).
#   unshare --net --mount --fork -- bash scripts/image-smoke-run.sh ROOT LAUNCH
set -euo pipefail
root="$1"
launch="$2"
port=8080
# As `docker run -e SVC_WYOMING_PORT=10200`: the optional Wyoming port is checked too.
wyoming_port=10200
log="$launch/server.log"

ip link set lo up
# What a runtime provides: a small /dev, /dev/shm, a read-only /sys, /etc/hosts (the container's own
# layer is writable: podman mount gives the container's root, not the image's).
mount -t tmpfs -o nosuid,mode=755 tmpfs "$root/dev"
for device in null zero full random urandom tty; do
  touch "$root/dev/$device"
  mount --bind "/dev/$device" "$root/dev/$device"
done
mkdir -p "$root/dev/shm"
mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$root/dev/shm"
mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$root/sys" 2>/dev/null || mount --rbind -o ro /sys "$root/sys"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' >"$launch/hosts"
touch "$root/etc/hosts"
mount --bind "$launch/hosts" "$root/etc/hosts"

user="$(cat "$launch/user")"
ids="$(awk -F: -v u="$user" '$1 == u || $3 == u { print $3 ":" $4 ":" $6 }' "$root/etc/passwd")"
[ -n "$ids" ] || { echo "image-smoke-run: user '$user' is not in the image's /etc/passwd" >&2; exit 1; }
uid="${ids%%:*}"
rest="${ids#*:}"
gid="${rest%%:*}"
home="${rest#*:}"
mapfile -t env <"$launch/env"
mapfile -t argv <"$launch/argv"

# PID namespace: the entrypoint (tini) is PID 1 and receives the stop signal, as under `docker stop`.
unshare --pid --fork --kill-child --mount-proc="$root/proc" \
  chroot --userspec="$uid:$gid" "$root" \
  /usr/bin/env -i -C "$(cat "$launch/workdir")" HOME="$home" HOSTNAME=svc-image-test "${env[@]}" \
  SVC_WYOMING_PORT="$wyoming_port" "${argv[@]}" \
  >"$log" 2>&1 &
runner=$!
stop() {
  kill -KILL "$runner" 2>/dev/null || true
}
trap stop EXIT
fail() {
  echo "image-smoke-run: FAIL: $1" >&2
  echo "--- server output (last 40 lines)" >&2
  tail -n 40 "$log" >&2
  echo "0 passed, 1 failed"
  exit 1
}

key=""
for _ in $(seq 1 600); do
  kill -0 "$runner" 2>/dev/null || fail "the server exited during its start"
  key="$(grep -soE '^ +svc-[A-Za-z0-9_-]+' "$log" | tr -d ' ' | head -n 1 || true)"
  [ -n "$key" ] && break
  sleep 0.5
done
[ -n "$key" ] || fail "no API key printed within 300 s"
init="$(cat "/proc/$runner/task/$runner/children")"
init="${init%% *}"
echo "image-smoke-run: started in $(ps -o etimes= -p "$init" | tr -d ' ') s; PID 1 is $(tr '\0' ' ' <"/proc/$init/cmdline")"
[ "$(stat -c %u "/proc/$init")" = "$uid" ] && [ "$uid" != 0 ] || fail "the server does not run as the image's non-root user ($user)"
grep -q "listening on http://0.0.0.0:$port" "$log" || fail "the server does not listen on 0.0.0.0:$port"
# Published ports reach the container's own interface, not its loopback.
grep -q "tcp://0.0.0.0:$wyoming_port" "$log" || fail "Wyoming does not listen on 0.0.0.0:$wyoming_port"

# The client: this machine's Node when there is one, else the image's (a static client, same checks).
node="$(command -v node || echo "$root/usr/local/bin/node")"
checks=0
"$node" scripts/image-smoke-checks.mjs --base "http://127.0.0.1:$port" --key "$key" \
  --photo "$root/app/node_modules/@vladmandic/face-api/demo/sample1.jpg" --server-pid "$init" --wyoming-port "$wyoming_port" || checks=$?

# After the checks' SIGTERM (always sent, last) the server exits by itself within its grace period (0: drained cleanly).
code=""
for _ in $(seq 1 300); do
  if ! kill -0 "$runner" 2>/dev/null; then
    wait "$runner" && code=0 || code=$?
    break
  fi
  sleep 0.1
done
trap - EXIT
[ -n "$code" ] || { stop; fail "the server was still running 30 s after SIGTERM"; }
[ "$code" -eq 0 ] || fail "the server exited $code after SIGTERM (0 expected)"
grep -q '"msg":"stopped"' "$log" || fail "the server did not log its clean stop"
echo "image-smoke-run: the server exited 0 after SIGTERM"
exit "$checks"
