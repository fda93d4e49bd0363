#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# KWallet's readPassword, writePassword and entryList at N entries (default 1,000), on Debian's
# kwalletd5 and on keychaind, each on a private bus with a throwaway home, one after the
# other. kwalletd5's wallet is made as kwallet-pam makes it (no dialog); keychaind is this
# tree's release build (make build), unlocked with --unlock. From the project root:
#
#   make build && Benchmarks/scripts/kwallet.sh [N]
#
# keychaind syncs every write to disk before it replies; kwalletd5 writes its file later.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-1000}
bench=$root/Benchmarks/scripts/kwallet.py

home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
run() {  # NAME: a fresh home, a private bus, the daemon, the benchmark
  local name=$1
  rm -rf "$home"/* && mkdir -p "$home/config" "$home/data/kwalletd" "$home/run" && chmod 700 "$home/run"
  printf '[org.freedesktop.secrets]\napiEnabled=false\n' > "$home/config/kwalletrc"
  echo "== $name"
  HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data XDG_RUNTIME_DIR=$home/run \
    QT_QPA_PLATFORM=offscreen PINENTRY=none dbus-run-session -- bash -c '
    name=$1 root=$2 bench=$3 n=$4
    if [ "$name" = kwalletd5 ]; then
      kwalletd5 >/dev/null 2>&1 &
      gdbus wait --session --timeout 30 org.kde.kwalletd5
      /usr/bin/python3 "$root/Tests/clients/kwallet-conformance.py" --pam-open pw --only
    else
      printf pw | "$root/.build/release/keychaind" --unlock >/dev/null 2>&1 &
      gdbus wait --session --timeout 30 org.kde.kwalletd5
    fi
    /usr/bin/python3 "$bench" "$n"
    kill %1' _ "$name" "$root" "$bench" "$n"
}
run kwalletd5
run keychaind
