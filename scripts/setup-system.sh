#!/usr/bin/env bash
# Debian packages the tests and some features use, installed by the project itself so a fresh
# machine (and CI) needs nothing done by hand:
#   pocketsphinx + pocketsphinx-en-us   offline English recognizer (intelligibility test, ASR)
#   pocketsphinx-testdata               real human speech clips (cloning references, VAD/ASR tests)
# The service itself runs without them (ffmpeg and the TTS engines come from npm).
set -euo pipefail
PACKAGES=(pocketsphinx pocketsphinx-en-us pocketsphinx-testdata)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-system: all Debian packages present (${PACKAGES[*]})"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup-system: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup-system: done"
