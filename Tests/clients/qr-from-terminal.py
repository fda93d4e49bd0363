#!/usr/bin/python3
# SPDX-License-Identifier: MIT
#
# Reads a QR code as keychainctl draws it in a terminal (half blocks: ▀ ▄ █ and spaces, two rows
# of modules a line, ANSI colours around each line) from standard input, and writes it as a PNG
# image, each module 8 pixels, for a QR decoder (zbarimg) to read back.
#
#   qr-from-terminal.py OUTPUT.png < drawing

import re
import sys

from PIL import Image

rows = []
for line in sys.stdin.read().splitlines():
    line = re.sub(r"\x1b\[[0-9;]*m", "", line)
    if not line or set(line) - set("▀▄█ "):
        continue
    rows.append([c in "▀█" for c in line])
    rows.append([c in "▄█" for c in line])
if not rows:
    sys.exit("no QR code in the input")
width, scale = max(len(r) for r in rows), 8
image = Image.new("L", (width * scale, len(rows) * scale), 255)
for y, row in enumerate(rows):
    for x, dark in enumerate(row):
        if dark:
            image.paste(0, (x * scale, y * scale, (x + 1) * scale, (y + 1) * scale))
image.save(sys.argv[1])
