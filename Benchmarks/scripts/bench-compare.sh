#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The cost of this tree against a reference (the last release), side by side in one run, in the
# default configuration and with access-control = off:
#
#   make build && make bench-compare REF=ab36ffa [ITEMS=1000 SAMPLES=500]
#
# REF is checked out in .build/bench-ref/REF (a git worktree) and built as `make build` builds
# (release, static Swift runtime). Then, against each keychaind: instructions per call and per
# cold start under callgrind (instructions.py: stable to a percent, so what moves is the code),
# keychain-load's latencies, daemon CPU, cold starts and memory (side-by-side.sh: wall time, which
# moves ±25 % with the machine's load), and what `make install` installs. The same load drives
# every daemon: this tree's keychain-load.
set -euo pipefail
ref=${1:?usage: bench-compare.sh REF [ITEMS] [SAMPLES]}
items=${2:-1000}
samples=${3:-500}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(cd "$root" && swift build -c release --static-swift-stdlib --show-bin-path)
[ -x "$bin/keychaind" ] && [ -x "$bin/keychain-load" ] || { echo "run 'make build' first" >&2; exit 1; }
sha=$(git -C "$root" rev-parse --short "$ref")
tree=$root/.build/bench-ref/$sha
if [ ! -d "$tree" ]; then
  git -C "$root" worktree add --detach "$tree" "$sha" >/dev/null
fi
echo "== building $sha in $tree" >&2
(cd "$tree" && swift build -c release --static-swift-stdlib >/dev/null)
refbin=$(cd "$tree" && swift build -c release --static-swift-stdlib --show-bin-path)

echo "## Instructions (callgrind)"
python3 "$root/Benchmarks/scripts/instructions.py" "$sha=$refbin/keychaind" \
  "now=$bin/keychaind" "off=$bin/keychaind;access-control = off"

echo
echo "## Wall time and CPU (keychain-load, $items items, $samples samples)"
"$root/Benchmarks/scripts/side-by-side.sh" "$items" "$samples" \
  "$sha=$refbin/keychaind now=$bin/keychaind off=$bin/keychaind@off"

echo
echo "## Installed (make install PREFIX=/usr into a staging directory)"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
for side in "$sha:$tree" "now:$root"; do
  name=${side%%:*}
  make --no-print-directory -C "${side#*:}" install DESTDIR="$stage/$name" PREFIX=/usr >/dev/null
  echo "- $name: $(du -sk "$stage/$name" | cut -f1) KiB"
done
