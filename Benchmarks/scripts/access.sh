#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What per-application access costs a call: keychain-load against keychaind with
# access-control = off, audit and protect, in alternating rounds (so that the machine's drift
# falls on every mode alike), then the median p50 of each kind of call and its ratio to off.
# In audit and protect every read is identified and written to the audit log. From the
# project root:
#
#   make build && Benchmarks/scripts/access.sh [ITEMS] [SAMPLES] [ROUNDS]
#
# keychain-load stores the ITEMS items itself (default 1000), so in protect it owns them and
# reads with no dialog: the warm path. Nothing touches your session bus or home.
set -euo pipefail
items=${1:-1000}
samples=${2:-500}
rounds=${3:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/.build/release
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

run() {  # MODE ROUND: one keychain-load run against a fresh daemon, into $out/MODE.ROUND.json
  local home
  home=$(mktemp -d)
  mkdir -p "$home/data" "$home/run" "$home/config/keychaind"
  chmod 700 "$home/run"
  echo "access-control = $1" >"$home/config/keychaind/keychaind.conf"
  HOME=$home XDG_DATA_HOME=$home/data XDG_RUNTIME_DIR=$home/run XDG_CONFIG_HOME=$home/config \
    XDG_STATE_HOME=$home/state PINENTRY=none dbus-run-session -- bash -c '
    printf pw | "$1/keychaind" --unlock 2>"$HOME/keychaind.log" &
    gdbus wait --session --timeout 60 org.freedesktop.secrets
    "$1/keychain-load" --items "$2" --samples "$3" --only ping,search,scoped,secret,secrets \
      --json >"$4"
    kill $!; wait $! || true' _ "$bin" "$items" "$samples" "$out/$1.$2.json" 2>/dev/null
  rm -rf "$home"
}

# Each round starts with another mode, so that none always runs first.
modes=(off audit protect)
for round in $(seq "$rounds"); do
  for index in 0 1 2; do
    run "${modes[(round + index) % 3]}" "$round"
  done
done

python3 - "$out" "$rounds" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
modes = ["off", "audit", "protect"]
runs = {m: [json.load(open(f"{out}/{m}.{r}.json")) for r in range(1, rounds + 1)] for m in modes}
kinds = [k for k in runs["off"][0] if "calls" in runs["off"][0][k] and not k.startswith("CreateItem")]
print(f"{'call':30} {'off':>6} {'audit':>6} {'protect':>8} {'audit/off':>10} {'protect/off':>12}"
      f"   daemon CPU µs: {'off':>4} {'audit':>6} {'protect':>8}")
for kind in kinds:
    p50 = {m: statistics.median(run[kind]["p50_us"] for run in runs[m]) for m in modes}
    cpu = {m: statistics.median(run[kind]["cpu_us"] for run in runs[m]) for m in modes}
    print(f"{kind:30} {p50['off']:>6.0f} {p50['audit']:>6.0f} {p50['protect']:>8.0f}"
          f" {p50['audit'] / p50['off']:>10.2f} {p50['protect'] / p50['off']:>12.2f}"
          f"   {'':14}{cpu['off']:>4.0f} {cpu['audit']:>6.0f} {cpu['protect']:>8.0f}")
PY
