#!/bin/bash
# test-catalog.sh CATALOG AUDIT_C: the journal catalog parses (journalctl
# --update-catalog in a throw-away root refuses a malformed file) and has
# an entry for every MESSAGE_ID audit.c sends, and nothing else.
set -euo pipefail
catalog=${1:?} audit=${2:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/usr/lib/systemd/catalog"
cp "$catalog" "$tmp/usr/lib/systemd/catalog/sbdd.catalog"
journalctl --root="$tmp" --update-catalog
journalctl --root="$tmp" --list-catalog | awk '{print $1}' | sort >"$tmp/listed"
grep -oE '"[0-9a-f]{32}"' "$audit" | tr -d '"' | sort -u >"$tmp/sent"
diff -u "$tmp/sent" "$tmp/listed" || { echo "catalog and audit.c differ (- audit.c, + catalog)" >&2; exit 1; }
echo "ok: $(wc -l <"$tmp/listed") catalog entries, one per MESSAGE_ID of audit.c"
