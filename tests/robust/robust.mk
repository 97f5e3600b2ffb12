# The reliability suite (docs/RELIABILITY.md): noisy lines, hostile streams, drain's bounds, the
# hosted output under stalled consumers, device faults on QEMU boards, hostile API use, fuzzing.
# Each area's fragment adds its tests to ROBUST_TESTS (short forms, also in `make test`),
# its long runs to SOAK_TESTS, and its fuzz targets to FUZZ_TARGETS (`make fuzz`, defined in
# tests/fuzz/fuzz.mk, runs each for FUZZ_RUNS executions).
ROBUST_TESTS ?=
SOAK_TESTS ?=
FUZZ_RUNS ?= 10000000

.PHONY: check-robust soak

check-robust: ## The reliability suite's short form (also part of `make test`)
	@ci/deps.sh all
	@$(MAKE) --no-print-directory $(TEST_PREREQS)
	@MAKE="$(MAKE)" tests/runner.sh $(ROBUST_TESTS)

soak: ## The reliability suite's long form: noisy lines at every rate and seed, long fault runs
	@ci/deps.sh all
	@$(MAKE) --no-print-directory $(TEST_PREREQS)
	@MAKE="$(MAKE)" SOAK=1 tests/runner.sh $(ROBUST_TESTS) $(SOAK_TESTS)

# Tests from before the suite that belong to it.
ROBUST_TESTS += decoder-robust decoder-fuzz drain-damage board-stall board-late-join \
	board-late-join-tcp hosted-signal
