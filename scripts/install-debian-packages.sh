#!/usr/bin/env bash
# Installs the Debian packages named after LABEL that are not installed yet (apt-get, as root or
# through sudo), saying which under LABEL; nothing when all are present. Used by the test setup
# scripts (setup-test-browser.sh, setup-test-sip.sh).
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
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "$LABEL: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "$LABEL: done"
