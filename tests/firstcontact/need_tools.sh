#!/usr/bin/env bash
# Usage: tests/firstcontact/need_tools.sh FILE...
# Prints the commands the tests ask tests/need.sh (or tests/newlib/need_newlib.sh) for in FILEs
# (make fragments, scripts): the literal words of each call, one a line; a word made by make or
# the shell ($(BOARD_CROSS)gcc, "$@") is left out (the board tests name those tools per board).
set -u
cat "$@" | grep -v '^[[:space:]]*#' | grep -o 'tests/[a-z]*/*need[a-z_]*\.sh [^;&|#)]*' |
  sed 's|^[^ ]* ||' | tr ' \t' '\n\n' |
  grep -E '^[A-Za-z0-9][A-Za-z0-9_.+-]*$' | sort -u
