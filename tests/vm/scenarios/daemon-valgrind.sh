#!/bin/bash
# Another daemon scenario (default daemon-signals.sh: signals, methods,
# devices coming and going) with sbdd under valgrind in the guest: any
# memory error or definite leak fails it (lib.sh: sbdd_stop).
# ARGS: [SCENARIO] (a daemon-*.sh file next to this one)
set -euo pipefail
export SBDD_VALGRIND=1 SBDD_ASAN=0 SBDD_START_TIMEOUT=180
exec /bin/bash "$(dirname "${BASH_SOURCE[0]}")/${1:-daemon-signals.sh}"
