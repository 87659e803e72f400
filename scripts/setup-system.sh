#!/usr/bin/env bash
# Debian packages the tests and some features use, installed by the project itself so a fresh
# machine (and CI) needs nothing done by hand:
#   pocketsphinx + pocketsphinx-en-us   offline English recognizer (intelligibility test, ASR)
#   python3-pocketsphinx                its Python bindings: the warm streaming decoders of realtime ASR
#   pocketsphinx-testdata               real human speech clips (cloning references, VAD/ASR tests)
#   jq                                  reads answers in the documented shell examples (README.md, docs/),
#                                       which the docs-commands test runs
# The service itself runs without them (ffmpeg and the TTS engines come from npm).
#
# `npm start` runs it with --if-possible: on a machine where it cannot install (not Debian, not root
# and no sudo, no network) it says so and the service starts without a speech recognizer (its
# banner and /readyz say that too).
set -euo pipefail
IF_POSSIBLE=0
if [ "${1:-}" = "--if-possible" ]; then IF_POSSIBLE=1; fi
cannot() {
  echo "setup-system: $1; realtime speech recognition will be unavailable" >&2
  if [ "$IF_POSSIBLE" -eq 1 ]; then exit 0; fi
  exit 1
}
if [ "${SVC_ASR_ENGINE:-auto}" = "off" ] && [ "$IF_POSSIBLE" -eq 1 ]; then exit 0; fi
command -v dpkg-query >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 || cannot "not a Debian system (no dpkg/apt-get)"
PACKAGES=(pocketsphinx pocketsphinx-en-us pocketsphinx-testdata python3-pocketsphinx jq)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-system: all Debian packages present (${PACKAGES[*]})"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo"; else cannot "not root (and no password-less sudo) to install ${missing[*]}"; fi
fi
echo "setup-system: installing ${missing[*]}"
bash "$(dirname "$0")/apt-update-if-stale.sh" $SUDO || cannot "apt-get update failed"
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null || cannot "apt-get install ${missing[*]} failed"
echo "setup-system: done"
