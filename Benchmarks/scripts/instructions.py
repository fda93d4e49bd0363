#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# keychaind's cost in instructions, counted by valgrind's callgrind: unlike wall time, the count
# of one binary on one machine barely moves between runs (about 1 %), so a change that costs
# 5 % more shows. Each daemon runs in the default configuration on a private bus with a
# throwaway home and a store seeded with ITEMS items (`keychain-load seed`, by the daemon's own
# tree), and is measured on:
#
# - cold start: instructions from exec to the first answer (a SearchItems, locked, as a client
#   asking at login would) and the end of start-up's own work (keychaind --verbose says "start-up
#   over"), the least of three starts, with an empty audit log and again after READS reads have
#   filled it (nothing at start-up may grow with history);
# - per call kind, keychain-load's own (`--only KIND`): the count for S2 samples minus the count
#   for S1, divided by S2 - S1, so that the run's fixed work (sessions, finding each item once)
#   cancels out.
#
#   Benchmarks/scripts/instructions.py [--items N] NAME=DAEMON[,LOAD][;CONF] ... [--json OUT]
#   Benchmarks/scripts/instructions.py --check Benchmarks/instructions.json NAME=DAEMON
#   Benchmarks/scripts/instructions.py --write Benchmarks/instructions.json NAME=DAEMON
#
# LOAD is the keychain-load of the daemon's tree, whose seed writes the store that daemon reads
# (by default the one beside DAEMON); every daemon is then driven by this tree's keychain-load
# (DRIVER, .build/release/keychain-load), so that all run the same calls. CONF is a line of
# keychaind.conf for that daemon ("access-control = off"); --configuration gives one for all.
# --check fails (exit 1) when a count is more than --tolerance (5 %) above the baseline's.
# Needs valgrind (callgrind_control), busctl and gdbus. The daemon's debug info is stripped
# first: valgrind 3.19 cannot read Swift 6.3's DWARF 5.
import argparse
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PASSWORD = "pw"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# (name, keychain-load's kind); the count is per sample. "create" times CreateItem alone.
# (name, keychain-load's kind, checked by --check). A new item's CreateItem is not checked: it
# announces the collection's Items a moment later, coalescing the writes of that moment, so its
# count moves with the machine's speed (1.55 to 1.77 M between two runs here). Replacing an
# item keeps the list as it was, and its count repeats: that is the write the gate holds.
KINDS = [
    ("Peer.Ping (floor)", "ping", True),
    ("SearchItems, a hit and a miss", "search", True),
    ("GetSecret (plain)", "secret-plain", True),
    ("GetSecret (DH)", "secret-dh", True),
    ("CreateItem (plain)", "create", False),
    ("CreateItem replacing an item (plain)", "replace", True),
]
UNCHECKED = {name for name, _, checked in KINDS if not checked}
FULL_LOG = "cold start to the first answer, audit log full"


def load_command(load, items, kind, count):
    """keychain-load timing `count` samples of `kind` on the seeded store."""
    common = [load, "--items", str(items), "--seeded", "--keep"]
    if kind == "create":
        return common + ["--creates", str(count), "--samples", "1", "--only", "none"]
    return common + ["--creates", "0", "--samples", str(count), "--only", kind]

def environment(home, bus=None):
    env = dict(os.environ, HOME=home, XDG_DATA_HOME=f"{home}/data", XDG_RUNTIME_DIR=f"{home}/run",
               XDG_STATE_HOME=f"{home}/state", XDG_CONFIG_HOME=f"{home}/config",
               XDG_CACHE_HOME=f"{home}/cache", PINENTRY="none", SWIFT_DETERMINISTIC_HASHING="1")
    env.pop("DISPLAY", None)
    if bus:
        env["DBUS_SESSION_BUS_ADDRESS"] = bus
    return env


def answers(env):
    """Whether the provider answers a SearchItems (locked or not)."""
    # busctl, not gdbus: gdbus introspects first, which would add its reply to the count.
    done = subprocess.run(
        ["busctl", "--address=" + env["DBUS_SESSION_BUS_ADDRESS"], "call",
         "org.freedesktop.secrets", "/org/freedesktop/secrets",
         "org.freedesktop.Secret.Service", "SearchItems", "a{ss}", "0"],
        env=env, capture_output=True, timeout=60)
    return done.returncode == 0


def wait_for(condition, what, seconds=300):
    deadline = time.monotonic() + seconds  # a bound for valgrind on a slow machine
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    sys.exit(f"instructions.py: {what} within {seconds} s")


def name_owned(env):
    done = subprocess.run(
        ["gdbus", "call", "--session", "-d", "org.freedesktop.DBus", "-o", "/org/freedesktop/DBus",
         "-m", "org.freedesktop.DBus.NameHasOwner", "org.freedesktop.secrets"],
        env=env, capture_output=True, text=True, timeout=60)
    return done.stdout.strip() == "(true,)"


def dumps(prefix):
    """callgrind's numbered dumps of the output file `prefix` (prefix.1, prefix.2, …)."""
    numbered = [path for path in glob.glob(prefix + ".*") if path.rsplit(".", 1)[1].isdigit()]
    return sorted(numbered, key=lambda path: int(path.rsplit(".", 1)[1]))


def last_dump_total(prefix):
    """The instruction total of the newest callgrind dump of `prefix`, None until written."""
    newest = dumps(prefix)[-1]
    with open(newest) as dump:
        # "totals:" closes the dump with the sum of its costs ("summary:" near the top reads 0
        # when instrumentation was switched on by callgrind_control).
        totals = [line for line in dump if line.startswith("totals:")]
    return int(totals[-1].split()[1]) if totals else None


class Daemon:
    """One daemon under callgrind on `env`'s bus."""

    def __init__(self, binary, env, out, unlock, instrument, verbose=False):
        self.out = out
        arguments = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                     f"--instr-atstart={'yes' if instrument else 'no'}", binary]
        arguments += ["--verbose"] if verbose else []
        # Its log, to see when start-up's own work (the store's quick check, then the release
        # of start-up's pages) is over.
        self.log = open(out + ".log", "w+")
        self.process = subprocess.Popen(
            arguments + (["--unlock"] if unlock else []), env=env,
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=self.log)
        self.process.stdin.write(PASSWORD.encode() if unlock else b"")
        self.process.stdin.close()

    def started(self):
        """Whether keychaind has said that start-up is over."""
        with open(self.out + ".log") as log:
            return "start-up over" in log.read()

    def running(self):
        """True while it runs; ends the script if it stopped on its own."""
        if self.process.poll() is not None:
            sys.exit(f"instructions.py: keychaind exited with status {self.process.returncode}")
        return True

    def control(self, *options):
        done = subprocess.run(["callgrind_control", *options, str(self.process.pid)],
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            sys.exit(f"instructions.py: callgrind_control {' '.join(options)}: {done.stdout}")

    def dump(self):
        before = len(dumps(self.out))
        self.control("-d")
        # The file appears before callgrind has written it whole: "totals:" closes it.
        wait_for(lambda: len(dumps(self.out)) > before and last_dump_total(self.out) is not None,
                 "no callgrind dump")
        return last_dump_total(self.out)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def fill_audit_log(env, reads):
    """Reads every item, on new connections, until `reads` reads are logged: a day of reads by
    many programs. (A connection's repeats of a read within a minute are one line, so one
    client reading in a loop would leave the log almost empty.)"""
    import dbus  # python3-dbus: a client with nothing to verify, only lines to cause
    done = 0
    while done < reads:
        bus = dbus.bus.BusConnection(env["DBUS_SESSION_BUS_ADDRESS"])
        service = dbus.Interface(bus.get_object("org.freedesktop.secrets", "/org/freedesktop/secrets"),
                                 "org.freedesktop.Secret.Service")
        _, session = service.OpenSession("plain", dbus.String("", variant_level=1))
        unlocked, _ = service.SearchItems(dbus.Dictionary({}, signature="ss"))
        if not unlocked:
            sys.exit("instructions.py: the seeded store shows no unlocked item to read")
        done += len(service.GetSecrets(unlocked, session))
        bus.close()


def measure(binary, load, driver, items, reads, samples, rounds, configuration):
    work = tempfile.mkdtemp(prefix="instructions.", dir="/tmp")  # one path length everywhere
    counts = {}
    try:
        stripped = f"{work}/keychaind"
        shutil.copy(binary, stripped)
        # The driver from a path as long in every checkout: the audit records of its reads
        # name it, and a longer path made each record's MAC longer (1.4 % of a GetSecret
        # between /work/main and /tmp/ci-check).
        shutil.copy(driver, f"{work}/keychain-load")
        driver = f"{work}/keychain-load"
        subprocess.run(["strip", "--strip-debug", stripped], check=True)
        home = f"{work}/home"
        for directory in ["data/keychaind", "run", "state", "config", "cache"]:
            os.makedirs(f"{home}/{directory}", mode=0o700)
        if configuration:
            os.makedirs(f"{home}/config/keychaind")
            with open(f"{home}/config/keychaind/keychaind.conf", "w") as conf:
                conf.write(configuration + "\n")
        env = environment(home)
        subprocess.run([load, "seed", "keychaind", "--data-dir", f"{home}/data/keychaind",
                        "--items", str(items)], input=PASSWORD.encode(), env=env, check=True,
                       stdout=subprocess.DEVNULL)
        # The tests' bus configuration: no service directories, so that a call made before
        # keychaind owns the name does not have the bus start whatever provider is installed.
        bus = subprocess.run(["dbus-daemon", f"--config-file={ROOT}/Tests/dbus-session.conf",
                              "--fork", "--print-address=1", "--print-pid=1"], env=env,
                             capture_output=True, text=True, check=True).stdout.split()
        env = environment(home, bus[0])
        try:
            def cold(label):
                # Counted until start-up's work is over (a quick check of the store and the
                # release of start-up's pages run beside the first answer: counted at the
                # answer, they fell before or after it, and the count moved by 5 %). The least
                # of three starts: threads still race a little.
                starts = []
                for run in range(3):
                    daemon = Daemon(stripped, env, f"{work}/cold.{len(counts)}.{run}",
                                    unlock=False, instrument=True, verbose=True)
                    wait_for(lambda: daemon.running() and answers(env), "keychaind did not answer")
                    wait_for(lambda: daemon.running() and daemon.started(),
                             "keychaind did not finish starting")
                    starts.append(daemon.dump())
                    daemon.stop()
                counts[label] = min(starts)

            cold("cold start to the first answer")
            # Fill the audit log as a day of reads would, natively (callgrind is ~50x slower).
            native = subprocess.Popen([binary, "--unlock"], env=env, stdin=subprocess.PIPE,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            native.stdin.write(PASSWORD.encode())
            native.stdin.close()
            wait_for(lambda: name_owned(env), "keychaind did not take the name")
            fill_audit_log(env, reads)
            native.send_signal(signal.SIGTERM)
            native.wait(timeout=60)
            log = sum(os.path.getsize(path) for path in glob.glob(f"{home}/state/keychaind/audit*"))
            print(f"   audit log after {reads} lookups: {log / 2**20:.1f} MiB", file=sys.stderr)
            cold(FULL_LOG)

            daemon = Daemon(stripped, env, f"{work}/calls", unlock=True, instrument=False)
            wait_for(lambda: daemon.running() and name_owned(env), "keychaind did not take the name")
            for name, kind, _ in KINDS:
                # keychain-load replaces at most 200 items a run.
                counts_of = [count // 10 for count in samples] if kind == "replace" else samples
                subprocess.run(load_command(driver, items, kind, 20), env=env, check=True,
                               stdout=subprocess.DEVNULL)  # warm-up, not counted
                # The least of `rounds`: work that runs on a timer (a checkpoint a moment after
                # a burst of writes) falls into one sample or the next.
                per_call = []
                for _ in range(rounds):
                    totals = []
                    for count in counts_of:
                        daemon.control("-z")
                        daemon.control("-i", "on")
                        subprocess.run(load_command(driver, items, kind, count), env=env,
                                       check=True, stdout=subprocess.DEVNULL)
                        daemon.control("-i", "off")
                        totals.append(daemon.dump())
                    per_call.append((totals[1] - totals[0]) / (counts_of[1] - counts_of[0]))
                counts[name] = round(min(per_call))
            daemon.stop()
        finally:
            os.kill(int(bus[1]), signal.SIGTERM)
    finally:
        if not os.environ.get("KEEP"): shutil.rmtree(work, ignore_errors=True)
    return counts


def main():
    parser = argparse.ArgumentParser(description="keychaind's instructions per call, by callgrind")
    parser.add_argument("daemons", nargs="+", metavar="NAME=DAEMON[,LOAD][;CONF]")
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--reads", type=int, default=20000)
    # Both well above ITEMS: keychain-load finds each item it picks once, so with every item
    # picked in both runs the difference holds the calls alone.
    parser.add_argument("--samples", default="500,1500", help="S1,S2")
    parser.add_argument("--rounds", type=int, default=2, help="each call kind's samples, taken "
                        "this many times (the least counts)")
    parser.add_argument("--configuration", default="",
                        help="keychaind.conf's text (default: none, the default configuration)")
    parser.add_argument("--driver", default=f"{ROOT}/.build/release/keychain-load",
                        help="the keychain-load that drives every daemon")
    parser.add_argument("--json", help="write the counts here")
    parser.add_argument("--check", help="a baseline to compare the first daemon with")
    parser.add_argument("--write", help="write the first daemon's counts as the baseline")
    parser.add_argument("--tolerance", type=float, default=0.05)
    args = parser.parse_args()
    samples = [int(value) for value in args.samples.split(",")]
    results = {}
    for entry in args.daemons:
        name, _, spec = entry.partition("=")
        paths, _, configuration = spec.partition(";")
        binary, _, load = paths.partition(",")
        load = load or os.path.join(os.path.dirname(binary), "keychain-load")
        print(f"== {name}: {binary}", file=sys.stderr)
        results[name] = measure(binary, load, args.driver, args.items, args.reads, samples,
                                args.rounds, configuration or args.configuration)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=2)
    names = list(results)
    if args.write:
        with open(args.write, "w") as out:
            json.dump({"items": args.items, "reads": args.reads, "samples": samples,
                       "counts": results[names[0]]}, out, indent=2)
            out.write("\n")
    columns = names[:]
    baseline = None
    if args.check:
        with open(args.check) as file:
            baseline = json.load(file)["counts"]
        columns = ["baseline"] + names[:1]
        results["baseline"] = baseline
    # The change is the second column against the first: now against the reference or the
    # baseline, whatever other columns follow for comparison.
    compared = f"{columns[1]} vs {columns[0]}" if len(columns) > 1 else "change"
    print("| instructions | " + " | ".join(columns) + f" | {compared} |")
    print("| --- " * (len(columns) + 2) + "|")
    failed = []
    for kind in results[columns[min(1, len(columns) - 1)]]:
        values = [results[column].get(kind) for column in columns]
        change = ""
        if len(values) > 1 and values[0] and values[1]:
            ratio = values[1] / values[0] - 1
            change = f"{ratio:+.1%}"
            if baseline is not None and ratio > args.tolerance and kind not in UNCHECKED:
                failed.append(f"{kind}: {change}")
        print(f"| {kind} | " + " | ".join(f"{v:,}" if v else "" for v in values) + f" | {change} |")
    if failed:
        print("more instructions than the baseline allows (" + "; ".join(failed) + "): a change "
              "that must cost more says so in its commit and moves the baseline "
              "(--write) on purpose", file=sys.stderr)
        sys.exit(1)


main()
