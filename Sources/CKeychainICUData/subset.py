#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes an English-only copy of the toolchain's ICU data for keychaind to link.

Foundation formats dates and compares strings through ICU, and the toolchain links all of ICU's
data into every static program: 34 MB, half of keychaind's file, nearly all of it other
languages' names, calendars, collations, character sets and dictionaries. keychaind and
keychainctl speak English only, so they carry the items every locale needs (the root locale,
pool bundles, time zones, plural rules, Unicode properties and normalisation, the converters'
alias table) and the English locales: 5 MB.

The copy is an ICU common data package with the same header and a table of contents with fewer
entries, in the same (sorted) order; each kept item is copied whole. A locale the copy lacks
falls back to the root locale, as ICU does for any locale it has no data for.

`make build` runs it before `swift build`. It writes generated/icu_data.dat next to this file
and generated/icu_data.inc, which icu_data.S includes to define the symbol ICU reads
(icudtNN_dat) over that file. Linked before the toolchain's archive, that definition is the one
used. If the toolchain's data is not where or what this expects, it removes both and says so:
the program is then built with the full data, as in a clone where this never ran.
"""

import json
import os
import re
import struct
import subprocess
import sys
import tempfile

GENERATED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated")
INCLUDE = os.path.join(GENERATED, "icu_data.inc")

# A locale's resource bundle: root, or a language code with optional script, region and variant.
LOCALE_BUNDLE = re.compile(r"^(root|[a-z]{2,3}(_[A-Za-z0-9]+)*)\.res$")
# Bundles every locale's data points into, whatever their name looks like.
SHARED_BUNDLES = {"root.res", "pool.res", "res_index.res"}


def keep(item):
    """Whether a package item (e.g. `icudt76l/coll/de.res`) is in the English-only copy."""
    path = item.split("/", 1)[1]
    parts = path.split("/")
    name = parts[-1]
    if len(parts) == 1 and name.endswith(".cnv"):
        return False  # legacy character sets; UTF-8/16/32, ASCII and Latin-1 are built into ICU
    if parts[0] == "translit" or name.endswith(".dict"):
        return False  # transliteration rules; word-break dictionaries of Thai, CJK, Khmer…
    if name in SHARED_BUNDLES:
        return True
    if LOCALE_BUNDLE.match(name):
        return name == "en.res" or name.startswith("en_")
    return True  # supplemental data, time zones, properties, break rules, collation base


def toolchain_archive():
    info = json.loads(subprocess.check_output(["swiftc", "-print-target-info"]))
    runtime = info["paths"]["runtimeResourcePath"]  # …/usr/lib/swift
    return os.path.join(runtime + "_static", "linux", "lib_FoundationICU.a")


def find_data(archive):
    """The archive member defining icudtNN_dat, the symbol's name and its size."""
    listing = subprocess.check_output(["nm", "-S", "--defined-only", archive], text=True)
    member = None
    for line in listing.splitlines():
        if line.endswith(".o:"):
            member = line[:-1]
            continue
        fields = line.split()
        if len(fields) == 4 and re.fullmatch(r"icudt\d+_dat", fields[3]):
            return member, fields[3], int(fields[1], 16)
    raise LookupError(f"no icudtNN_dat in {archive}")


def extract(archive, member, size):
    with tempfile.TemporaryDirectory() as scratch:
        obj = os.path.join(scratch, "member.o")
        raw = os.path.join(scratch, "data")
        with open(obj, "wb") as out:
            out.write(subprocess.check_output(["ar", "p", archive, member]))
        subprocess.check_call(["objcopy", "-O", "binary", "--only-section=.rodata", obj, raw])
        with open(raw, "rb") as data:
            package = data.read()
    if len(package) != size:
        raise ValueError(f"{member}'s .rodata is {len(package)} bytes, the symbol {size}")
    return package


def parse(package):
    """The package's header length and its items as (name, bytes), in table order."""
    header = struct.unpack_from("<H", package, 0)[0]
    if package[2:4] != b"\xda\x27" or package[12:16] != b"CmnD" or package[8] != 0:
        raise ValueError("not a little-endian ICU common data package")
    count = struct.unpack_from("<I", package, header)[0]
    table = [struct.unpack_from("<II", package, header + 4 + 8 * i) for i in range(count)]
    ends = [offset for _, offset in table[1:]] + [len(package) - header]
    items = []
    for (name_at, data_at), end in zip(table, ends):
        start = header + name_at
        name = package[start : package.index(b"\0", start)].decode("ascii")
        items.append((name, package[header + data_at : header + end]))
    return header, items


def build(header_bytes, items):
    """A package of `items` (kept in their order, so the table stays sorted for ICU's search)."""
    table_size = 4 + 8 * len(items)
    names = b"".join(name.encode("ascii") + b"\0" for name, _ in items)
    data_at = table_size + len(names)
    data_at += -(len(header_bytes) + data_at) % 16  # items start 16-byte aligned, as ICU's do
    table, body, name_at = [], b"", table_size
    for name, item in items:
        table.append(struct.pack("<II", name_at, data_at + len(body)))
        name_at += len(name) + 1
        body += item + b"\0" * (-len(item) % 16)
    padding = b"\0" * (data_at - table_size - len(names))
    count = struct.pack("<I", len(items))
    return header_bytes + count + b"".join(table) + names + padding + body


def write_if_changed(path, content):
    mode = "wb" if isinstance(content, bytes) else "w"
    try:
        with open(path, "rb" if mode == "wb" else "r") as old:
            if old.read() == content:
                return
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".new", mode) as new:
        new.write(content)
    os.replace(path + ".new", path)


def main():
    try:
        archive = toolchain_archive()
        member, symbol, size = find_data(archive)
        package = extract(archive, member, size)
        header, items = parse(package)
        kept = [(name, data) for name, data in items if keep(name)]
        subset = build(package[:header], kept)
        if parse(subset)[1] != kept:
            raise ValueError("the English-only package does not read back")
    except (OSError, LookupError, ValueError, subprocess.CalledProcessError) as error:
        for name in ("icu_data.inc", "icu_data.dat"):
            if os.path.exists(os.path.join(GENERATED, name)):
                os.remove(os.path.join(GENERATED, name))
        print(f"icu data: {error}; keychaind keeps the toolchain's full ICU data", file=sys.stderr)
        return
    dat = os.path.join(GENERATED, "icu_data.dat")
    write_if_changed(dat, subset)
    # The size is in the include so that a new package rebuilds the object that embeds it.
    write_if_changed(
        INCLUDE,
        f"\t// {len(kept)} of {len(items)} items, {len(subset)} bytes, from {archive}\n"
        "\t.section .rodata\n\t.balign 16\n"
        f"\t.globl {symbol}\n\t.type {symbol}, @object\n{symbol}:\n"
        f'\t.incbin "{dat}"\n\t.size {symbol}, . - {symbol}\n',
    )
    print(f"icu data: {len(kept)} of {len(items)} items, {len(subset) / 1e6:.1f} of {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
