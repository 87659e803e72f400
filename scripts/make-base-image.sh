#!/usr/bin/env bash
# Makes a Debian bookworm base image from Debian's mirror alone, for building the Containerfile where
# no image registry is reachable: mmdebstrap builds a minimal root filesystem (slimmed as Docker
# Hub's bookworm-slim is: no manual pages, documentation or translations) and `podman import` makes it
# an image. Installs mmdebstrap and podman with apt-get when they are missing (root, or sudo).
#
#   bash scripts/make-base-image.sh [IMAGE]      # default IMAGE: localhost/svc-base:bookworm-slim
#   podman build --format docker --build-arg BASE_IMAGE=localhost/svc-base:bookworm-slim -f Containerfile -t svc .
#
# SVC_DEBIAN_MIRROR (default http://deb.debian.org/debian) and SVC_DEBIAN_SECURITY_MIRROR
# (http://deb.debian.org/debian-security) choose the mirrors; the image's apt sources name them too.
set -euo pipefail
image="${1:-localhost/svc-base:bookworm-slim}"
mirror="${SVC_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${SVC_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"

here="$(dirname "$0")"
bash "$here/install-debian-packages.sh" make-base-image mmdebstrap podman

# The same dpkg filters as the official slim image, kept in the image (/etc/dpkg/dpkg.cfg.d) so that
# packages installed later on it are slimmed too.
slim=(
  --dpkgopt='path-exclude=/usr/share/man/*'
  --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/lintian/*'
  --aptopt='APT::Install-Recommends "false"'
)
echo "make-base-image: building $image from $mirror (bookworm, minbase)" >&2
mmdebstrap --variant=minbase --quiet "${slim[@]}" bookworm - \
  "deb $mirror bookworm main" \
  "deb $mirror bookworm-updates main" \
  "deb $security bookworm-security main" \
  | podman import --change 'CMD ["bash"]' - "$image" >/dev/null
echo "make-base-image: $image ($(podman image inspect --format '{{.Size}}' "$image") bytes)" >&2
