#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# KWallet's calls timed on whatever serves org.kde.kwalletd5 on DBUS_SESSION_BUS_ADDRESS, as
# a KDE program makes them (python3-dbus, one call at a time): N writePassword into one folder,
# then readPassword of each, then entryList of the folder 200 times. Prints one line per
# call: median and 90th percentile in microseconds. Run by kwallet.sh against kwalletd5 and
# keychaind side by side. Argument: N (default 1000).

import statistics
import sys
import time

import dbus

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
wallet = dbus.Interface(dbus.SessionBus().get_object("org.kde.kwalletd5", "/modules/kwalletd5"),
                        "org.kde.KWallet")
APP = "bench"
handle = wallet.open("kdewallet", 0, APP, signature="sxs")
assert handle > 0, "the wallet did not open"


def timed(label, calls):
    times = []
    for call in calls:
        start = time.perf_counter_ns()
        call()
        times.append((time.perf_counter_ns() - start) / 1000)
    times.sort()
    print("%-14s n=%-5d median %8.0f us   p90 %8.0f us" % (
        label, len(times), statistics.median(times), times[int(len(times) * 0.9)]))


keys = ["account-%05d" % i for i in range(N)]
timed("writePassword", [lambda k=k: wallet.writePassword(handle, "Bench", k, "secret " + k, APP)
                        for k in keys])
timed("readPassword", [lambda k=k: wallet.readPassword(handle, "Bench", k, APP) for k in keys])
timed("entryList", [lambda: wallet.entryList(handle, "Bench", APP)] * 200)
assert len(wallet.entryList(handle, "Bench", APP)) == N
