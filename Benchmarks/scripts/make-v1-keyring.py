#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Writes a v1 keyring file (the format of oo7 and libsecret's file backend) with ITEMS items,
# keyed by PASSWORD, as those writers do: PBKDF2-HMAC-SHA256 (100,000 iterations, 32-byte salt)
# into a 16-byte key for AES-128-CBC and HMAC-SHA256 over ciphertext and IV, the GVariant
# serialised by GLib itself. Independent of keychaind's own writer, and far quicker than
# storing thousands of items through secret-tool one by one.
#
#   make-v1-keyring.py FILE ITEMS PASSWORD

import hashlib
import hmac
import os
import sys
import time

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from gi.repository import GLib

path, count, password = sys.argv[1], int(sys.argv[2]), sys.argv[3].encode()
salt = os.urandom(32)
key = hashlib.pbkdf2_hmac("sha256", password, salt, 100000, 16)
now = int(time.time())


def mac(data):
    return hmac.new(key, data, hashlib.sha256).digest()


items = []
for n in range(count):
    attributes = {"service": "bench", "user": f"user{n}", "xdg:content-type": "text/plain"}
    plain = GLib.Variant("(a{ss}sttay)", (attributes, f"Item {n}", now, now, f"secret-{n}".encode()))
    padder = padding.PKCS7(128).padder()
    data = padder.update(plain.get_data_as_bytes().get_data()) + padder.finalize()
    iv = os.urandom(16)
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    blob = encryptor.update(data) + encryptor.finalize() + iv
    blob += mac(blob)
    index = {name: list(mac(value.encode())) for name, value in attributes.items()}
    items.append((index, list(blob)))
body = GLib.Variant("(uayutua(a{say}ay))", (len(salt), list(salt), 100000, now, 1, items))
with open(path, "wb") as out:
    out.write(b"GnomeKeyring\n\r\0\n\x01\x00" + body.get_data_as_bytes().get_data())
