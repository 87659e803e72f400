#!/usr/bin/env bash
# `apt-get update`, unless this script ran it in the last hour: CI's fresh machine runs several of
# the project's setup scripts one after the other (setup-system.sh, the test browser and SIP phone,
# PostgreSQL, Redis), and each would otherwise fetch the same package lists again. The lists' own
# times are the mirror's, not the fetch's, hence a stamp of our own.
#   usage: bash scripts/apt-update-if-stale.sh [sudo]
set -euo pipefail
STAMP=/var/tmp/svc-apt-updated
if [ -n "$(find "$STAMP" -mmin -60 2>/dev/null)" ]; then
  exit 0
fi
${1:-} apt-get update -qq
${1:-} touch "$STAMP"
