#!/usr/bin/env bash
# The SIP software of the SIP call tests (apps/server/test/sip), installed by the project itself so a
# fresh machine and CI need nothing done by hand. Run by `npm test` (pretest), not by `npm start`:
# the service never needs a SIP phone.
#   baresip-core   Debian's baresip: a real SIP user agent that places the test calls, its
#                  microphone a recorded WAV file (aufile) and what it hears recorded to a WAV file;
#                  its opus module places the Opus calls
#   kamailio       a real SIP proxy put in front of the service (Via, Record-Route through a proxy)
set -euo pipefail
exec bash "$(dirname "$0")/install-debian-packages.sh" setup-test-sip baresip-core kamailio
