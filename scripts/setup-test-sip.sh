#!/usr/bin/env bash
# The SIP phone of the SIP call tests (apps/server/test/sip), installed by the project itself so a
# fresh machine and CI need nothing done by hand. Run by `npm test` (pretest), not by `npm start`:
# the service never needs a SIP phone.
#   baresip-core   Debian's baresip: a real SIP user agent that places the test calls, its
#                  microphone a recorded WAV file (aufile) and what it hears recorded to a WAV file
set -euo pipefail
PACKAGES=(baresip-core)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-test-sip: present (${PACKAGES[*]})"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup-test-sip: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-test-sip: done"
