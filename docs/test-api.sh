#!/bin/bash
# test-api.sh GENERATED TREE_COPY XML: meson test 'docs-api' (suite docs).
set -euo pipefail
generated=$1 copy=$2 xml=$3
failed=0
ok() { printf 'ok   %s\n' "$*"; }
bad() {
	printf 'FAIL %s\n' "$*"
	failed=$((failed + 1))
}

if diff -u "$copy" "$generated" >/tmp/sbd-api-diff.$$; then
	ok "docs/org.sbd.Sbd1.rst is what dbus/org.sbd.Sbd1.xml makes"
else
	bad "docs/org.sbd.Sbd1.rst is stale: docs/dbus-api.py dbus/org.sbd.Sbd1.xml docs/org.sbd.Sbd1.rst"
	head -n 40 /tmp/sbd-api-diff.$$
fi
rm -f /tmp/sbd-api-diff.$$

if out=$(/usr/bin/python3 -m docutils --halt=warning --report=warning "$generated" /dev/null 2>&1); then
	ok "valid reStructuredText (docutils)"
else
	bad "docutils: $out"
fi

# Each method, property and signal has a comment right before it, which
# gdbus-codegen turns into its description.
undocumented=$(/usr/bin/python3 - "$xml" <<'PY'
import sys, xml.dom.minidom as m
for iface in m.parse(sys.argv[1]).getElementsByTagName("interface"):
    for member in iface.childNodes:
        if member.nodeType != member.ELEMENT_NODE or member.tagName not in ("method", "property", "signal"):
            continue
        prev = member.previousSibling
        while prev is not None and prev.nodeType == prev.TEXT_NODE and not prev.data.strip():
            prev = prev.previousSibling
        if prev is None or prev.nodeType != prev.COMMENT_NODE:
            print("%s.%s" % (iface.getAttribute("name"), member.getAttribute("name")))
PY
)
if [[ -z $undocumented ]]; then
	ok "every method, property and signal is documented"
else
	bad "undocumented members: $(echo "$undocumented" | tr '\n' ' ')"
fi
echo "# $failed failure(s)"
((failed == 0))
