#!/usr/bin/env bash
# Installs the Debian packages named after LABEL that are not installed yet (apt-get, as root or
# through password-less sudo), saying which under LABEL; nothing when all are present; exits
# non-zero with the reason when it cannot. Used by the test setup scripts (setup-test-browser.sh,
# setup-test-sip.sh) and the container scripts, which need their tools on a fresh machine too.
#   usage: bash scripts/install-debian-packages.sh LABEL PACKAGE [PACKAGE ...]
set -euo pipefail
LABEL=$1
shift
PACKAGES=("$@")

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$LABEL: present (${PACKAGES[*]})"
  exit 0
fi
command -v apt-get >/dev/null 2>&1 || { echo "$LABEL: not a Debian system; install ${missing[*]} by hand" >&2; exit 1; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"; else
    echo "$LABEL: not root (and no password-less sudo) to install ${missing[*]}" >&2
    exit 1
  fi
fi
echo "$LABEL: installing ${missing[*]}"
bash "$(dirname "$0")/apt-update-if-stale.sh" $SUDO
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "$LABEL: done"
