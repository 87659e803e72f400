#!/usr/bin/env bash
# The headless browser of the playground tests (apps/server/test/playground), installed by the
# project itself so a fresh machine and CI need nothing done by hand. Run by `npm test` (pretest),
# not by `npm start`: the service never needs a browser.
#   chromium            Debian's build; playwright-core (npm) drives /usr/bin/chromium and downloads
#                       no browser of its own
#   fonts-dejavu-core   a font for the pages' text (headless Chromium draws boxes without one)
set -euo pipefail
PACKAGES=(chromium fonts-dejavu-core)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-test-browser: present (${PACKAGES[*]})"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup-test-browser: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-test-browser: done"
