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

import hashlib
import json
import os
import sys
import time

import dbus

bus = dbus.SessionBus()
wallet = dbus.Interface(bus.get_object("org.kde.kwalletd5", "/modules/kwalletd5"),
                        "org.kde.KWallet")
APP = "fixture"


def qstring(text):
    data = text.encode("utf-16-be")
    return len(data).to_bytes(4, "big") + data


def qmap(pairs):
    out = len(pairs).to_bytes(4, "big")
    for key in sorted(pairs, reverse=True):
        out += qstring(key) + qstring(pairs[key])
    return out


def ay(data):
    return dbus.Array(list(data), signature="y")


def make(name, password):
    directory = os.path.join(os.environ["XDG_DATA_HOME"], "kwalletd")
    os.makedirs(directory, exist_ok=True)
    salt = os.urandom(56)
    with open(os.path.join(directory, name + ".salt"), "wb") as f:
        f.write(salt)
    key = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, 50000, 56)
    wallet.pamOpen(name, ay(key), 0, signature="sayi")
    for _ in range(500):
        if wallet.isOpen(name, signature="s"):
            break
        time.sleep(0.02)
    else:
        sys.exit("kwalletd5 did not open " + name)
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
]

held = {}
for index, argument in enumerate(sys.argv[1:]):
    name, password = argument.split("=", 1)
    handle = make(name, password)
    entries = EVERYTHING if index == 0 else [("Passwords", "only", "password", name + " secret")]
    held[name] = fill(handle, entries)
    assert wallet.close(name, True, signature="sb") == 0
print(json.dumps(held, ensure_ascii=False, sort_keys=True))
