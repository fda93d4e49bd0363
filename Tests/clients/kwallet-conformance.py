#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Drives every method of org.kde.KWallet on org.kde.kwalletd5 (DBUS_SESSION_BUS_ADDRESS) with
# valid, stale and foreign handles, missing folders and keys, both overloads and the wildcard
# list methods, and prints one JSON line per step: the call, its reply and the signals it
# caused. The same script runs against Debian's kwalletd5 and against keychaind, and the test
# compares the two outputs; handles and transaction ids, random in both, are numbered in order
# of appearance.
#
# With --pam-open PASSWORD it first makes the wallet `kdewallet` the way kwallet-pam does (a
# salt file, a PBKDF2-SHA512 key, pamOpen), so that kwalletd5 opens it without a dialog; with
# --pam-open PASSWORD --only it does that alone (Benchmarks/scripts/kwallet.sh).

import json
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib
from kwallet_forms import ay, pam_open, qmap, qstring

NAME, PATH, INTERFACE = "org.kde.kwalletd5", "/modules/kwalletd5", "org.kde.KWallet"
APP = "conformance"

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
wallet = dbus.Interface(bus.get_object(NAME, PATH), INTERFACE)
arrived = []
bus.add_signal_receiver(
    lambda *args, **kw: arrived.append((kw["member"], list(args))),
    dbus_interface=INTERFACE, path=PATH, member_keyword="member")

handles, transactions = {}, {}


def handle_name(value):
    if value <= 0:
        return value
    return handles.setdefault(value, "H%d" % (len(handles) + 1))


def plain(value):
    """A reply as JSON: byte arrays in hex, dictionaries sorted."""
    if isinstance(value, dbus.Array) and value.signature == "y":
        return "hex:" + bytes(value).hex()
    if isinstance(value, (dbus.Array, list)):
        return [plain(v) for v in value]
    if isinstance(value, dbus.Dictionary):
        return {str(k): plain(v) for k, v in sorted(value.items())}
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Int32, dbus.Int64, int)):
        return int(value)
    if value is None:
        return None
    return str(value)


def drain(seconds=0.1):
    """Runs the main loop until no message has come for a while."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if context.pending():
            context.iteration(False)
            deadline = time.monotonic() + seconds
        else:
            time.sleep(0.01)


def signal_text(member, args):
    if member == "walletAsyncOpened":
        tid, handle = int(args[0]), int(args[1])
        return "%s(%s,%s)" % (member, transactions.get(tid, "T?"), handle_name(handle))
    if member in ("walletClosedId", "walletClosed") and args and isinstance(args[0], dbus.Int32):
        return "%s(%s)" % (member, handle_name(int(args[0])))
    return "%s(%s)" % (member, ",".join(str(a) for a in args))


def step(label, method, *args, signature=None, handle_reply=False, transaction_reply=False):
    drain(0.05)
    arrived.clear()
    try:
        reply = getattr(wallet, method)(*args, signature=signature, timeout=30)
        if transaction_reply:
            transactions[int(reply)] = "T%d" % (len(transactions) + 1)
            result = transactions[int(reply)]
        elif handle_reply:
            result = handle_name(int(reply))
        else:
            result = plain(reply)
    except dbus.DBusException as error:
        result = "error " + error.get_dbus_name()
    drain()
    # walletListDirty is left out: kwalletd5 sends it from a watch on its directory, whenever
    # a file there changes, not in step with the calls.
    signals = sorted(signal_text(m, a) for m, a in arrived if m != "walletListDirty")
    print(json.dumps({"step": label, "reply": result, "signals": signals}, ensure_ascii=False))
    sys.stdout.flush()
    return reply if handle_reply or transaction_reply else None


def introspection():
    """org.kde.KWallet's members as introspection gives them: name and signatures, sorted."""
    import xml.etree.ElementTree as ET
    xml = bus.get_object(NAME, PATH).Introspect(dbus_interface="org.freedesktop.DBus.Introspectable")
    members = []
    for interface in ET.fromstring(str(xml)).findall("interface"):
        if interface.get("name") != INTERFACE:
            continue
        for member in interface:
            args = member.findall("arg")
            if member.tag == "signal":
                # Qt writes direction="out" on a signal's arguments; the specification leaves
                # it out.
                members.append("signal %s(%s)" % (member.get("name"),
                                                  "".join(a.get("type") for a in args)))
                continue
            inputs = "".join(a.get("type") for a in args if a.get("direction", "in") == "in")
            outputs = "".join(a.get("type") for a in args if a.get("direction") == "out")
            members.append("%s %s(%s)%s" % (member.tag, member.get("name"), inputs,
                                           " -> " + outputs if outputs else ""))
    return sorted(members)


if len(sys.argv) >= 3 and sys.argv[1] == "--pam-open":
    pam_open(wallet, "kdewallet", sys.argv[2])
    if sys.argv[3:] == ["--only"]:
        sys.exit(0)

print(json.dumps({"step": "introspection", "reply": introspection(), "signals": []}))

h = step("open", "open", "kdewallet", 0, APP, signature="sxs", handle_reply=True)
# Setup, not compared: kwalletd5 gives a new wallet two folders of its own.
for folder in ("Passwords", "Form Data", "F"):
    wallet.removeFolder(h, folder, APP, signature="iss")
drain()

step("isEnabled", "isEnabled")
step("networkWallet", "networkWallet")
step("localWallet", "localWallet")
step("wallets", "wallets")
step("open again", "open", "kdewallet", 0, APP, signature="sxs", handle_reply=True)
step("isOpen(handle)", "isOpen", h, signature="i")
step("isOpen(wallet)", "isOpen", "kdewallet", signature="s")
step("isOpen(other wallet)", "isOpen", "nowallet", signature="s")
step("users", "users", "kdewallet")
step("folderList, empty", "folderList", h, APP)
step("hasFolder, missing", "hasFolder", h, "F", APP)
step("createFolder", "createFolder", h, "F", APP)
step("createFolder, again", "createFolder", h, "F", APP)
step("hasFolder", "hasFolder", h, "F", APP)
step("folderList", "folderList", h, APP)
step("entryList, empty folder", "entryList", h, "F", APP)

step("writePassword", "writePassword", h, "F", "pw", "hünter2 ✓", APP)
step("readPassword", "readPassword", h, "F", "pw", APP)
step("readEntry of a password", "readEntry", h, "F", "pw", APP)
step("readMap of a password", "readMap", h, "F", "pw", APP)
step("entryType of a password", "entryType", h, "F", "pw", APP)
step("writePassword, multi-line", "writePassword", h, "F", "lines", "a\nb\n", APP)
step("readPassword, multi-line", "readPassword", h, "F", "lines", APP)
step("writePassword, empty", "writePassword", h, "F", "empty", "", APP)
step("readPassword, empty", "readPassword", h, "F", "empty", APP)

blob = bytes([0, 0xFF, 1, 0x80, 0, 0x7F])
step("writeEntry(stream)", "writeEntry", h, "F", "blob", ay(blob), APP, signature="issays")
step("readEntry of a stream", "readEntry", h, "F", "blob", APP)
step("readPassword of a stream", "readPassword", h, "F", "blob", APP)
step("entryType of a stream", "entryType", h, "F", "blob", APP)
step("writeEntry(stream), empty", "writeEntry", h, "F", "noblob", ay(b""), APP, signature="issays")
step("readEntry, empty stream", "readEntry", h, "F", "noblob", APP)

wifi = {"psk": "s3cret", "ssid": "home net", "é": "ü"}
step("writeMap", "writeMap", h, "Network Management", "{uuid};wifi", ay(qmap(wifi)), APP)
step("readMap", "readMap", h, "Network Management", "{uuid};wifi", APP)
step("readEntry of a map", "readEntry", h, "Network Management", "{uuid};wifi", APP)
step("entryType of a map", "entryType", h, "Network Management", "{uuid};wifi", APP)
step("writeMap, empty", "writeMap", h, "Network Management", "nomap", ay(qmap({})), APP)
step("readMap, empty", "readMap", h, "Network Management", "nomap", APP)

step("writeEntry(type password)", "writeEntry", h, "F", "typed", ay(qstring("typed pw")), 1, APP,
     signature="issayis")
step("readPassword, typed", "readPassword", h, "F", "typed", APP)
step("writeEntry(type stream)", "writeEntry", h, "F", "typed2", ay(b"\x01\x02"), 2, APP,
     signature="issayis")
step("readEntry, typed stream", "readEntry", h, "F", "typed2", APP)
step("writeEntry(type map)", "writeEntry", h, "F", "typed3", ay(qmap({"k": "v"})), 3, APP,
     signature="issayis")
step("readMap, typed", "readMap", h, "F", "typed3", APP)
step("writePassword over a stream", "writePassword", h, "F", "typed2", "now text", APP)
step("entryType after a change of kind", "entryType", h, "F", "typed2", APP)
step("readPassword after a change of kind", "readPassword", h, "F", "typed2", APP)

step("folderList, two folders", "folderList", h, APP)
step("entryList", "entryList", h, "F", APP)
step("entriesList", "entriesList", h, "F", APP)
step("passwordList", "passwordList", h, "F", APP)
step("mapList", "mapList", h, "Network Management", APP)
step("readPasswordList *", "readPasswordList", h, "F", "*", APP)
step("readPasswordList t?ped*", "readPasswordList", h, "F", "t?ped*", APP)
step("readPasswordList *@*", "readPasswordList", h, "F", "*@*", APP)
step("readEntryList [bn]*", "readEntryList", h, "F", "[bn]*", APP)
step("readMapList {*", "readMapList", h, "Network Management", "{*", APP)
step("hasEntry", "hasEntry", h, "F", "pw", APP)
step("hasEntry, missing key", "hasEntry", h, "F", "nope", APP)
step("hasEntry, missing folder", "hasEntry", h, "G", "pw", APP)
step("entryType, missing key", "entryType", h, "F", "nope", APP)
step("entryType, missing folder", "entryType", h, "G", "pw", APP)
step("readPassword, missing", "readPassword", h, "F", "nope", APP)
step("readEntry, missing", "readEntry", h, "F", "nope", APP)
step("entryList, missing folder", "entryList", h, "G", APP)

step("renameEntry", "renameEntry", h, "F", "pw", "pw2", APP)
step("readPassword, renamed", "readPassword", h, "F", "pw2", APP)
step("renameEntry, missing", "renameEntry", h, "F", "pw", "pw3", APP)
step("removeEntry", "removeEntry", h, "F", "pw2", APP)
step("removeEntry, missing key", "removeEntry", h, "F", "pw2", APP)
step("removeEntry, missing folder", "removeEntry", h, "G", "pw2", APP)

stale = dbus.Int32(h + 1 if h < 2**31 - 1 else 1)
step("readPassword, unknown handle", "readPassword", stale, "F", "lines", APP)
step("writePassword, unknown handle", "writePassword", stale, "F", "x", "y", APP)
step("folderList, unknown handle", "folderList", stale, APP)
step("removeEntry, unknown handle", "removeEntry", stale, "F", "lines", APP)
step("readPassword, another appid", "readPassword", h, "F", "lines", "intruder")
step("isOpen, unknown handle", "isOpen", stale, signature="i")

step("folderDoesNotExist", "folderDoesNotExist", "kdewallet", "F")
step("folderDoesNotExist, missing", "folderDoesNotExist", "kdewallet", "G")
step("folderDoesNotExist, no wallet", "folderDoesNotExist", "nowallet", "F")
step("keyDoesNotExist", "keyDoesNotExist", "kdewallet", "F", "lines")
step("keyDoesNotExist, missing", "keyDoesNotExist", "kdewallet", "F", "nope")
step("keyDoesNotExist, no wallet", "keyDoesNotExist", "nowallet", "F", "lines")
step("removeFolder", "removeFolder", h, "Network Management", APP)
step("removeFolder, missing", "removeFolder", h, "Network Management", APP)
step("sync", "sync", h, APP)
step("reconfigure", "reconfigure")

step("openAsync", "openAsync", "kdewallet", 0, APP, True, transaction_reply=True)
step("close(handle), another appid", "close", h, False, "intruder", signature="ibs")
step("disconnectApplication, unknown", "disconnectApplication", "kdewallet", "nobody")
step("close(wallet), in use", "close", "kdewallet", False, signature="sb")
step("close(wallet, force)", "close", "kdewallet", True, signature="sb")
step("isOpen(wallet), closed", "isOpen", "kdewallet", signature="s")
step("isOpen(handle), closed", "isOpen", h, signature="i")
step("readPassword, closed handle", "readPassword", h, "F", "lines", APP)
step("close(wallet), not open", "close", "kdewallet", False, signature="sb")
# Last: kwalletd5 queues every open behind this one, which waits for a dialog.
step("openPath", "openPath", "/nonexistent.kwl", 0, APP)
