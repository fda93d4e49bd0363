#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Calls a provider's Flatpak portal backend as xdg-desktop-portal does:
# org.freedesktop.impl.portal.Secret.RetrieveSecret(handle, app_id, fd, options) on
# /org/freedesktop/portal/desktop of org.freedesktop.secrets, with the write end of a pipe.
# Prints the response code and the key it wrote, in hex. Argument: the app id.

import os
import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

app_id = sys.argv[1]
connection = open_dbus_connection("SESSION", enable_fds=True)
portal = DBusAddress("/org/freedesktop/portal/desktop", "org.freedesktop.secrets",
                     "org.freedesktop.impl.portal.Secret")
read_end, write_end = os.pipe()
handle = "/org/freedesktop/portal/desktop/request/1_1/test"
reply = connection.send_and_get_reply(
    new_method_call(portal, "RetrieveSecret", "osha{sv}", (handle, app_id, write_end, {})),
    timeout=60)
os.close(write_end)
key = b""
while chunk := os.read(read_end, 4096):
    key += chunk
print(reply.body[0], key.hex())
