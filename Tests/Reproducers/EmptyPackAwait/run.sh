#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Builds the reproducer at -Onone and at -O with the toolchain on PATH and runs both. It says
# whether the miscompile is still there; it never fails the caller (CI prints its verdict).
set -uo pipefail
cd "$(dirname "$0")"
version=$(swift --version 2>&1 | head -n 1)
status=()
for config in debug release; do
  if ! swift build -c "$config" --scratch-path .build >/dev/null 2>&1; then
    echo "$config: does not build with $version"
    exit 0
  fi
  echo "$config:"
  "$(swift build -c "$config" --scratch-path .build --show-bin-path)/Reproducer"
  status+=($?)
done
if [ "${status[0]}" -eq 0 ] && [ "${status[1]}" -ne 0 ]; then
  echo "verdict: $version still miscompiles an empty result pack across an await at -O"
  echo "(if the workaround's line says MISCOMPILED too, keychaind's dispatch is at risk again)"
elif [ "${status[0]}" -eq 0 ] && [ "${status[1]}" -eq 0 ]; then
  echo "verdict: $version compiles it correctly: see README.md for what can go once every"
  echo "supported toolchain does"
else
  echo "verdict: the reproducer fails at -Onone too: it no longer reduces the bug it was made for"
fi
