#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Builds one libFuzzer target with the fuzzer and address sanitizers and runs it. From the
# project root:
#
#   Fuzz/run.sh MarshalFuzzer -max_total_time=300
#   Fuzz/run.sh QueryFuzzer -runs=1000000
#
# The corpus grows in Fuzz/corpus/TARGET (not committed); a crash leaves crash-* files in the
# current directory, which replay with `Fuzz/run.sh TARGET crash-FILE`.
set -euo pipefail
target=${1:?usage: Fuzz/run.sh MarshalFuzzer|QueryFuzzer|KeyringFuzzer [libFuzzer options]}
shift
here=$(cd "$(dirname "$0")" && pwd)
swift build --package-path "$here" -c release --product "$target" \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library >&2
# A file (a crash to replay) runs alone: libFuzzer takes it only without corpus directories.
if [[ $# -gt 0 && -f "$1" ]]; then exec "$here/.build/release/$target" "$@"; fi
mkdir -p "$here/corpus/$target"
seeds=()
[[ -d "$here/seeds/$target" ]] && seeds=("$here/seeds/$target")
exec "$here/.build/release/$target" "$here/corpus/$target" "${seeds[@]}" "$@"
