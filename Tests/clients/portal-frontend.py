#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# A Flatpak app asking xdg-desktop-portal for its secret, as libsecret's file backend does:
# org.freedesktop.portal.Secret.RetrieveSecret(fd, {handle_token}) on the portal frontend, then
# the Request's Response signal, then the key read from the pipe to its end. Subscribes to the
# Response before calling, as the portal documentation asks. Prints "response N" and
# "key HEX". Run inside a sandbox whose /.flatpak-info names the app (the portal reads the
# caller's app id from there).

import os
import secrets
import sys

from jeepney import DBusAddress, MatchRule, MessageType, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

connection = open_dbus_connection("SESSION", enable_fds=True)
token = "keychain" + secrets.token_hex(4)
sender = connection.unique_name[1:].replace(".", "_")
handle = f"/org/freedesktop/portal/desktop/request/{sender}/{token}"
rule = MatchRule(type="signal", interface="org.freedesktop.portal.Request", member="Response",
                 path=handle)
connection.send_and_get_reply(message_bus.AddMatch(rule))
portal = DBusAddress("/org/freedesktop/portal/desktop", "org.freedesktop.portal.Desktop",
                     "org.freedesktop.portal.Secret")
read_end, write_end = os.pipe()
with connection.filter(rule) as queue:
    reply = connection.send_and_get_reply(
        new_method_call(portal, "RetrieveSecret", "ha{sv}",
                        (write_end, {"handle_token": ("s", token)})), timeout=600)
    os.close(write_end)
    if reply.header.message_type == MessageType.error:
        print("error", reply.body)
        sys.exit(1)
    response = connection.recv_until_filtered(queue, timeout=600)
print("response", response.body[0])
key = b""
while chunk := os.read(read_end, 4096):
    key += chunk
print("key", key.hex())
