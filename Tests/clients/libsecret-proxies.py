#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# libsecret's own proxies, as Seahorse and every GNOME application hold them, kept open while
# other clients (secret-tool, keychainctl) change the keyring. After each step the proxies must
# show what the provider holds: libsecret keeps its item lists from PropertiesChanged values and
# ItemCreated/ItemDeleted/ItemChanged, so a provider that sends them wrong leaves stale lists,
# blank labels, or crashes this process.
#
# Run by KeychaindTests.LibsecretProxyTests against keychaind and against gnome-keyring, on a
# private bus (DBUS_SESSION_BUS_ADDRESS from the test). Arguments: the keychainctl binary, the
# provider ("keychaind" or "gnome-keyring"), and a scenario:
#   live             the login collection is unlocked and holds items "A" and "B"
#   locked-at-start  the login collection holds "A" and "B" and has been locked since the
#                    provider started, so it has never shown their labels
# Prints "OK" and exits 0, or exits 1 with the step that failed.

import subprocess
import sys
import time

import gi

gi.require_version("Secret", "1")
from gi.repository import Gio, GLib, Secret  # noqa: E402

KEYCHAINCTL, PROVIDER, SCENARIO = sys.argv[1], sys.argv[2], sys.argv[3]
LOGIN_PASSWORD = "password"


def run(*command, stdin=""):
    """Another client's step; the proxies see it only through the provider's signals."""
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        fail(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")


def fail(message):
    print(f"FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def settle(step, condition, describe):
    """Lets the main loop deliver signals until condition() holds: a bound, not a speed check."""
    context = GLib.MainContext.default()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        while context.pending():
            context.iteration(False)
        if condition():
            return
        time.sleep(0.02)
    fail(f"{step}: expected {describe()}")


service = Secret.Service.get_sync(
    Secret.ServiceFlags.OPEN_SESSION | Secret.ServiceFlags.LOAD_COLLECTIONS, None
)


def collection(label):
    return next((c for c in service.get_collections() or [] if c.get_label() == label), None)


login = collection("Login")
if login is None:
    fail("no collection labelled Login")
login.load_items_sync(None)


def labels(coll):
    return sorted(item.get_label() for item in coll.get_items() or [])


def expect_labels(step, coll, wanted):
    settle(step, lambda: labels(coll) == wanted, lambda: f"labels {wanted}, have {labels(coll)}")


def provider_locked(path, interface):
    """The provider's own answer now, past libsecret's cache: tells a stale proxy from a
    provider that answers wrong when a step fails."""
    try:
        reply = service.get_connection().call_sync(
            "org.freedesktop.secrets", path, "org.freedesktop.DBus.Properties", "Get",
            GLib.Variant("(ss)", (interface, "Locked")), None, Gio.DBusCallFlags.NONE, 5000, None)
        return reply.unpack()[0]
    except GLib.Error as error:
        return error.message


def expect_locked(step, coll, locked):
    def holds():
        items = coll.get_items() or []
        return coll.get_locked() == locked and all(i.get_locked() == locked for i in items)

    def describe():
        path = coll.get_object_path()
        seen = [f"collection {coll.get_locked()} (provider: "
                f"{provider_locked(path, 'org.freedesktop.Secret.Collection')})"]
        for item in coll.get_items() or []:
            item_path = item.get_object_path()
            seen.append(f"{item_path} {item.get_locked()} (provider: "
                        f"{provider_locked(item_path, 'org.freedesktop.Secret.Item')})")
        return f"collection and items locked={locked}; the proxies hold: " + ", ".join(seen)

    settle(step, holds, describe)


def store(label, value):
    run("secret-tool", "store", f"--label={label}", "app", value, stdin="secret")


if SCENARIO == "locked-at-start":
    expect_locked("at start", login, True)
    # Neither provider has read the labels yet: they are sealed in the keyring file.
    expect_labels("while locked since the start", login, ["", ""])
    run(KEYCHAINCTL, "unlock", "--collection", "Login", "--password-stdin", stdin=LOGIN_PASSWORD)
    expect_locked("unlock", login, False)
    expect_labels("unlock shows the labels", login, ["A", "B"])
elif SCENARIO == "live":
    expect_labels("at start", login, ["A", "B"])

    store("C", "c")
    expect_labels("an item stored by secret-tool appears", login, ["A", "B", "C"])
    store("C renamed", "c")
    # gnome-keyring announces a replace with ItemCreated alone, on a path libsecret already
    # holds, so its proxy keeps the old label; keychaind adds ItemChanged, which refreshes it.
    renamed = "C" if PROVIDER == "gnome-keyring" else "C renamed"
    expect_labels("a replaced item shows its new label", login, ["A", "B", renamed])
    run("secret-tool", "clear", "app", "c")
    expect_labels("a cleared item disappears", login, ["A", "B"])

    run(KEYCHAINCTL, "create", "Work", "--password-stdin", stdin="work password")
    settle("a new collection appears", lambda: collection("Work") is not None, lambda: "Work")
    work = collection("Work")
    work.load_items_sync(None)
    run(KEYCHAINCTL, "store", "--label", "W", "--collection", work.get_object_path(), "app", "w",
        stdin="secret")
    expect_labels("an item in the new collection appears", work, ["W"])

    run(KEYCHAINCTL, "lock", "--collection", "Login")
    expect_locked("lock", login, True)
    expect_labels("a locked collection keeps its labels", login, ["A", "B"])
    run(KEYCHAINCTL, "unlock", "--collection", "Login", "--password-stdin", stdin=LOGIN_PASSWORD)
    expect_locked("unlock", login, False)
    expect_labels("unlock", login, ["A", "B"])

    run(KEYCHAINCTL, "delete", "Work")
    settle("a deleted collection disappears", lambda: collection("Work") is None, lambda: "no Work")
    store("D", "d")
    expect_labels("items still follow after all that", login, ["A", "B", "D"])
else:
    fail(f"unknown scenario {SCENARIO}")

print("OK")
