#!/bin/bash
# test-collection.sh COLLECTION_DIR: meson test 'ansible-collection' (suite
# unit). Offline, with Debian's ansible-core:
#  - the unit tests of the logic (tests/unit, plain unittest, no bus);
#  - `ansible-galaxy collection build` makes the tarball and
#    `ansible-galaxy collection install` installs it from that file;
#  - from the installed copy: `ansible-doc` renders each module's
#    DOCUMENTATION, EXAMPLES and RETURN, `ansible-doc -l sbd.sbd` lists the
#    three modules, and the example playbook passes --syntax-check;
#  - the ansible-test sanity tests that run without a network (see
#    README.md: the others need pip to fetch their requirements).
# A missing tool fails the test.
set -euo pipefail
src=$(cd "${1:?usage: test-collection.sh COLLECTION_DIR}" && pwd)
for tool in ansible-galaxy ansible-doc ansible-playbook ansible-test; do
	command -v "$tool" >/dev/null || { echo "FAIL $tool not found (Debian package ansible-core)"; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME=$work ANSIBLE_LOCAL_TEMP=$work/tmp ANSIBLE_NOCOLOR=1 PYTHONDONTWRITEBYTECODE=1
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

if /usr/bin/python3 "$src/tests/unit/test_logic.py" >"$work/unit.log" 2>&1; then
	tail -3 "$work/unit.log"; ok "unit tests of the logic"
else
	cat "$work/unit.log"; bad "unit tests of the logic"
fi

# build and install from the tarball, offline
ansible-galaxy collection build "$src" --output-path "$work/dist" >"$work/build.log" 2>&1 ||
	{ cat "$work/build.log"; bad "ansible-galaxy collection build"; exit 1; }
tarball=$work/dist/sbd-sbd-$(sed -n 's/^version: *//p' "$src/galaxy.yml").tar.gz
[[ -f $tarball ]] || { bad "no tarball"; exit 1; }
ok "built $(basename "$tarball")"
if tar -tzf "$tarball" | grep -E '(^|/)(meson\.build|test-collection\.sh)$|__pycache__'; then
	bad "the tarball holds build files"
fi
ansible-galaxy collection install "$tarball" -p "$work/installed" >"$work/install.log" 2>&1 ||
	{ cat "$work/install.log"; bad "ansible-galaxy collection install"; exit 1; }
inst=$work/installed/ansible_collections/sbd/sbd
for f in MANIFEST.json FILES.json plugins/module_utils/sbd.py plugins/modules/sbd_module.py \
	plugins/modules/sbd_device.py plugins/modules/sbd_info.py playbooks/three_disks.yml meta/runtime.yml; do
	[[ -f $inst/$f ]] || bad "installed collection lacks $f"
done
ok "installed from the tarball into $work/installed"
export ANSIBLE_COLLECTIONS_PATH=$work/installed

# ansible-doc of each module, from the installed copy
for m in sbd_module sbd_device sbd_info; do
	if ! out=$(ansible-doc "sbd.sbd.$m" 2>"$work/doc.err"); then
		cat "$work/doc.err"; bad "ansible-doc sbd.sbd.$m"; continue
	fi
	for want in "> SBD.SBD.${m^^}" "EXAMPLES:" "RETURN VALUES:" "python3-gi"; do
		grep -qF -- "$want" <<<"$out" || bad "ansible-doc sbd.sbd.$m lacks '$want'"
	done
	if [[ -s $work/doc.err ]]; then
		cat "$work/doc.err"; bad "ansible-doc sbd.sbd.$m warned"
	fi
	ok "ansible-doc sbd.sbd.$m"
done
grep -q 'OPTIONS' <<<"$(ansible-doc sbd.sbd.sbd_device)" || bad "sbd_device has no OPTIONS"
listed=$(ansible-doc -l sbd.sbd 2>&1 | awk '{print $1}' | sort | tr '\n' ' ')
if [[ $listed == "sbd.sbd.sbd_device sbd.sbd.sbd_info sbd.sbd.sbd_module " ]]; then
	ok "ansible-doc -l lists the three modules"
else
	bad "ansible-doc -l sbd.sbd: '$listed'"
fi

# the example playbook
if ansible-playbook --syntax-check -i localhost, sbd.sbd.three_disks >"$work/syntax.log" 2>&1; then
	ok "the playbook sbd.sbd.three_disks passes --syntax-check"
else
	cat "$work/syntax.log"; bad "three_disks.yml --syntax-check"
fi

# ansible-test sanity, the tests that need no download (the list
# below; README.md says which need the network and why)
sanity_tests=(compile empty-init future-import-boilerplate ignores line-endings metaclass-boilerplate
	no-assert no-basestring no-dict-iteritems no-dict-iterkeys no-dict-itervalues no-get-exception
	no-illegal-filenames no-main-display no-smart-quotes no-unicode-literals replace-urlopen shebang
	symlinks use-argspec-type-path use-compat-six)
mkdir -p "$work/at/ansible_collections/sbd"
cp -r "$inst" "$work/at/ansible_collections/sbd/sbd"
rm -f "$work/at/ansible_collections/sbd/sbd/"{MANIFEST,FILES}.json
args=()
for t in "${sanity_tests[@]}"; do args+=(--test "$t"); done
if (cd "$work/at/ansible_collections/sbd/sbd" && ansible-test sanity --python 3.11 "${args[@]}") >"$work/sanity.log" 2>&1; then
	ok "ansible-test sanity: ${sanity_tests[*]}"
else
	cat "$work/sanity.log"; bad "ansible-test sanity"
fi

((fails == 0)) || { echo "FAIL $fails check(s) failed"; exit 1; }
echo "ok   the collection builds, installs, documents and passes its unit tests"
