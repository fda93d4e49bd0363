#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Asks a credentials socket for a credential exactly as systemd's service manager does for
# LoadCredential=ID:/path/to/socket: a stream socket bound to an abstract address that names the
# unit and the credential, connected, its sending side shut, read to the end. The address format
# is read from the installed systemd itself (libsystemd-core's "@%lx/unit/%s/%s"), so the test
# follows the systemd at hand. Writes what it read to standard output.
#
#   systemd-credential.py SOCKET UNIT CREDENTIAL_ID

import glob
import os
import re
import socket
import sys

socket_path, unit, credential = sys.argv[1:4]
libraries = sorted(glob.glob("/usr/lib/*/systemd/libsystemd-core-*.so")
                   + glob.glob("/usr/lib/systemd/libsystemd-core-*.so")
                   + glob.glob("/lib/systemd/libsystemd-core-*.so"))
if not libraries:
    sys.exit("no libsystemd-core here to read the address format from")
with open(libraries[0], "rb") as f:
    found = re.search(rb"@%(l?x|" + rb"ll?x)/unit/%s/%s\0", f.read())
if not found:
    sys.exit(f"{libraries[0]} has no LoadCredential= bind name format")
name = found.group(0)[:-1].decode().replace("%llx", "%x").replace("%lx", "%x")
address = "\0" + (name % (int.from_bytes(os.urandom(8), "little"), unit, credential))[1:]

client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
client.bind(address)
client.connect(socket_path)
client.shutdown(socket.SHUT_WR)
data = b""
while True:
    chunk = client.recv(4096)
    if not chunk:
        break
    data += chunk
sys.stdout.buffer.write(data)
