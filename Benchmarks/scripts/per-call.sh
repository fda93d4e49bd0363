#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Allocations and system calls per call in keychaind, for each kind of read keychain-load
# times. From the project root, as root (perf needs it), with linux-perf installed:
#
#   make build && Benchmarks/scripts/per-call.sh [KEYCHAIND] [KINDS]
#
# KEYCHAIND defaults to this tree's release build; KINDS to "ping scoped search secret
# secrets". The store is seeded with 1,000 items. perf counts `malloc` (a uprobe on libc,
# added if missing) and system-call entries in the daemon while keychain-load runs 5,000 and
# then 10,000 samples of a kind, each against a fresh daemon after a warm-up; the difference, divided by the extra calls, is what one call
# costs, without the start-up and warm-up work both runs share. Some kinds make more than one
# call per sample: `search` a hit and a miss, `secret` a plain and a DH GetSecret (their
# average is printed). Nothing touches your session bus or home.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/.build/release
daemon=${1:-$bin/keychaind}
kinds=${2:-ping scoped search secret secrets}
libc=$(ldd "$daemon" | awk '/libc\.so/ {print $3}')
perf probe -l 2>/dev/null | grep -q 'probe_libc:malloc ' || perf probe -q -x "$libc" malloc

home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/data/keychaind" "$home/run"
chmod 700 "$home/run" "$home/data/keychaind"
export HOME=$home XDG_DATA_HOME=$home/data XDG_RUNTIME_DIR=$home/run PINENTRY=none
printf pw | "$bin/keychain-load" seed keychaind --data-dir "$home/data/keychaind" --items 1000

count() {  # KIND SAMPLES: prints "MALLOCS SYSCALLS" for one run against a fresh daemon
  dbus-run-session -- bash -c '
    daemon=$1 bin=$2 kind=$3 samples=$4 stat=$5
    printf pw | "$daemon" --unlock >/dev/null 2>&1 &
    pid=$!
    gdbus wait --session --timeout 60 org.freedesktop.secrets >/dev/null
    # perf follows only the threads that exist when it attaches: a warm-up run first has the
    # daemon unlock and start every thread a call uses.
    "$bin/keychain-load" --items 1000 --seeded --creates 0 --samples 200 --only "$kind" >/dev/null
    perf stat -x, -e probe_libc:malloc,raw_syscalls:sys_enter -p "$pid" -o "$stat" &
    perf=$!
    sleep 0.5
    "$bin/keychain-load" --items 1000 --seeded --creates 0 --samples "$samples" --only "$kind" \
      >/dev/null
    kill -INT "$perf" && wait "$perf" || true
    kill "$pid"
  ' _ "$daemon" "$bin" "$1" "$2" "$home/stat" 2> >(grep -v "fd limit" >&2)
  awk -F, '/malloc/ {m = $1} /sys_enter/ {s = $1} END {print m, s}' "$home/stat"
}

echo "| kind | allocations per call | system calls per call |"
echo "| --- | --- | --- |"
for kind in $kinds; do
  read -r m1 s1 < <(count "$kind" 5000)
  read -r m2 s2 < <(count "$kind" 10000)
  calls=5000
  case $kind in search | secret) calls=10000 ;; esac
  awk -v k="$kind" -v m="$((m2 - m1))" -v s="$((s2 - s1))" -v n="$calls" \
    'BEGIN {printf "| %s | %.0f | %.1f |\n", k, m / n, s / n}'
done
