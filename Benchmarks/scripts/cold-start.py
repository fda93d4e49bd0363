#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Cold start and memory of a Secret Service provider on a store that already holds items, each
# start on a private bus with a copy of the store. Times, from the spawn: the name owned, the
# first SearchItems answered (with --unlock: the first one that finds the item unlocked), and
# the first secret read back. Memory: resident (VmRSS) once idle, after reading the Items of
# the collection, and its peak (VmHWM). Needs python3-jeepney (it comes with
# python3-secretstorage). From the project root, after `make build`:
#
#   printf pw | .build/release/keychain-load seed keychaind --data-dir /tmp/store/data/keychaind --items 100000
#   Benchmarks/scripts/cold-start.py --store /tmp/store [--unlock pw] [--runs 5] [--binary B]
#
# A store directory may also hold state/keychaind (an audit log), copied with it.
#
# For gnome-keyring: --provider gnome-keyring --store DIR with DIR/keyrings/login.keyring.
import argparse, os, shutil, statistics, subprocess, sys, tempfile, time

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVICE = DBusAddress("/org/freedesktop/secrets", "org.freedesktop.secrets",
                      "org.freedesktop.Secret.Service")
BUS = DBusAddress("/org/freedesktop/DBus", "org.freedesktop.DBus", "org.freedesktop.DBus")


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def one_run(args, home):
    address = subprocess.run(
        ["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
        capture_output=True, text=True, check=True).stdout.split()
    bus_address, bus_pid = address[0], int(address[1])
    environment = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=bus_address, HOME=home,
                       XDG_DATA_HOME=home + "/data", XDG_RUNTIME_DIR=home + "/run",
                       XDG_STATE_HOME=home + "/state", PINENTRY="none")
    if args.provider == "keychaind":
        command = [args.binary] + (["--unlock"] if args.unlock else [])
    else:
        command = ["gnome-keyring-daemon", "--foreground", "--components=secrets"] + (
            ["--unlock"] if args.unlock else [])
    connection = open_dbus_connection(bus=bus_address)
    try:
        start = time.perf_counter()
        daemon = subprocess.Popen(command, env=environment, stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if args.unlock:
            daemon.stdin.write(args.unlock.encode())
        daemon.stdin.close()
        while not connection.send_and_get_reply(
                new_method_call(BUS, "NameHasOwner", "s", ("org.freedesktop.secrets",))).body[0]:
            time.sleep(0.0002)
        owned = time.perf_counter() - start
        query = {"keychain-load": "seed", "n": "7", "kind": "load"}
        while True:
            reply = connection.send_and_get_reply(new_method_call(SERVICE, "SearchItems", "a{ss}", (query,)))
            unlocked, locked = reply.body
            if not args.unlock or unlocked:
                break
        searched = time.perf_counter() - start
        found = (unlocked or locked)[0]
        secret_time = None
        if args.unlock:
            session = connection.send_and_get_reply(
                new_method_call(SERVICE, "OpenSession", "sv", ("plain", ("s", "")))).body[1]
            item = DBusAddress(found, "org.freedesktop.secrets", "org.freedesktop.Secret.Item")
            value = connection.send_and_get_reply(new_method_call(item, "GetSecret", "o", (session,))).body[0][2]
            assert bytes(value) == b"secret 7 of seed", value
            secret_time = time.perf_counter() - start
        time.sleep(1.0)
        idle = status_kib(daemon.pid, "VmRSS")
        collection = DBusAddress("/org/freedesktop/secrets/aliases/default", "org.freedesktop.secrets",
                                 "org.freedesktop.DBus.Properties")
        items = connection.send_and_get_reply(new_method_call(
            collection, "Get", "ss", ("org.freedesktop.Secret.Collection", "Items"))).body[0][1]
        time.sleep(1.0)
        after_items = status_kib(daemon.pid, "VmRSS")
        peak = status_kib(daemon.pid, "VmHWM")
        daemon.terminate()
        daemon.wait(timeout=30)
        return owned, searched, secret_time, idle, after_items, peak, len(items)
    finally:
        connection.close()
        os.kill(bus_pid, 15)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", required=True, help="a directory holding data/ (XDG_DATA_HOME)")
    parser.add_argument("--provider", default="keychaind", choices=["keychaind", "gnome-keyring"])
    parser.add_argument("--unlock", help="the password: start with --unlock")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--binary", default=ROOT + "/.build/release/keychaind",
                        help="the keychaind to start (another tree's, to compare)")
    args = parser.parse_args()
    results = []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as home:
            shutil.copytree(os.path.join(args.store, "data"), home + "/data")
            # The audit log, when the store has one (state/keychaind): start-up must not read it.
            if os.path.isdir(os.path.join(args.store, "state")):
                shutil.copytree(os.path.join(args.store, "state"), home + "/state")
            os.makedirs(home + "/run", mode=0o700)
            results.append(one_run(args, home))
    median = lambda index: statistics.median(r[index] for r in results if r[index] is not None)
    print(f"{args.provider}, {results[0][6]} items, {args.runs} runs, median:")
    print(f"  name owned            {median(0) * 1000:8.1f} ms")
    print(f"  first SearchItems     {median(1) * 1000:8.1f} ms" + (" (unlocked hit)" if args.unlock else ""))
    if args.unlock:
        print(f"  first secret          {median(2) * 1000:8.1f} ms")
    print(f"  VmRSS idle            {median(3) / 1024:8.1f} MiB")
    print(f"  VmRSS after Items     {median(4) / 1024:8.1f} MiB")
    print(f"  VmHWM                 {median(5) / 1024:8.1f} MiB")


if __name__ == "__main__":
    sys.exit(main())
