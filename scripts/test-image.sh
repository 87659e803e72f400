#!/usr/bin/env bash
# Builds the container image (Containerfile) from a Debian base made locally and smoke-tests it: the
# server is started from the image's own filesystem as its entrypoint would start it, and real
# requests check /healthz, speech, a transcription, a video stream, the Wyoming port and the drain on SIGTERM
# (scripts/image-smoke-checks.mjs). compose.yaml is validated first (scripts/compose/check-compose.sh).
# Exits non-zero on any failure. Needs root (or password-less sudo
# for apt-get, and root for podman and the namespaces); installs its Debian tools when missing.
#
#   bash scripts/test-image.sh              # make the base if missing, build, test
#   bash scripts/test-image.sh --no-cache   # build every layer again (as on a fresh machine)
#   bash scripts/test-image.sh --no-build   # test the image already built
#
# No image registry is needed: the base comes from Debian's mirror (scripts/make-base-image.sh), the
# build reaches only Debian's mirror and the npm registry. `podman run` is not used (it needs an OCI
# runtime allowed to set resource limits, which some sandboxes and CI machines refuse): the image's
# filesystem is mounted (`podman create` + `podman mount`) and the entrypoint runs there under chroot,
# in its own network namespace (only loopback), PID namespace (tini is PID 1, as in a container) and
# mount namespace, as the image's user, with the image's environment and working directory.
#
# SVC_TEST_IMAGE (default localhost/svc:test) names the image; SVC_BASE_IMAGE (default
# localhost/svc-base:bookworm-slim) the base. Behind a TLS-intercepting proxy the CA bundle named by
# NODE_EXTRA_CA_CERTS (or SSL_CERT_FILE) is given to the build as a secret.
set -euo pipefail
cd "$(dirname "$0")/.."
image="${SVC_TEST_IMAGE:-localhost/svc:test}"
base="${SVC_BASE_IMAGE:-localhost/svc-base:bookworm-slim}"
build=1
cache=()
case "${1:-}" in
  --no-build) build=0 ;;
  --no-cache) cache=(--no-cache) ;;
  "") ;;
  *) echo "usage: bash scripts/test-image.sh [--no-build | --no-cache]" >&2; exit 2 ;;
esac

bash scripts/install-debian-packages.sh test-image podman mmdebstrap iproute2
bash scripts/compose/check-compose.sh compose.yaml

if [ "$build" -eq 1 ]; then
  podman image exists "$base" || bash scripts/make-base-image.sh "$base"
  secret=()
  ca="${NODE_EXTRA_CA_CERTS:-${SSL_CERT_FILE:-}}"
  [ -n "$ca" ] && [ -s "$ca" ] && secret=(--secret "id=extra_ca,src=$ca")
  started=$(date +%s)
  # --format docker keeps HEALTHCHECK (the OCI image format has no field for it).
  nice -n 10 podman build --isolation=chroot --format docker "${cache[@]}" --build-arg "BASE_IMAGE=$base" "${secret[@]}" \
    -f Containerfile -t "$image" .
  echo "test-image: built $image in $(($(date +%s) - started)) s"
fi
size() { podman image inspect --format '{{.Size}}' "$1"; }
echo "test-image: $image is $(($(size "$image") / 1000000)) MB ($(($(size "$base") / 1000000)) MB of it the base $base)"

# The extra CA must not be in any layer: the runtime stage has no CA bundle of its own.
if podman history --no-trunc --format '{{.CreatedBy}}' "$image" | grep -q -e 'extra_ca,src' -e 'BEGIN CERTIFICATE'; then
  echo "test-image: FAIL: the image's history mentions the build's CA secret" >&2
  exit 1
fi

container=$(podman create "$image")
launch=$(mktemp -d)
cleanup() {
  podman umount "$container" >/dev/null 2>&1 || true
  podman rm -f -v "$container" >/dev/null 2>&1 || true
  rm -rf "$launch"
}
trap cleanup EXIT
root=$(podman mount "$container")
# What a container runtime reads from the image: user, environment, working directory, entrypoint + command.
podman image inspect --format '{{.Config.User}}' "$image" >"$launch/user"
podman image inspect --format '{{.Config.WorkingDir}}' "$image" >"$launch/workdir"
podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$image" | grep -v '^$' >"$launch/env"
podman image inspect --format '{{range .Config.Entrypoint}}{{println .}}{{end}}{{range .Config.Cmd}}{{println .}}{{end}}' "$image" | grep -v '^$' >"$launch/argv"

unshare --net --mount --fork -- bash scripts/image-smoke-run.sh "$root" "$launch"
