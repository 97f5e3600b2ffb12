#!/usr/bin/env bash
# Usage: tests/firstcontact/farm_control.sh FARM   (FARM from qemu_farm.sh with qemu-system-aarch64
# and qemu-system-mips64el)
# The farm's QEMU lacks what only recommended packages bring, so the board tests that use it can
# fail: without -nic none the Arm virt machine wants ipxe-qemu's efi-virtio.rom, and without
# -vga none the Malta wants seabios's vgabios-cirrus.bin. Each must fail to start, naming its ROM.
set -u
[ $# -eq 1 ] || { echo "usage: $0 FARM" >&2; exit 2; }
farm=$1
fail=0
probe() { # ROM QEMU ARGS...: QEMU must stop at once, naming ROM
  local rom=$1 out st
  shift
  out=$(timeout 20 "$farm/bin/$1" "${@:2}" -display none -monitor none -serial null -S </dev/null 2>&1)
  st=$?
  if [ "$st" = 1 ] && grep -q "failed to find romfile \"$rom\"" <<<"$out"; then
    echo "ok    $*: $out"
  else
    echo "FAIL: $* (status $st) did not stop for want of $rom: the farm does not hide it"
    echo "$out"
    fail=1
  fi
}
probe efi-virtio.rom qemu-system-aarch64 -M virt -cpu cortex-a53
probe vgabios-cirrus.bin qemu-system-mips64el -M malta -nic none
[ $fail = 0 ] && echo "PASS: the farm's QEMU has neither ipxe-qemu's nor seabios's ROMs"
exit $fail
