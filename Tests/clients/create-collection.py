#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Creates a collection through gnome-keyring's CreateWithMasterPassword with the password on
# standard input, which may be empty (keychainctl refuses an empty one; gnome-keyring then
# writes the keyring unencrypted, as text). Prints the new collection's path.
# Argument: the collection's label.

import sys

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

label = sys.argv[1]
password = sys.stdin.buffer.read()
connection = open_dbus_connection("SESSION")
service = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets",
                      "org.freedesktop.Secret.Service")
session = connection.send_and_get_reply(
    new_method_call(service, "OpenSession", "sv", ("plain", ("s", "")))).body[1]
internal = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets",
                       "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface")
reply = connection.send_and_get_reply(new_method_call(
    internal, "CreateWithMasterPassword", "a{sv}(oayays)",
    ({"org.freedesktop.Secret.Collection.Label": ("s", label)},
     (session, b"", password, "text/plain"))))
print(reply.body[0])
