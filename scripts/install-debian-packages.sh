#!/usr/bin/env bash
# Installs the named Debian packages that are missing, with apt-get (root, or password-less sudo);
# exits non-zero with the reason when it cannot. Used by the container scripts, which need their tools
# on a fresh machine too.
#   bash scripts/install-debian-packages.sh PACKAGE...
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
command -v apt-get >/dev/null 2>&1 || { echo "install-debian-packages: not a Debian system; install ${missing[*]} by hand" >&2; exit 1; }
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"; else
    echo "install-debian-packages: not root (and no password-less sudo) to install ${missing[*]}" >&2
    exit 1
  fi
fi
echo "install-debian-packages: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
