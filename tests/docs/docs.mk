# Doc tests: every command and code block of the docs runs as written (tests/docs/).
# Each fenced block of a markdown file carries, on the line above it, <!-- doc-test: NAME --> (test
# NAME extracts the block from the markdown when it runs and runs it as written; a note in
# parentheses says how) or <!-- doc-test: none (REASON) --> (not runnable); docs-blocks checks
# that. The tests run the blocks in a "user's checkout": a folder of links to this checkout whose
# build/ is $(BUILD) (tests/docs/lib.sh), so the docs' build/ paths hold as written and what make
# test built is reused.
DOCS_T := $(BUILD)/docs
DOCS_ENV = BUILD=$(BUILD) DOCS_T=$(DOCS_T)

TESTS += docs-blocks
test-docs-blocks: ## Every fenced block of every markdown file is annotated with the test that runs it (or none, with a reason)
	@CHECK_TESTS="$(CHECK_TESTS)" tests/docs/check_blocks.sh $(TESTS)

# The README's firmware snippet (docs-firmware-snippet) built as written for qemu-virt-aarch64:
# main.c is the block, extracted from README.md at build time; tests/docs/do_work.c the
# do_work() it calls; the board's start-up, link script and the demo's heap; the board's
# libmsamp.a (make BOARD=... lib) and its UART transport.
DOCS_FW := $(DOCS_T)/firmware
DOCS_FW_BOARD := qemu-virt-aarch64
ifeq ($(BOARD),$(DOCS_FW_BOARD))
$(DOCS_FW)/main.c: README.md tests/docs/extract.sh
	@mkdir -p $(@D)
	tests/docs/extract.sh README.md docs-firmware-snippet >$@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
$(DOCS_FW)/main.o: $(DOCS_FW)/main.c $(BOARD_FLAGS)
	$(BOARD_COMPILE) -c $< -o $@
$(DOCS_FW)/do_work.o: tests/docs/do_work.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) -I$(DEMO_DIR) -c $< -o $@
DOCS_FW_OBJS = $(DOCS_FW)/main.o $(DOCS_FW)/do_work.o $(BOARD_OBJS) $(DEMO_OBJS) $(BOARD_LIB) \
	$(BOARD_DIR)/libmsamp_uart.a
$(DOCS_FW)/firmware.elf: $(DOCS_FW_OBJS) $(BOARD_LDSCRIPT)
	$(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(BOARD_LINK_FLAGS) -o $@ $(DOCS_FW_OBJS) $(BOARD_LIBGCC)
endif
# Built by a sub-make for the board, whatever BOARD this make has.
DOCS_DEMO_ELF := $(BUILD)/$(DOCS_FW_BOARD)/uart/demo.elf
docs_firmware = $(MAKE) --no-print-directory -s BOARD=$(DOCS_FW_BOARD) TRANSPORT=uart \
	host_tools/drain host_tools/msamp-dump $(DOCS_FW)/firmware.elf $(DOCS_DEMO_ELF)
DOCS_QEMU = BOARD_QEMU="$$($(MAKE) --no-print-directory -s BOARD=$(DOCS_FW_BOARD) docs-board-qemu)"
.PHONY: docs-board-qemu
docs-board-qemu:
	@echo '$(BOARD_QEMU)'

TESTS += docs-firmware-snippet
test-docs-firmware-snippet: ## README's firmware snippet as written: built for qemu-virt-aarch64, run under QEMU, drained, sites symbolized
	@tests/need.sh aarch64-linux-gnu-gcc qemu-system-aarch64 go
	@$(docs_firmware)
	@$(DOCS_ENV) $(DOCS_QEMU) tests/docs/firmware_snippet.sh README.md $(DOCS_FW)

TESTS += docs-firmware-outoftree
test-docs-firmware-outoftree: ## README's snippet, Make block and linker-script line as written: a firmware built in a temporary folder outside the checkout with its own start-up and script, run under QEMU, real stacks
	@tests/need.sh aarch64-linux-gnu-gcc qemu-system-aarch64 go
	@$(MAKE) --no-print-directory -s host_tools/drain
	@$(DOCS_ENV) $(DOCS_QEMU) tests/docs/firmware_outoftree.sh README.md

TESTS += docs-hosted
test-docs-hosted: ## README's and docs/HOSTED.md's hosted examples as written, with a small app.c: built through pkg-config, run, drained
	@tests/need.sh cc pkg-config go
	@$(MAKE) --no-print-directory -s host_tools/drain host_tools/msamp-dump hosted
	@$(DOCS_ENV) tests/docs/hosted.sh README.md docs/HOSTED.md

TESTS += docs-wrap-allocator
test-docs-wrap-allocator: ## README's MSAMP_WRAP_ALLOCATOR block as written around a FreeRTOS-like pool: exact counts per site at interval 1
	@tests/need.sh cc pkg-config go
	@$(MAKE) --no-print-directory -s host_tools/drain hosted
	@$(DOCS_ENV) tests/docs/wrap_allocator.sh README.md

TESTS += docs-tail-call
test-docs-tail-call: ## docs/API.md's own-allocator rules on a hosted program: a `return malloc(n);` helper's samples at its caller at -O2 (at the helper with -fno-optimize-sibling-calls), a wrapped pool's calls from its own file never sampled
	@tests/need.sh cc pkg-config go
	@$(MAKE) --no-print-directory -s host_tools/drain hosted
	@$(DOCS_ENV) tests/docs/tail_call.sh docs/API.md

TESTS += docs-readme-intro
test-docs-readme-intro: ## README's first block as written: drain on a tty (a QEMU pty for /dev/ttyUSB0) until Ctrl-C, go tool pprof -http serving
	@tests/need.sh aarch64-linux-gnu-gcc qemu-system-aarch64 go curl setsid
	@$(docs_firmware)
	@$(DOCS_ENV) $(DOCS_QEMU) tests/docs/readme_intro.sh README.md $(DOCS_FW)

TESTS += docs-make-targets
test-docs-make-targets: ## The make commands of README.md, docs/BOARDS.md, boards/README.md and docs/VERDICTS.md as written (long targets: their rules in make's database)
	@tests/need.sh aarch64-linux-gnu-gcc arm-none-eabi-gcc qemu-system-aarch64 go
	@$(DOCS_ENV) tests/docs/make_targets.sh README.md docs/BOARDS.md boards/README.md docs/VERDICTS.md

TESTS += docs-output
test-docs-output: ## The docs' output and usage examples: each line has the shape of a line drain, msamp-dump or the demo really print; DRAIN.md's synopsis names every option
	@tests/need.sh aarch64-linux-gnu-gcc qemu-system-aarch64 go
	@$(docs_firmware) $(DRAIN_T)/gen
	@$(DOCS_ENV) $(DOCS_QEMU) DEMO_ELF=$(DOCS_DEMO_ELF) GEN=$(DRAIN_T)/gen tests/docs/output.sh \
		docs/BOARDS.md docs/DRAIN.md docs/FLEET.md docs/MSAMP_DUMP.md tests/vectors/README.md

TESTS += docs-drain-examples
test-docs-drain-examples: ## drain's examples (README.md's, docs/DRAIN.md's) as written: a tty, TCP both ways, --follow, views, go tool pprof, merge
	@tests/need.sh aarch64-linux-gnu-gcc qemu-system-aarch64 go pkg-config setsid ss
	@$(docs_firmware) hosted
	@$(DOCS_ENV) $(DOCS_QEMU) tests/docs/drain_examples.sh $(DOCS_FW) README.md docs/DRAIN.md

TESTS += docs-msamp-dump
test-docs-msamp-dump: ## docs/MSAMP_DUMP.md's commands as written: a capture, a live tty (a QEMU pty for /dev/ttyUSB0) through socat, -s --strict
	@tests/need.sh aarch64-linux-gnu-gcc qemu-system-aarch64 socat setsid
	@$(docs_firmware)
	@$(DOCS_ENV) $(DOCS_QEMU) DEMO_ELF=$(DOCS_DEMO_ELF) tests/docs/msamp_dump.sh $(DOCS_FW) docs/MSAMP_DUMP.md

TESTS += docs-layout
test-docs-layout: ## README's Layout: every entry and path it names exists, and its tests/ entry names every folder of tests/
	@$(DOCS_ENV) tests/docs/layout.sh README.md
