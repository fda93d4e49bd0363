#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Calls a provider's Flatpak portal backend as xdg-desktop-portal does:
# org.freedesktop.impl.portal.Secret.RetrieveSecret(handle, app_id, fd, options) on
# /org/freedesktop/portal/desktop of org.freedesktop.secrets, with the write end of a pipe.
# Prints the response code and the key it wrote, in hex, or the D-Bus error's name.
# Arguments: the app id, then any of
#   --as-portal     own org.freedesktop.portal.Desktop first, as xdg-desktop-portal does
#   --close-reader  close the pipe's read end before the call (an app that went away)

import os
import sys

from jeepney import DBusAddress, DBusErrorResponse, MessageType, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

app_id, flags = sys.argv[1], set(sys.argv[2:])
connection = open_dbus_connection("SESSION", enable_fds=True)
if "--as-portal" in flags:
    connection.send_and_get_reply(message_bus.RequestName("org.freedesktop.portal.Desktop", 4))
portal = DBusAddress("/org/freedesktop/portal/desktop", "org.freedesktop.secrets",
                     "org.freedesktop.impl.portal.Secret")
read_end, write_end = os.pipe()
if "--close-reader" in flags:
    os.close(read_end)
handle = "/org/freedesktop/portal/desktop/request/1_1/test"
reply = connection.send_and_get_reply(
    new_method_call(portal, "RetrieveSecret", "osha{sv}", (handle, app_id, write_end, {})),
    timeout=120)
os.close(write_end)
if reply.header.message_type == MessageType.error:
    print(reply.header.fields.get(4, "error"))  # the error name
    sys.exit(0)
key = b""
if "--close-reader" not in flags:
    while chunk := os.read(read_end, 4096):
        key += chunk
print(reply.body[0], key.hex())
