#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# keychain-load against keychaind and gnome-keyring in one run, each on a private bus of its
# own with a throwaway HOME, then one table of the two and their ratio. From the project root:
#
#   make build && Benchmarks/scripts/side-by-side.sh [ITEMS] [SAMPLES] [PROVIDERS]
#
# ITEMS (default 1000) are stored through CreateItem up to 2000; above that both stores are
# seeded in bulk (`keychain-load seed`: gnome-keyring rewrites its file on every CreateItem, so
# 10000 items through the bus take it ~40 minutes) and CREATES (default 100) CreateItem calls
# are timed on top.
# Each provider is also restarted COLD_RUNS times (default 5) to time the cold start to the
# first secret. PROVIDERS defaults to "keychaind gnome-keyring" (the latter if installed); an
# entry NAME=DAEMON runs another keychaind binary under that name (its store seeded by the
# keychain-load beside it), and NAME=DAEMON@off the same with access-control = off
# (Benchmarks/scripts/bench-compare.sh compares the last release with this tree so).
# Nothing touches your session bus or home.
set -euo pipefail
items=${1:-1000}
samples=${2:-500}
providers=${3:-keychaind $(command -v gnome-keyring-daemon >/dev/null && echo gnome-keyring)}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/.build/release
out=$(mktemp -d)
export COLD_RUNS=${COLD_RUNS:-5} MEASURE_ARGS=${MEASURE_ARGS:-}

run_provider() {  # SPEC: starts it on a private bus, runs keychain-load, writes $out/NAME.json
  # The throwaway HOME is set before the bus starts, so that anything the bus activates uses it.
  local home name=${1%%=*} daemon=$bin/keychaind
  [[ "$1" == *=* ]] && daemon=${1#*=}
  home=$(mktemp -d)
  mkdir -p "$home/data" "$home/run" "$home/cache" "$home/config/keychaind"
  chmod 700 "$home/run"
  if [[ "$daemon" == *@off ]]; then
    daemon=${daemon%@off}
    echo "access-control = off" > "$home/config/keychaind/keychaind.conf"
  fi
  HOME=$home XDG_DATA_HOME=$home/data XDG_RUNTIME_DIR=$home/run XDG_CACHE_HOME=$home/cache \
    XDG_CONFIG_HOME=$home/config PINENTRY=none dbus-run-session -- bash -c '
    set -e
    provider=$1 bin=$2 items=$3 samples=$4 result=$5 daemon=$6
    if [ "$provider" = gnome-keyring ]; then
      start="printf pw | exec gnome-keyring-daemon --foreground --unlock --components=secrets"
    else
      start="printf pw | exec $daemon --unlock"
    fi
    seeded=()
    if [ "$items" -gt 2000 ]; then
      seeded=(--seeded --creates "${CREATES:-100}")
      if [ "$provider" = gnome-keyring ]; then
        "$bin/keychain-load" seed gnome-keyring --data-dir "$XDG_DATA_HOME/keyrings" --items "$items"
        gnome-keyring-daemon --foreground --components=secrets >/dev/null 2>&1 &
        # (a call before it owns the name would have the bus activate a second one)
        gdbus wait --session --timeout 600 org.freedesktop.secrets
        "$bin/keychain-load" set-password --old "" --new pw --items "$items"
        kill $! && wait $! || true
      else
        # The daemon'"'"'s own tree writes its store (an older keychaind cannot read a newer one).
        printf pw | "$(dirname "$daemon")/keychain-load" seed keychaind --data-dir "$XDG_DATA_HOME/keychaind" --items "$items"
      fi
    fi
    sh -c "$start" >/dev/null 2>&1 &
    gdbus wait --session --timeout 120 org.freedesktop.secrets
    # MEASURE_ARGS: more options for keychain-load, such as --writers 1,4,16 or --only.
    "$bin/keychain-load" --items "$items" --samples "$samples" "${seeded[@]}" \
      --restart "$start" --cold-runs "$COLD_RUNS" $MEASURE_ARGS --json > "$result"
    pid=$(gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \
      -m org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets | grep -o "[0-9]\+" | tail -1)
    kill "$pid" 2>/dev/null || true
  ' _ "$name" "$bin" "$items" "$samples" "$out/$name.json" "$daemon" 2> >(grep -v "fd limit" >&2)
  rm -rf "$home"
}

names=()
for provider in $providers; do
  echo "== $provider: $items items, $samples samples" >&2
  run_provider "$provider"
  names+=("${provider%%=*}")
done

python3 - "$out" "${names[@]}" <<'PY'
import json, sys
out, providers = sys.argv[1], sys.argv[2:]
data = {p: json.load(open(f"{out}/{p}.json")) for p in providers}
def cell(entry, key):
    return entry.get(key) if entry else None
head = "| operation | " + " | ".join(f"{p} p50 µs | {p} CPU µs/call" for p in providers)
print(head + (f" | {providers[1]} / {providers[0]} (p50) |" if len(providers) > 1 else " |"))
print("| --- " * (1 + 2 * len(providers) + (len(providers) > 1)) + "|")
for op in data[providers[0]]:
    if op.startswith("memory ") or op.startswith("note "):
        continue
    values = [cell(data[p].get(op), "p50_us") for p in providers]
    cpu = [cell(data[p].get(op), "cpu_us") for p in providers]
    row = f"| {op} | " + " | ".join(f"{v} | {c if c is not None else ''}" for v, c in zip(values, cpu))
    if len(providers) > 1 and values[0] and values[1]:
        row += f" | {values[1] / values[0]:.2f}×"
    print(row + " |")
print()
for p in providers:
    for op, note in data[p].items():
        if op.startswith("note "):
            print(f"- {p}: {note}")
print()
print("| provider memory, KiB (VmRSS / VmHWM) | " + " | ".join(providers) + " |")
print("| --- " * (1 + len(providers)) + "|")
for op in data[providers[0]]:
    if op.startswith("memory "):
        print(f"| {op[7:]} | " + " | ".join(
            f"{data[p][op]['rss_kib']} / {data[p][op]['hwm_kib']}" if op in data[p] else "" for p in providers) + " |")
PY
rm -rf "$out"
