#!/bin/bash
# test-self-contained.sh SOURCE_DIR: meson test 'docs-self-contained'
# (suite docs). The project's documents (README.md files, docs/, the man
# pages) are read without the design notes the project was started from:
# none may point at them ("contract", shared/design/...) or at a path of
# the machine it was written on.
set -euo pipefail
src=${1:?usage: test-self-contained.sh SOURCE_DIR}
cd "$src"
mapfile -t docs < <(find . \( -path './build*' -o -name .git \) -prune -o -type f \
	\( -name '*.md' -o -name '*.rst' -o -path './clients/man/*.in' \) -print | sort)
((${#docs[@]} > 5)) || { echo "FAIL only ${#docs[@]} documents found in $src"; exit 1; }
if hits=$(grep -n -i -E 'contract|shared/design|/work/' "${docs[@]}"); then
	echo "FAIL documents refer to notes outside the repository:"
	echo "$hits"
	exit 1
fi
echo "ok   ${#docs[@]} documents refer to nothing outside the repository"
