# Budgets that CI enforces (issue 26; docs/PERFORMANCE.md#budgets-make-budgets): deterministic measures of
# msamp (code and RAM of every `make size` row, wire bytes per event, instructions per wrapper call
# and per sampled allocation on each board, drain's instructions per MB and peak memory) judged
# against tests/budgets/budgets.tsv by tests/budgets/budgets.sh. No wall-clock time is gated. The
# README's Numbers table is judged against the same measures (tests/budgets/numbers.py), and
# `make readme-numbers` writes it from them.
BUDGETS_OUT := $(BUILD)/budgets

$(BUDGETS_OUT)/maxrss: tests/budgets/maxrss.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $< -o $@
# drain's fixed streams, made again only when gen changes.
$(BUDGETS_OUT)/streams/sites.bin: $(DRAIN_T)/gen
	@mkdir -p $(@D)
	$(DRAIN_T)/gen --interval 1 --allocs 400000 --sites 1000 --snap-every 100000 $@ /dev/null
$(BUDGETS_OUT)/streams/sites5.bin: $(DRAIN_T)/gen
	@mkdir -p $(@D)
	$(DRAIN_T)/gen --interval 1 --allocs 100000 --unique-stacks --snap-every 0 $@ /dev/null
$(BUDGETS_OUT)/streams/sites5b.bin: $(DRAIN_T)/gen
	@mkdir -p $(@D)
	$(DRAIN_T)/gen --interval 1 --allocs 100000 --unique-stacks --seed 2 --snap-every 0 $@ /dev/null
$(BUDGETS_OUT)/streams/unique.bin: $(DRAIN_T)/gen
	@mkdir -p $(@D)
	$(DRAIN_T)/gen --interval 1 --allocs 1000000 --unique-stacks --snap-every 0 $@ /dev/null

# The boards of bench-ports, one a line: label|board|make variables.
.PHONY: budgets-ports-list
budgets-ports-list:
	@$(foreach b,$(PT_BENCH_BOARDS),echo '$(b)|$(PTB_BOARD_$(b))|$(PTB_VARS_$(b))';)

BUDGETS_PREREQS := host_tools/drain host_tools/msamp-dump $(HT)/msamp_check $(HT)/e2e_app \
	$(addprefix $(BENCH_OUT)/,alloc_msamp wrappers_none wrappers_bare wrappers_msamp) \
	$(addprefix $(BUDGETS_OUT)/,maxrss streams/sites.bin streams/unique.bin \
	streams/sites5.bin streams/sites5b.bin)
# The size table's compilers, the boards' QEMUs, callgrind.
BUDGETS_NEEDS := python3 valgrind flock pkg-config arm-none-eabi-gcc clang ld.lld aarch64-linux-gnu-gcc \
	mips64el-linux-gnuabi64-gcc riscv64-linux-gnu-gcc riscv64-unknown-elf-gcc qemu-system-aarch64 qemu-system-arm \
	qemu-system-mips64el qemu-system-riscv64 qemu-system-riscv32 qemu-system-x86_64
budgets_run = @tests/need.sh $(BUDGETS_NEEDS) && \
	$(MAKE) --no-print-directory -s -j2 $(BUDGETS_PREREQS) && \
	MAKE="$(MAKE)" BUILD="$(BUILD)" SIZE_SMALL="$(SIZE_TABLE_SMALL)" $(1) tests/budgets/budgets.sh $(BUDGETS_OUT)

.PHONY: budgets
budgets: ## Check the budgets (tests/budgets/budgets.tsv): code, RAM, wire bytes, instruction counts, drain's memory
	$(call budgets_run,)

# The same, and the judge's failure shown on a copy of the table with every budget lowered.
TESTS += budgets
test-budgets: ## Budgets: every measure of tests/budgets/budgets.tsv within its budget; a lowered table fails
	$(call budgets_run,BUDGETS_SELFTEST=1)

# The README's Numbers table written from the last run's measures (tests/budgets/numbers.tsv names
# the measure of each figure; a figure the last run did not measure keeps its text).
.PHONY: readme-numbers
readme-numbers: ## Write the README's Numbers table from build/budgets/measured.tsv (run make budgets first)
	@[ -s $(BUDGETS_OUT)/measured.tsv ] || { echo "no $(BUDGETS_OUT)/measured.tsv: run make budgets first" >&2; exit 2; }
	tests/budgets/numbers.py write README.md $(BUDGETS_OUT)/measured.tsv
