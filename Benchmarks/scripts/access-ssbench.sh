#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What per-application access costs a call, through the shared Secret Service benchmark's own
# Python client (ssbench.py): keychaind with access-control = off and = protect, side by side
# in one run, ssbench alternating them from one repeat to the next. From the project root:
#
#   make build && Benchmarks/scripts/access-ssbench.sh BENCH_DIR [ITEMS] [REPEATS]
#
# BENCH_DIR is the folder that holds ssbench.py and run-daemon.sh (it needs python3's jeepney
# and cryptography). ssbench stores its ITEMS items itself, so in protect its script owns them
# and reads them with no dialog: the warm path. Its secret-tool step crosses programs: secret-tool
# run by ssbench.py reads the script's items, and the script counts what secret-tool stored.
# Protect refuses both with no display to ask on, so each is granted the collection once the
# daemon is up (provider_setup), as a user would with `access allow`.
set -euo pipefail
bench=$(cd "${1:?usage: $0 BENCH_DIR [ITEMS] [REPEATS]}" && pwd)
items=${2:-1000}
repeats=${3:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/.build/release
providers=$(mktemp -d)
trap 'rm -rf "$providers"' EXIT

# How keychaind names ssbench.py, and secret-tool run by it (see README's identity table).
python=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
script="script:$python:$bench/ssbench.py"
tool="via:exe:$(readlink -f "$(command -v secret-tool)")@$script"

for mode in off protect; do
  cat >"$providers/keychaind-$mode.sh" <<EOF
# keychaind of $root with access-control = $mode.
provider_version() { echo "keychaind $(git -C "$root" log -1 --format=%h) access-control=$mode"; }
provider_datadir() { echo "\$XDG_DATA_HOME/keychaind"; }
provider_exec() {
  mkdir -p "\$XDG_CONFIG_HOME/keychaind"
  echo "access-control = $mode" >"\$XDG_CONFIG_HOME/keychaind/keychaind.conf"
  printf '%s' "\$SSB_PASSWORD" >"\$SSB_STATEDIR/password"
  exec "$bin/keychaind" --unlock <"\$SSB_STATEDIR/password"
}
# Run by ssbench once the daemon owns its name, before it measures anything.
provider_setup() {
  [ $mode = protect ] || return 0
  for app in '$script' '$tool'; do
    printf '%s' "\$SSB_PASSWORD" |
      "$bin/keychainctl" access allow --app "\$app" login --password-stdin >/dev/null
  done
}
EOF
done

cd "$bench"
python3 ssbench.py --provider "$providers/keychaind-off.sh" \
  --provider "$providers/keychaind-protect.sh" --sizes "$items" --repeat "$repeats" \
  --samples 1000 --cold-runs 1 --tool-runs 5 --no-hyperfine
