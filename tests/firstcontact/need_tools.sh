#!/usr/bin/env bash
# Usage: tests/firstcontact/need_tools.sh FILE...
# The tools the tests ask tests/need.sh (or tests/newlib/need_newlib.sh) for in FILEs: the
# arguments of each call outside comments, all on one line. Make fragments' calls keep their
# make references ($(CXXT_NEED), $(BOARD_CROSS)gcc) for make to expand (firstcontact.mk does);
# the words of a script's calls that the shell would expand ("$@") are left out.
set -u
for f in "$@"; do
  grep -v '^[[:space:]]*#' "$f" | grep -oE 'tests/(newlib/need_newlib|need)\.sh [^;&|#]*' |
    sed 's|^[^ ]* ||' | tr ' \t' '\n\n' | grep -v '^\\\?$' |
    case "$f" in
      *.sh) grep -E '^[A-Za-z0-9][A-Za-z0-9_.+-]*$' ;;
      *) grep -v '\$\$' ;;
    esac
done | tr '\n' ' '
echo
