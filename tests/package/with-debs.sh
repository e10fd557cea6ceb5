#!/bin/bash
# with-debs.sh SOURCE_DIR DEBS_DIR COMMAND [ARGS...]: build the Debian
# packages (build-debs.sh, a no-op while they are up to date), then run
# COMMAND with SBD_DEBS_DIR=DEBS_DIR: how the systemd VM scenarios get the
# .debs they install.
set -euo pipefail
src=${1:?usage: with-debs.sh SOURCE_DIR DEBS_DIR COMMAND...} out=${2:?usage: with-debs.sh SOURCE_DIR DEBS_DIR COMMAND...}
shift 2
"$(dirname "$(realpath "${BASH_SOURCE[0]}")")/build-debs.sh" "$src" "$out"
SBD_DEBS_DIR=$(realpath "$out") exec "$@"
