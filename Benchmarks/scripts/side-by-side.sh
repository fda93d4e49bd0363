#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# keychain-load against keychaind and gnome-keyring in one run, each on a private bus of its
# own with a throwaway HOME, then a table of the two and their ratio. From the project root:
#
#   swift build -c release && Benchmarks/scripts/side-by-side.sh [ITEMS] [SAMPLES]
#
# Needs gnome-keyring (apt-get install gnome-keyring) for its column; nothing touches your
# session bus or home. gnome-keyring rewrites its file per CreateItem: ITEMS=1000 takes ~30 s
# there, 10000 about 40 minutes.
set -euo pipefail
items=${1:-1000}
samples=${2:-500}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/.build/release
out=$(mktemp -d)

run_provider() {  # NAME: starts it on a private bus, runs keychain-load, writes $out/NAME.json
  dbus-run-session -- bash -c '
    set -e
    export HOME=$(mktemp -d) PINENTRY=none
    export XDG_DATA_HOME=$HOME/data XDG_RUNTIME_DIR=$HOME/run
    mkdir -p "$XDG_RUNTIME_DIR"; chmod 700 "$XDG_RUNTIME_DIR"
    if [ "$1" = gnome-keyring ]; then
      printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
    else
      printf pw | "$2/keychaind" --unlock 2>/dev/null &
    fi
    gdbus wait --session --timeout 60 org.freedesktop.secrets
    "$2/keychain-load" --items "$3" --samples "$4" --json > "$5"
    pid=$(gdbus call --session -d org.freedesktop.DBus -o /org/freedesktop/DBus \
      -m org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets | grep -o "[0-9]\+" | tail -1)
    grep -E "^Vm(RSS|HWM):" /proc/$pid/status | awk "{print \$2}" | paste -sd " " > "$5.memory"
    pkill -P $$ keychaind 2>/dev/null || true
    rm -rf "$HOME"
  ' _ "$1" "$bin" "$items" "$samples" "$out/$1.json" 2> >(grep -v "fd limit" >&2)
}

providers=(keychaind)
command -v gnome-keyring-daemon >/dev/null && providers+=(gnome-keyring)
for provider in "${providers[@]}"; do
  echo "== $provider: $items items, $samples samples" >&2
  run_provider "$provider"
done

python3 - "$out" "${providers[@]}" <<'PY'
import json, sys
out, providers = sys.argv[1], sys.argv[2:]
data = {p: json.load(open(f"{out}/{p}.json")) for p in providers}
for p in providers:  # VmHWM then VmRSS, in kB, of the provider after the run
    peak, rss = (int(v) for v in open(f"{out}/{p}.json.memory").read().split())
    data[p]["resident memory after the run (KiB)"] = {"p50_us": rss}
    data[p]["peak resident memory (KiB)"] = {"p50_us": peak}
head = "| operation (p50 µs, memory KiB) | " + " | ".join(providers)
print(head + (" | gnome-keyring / keychaind |" if len(providers) > 1 else " |"))
print("| --- " * (len(providers) + 1 + (len(providers) > 1)) + "|")
for op in data[providers[0]]:
    values = [data[p].get(op, {}).get("p50_us") for p in providers]
    row = f"| {op} | " + " | ".join(str(v) for v in values)
    if len(providers) > 1 and values[0] and values[1]:
        row += f" | {values[1] / values[0]:.2f}×"
    print(row + " |")
PY
rm -rf "$out"
