#!/usr/bin/env bash
# Usage: tests/newlib/need_newlib.sh [CMD...]  Like tests/need.sh (exit 77: skipped; with CI=true a
# missing piece fails), for the commands given and Debian's newlib for the Cortex-M3
# (libnewlib-arm-none-eabi: libc.a and newlib-nano's libc_nano.a), which no command shows.
set -u
tests/need.sh arm-none-eabi-gcc arm-none-eabi-nm arm-none-eabi-readelf qemu-system-arm "$@" || exit $?
miss=""
for lib in libc.a libc_nano.a; do
  f=$(arm-none-eabi-gcc -mthumb -mcpu=cortex-m3 -mfloat-abi=soft -print-file-name=$lib 2>/dev/null)
  [ -f "$f" ] || miss="$miss $lib"
done
[ -z "$miss" ] && exit 0
echo "missing newlib for the Cortex-M3:$miss (Debian package libnewlib-arm-none-eabi)" >&2
[ "${CI:-}" = true ] && exit 1
exit 77
