#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Makes KDE wallet files with Debian's real kwalletd5 (on DBUS_SESSION_BUS_ADDRESS), as a KDE
# user's would be: each wallet is created as kwallet-pam creates it (a 56-byte salt file and a
# PBKDF2-SHA512 key from the password, handed over with pamOpen), filled with every kind of
# entry, then closed, which writes it to $XDG_DATA_HOME/kwalletd. Prints, as JSON, what each
# wallet holds: {wallet: {folder: {key: [kind, value]}}}, passwords as text, streams in hex,
# maps as objects.
#
# Arguments: WALLET=PASSWORD ... (the first is filled with everything, the others with one
# entry each).

import json
import sys

import dbus

from kwallet_forms import ay, pam_open, qmap

bus = dbus.SessionBus()
wallet = dbus.Interface(bus.get_object("org.kde.kwalletd5", "/modules/kwalletd5"),
                        "org.kde.KWallet")
APP = "fixture"


def make(name, password):
    pam_open(wallet, name, password)
    return wallet.open(name, 0, APP, signature="sxs")


def fill(handle, entries):
    held = {}
    for folder, key, kind, value in entries:
        wallet.createFolder(handle, folder, APP)
        if kind == "password":
            assert wallet.writePassword(handle, folder, key, value, APP) == 0
            shown = value
        elif kind == "stream":
            assert wallet.writeEntry(handle, folder, key, ay(value), APP, signature="issays") == 0
            shown = value.hex()
        else:
            assert wallet.writeMap(handle, folder, key, ay(qmap(value)), APP) == 0
            shown = value
        held.setdefault(folder, {})[key] = [kind, shown]
    return held


EVERYTHING = [
    ("Passwords", "github", "password", "hunter2"),
    ("Passwords", "unicode ✓ é", "password", "pässwörd 🔑"),
    ("Passwords", "empty", "password", ""),
    ("Passwords", "lines", "password", "line 1\nline 2\n"),
    ("Passwords", "a/b c", "password", "slash and space"),
    ("Network Management", "{3f5c};802-11-wireless-security", "map",
     {"psk": "wifi secret", "leap-password": ""}),
    ("Network Management", "{3f5c};vpn", "map", {}),
    ("Form Data", "https://example.org/#login", "map", {"user": "alice", "pass": "x=y&z"}),
    ("Chromium Keys", "Chromium Safe Storage", "password", "c2VjcmV0LWtleS0xMjM0NTY3OA=="),
    ("Blobs", "binary", "stream", bytes([0, 0xFF, 1, 0x80, 0, 0x7F, 0xFE])),
    ("Blobs", "empty stream", "stream", b""),
    ("Ünïcode folder", "key", "password", "v"),
    # Where kwalletd5's own Secret Service keeps what libsecret programs store: KWalletImportTests
    # writes their side-file records.
    ("Secret Service", "Web login", "password", "web secret 1"),
    ("Secret Service", "Web login__0_", "password", "web secret 2"),
]

held = {}
for index, argument in enumerate(sys.argv[1:]):
    name, password = argument.split("=", 1)
    handle = make(name, password)
    entries = EVERYTHING if index == 0 else [("Passwords", "only", "password", name + " secret")]
    held[name] = fill(handle, entries)
    assert wallet.close(name, True, signature="sb") == 0
print(json.dumps(held, ensure_ascii=False, sort_keys=True))
