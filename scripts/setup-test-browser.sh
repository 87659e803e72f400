#!/usr/bin/env bash
# The headless browser of the playground tests (apps/server/test/playground), installed by the
# project itself so a fresh machine and CI need nothing done by hand. Run by `npm test` (pretest),
# not by `npm start`: the service never needs a browser.
#   chromium            Debian's build; playwright-core (npm) drives /usr/bin/chromium and downloads
#                       no browser of its own
#   fonts-dejavu-core   a font for the pages' text (headless Chromium draws boxes without one)
set -euo pipefail
exec bash "$(dirname "$0")/install-debian-packages.sh" setup-test-browser chromium fonts-dejavu-core
