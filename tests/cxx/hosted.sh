#!/usr/bin/env bash
# Usage: tests/cxx/hosted.sh APP APP.O WORKDIR
# The C++ end to end on the hosted library: APP is cxx_app.cpp's object APP.O linked through
# pkg-config (dynamically, -static or -static-libstdc++). It runs at MSAMP_INTERVAL=1 (every
# allocation recorded); tests/cxx/check.sh compares the stream with the truth APP wrote.
set -u
app=$1 obj=$2 dir=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
rm -f "$dir/stream.bin" "$dir/truth"
MSAMP_OUTPUT=$dir/stream.bin MSAMP_INTERVAL=1 MSAMP_SEED=7 "$app" "$dir/truth" ||
  { echo "FAIL: $app exit $?" >&2; exit 1; }
exec "$here/check.sh" "$app" "$obj" "$dir/stream.bin" "$dir/truth" "$dir/check" m
