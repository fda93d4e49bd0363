#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# A Secret Service client run inside a sandbox that has only a share's bus
# (Tests/KeychaindTests/ShareTests.swift), through SecretStorage and python-keyring as any
# application would use them. One mode per run; prints what it saw as JSON on stdout.
#
#   list                       every collection and item it can find, with their secrets
#   probe PATH                 whether the object at PATH answers (an item outside the share)
#   keyring-set SERVICE USER PASSWORD, keyring-get SERVICE USER   python-keyring's backend
#   names                      the names on the bus
#   hold DIR                   connects, writes DIR/connected, waits for DIR/go, reads again

import json
import os
import sys
import time

import secretstorage
from jeepney import DBusAddress, new_method_call


def listing(bus):
    collections = []
    for collection in secretstorage.get_all_collections(bus):
        items = sorted(
            [item.get_label(), item.get_secret().decode()] for item in collection.get_all_items()
        )
        collections.append({"path": collection.collection_path, "items": items})
    default = secretstorage.get_default_collection(bus).collection_path
    return {"collections": collections, "default": default}


def main():
    mode = sys.argv[1]
    if mode.startswith("keyring-"):
        from keyring.backends import SecretService

        backend = SecretService.Keyring()
        if mode == "keyring-set":
            backend.set_password(sys.argv[2], sys.argv[3], sys.argv[4])
            print(json.dumps({"set": True}))
        else:
            print(json.dumps({"password": backend.get_password(sys.argv[2], sys.argv[3])}))
        return
    bus = secretstorage.dbus_init()
    if mode == "list":
        print(json.dumps(listing(bus)))
    elif mode == "probe":
        try:
            secretstorage.Item(bus, sys.argv[2]).get_label()
            print(json.dumps({"present": True}))
        except Exception as error:  # the error's text names the D-Bus error
            print(json.dumps({"present": False, "error": str(error)}))
    elif mode == "names":
        driver = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus",
                             interface="org.freedesktop.DBus")
        names = bus.send_and_get_reply(new_method_call(driver, "ListNames")).body[0]
        print(json.dumps(sorted(name for name in names if not name.startswith(":"))))
    elif mode == "hold":
        directory = sys.argv[2]
        before = listing(bus)
        open(os.path.join(directory, "connected"), "w").close()
        # Until the test says go: a bound on a hang, not a guess at a duration.
        deadline = time.monotonic() + 600
        while not os.path.exists(os.path.join(directory, "go")) and time.monotonic() < deadline:
            time.sleep(0.01)
        try:
            after = listing(bus)
            print(json.dumps({"before": before, "after": after}))
        except Exception as error:
            print(json.dumps({"before": before, "cut": type(error).__name__}))


main()
