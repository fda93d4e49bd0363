#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# What importing a large login keyring costs keychaind: gnome-keyring's (seeded with ITEMS items
# and encrypted by gnome-keyring itself), or with `oo7` oo7's v1 file (written by
# make-v1-keyring.py with GLib's serialiser), then keychaind starts with --unlock in the same
# home and imports it before answering its first call. Reports, each on a private
# bus with a throwaway HOME: time from the spawn to the first answered call with and without
# the import (the difference is the import), keychaind's peak and final resident memory, and
# its log line. From the project root:
#
#   make build && Benchmarks/scripts/import.sh [ITEMS] [gnome-keyring|oo7]
set -euo pipefail
items=${1:-10000}
source=${2:-gnome-keyring}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/.build/release

measure() {  # LABEL WITH_KEYRING
  local home
  home=$(mktemp -d)
  mkdir -p "$home/data/keyrings" "$home/run" && chmod 700 "$home/run"
  HOME=$home XDG_DATA_HOME=$home/data XDG_RUNTIME_DIR=$home/run PINENTRY=none \
    dbus-run-session -- bash -c '
    set -e
    label=$1 bin=$2 items=$3 with=$4 scripts=$5
    if [ "$with" = oo7 ]; then
      mkdir -p "$XDG_DATA_HOME/keyrings/v1"
      "$scripts/make-v1-keyring.py" "$XDG_DATA_HOME/keyrings/v1/login.keyring" "$items" pw
    elif [ "$with" = gnome-keyring ]; then
      "$bin/keychain-load" seed gnome-keyring --data-dir "$XDG_DATA_HOME/keyrings" --items "$items"
      gnome-keyring-daemon --foreground --components=secrets >/dev/null 2>&1 &
      gdbus wait --session --timeout 600 org.freedesktop.secrets
      "$bin/keychain-load" set-password --old "" --new pw --items "$items" >/dev/null
      kill $! && wait $! || true
    fi
    start=$(date +%s%N)
    printf pw | "$bin/keychaind" --unlock --verbose 2>"$HOME/log" &
    pid=$!
    gdbus wait --session --timeout 600 org.freedesktop.secrets
    # Held until the unlock (and the import) is over.
    gdbus call --session -d org.freedesktop.secrets -o /org/freedesktop/secrets \
      -m org.freedesktop.Secret.Service.SearchItems "{\"none\": \"none\"}" >/dev/null
    end=$(date +%s%N)
    echo "$label: first call answered after $(( (end - start) / 1000000 )) ms;" \
      "$(grep -E "VmHWM|VmRSS" /proc/$pid/status | tr -s " \t" " " | tr "\n" " ")"
    grep -o "imported .*" "$HOME/log" || true
    kill $pid && wait $pid || true
  ' _ "$1" "$bin" "$items" "$2" "$root/Benchmarks/scripts"
  rm -rf "$home"
}

measure "keychaind --unlock, nothing to import" no
measure "keychaind --unlock, importing $items items of $source" "$source"
