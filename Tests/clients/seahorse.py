#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Seahorse itself, on a virtual X display, kept open while the keyring changes under it: items
# stored and deleted by other clients, an item deleted in Seahorse's own window, the login
# collection locked and unlocked, a keyring created and deleted. After each step Seahorse must
# still be running and show what the provider holds. What it shows is read from its
# accessibility tree (AT-SPI), never from pixels; the one action taken in its window (deleting an
# item) is a keyboard press on a focused row and two button clicks through AT-SPI.
#
# Run by KeychaindTests.SeahorseTests against keychaind and against gnome-keyring, on a private
# bus (DBUS_SESSION_BUS_ADDRESS from the test; the accessibility bus is started on it too).
# Arguments: the keychainctl binary and the provider's name (for messages). The login
# collection must be unlocked with the password "password" and hold items "A" and "B" stored by
# secret-tool with attributes {app: a} and {app: b}.
# Prints "OK" and exits 0, or exits 1 with the step that failed and Seahorse's tree.
#
# With a third argument, "protect" (keychaind in access-control = protect, the journey of a
# person opening other programs' passwords in Seahorse): GNOME's prompter (gcr-prompter) runs on
# the same display; opening A brings up the access dialog, answered "Always allow this program";
# opening B and denying leaves Seahorse running. (Seahorse keeps a secret it read, so opening A
# again reads nothing: the grant is checked by the test, with `keychainctl access list`.) Each step's
# screen goes to the directory in JOURNEY_SCREENSHOTS, when set.

import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

KEYCHAINCTL, PROVIDER = sys.argv[1], sys.argv[2]
MODE = sys.argv[3] if len(sys.argv) > 3 else "follow"
SCREENSHOTS = os.environ.get("JOURNEY_SCREENSHOTS")
LOGIN_PASSWORD = "password"
children = []


def spawn(command, **options):
    """A child in its own process group, so that everything it starts goes with it."""
    child = subprocess.Popen(command, start_new_session=True, **options)
    children.append(child)
    return child


@atexit.register
def stop_children():
    for child in reversed(children):
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        child.wait()


def fail(message):
    print(f"FAILED on {PROVIDER}: {message}", file=sys.stderr)
    if not seahorse_alive():
        seahorse_log.seek(0)
        print(f"Seahorse said: {seahorse_log.read()[-4000:]}", file=sys.stderr)
    if "pyatspi" in sys.modules and seahorse_alive():
        try:
            dump(find_application(), sys.stderr)
        except Exception as error:  # the tree is a diagnostic only
            print(f"(no accessibility tree: {error})", file=sys.stderr)
    sys.exit(1)


def run(*command, stdin=""):
    """Another client's step; Seahorse sees it only through the provider's signals."""
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        fail(f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def wait_until(step, condition, describe, seconds=90, fails=True):
    """Polls condition() until it holds: a bound for slow machines, not a speed check. Past
    the bound, fails the run (or returns None when `fails` is False)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not seahorse_alive():
            fail(f"{step}: Seahorse exited with status {seahorse.returncode}")
        try:
            value = condition()
        except Exception:  # widgets come and go while Seahorse rebuilds a list
            value = None
        if value:
            return value
        time.sleep(0.1)
    if not fails:
        return None
    fail(f"{step}: expected {describe()}")


def start_display():
    """A virtual display of our own: Xvfb picks a free display number and writes it to a pipe;
    returns it once the display takes clients."""
    display_read, display_write = os.pipe()
    xvfb = spawn(["Xvfb", "-displayfd", str(display_write), "-screen", "0", "1280x1024x24",
                  "-nolisten", "tcp"], pass_fds=[display_write], stdout=subprocess.DEVNULL,
                 stderr=subprocess.DEVNULL)
    os.close(display_write)
    with os.fdopen(display_read) as pipe:
        display = pipe.readline().strip()
    if not display:
        fail("Xvfb did not start")
    for _ in range(100):
        probe = subprocess.run(["xdotool", "getdisplaygeometry"],
                               env=dict(os.environ, DISPLAY=f":{display}"),
                               capture_output=True, timeout=10)
        if probe.returncode == 0:
            break
        time.sleep(0.1)
    return xvfb, display


def a11y_bus_registered():
    owner = subprocess.run(
        ["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
         "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.NameHasOwner", "org.a11y.Bus"],
        capture_output=True, text=True, timeout=10)
    return owner.stdout.strip() == "(true,)"


os.environ.update(GDK_BACKEND="x11", GSETTINGS_BACKEND="memory", GTK_A11Y="atspi",
                  NO_AT_BRIDGE="0")
# Seahorse has been seen, rarely and only with other tests running, to find its fresh display
# gone ("cannot open display"): then the display and Seahorse are started again.
for attempt in range(3):
    xvfb, display = start_display()
    os.environ["DISPLAY"] = f":{display}"
    if attempt == 0:
        # The accessibility bus, registered on the test's private session bus. The launcher
        # takes its name a moment after it starts; pyatspi (and Seahorse's bridge) abort if
        # it is not there yet.
        spawn(["/usr/libexec/at-spi-bus-launcher", "--launch-immediately"],
              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not a11y_bus_registered():
            if time.monotonic() > deadline:
                print(f"FAILED on {PROVIDER}: at-spi-bus-launcher did not register org.a11y.Bus",
                      file=sys.stderr)
                sys.exit(1)
            time.sleep(0.05)
        import pyatspi  # after the accessibility bus exists
        # The registry, started before Seahorse rather than by Seahorse's bridge: under load,
        # a registry activated in the middle of Seahorse's start was seen to go away, leaving
        # Seahorse registered nowhere.
        deadline = time.monotonic() + 60
        while True:
            try:
                pyatspi.Registry.getDesktop(0).childCount
                break
            except Exception as error:
                if time.monotonic() > deadline:
                    print(f"FAILED on {PROVIDER}: no AT-SPI registry: {error}", file=sys.stderr)
                    sys.exit(1)
                time.sleep(0.1)
    # Its warnings go to a file: a pipe nobody reads would fill and stop it.
    seahorse_log = tempfile.TemporaryFile(mode="w+")
    seahorse = spawn(["seahorse"], stdout=subprocess.DEVNULL, stderr=seahorse_log)
    try:
        seahorse.wait(timeout=2)
    except subprocess.TimeoutExpired:
        break  # running: its display is there
    seahorse_log.seek(0)
    if "cannot open display" not in seahorse_log.read():
        break  # another failure: reported below, with its log
    os.killpg(xvfb.pid, signal.SIGKILL)


def seahorse_alive():
    return "seahorse" in globals() and seahorse.poll() is None


def find_application():
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        application = desktop.getChildAtIndex(index)
        if application is not None and application.name == "seahorse":
            return application
    return None


def walk(node):
    yield node
    for index in range(node.childCount):
        child = node.getChildAtIndex(index)
        if child is not None:
            yield from walk(child)


def dump(node, out, depth=0):
    if node is None:
        return
    out.write(f"{'  ' * depth}[{node.getRoleName()}] {node.name!r}\n")
    for index in range(node.childCount):
        child = node.getChildAtIndex(index)
        if child is not None:
            dump(child, out, depth + 1)


def item_rows():
    """The rows of the item list: a panel holding the item's kind, its label and an icon."""
    rows = {}
    for node in walk(find_application()):
        if node.getRoleName() != "list item" or node.childCount != 1:
            continue
        panel = node.getChildAtIndex(0)
        parts = [panel.getChildAtIndex(i) for i in range(panel.childCount)]
        if panel.getRoleName() == "panel" and [p.getRoleName() for p in parts] == [
                "label", "label", "icon"]:
            rows[parts[1].name] = node
    return rows


def keyring_rows():
    """The sidebar's password keyrings: rows holding an icon, a label and a lock button."""
    rows = {}
    for node in walk(find_application()):
        if node.getRoleName() == "list item" and node.childCount == 1:
            filler = node.getChildAtIndex(0)
            roles = [filler.getChildAtIndex(i).getRoleName() for i in range(filler.childCount)]
            if roles == ["icon", "label", "push button"]:
                rows[filler.getChildAtIndex(1).name] = node
    return rows


def keyrings():
    return set(keyring_rows())


def open_keyring(name):
    """Selects a keyring in the sidebar, as a click would: Seahorse opens on whichever place
    loaded first (the GnuPG keys, on a slow machine)."""
    row = wait_until(f"opening {name}", lambda: keyring_rows().get(name),
                     lambda: f"{name} among the keyrings, they are {sorted(keyrings())}")
    row.parent.querySelection().selectChild(row.getIndexInParent())


def find(role, name, within=None):
    for node in walk(within or find_application()):
        if node.getRoleName() == role and node.name == name:
            return node
    return None


def expect_items(step, labels):
    wait_until(step, lambda: sorted(item_rows()) == sorted(labels),
               lambda: f"Seahorse to list {sorted(labels)}, it lists {sorted(item_rows())}")


def windows():
    """Seahorse's visible X windows, oldest first (a dialog is a window of its own)."""
    found = subprocess.run(["xdotool", "search", "--onlyvisible", "--class", "seahorse"],
                           capture_output=True, text=True, timeout=10).stdout.split()
    return sorted(found, key=int)


def press(step, node, key):
    """Focuses node and presses key in the newest window. Keyboard, not AT-SPI's click action:
    GTK runs a click inside the accessibility call, and Seahorse's confirmation dialog then
    blocks that call until the dialog closes."""
    newest = wait_until(step, windows, lambda: "a Seahorse window")[-1]
    subprocess.run(["xdotool", "windowfocus", "--sync", newest], check=True, timeout=10)
    node.queryComponent().grabFocus()
    subprocess.run(["xdotool", "key", key], check=True, timeout=10)


def delete_in_seahorse(label):
    """What a user does: open the item (Return on its row), Delete Password, confirm."""
    step = f"deleting {label!r} in Seahorse"
    row = wait_until(step, lambda: item_rows().get(label), lambda: f"a row {label!r}")
    press(step, row, "Return")
    properties = wait_until(step, lambda: find("dialog", "Item Properties"),
                            lambda: "the Item Properties dialog")
    delete = wait_until(step, lambda: find("push button", "Delete Password", properties),
                        lambda: "a Delete Password button")
    before = len(windows())
    press(step, delete, "space")
    wait_until(step, lambda: len(windows()) > before, lambda: "a confirmation dialog")
    confirm = wait_until(step, lambda: next(
        (node for node in walk(find_application())
         if node.getRoleName() in ("dialog", "alert") and node.name != "Item Properties"
         and find("push button", "Delete", node)), None),
        lambda: "a confirmation dialog with a Delete button")
    press(step, find("push button", "Delete", confirm), "space")


def screenshot(step):
    """Keeps the screen as NN-step.png in SCREENSHOTS once it has settled (two captures alike,
    within a bound), for a person to look at."""
    if not SCREENSHOTS:
        return
    screenshot.count = getattr(screenshot, "count", 0) + 1
    path = os.path.join(SCREENSHOTS, f"{screenshot.count:02d}-{step}.png")
    previous = None
    for _ in range(50):
        subprocess.run(["import", "-display", os.environ["DISPLAY"], "-window", "root", path],
                       check=True, timeout=30)
        with open(path, "rb") as image:
            current = image.read()
        if current == previous:
            return
        previous = current
        time.sleep(0.05)


def access_dialog():
    """GNOME's access dialog (gcr-prompter's window), if it shows."""
    found = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", "Keyring access"],
                           capture_output=True, text=True, timeout=10).stdout.split()
    return found[0] if found else None


def keys_to_dialog(window, *keys):
    subprocess.run(["xdotool", "windowfocus", "--sync", window], check=True, timeout=10)
    subprocess.run(["xdotool", "key", "--delay", "50", *keys], check=True, timeout=10)


def open_item(step, label):
    """Return on the item's row: Seahorse opens its properties and reads its secret."""
    row = wait_until(step, lambda: item_rows().get(label), lambda: f"a row {label!r}")
    press(step, row, "Return")


def close_properties(step):
    properties = wait_until(step, lambda: find("dialog", "Item Properties"),
                            lambda: "the Item Properties dialog")
    press(step, properties, "Escape")
    wait_until(step, lambda: find("dialog", "Item Properties") is None,
               lambda: "the Item Properties dialog closed")


def shown_password():
    """What Item Properties' password field holds (GTK gives its dots, one per character)."""
    properties = find("dialog", "Item Properties")
    for node in walk(properties) if properties else []:
        if node.getRoleName() == "password text":
            return node.queryText().getText(0, -1)
    return ""


def seahorse_records(op, decision):
    """How many of Seahorse's records in the audit log are `op` with `decision`."""
    lines = run(KEYCHAINCTL, "audit", "show", "--app", "seahorse", "--json").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    return sum(1 for record in records
               if record.get("op") == op and record.get("decision") == decision)


def protect_journey():
    prompter = spawn(["/usr/libexec/gcr-prompter"], env=dict(os.environ, GCR_PERSIST="1"),
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    open_keyring("Login")
    expect_items("Seahorse's list in protect", ["A", "B"])
    screenshot("seahorse-lists-other-programs-items")

    step = "opening A, another program's password"
    open_item(step, "A")
    dialog = wait_until(step, access_dialog, lambda: "GNOME's access dialog")
    screenshot("access-dialog-for-seahorse")
    keys_to_dialog(dialog, "shift+Tab", "shift+Tab", "space")
    screenshot("always-allow-ticked")
    keys_to_dialog(dialog, "Return")
    wait_until(step, lambda: access_dialog() is None, lambda: "the access dialog closed")
    wait_until(step, lambda: seahorse_records("grant", "allowed-always") or None,
               lambda: "a grant allowed always in the audit log")
    wait_until(step, lambda: seahorse_records("read", "grant") or None,
               lambda: "Seahorse's read by that grant in the audit log")
    # One dot per character: the secret, "secret", reached Seahorse.
    wait_until(step, lambda: len(shown_password()) == len("secret"),
               lambda: f"A's password in Item Properties, it shows {shown_password()!r}")
    screenshot("seahorse-shows-the-password")
    close_properties(step)

    step = "opening B, denied"
    open_item(step, "B")
    dialog = wait_until(step, access_dialog, lambda: "GNOME's access dialog")
    keys_to_dialog(dialog, "Escape")
    wait_until(step, lambda: access_dialog() is None, lambda: "the access dialog closed")
    wait_until(step, lambda: seahorse_records("read", "denied") or None,
               lambda: "a read denied in the audit log")
    screenshot("seahorse-after-a-denial")
    wait_until(step, lambda: find("dialog", "Item Properties"), lambda: "B's Item Properties")
    if shown_password():
        fail(f"{step}: Seahorse shows a password it was denied")
    if not seahorse_alive():
        fail(f"{step}: Seahorse exited with status {seahorse.returncode}")
    if prompter.poll() is not None:
        fail(f"gcr-prompter exited with status {prompter.returncode}")


# Seahorse registers with the accessibility registry once, as it starts: if the registry went
# away meanwhile (seen once under load), Seahorse is nowhere to be found, and is started again.
application = wait_until("starting Seahorse", find_application,
                         lambda: "Seahorse on the accessibility bus", fails=False)
if application is None:
    print("Seahorse not on the accessibility bus: starting it again", file=sys.stderr)
    os.killpg(seahorse.pid, signal.SIGKILL)
    seahorse.wait()
    seahorse = spawn(["seahorse"], stdout=subprocess.DEVNULL, stderr=seahorse_log)
    application = wait_until("starting Seahorse again", find_application,
                             lambda: "Seahorse on the accessibility bus")
if MODE == "protect":
    protect_journey()
    print("OK")
    sys.exit(0)
open_keyring("Login")
expect_items("Seahorse's first list", ["A", "B"])

run("secret-tool", "store", "--label=C", "app", "c", stdin="secret")
expect_items("an item stored by secret-tool", ["A", "B", "C"])

delete_in_seahorse("B")
expect_items("an item deleted in Seahorse", ["A", "C"])
if run("secret-tool", "search", "--all", "app", "b").strip():
    fail("the item deleted in Seahorse is still in the keyring")

run("secret-tool", "clear", "app", "c")
expect_items("an item deleted by secret-tool", ["A"])

run(KEYCHAINCTL, "lock", "--collection", "Login")
expect_items("the login keyring locked", [])
run(KEYCHAINCTL, "unlock", "--collection", "Login", "--password-stdin", stdin=LOGIN_PASSWORD)
expect_items("the login keyring unlocked again", ["A"])

run(KEYCHAINCTL, "create", "Work", "--password-stdin", stdin="work password")
wait_until("a keyring created by keychainctl", lambda: "Work" in keyrings(),
           lambda: f"Work among the keyrings, they are {sorted(keyrings())}")
run(KEYCHAINCTL, "delete", "Work")
wait_until("a keyring deleted by keychainctl", lambda: "Work" not in keyrings(),
           lambda: f"Work gone from the keyrings, they are {sorted(keyrings())}")

if not seahorse_alive():
    fail(f"Seahorse exited with status {seahorse.returncode}")
print("OK")
