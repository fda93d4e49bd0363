#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# A stand-in for systemd-logind on a private *system* bus (DBUS_SYSTEM_BUS_ADDRESS), as far as
# keychaind uses it: Manager.GetSessionByPID / GetSession (one session, _31; with
# FAKE_LOGIND_NO_PID=1 GetSessionByPID fails, as for a daemon the user's systemd started),
# Manager.GetUser and the User's Display and Sessions properties, Manager.Inhibit (a pipe: the
# caller holds one end, and closing it releases the inhibitor), and, on the test's request
# through org.keychain_linux.FakeLogind:
#   Emit("lock")          Session.Lock on the session
#   Emit("locked-hint")   PropertiesChanged(LockedHint: true) on the session
#   Emit("idle"/"active") PropertiesChanged(IdleHint: true/false) on the session
#   Emit("sleep"/"wake")  Manager.PrepareForSleep(true/false)
#   Emit("end")           the session goes: Manager.SessionRemoved, and the user has none left
#   Inhibitors() -> (taken, released, what/who/why/mode of the last)
# Prints "ready" once it owns org.freedesktop.login1.

import os
import select
import sys

from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.fds import FileDescriptor
from jeepney.io.blocking import open_dbus_connection

MANAGER_PATH = "/org/freedesktop/login1"
SESSION_PATH = "/org/freedesktop/login1/session/_31"
USER_PATH = "/org/freedesktop/login1/user/_0"
sessions = [("_31", SESSION_PATH)]
connection = open_dbus_connection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"], enable_fds=True)
connection.send_and_get_reply(message_bus.RequestName("org.freedesktop.login1", 4))
print("ready", flush=True)

held = []      # our ends of the inhibitor pipes, still open on the other side
released = 0
taken = 0
last = ""


def emit(path, interface, member, signature=None, body=()):
    connection.send(new_signal(DBusAddress(path, interface=interface), member, signature, body))


def reap():
    """Counts inhibitors whose holder closed its end."""
    global released
    readable, _, _ = select.select(held, [], [], 0) if held else ([], [], [])
    for fd in readable:
        if os.read(fd, 1) == b"":
            held.remove(fd)
            os.close(fd)
            released += 1


while True:
    reap()
    try:
        message = connection.receive(timeout=0.05)
    except TimeoutError:
        continue
    if message.header.message_type != MessageType.method_call:
        continue
    member = message.header.fields.get(HeaderFields.member)
    if member == "GetSessionByPID" and os.environ.get("FAKE_LOGIND_NO_PID") == "1":
        connection.send(new_error(message, "org.freedesktop.login1.NoSessionForPID"))
    elif member in ("GetSessionByPID", "GetSession"):
        connection.send(new_method_return(message, "o", (SESSION_PATH,)))
    elif member == "GetUser":
        connection.send(new_method_return(message, "o", (USER_PATH,)))
    elif member == "Get" and message.body == ("org.freedesktop.login1.User", "Display"):
        display = sessions[0] if sessions else ("", "/")
        connection.send(new_method_return(message, "v", (("(so)", display),)))
    elif member == "Get" and message.body == ("org.freedesktop.login1.User", "Sessions"):
        connection.send(new_method_return(message, "v", (("a(so)", list(sessions)),)))
    elif member == "Inhibit":
        read_end, write_end = os.pipe()
        held.append(read_end)
        taken += 1
        last = " ".join(message.body)
        handed = FileDescriptor(write_end)
        connection.send(new_method_return(message, "h", (handed,)))
        handed.close()  # the caller's copy is the one that holds the inhibitor
    elif member == "Emit":
        what = message.body[0]
        if what == "lock":
            emit(SESSION_PATH, "org.freedesktop.login1.Session", "Lock")
        elif what == "locked-hint":
            emit(SESSION_PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
                 ("org.freedesktop.login1.Session", {"LockedHint": ("b", True)}, []))
        elif what in ("idle", "active"):
            emit(SESSION_PATH, "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
                 ("org.freedesktop.login1.Session", {"IdleHint": ("b", what == "idle")}, []))
        elif what == "end":
            sessions.clear()
            emit(MANAGER_PATH, "org.freedesktop.login1.Manager", "SessionRemoved", "so",
                 ("_31", SESSION_PATH))
        elif what in ("sleep", "wake"):
            emit(MANAGER_PATH, "org.freedesktop.login1.Manager", "PrepareForSleep", "b",
                 (what == "sleep",))
        connection.send(new_method_return(message))
    elif member == "Inhibitors":
        reap()
        connection.send(new_method_return(message, "uus", (taken, released, last)))
    else:
        connection.send(new_error(message, "org.freedesktop.DBus.Error.UnknownMethod"))
