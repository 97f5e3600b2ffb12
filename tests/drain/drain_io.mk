# drain's I/O under faults (docs/DRAIN.md "Faults"): signals while decoding, partial profiles that
# cannot be written, --follow across truncation, rotation and replacement. Helpers and drain under
# ASan+UBSan come from drain_tests.mk.
TESTS += drain-signal drain-partial drain-follow
ROBUST_TESTS += drain-signal drain-partial drain-follow

.PHONY: test-drain-signal test-drain-partial test-drain-follow

test-drain-signal: $(DRAIN_T_TOOLS) ## drain: SIGINT/SIGTERM while decoding a large stream: final profile within 1 s
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_signal.sh

test-drain-partial: $(DRAIN_T_TOOLS) ## drain: --every partial profiles that cannot be written (directory, ENOSPC)
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_partial.sh

test-drain-follow: $(DRAIN_T_TOOLS) ## drain: --follow across truncation, rotation and replacement
	@tests/need.sh go
	$(DRAIN_T_ENV) tests/drain/t_follow.sh
