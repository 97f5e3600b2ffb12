# drain's I/O under faults (docs/DRAIN.md "Faults"): signals while decoding, partial profiles that
# cannot be written, --follow across truncation, rotation and replacement. Helpers and drain under
# ASan+UBSan come from drain_tests.mk.
TESTS += drain-signal drain-partial drain-follow
ROBUST_TESTS += drain-signal drain-partial drain-follow
# tcp-listen (docs/DRAIN.md "Inputs"): a hosted program, and QEMU's UART as a TCP client, connect
# to drain.
TESTS += drain-listen drain-listen-qemu
# Every output file on a full disk, whole or not at all (tests/drain/t_fulldisk.sh), and drain
# check --budgets on text that is no budgets file.
TESTS += drain-fulldisk
# JSON written to a terminal (line-buffered) and unbuffered: the same bytes as a pipe's.
TESTS += drain-json-tty

.PHONY: test-drain-signal test-drain-partial test-drain-follow test-drain-listen test-drain-listen-qemu \
	test-drain-fulldisk

DRAIN_IO_TOOLS := $(DRAIN_T_TOOLS)

test-drain-signal: $(DRAIN_IO_TOOLS) ## drain: SIGINT/SIGTERM while decoding a large stream: final profile within 1 s
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_signal.sh

test-drain-partial: $(DRAIN_IO_TOOLS) ## drain: --every partial profiles that cannot be written (directory, ENOSPC)
	@tests/need.sh go prlimit
	$(DRAIN_T_ENV) tests/drain/t_partial.sh

test-drain-fulldisk: $(DRAIN_IO_TOOLS) ## drain: every output kind (profile, --peak, --folded, timeline HTML/CSV, flame SVG, JSON, check's JUnit/JSON, diff, merge, fleet's JSON and merge) on a full disk: exit 1 naming the file, nothing written or the old file unchanged, no temporary left; whole with room; --budgets with a NUL, /dev/zero, an endless pipe: exit 2 at once
	@tests/need.sh python3 timeout
	$(DRAIN_T_ENV) tests/drain/t_fulldisk.sh

test-drain-json-tty: $(DRAIN_IO_TOOLS) ## drain --json - (alone, and after --top) on a terminal (script's pty, line-buffered) and unbuffered (stdbuf -o0): the pipe's bytes, no memory error (ASan+UBSan)
	@tests/need.sh python3 script stdbuf
	$(DRAIN_T_ENV) tests/drain/t_json_tty.sh

test-drain-follow: $(DRAIN_IO_TOOLS) ## drain: --follow across truncation, rotation and replacement
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_follow.sh

test-drain-listen: $(DRAIN_IO_TOOLS) $(DRAIN_T)/hosted_app ## drain: tcp-listen on 127.0.0.1: a hosted program connects; --follow, signals in accept, port in use
	@tests/need.sh go ss python3
	$(DRAIN_T_ENV) tests/drain/t_listen.sh

test-drain-listen-qemu: $(BUILD)/drain/drain-asan ## drain: tcp-listen with QEMU's UART as a TCP client (the demo firmware), checked against its truth
	@tests/need.sh $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU)) go
	@$(MAKE) --no-print-directory -s $(BOARD_DIR)/uart/demo.elf
	$(BOARD_ENV) DRAIN=$(BUILD)/drain/drain-asan ASAN_OPTIONS=detect_leaks=1 tests/drain/t_listen_qemu.sh $(BOARD_DIR)/uart/demo.elf
