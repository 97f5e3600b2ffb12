#!/usr/bin/env bash
# Usage: tests/need.sh CMD...  Exits 0 when every command exists. Otherwise it names the missing
# ones and exits 77 (the runner's "skipped"), or 1 when CI=true: in CI a missing tool fails.
set -u
miss=""
for c in "$@"; do command -v "$c" >/dev/null 2>&1 || miss="$miss $c"; done
[ -z "$miss" ] && exit 0
echo "missing tool(s):$miss (run ci/deps.sh all as root)" >&2
[ "${CI:-}" = true ] && exit 1
exit 77
