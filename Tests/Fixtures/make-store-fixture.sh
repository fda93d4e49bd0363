#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Makes a keychaind store with real clients, for the upgrade tests (Tests/KeychaindTests/
# UpgradeTests.swift): usage: make-store-fixture.sh KEYCHAIND KEYCHAINCTL OUTDIR
#
# Everything runs on a private dbus-daemon (Tests/dbus-session.conf) with a throwaway HOME and
# XDG directories, so neither the session bus nor the home of whoever runs it is touched. First
# gnome-keyring makes a login keyring with two items, which the given keychaind imports when it
# starts (so the store holds an import record and imported items with their own numbers and
# dates); then secret-tool, Python SecretStorage and keychainctl store items, a second collection
# with a password of its own, a lock policy and an alias. keychaind is stopped with SIGTERM, so
# that keychain.db alone holds everything (it checkpoints and empties its log on the way out),
# and keychain.db and index.key are copied to OUTDIR (0600), with what the clients saw printed
# for the fixture's README. Every password and secret in it is a test value.

set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 KEYCHAIND KEYCHAINCTL OUTDIR" >&2
  exit 64
fi
keychaind=$(realpath "$1")
keychainctl=$(realpath "$2")
out=$3
tests=$(cd "$(dirname "$0")/.." && pwd)

readonly login_password="fixture login password"
readonly work_password="fixture work password"

work=$(mktemp -d /tmp/make-store-fixture.XXXXXX)
pids=()
cleanup() {
  # Only what this script started, by process id.
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

export HOME=$work/home
export XDG_DATA_HOME=$HOME/.local/share XDG_CONFIG_HOME=$HOME/.config
export XDG_CACHE_HOME=$HOME/.cache XDG_RUNTIME_DIR=$HOME/run
mkdir -p -m 0700 "$HOME" "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
unset DISPLAY WAYLAND_DISPLAY
export PINENTRY=none LC_ALL=C.UTF-8

dbus-daemon --config-file="$tests/dbus-session.conf" --nofork --print-address=1 \
  >"$work/bus-address" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/bus-address" ] && break; sleep 0.1; done
DBUS_SESSION_BUS_ADDRESS=$(head -n 1 "$work/bus-address")
export DBUS_SESSION_BUS_ADDRESS DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS

bus() {
  gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method "org.freedesktop.DBus.$1" "${@:2}"
}
# The process id of the owner of org.freedesktop.secrets, once there is one.
provider_pid() {
  for _ in $(seq 300); do
    if reply=$(bus GetConnectionUnixProcessID org.freedesktop.secrets 2>/dev/null); then
      echo "$reply" | sed -E 's/.*uint32 ([0-9]+).*/\1/'
      return
    fi
    sleep 0.1
  done
  echo "no provider took org.freedesktop.secrets" >&2
  exit 1
}
# Waits until process $1 (not a child of this shell) is gone.
wait_gone() {
  for _ in $(seq 300); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
  echo "process $1 did not stop" >&2
  exit 1
}

# gnome-keyring's login keyring, for keychaind to import.
printf '%s' "$login_password" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
gnome_keyring=$(provider_pid)
pids+=("$gnome_keyring")
printf '%s' 'imported secret one' |
  secret-tool store --label='Imported: mail' service smtp.example.com user 'björn'
printf '%s' 'imported secret two' |
  secret-tool store --label='Imported: forum' url https://forum.example.org user bob
kill -TERM "$gnome_keyring"
wait_gone "$gnome_keyring"
test -s "$XDG_DATA_HOME/keyrings/login.keyring"

# keychaind, as a user starts it: the login password on stdin.
printf '%s' "$login_password" >"$work/password"
"$keychaind" --unlock --verbose <"$work/password" 2>"$work/keychaind.log" &
daemon=$!
pids+=("$daemon")
if [ "$(provider_pid)" != "$daemon" ]; then
  echo "keychaind did not take org.freedesktop.secrets:" >&2
  cat "$work/keychaind.log" >&2
  exit 1
fi

printf '%s' 'hunter2 ü' |
  secret-tool store --label='Café ☕ – 日本語 🔑' service imap.example.com user 'zoë' port 993
/usr/bin/python3 - <<'EOF'
import time

import secretstorage

connection = secretstorage.dbus_init()
login = secretstorage.get_default_collection(connection)
login.create_item(
    "Binary key ∅", {"service": "imap.example.com", "kind": "binary"},
    b"\x00\xff\x00\x01binary\xfe\xff\n\x00", content_type="application/octet-stream")
login.create_item("No attributes", {}, b"an item with no attributes")
login.create_item("Edited (before)", {"edited": "yes"}, b"old secret")
time.sleep(1.2)  # a modification date after the creation date
# Replaced through CreateItem, not Item.SetSecret: ab36ffa's release build crashes on SetSecret
# (the Swift miscompile that ac408da works around).
login.create_item(
    "Edited (after)", {"edited": "yes"}, "new secret \u2713".encode(), replace=True,
    content_type="text/plain; charset=utf-8")
EOF
"$keychainctl" add-generic-password -a alice -s fixture-service -l 'Generic: alice' \
  -w 'generic password'

work_collection=$(printf '%s\n' "$work_password" | "$keychainctl" create 'Work ✓' --password-stdin)
printf '%s' 'vpn secret' | "$keychainctl" store --label='VPN' --collection "$work_collection" \
  service vpn.example.org user alice
"$keychainctl" lock-policy 'Work ✓' lock-after-unused=5 lock-on-screen-lock=false >/dev/null
gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
  --method org.freedesktop.Secret.Service.SetAlias work "$work_collection" >/dev/null

# What the clients see, for the README.
echo "== items (Tests/clients/dump-items.py)"
/usr/bin/python3 "$tests/clients/dump-items.py"
echo "== lock policy of Work ✓"
"$keychainctl" lock-policy 'Work ✓' --json
echo "== alias work"
gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
  --method org.freedesktop.Secret.Service.ReadAlias work

kill -TERM "$daemon"
status=0
wait "$daemon" || status=$?
if [ "$status" -ne 0 ]; then
  echo "keychaind exited with $status:" >&2
  cat "$work/keychaind.log" >&2
  exit 1
fi
data=$XDG_DATA_HOME/keychaind
if [ -s "$data/keychain.db-wal" ]; then
  echo "keychain.db-wal is not empty after a clean stop" >&2
  exit 1
fi
mkdir -p "$out"
install -m 0600 "$data/keychain.db" "$data/index.key" "$out/"
echo "== written: $out/keychain.db, $out/index.key"
