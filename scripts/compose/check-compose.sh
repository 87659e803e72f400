#!/usr/bin/env bash
# Validates compose.yaml (or the file given) without Docker: Compose Specification schema, references
# between services and volumes (check-compose.py), and every SVC_* setting it sets is one the server
# reads. Installs python3-yaml and python3-jsonschema when missing.
#   bash scripts/compose/check-compose.sh [compose.yaml]
set -euo pipefail
cd "$(dirname "$0")/../.."
file="${1:-compose.yaml}"
bash scripts/install-debian-packages.sh check-compose python3-yaml python3-jsonschema
python3 scripts/compose/check-compose.py "$file"
unknown=0
for setting in $(grep -oE '^ +SVC_[A-Z0-9_]+:' "$file" | tr -d ' :' | sort -u); do
  grep -rqw --include='*.ts' "$setting" apps/server/src || { echo "check-compose: $file sets $setting, which the server does not read" >&2; unknown=1; }
done
exit "$unknown"
