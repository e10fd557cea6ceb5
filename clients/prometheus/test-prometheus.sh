#!/bin/bash
# test-prometheus.sh DIR: meson test 'prometheus-rules' (suite unit).
# promtool (Debian's package prometheus) accepts the example alerting
# rules and their unit tests pass; the text format's pieces
# (test_format.py, no bus) pass, and what they render passes
# promtool check metrics. A missing tool fails the test.
set -euo pipefail
dir=${1:?usage: test-prometheus.sh DIR}
command -v promtool >/dev/null || { echo "FAIL promtool not found (Debian package prometheus)"; exit 1; }
cd "$dir"
promtool check rules sbd-alerts.yml
promtool test rules sbd-alerts.test.yml
PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 test_format.py -v
echo "ok   rules checked, rule tests and format tests passed"
