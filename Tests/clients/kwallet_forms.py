# SPDX-License-Identifier: MIT
#
# What the KWallet test scripts share: Qt's data stream forms of a string and a string map (as
# KWallet's clients send them in `ay` values), a D-Bus byte array, and making a wallet the way
# kwallet-pam does, so that kwalletd5 opens it with no dialog.

import hashlib
import os
import sys
import time

import dbus


def qstring(text):
    data = text.encode("utf-16-be")
    return len(data).to_bytes(4, "big") + data


def qmap(pairs):
    """As Qt 5 writes a QMap<QString,QString>: the count, then pairs in descending key order."""
    out = len(pairs).to_bytes(4, "big")
    for key in sorted(pairs, reverse=True):
        out += qstring(key) + qstring(pairs[key])
    return out


def ay(data):
    return dbus.Array(list(data), signature="y")


def pam_open(wallet, name, password):
    """Makes (or opens) `name` in kwalletd5 as kwallet-pam does: a 56-byte salt file and a
    PBKDF2-SHA512 key from the password, handed over with pamOpen; waits until it is open."""
    directory = os.path.join(os.environ["XDG_DATA_HOME"], "kwalletd")
    os.makedirs(directory, exist_ok=True)
    salt = os.urandom(56)
    with open(os.path.join(directory, name + ".salt"), "wb") as f:
        f.write(salt)
    os.chmod(os.path.join(directory, name + ".salt"), 0o600)
    key = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, 50000, 56)
    wallet.pamOpen(name, ay(key), 0, signature="sayi")
    for _ in range(500):
        if wallet.isOpen(name, signature="s"):
            return
        time.sleep(0.02)
    sys.exit("kwalletd5 did not open " + name + " after pamOpen")
