#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What a new connection's identity costs: COUNT runs of `secret-tool lookup`, each its own
# connection (so keychaind resolves the caller each time, /proc walk included), against
# keychaind with access-control = off, audit and protect. Prints the wall time per run and the
# daemon's CPU per run (from its /proc/PID/stat). From the project root:
#
#   make build && Benchmarks/scripts/access-connect.sh [COUNT]
#
# Nothing touches your session bus or home.
set -euo pipefail
count=${1:-200}
bin=$(cd "$(dirname "$0")/../.." && pwd)/.build/release
for mode in off audit protect; do
  home=$(mktemp -d)
  mkdir -p "$home/data" "$home/run" "$home/config/keychaind"
  chmod 700 "$home/run"
  echo "access-control = $mode" >"$home/config/keychaind/keychaind.conf"
  HOME=$home XDG_DATA_HOME=$home/data XDG_RUNTIME_DIR=$home/run XDG_CONFIG_HOME=$home/config \
    XDG_STATE_HOME=$home/state PINENTRY=none dbus-run-session -- bash -c '
    bin=$1 mode=$2 count=$3
    printf pw | "$bin/keychaind" --unlock 2>/dev/null &
    pid=$!
    gdbus wait --session --timeout 60 org.freedesktop.secrets
    printf s3cret | secret-tool store --label x k v
    secret-tool lookup k v >/dev/null
    cpu() { awk "{print \$14 + \$15}" "/proc/$pid/stat"; }
    before=$(cpu) start=$(date +%s%N)
    for _ in $(seq "$count"); do secret-tool lookup k v >/dev/null; done
    end=$(date +%s%N) after=$(cpu)
    ticks=$(getconf CLK_TCK)
    echo "$mode: $(( (end - start) / count / 1000 )) µs per lookup, daemon CPU" \
      "$(( (after - before) * 1000000 / ticks / count )) µs each"
    kill $pid' _ "$bin" "$mode" "$count" 2>/dev/null
  rm -rf "$home"
done
