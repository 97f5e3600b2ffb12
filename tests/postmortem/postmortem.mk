# Post-mortem heap (docs/POSTMORTEM.md): drain --ram / --core reading the msamp_heapdump block of a
# RAM dump or an ELF core. The demo firmware (demo-long, the board tests' own) runs under QEMU
# with its monitor on a unix socket (QMP, tests/postmortem/qmp.py), is stopped mid-run and dumped,
# and the dump's in-use profile must be the stream's at that instant but for the ring's unsent
# records (t_postmortem.sh, compare.py): aarch64 (an ELF core and pmemsave), big-endian MIPS64
# (memsave), 32-bit Arm (pmemsave) and the Cortex-M3 in the tiny profile (the compact tables'
# block, code and RAM as two --ram images). Hostile dumps under ASan+UBSan (t_hostile.sh), and a
# libFuzzer target of the reader seeded with real dumps (seeds/, made by mkseed.py). A hosted
# program's gdb core, PIE and not (t_gcore.sh).
PM_OUT = $(BUILD)/postmortem
PM_TOOLS = host_tools/drain $(BUILD)/drain/drain-asan
PM_ELF = $(BOARD_DIR)/uart/demo-long.elf

TESTS += postmortem-aarch64 postmortem-mips64 postmortem-arm postmortem-tiny postmortem-hostile
ROBUST_TESTS += postmortem-hostile fuzz-heapdump
FUZZ_TARGETS += heapdump
TESTS += fuzz-heapdump
.PHONY: test-postmortem-aarch64 test-postmortem-mips64 test-postmortem-arm test-postmortem-tiny \
	test-postmortem-hostile postmortem-one fuzz-heapdump test-fuzz-heapdump

# One board (BOARD=...): PM_NAME, PM_MODE (pmemsave, memsave, core), PM_TINY (tiny or empty).
postmortem-one:
	@tests/need.sh $(BOARD_CROSS)gcc $(BOARD_CROSS)readelf $(firstword $(BOARD_QEMU)) python3
	@$(MAKE) --no-print-directory -s $(PM_TOOLS) $(PM_ELF)
	@$(BOARD_ENV) DRAIN=host_tools/drain DRAIN_ASAN=$(BUILD)/drain/drain-asan READELF=$(BOARD_CROSS)readelf \
		tests/postmortem/t_postmortem.sh $(PM_OUT)/$(PM_NAME) $(PM_ELF) $(PM_MODE) $(PM_TINY)

test-postmortem-aarch64: ## Post-mortem: aarch64 demo stopped mid-run, an ELF core and a pmemsave image read by drain, equal to the stream at that instant
	@$(MAKE) --no-print-directory -s BOARD=qemu-virt-aarch64 PM_NAME=aarch64 PM_MODE=core postmortem-one
test-postmortem-mips64: ## Post-mortem: the big-endian MIPS64 demo's memory (memsave) read by drain --ram, equal to the stream
	@$(MAKE) --no-print-directory -s BOARD=qemu-malta-mips64 PM_NAME=mips64 PM_MODE=memsave postmortem-one
test-postmortem-arm: ## Post-mortem: the 32-bit Arm demo's memory (pmemsave) read by drain --ram, equal to the stream
	@$(MAKE) --no-print-directory -s BOARD=qemu-virt-arm PM_NAME=arm PM_MODE=pmemsave postmortem-one
test-postmortem-tiny: ## Post-mortem: the Cortex-M3 tiny profile's block (compact tables), code and RAM as two --ram images
	@$(MAKE) --no-print-directory -s BOARD=qemu-mps2-an385 PM_NAME=tiny PM_MODE=pmemsave PM_TINY=tiny postmortem-one

PM_OTHER_ELF = $(BUILD)/qemu-malta-mips64/uart/demo-long.elf
test-postmortem-hostile: ## Post-mortem: truncated, misplaced and corrupted dumps, wrong and missing files under ASan+UBSan: a message and an exit status each
	@tests/need.sh aarch64-linux-gnu-gcc mips64el-linux-gnuabi64-gcc qemu-system-aarch64 python3
	@$(MAKE) --no-print-directory -s $(PM_TOOLS) $(BUILD)/qemu-virt-aarch64/uart/demo-long.elf \
		$(BUILD)/qemu-virt-aarch64/uart/demo.elf
	@$(MAKE) --no-print-directory -s BOARD=qemu-malta-mips64 $(PM_OTHER_ELF)
	@$(MAKE) --no-print-directory -s BOARD=qemu-virt-aarch64 postmortem-hostile-run
.PHONY: postmortem-hostile-run
postmortem-hostile-run:
	@$(BOARD_ENV) DRAIN=$(BUILD)/drain/drain-asan READELF=$(BOARD_CROSS)readelf NM=$(BOARD_CROSS)nm \
		tests/postmortem/t_hostile.sh $(PM_OUT)/hostile $(PM_ELF) $(PM_OTHER_ELF) $(BOARD_DIR)/uart/demo.elf

# A hosted program's gdb core (t_gcore.sh, gcore_app.c): the program linked with the hosted port
# as a PIE (Debian's default) and with -no-pie, stopped by itself at a known point, its core taken
# with gcore and read with --core --elf: the in-use profile equal to its own stream's; the core with
# its NT_FILE note damaged (mutcore.py) and the other build's ELF under ASan+UBSan; and
# tests/hosted/table_app.c, every block sampled, its core's in-use exact (issue 36).
PM_GCORE_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fno-builtin-malloc \
	-fno-optimize-sibling-calls -fno-omit-frame-pointer
PM_GCORE_PC = $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags --libs msamp)
$(PM_OUT)/gcore_app: tests/postmortem/gcore_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(PM_GCORE_CFLAGS) -pie -fPIE $< $(PM_GCORE_PC) -o $@
$(PM_OUT)/gcore_app_nopie: tests/postmortem/gcore_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(PM_GCORE_CFLAGS) -no-pie $< $(PM_GCORE_PC) -o $@
$(PM_OUT)/table_app: tests/hosted/table_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(PM_GCORE_CFLAGS) $< $(PM_GCORE_PC) -o $@
TESTS += postmortem-hosted-gcore
.PHONY: test-postmortem-hosted-gcore
test-postmortem-hosted-gcore: ## Post-mortem: a hosted program (PIE and -no-pie, default table size) stopped, its gdb core read by drain --core --elf, equal to its stream; every block of table_app.c's 10 100 in its core
	@tests/need.sh gdb gcore python3
	@$(MAKE) --no-print-directory -s $(PM_TOOLS) $(PM_OUT)/gcore_app $(PM_OUT)/gcore_app_nopie \
		$(PM_OUT)/table_app
	@DRAIN=host_tools/drain DRAIN_ASAN=$(BUILD)/drain/drain-asan TABLE_APP=$(PM_OUT)/table_app \
		tests/postmortem/t_gcore.sh $(PM_OUT)/gcore $(PM_OUT)/gcore_app \
		$(PM_OUT)/gcore_app_nopie

# The dump reader's fuzzer. Its inputs are memory images (the seeds are 6-47 KB), so its own
# length limit; FUZZ_HEAPDUMP_SECONDS (5) for `make test` (the other targets' FUZZ_SHORT_SECONDS is 20).
FUZZ_HEAPDUMP_SECONDS ?= 5
$(FUZZ_DIR)/heapdump_fuzz: tests/postmortem/fuzz_heapdump.c $(FUZZ_DRAIN_LIB)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) $(DRAIN_INC) $< $(FUZZ_DRAIN_LIB) $(DRAIN_LIBS) -o $@
$(FUZZ_DIR)/heapdump-seed/.made: $(wildcard tests/postmortem/seeds/*.gz)
	@rm -rf $(@D) && mkdir -p $(@D)
	@for f in $^; do gzip -dc $$f >$(@D)/$$(basename $$f .gz); done
	@touch $@
define fuzz_heapdump_run
	@tests/need.sh clang
	$(fuzz_lib)
	@$(MAKE) --no-print-directory $(FUZZ_DIR)/heapdump_fuzz $(FUZZ_DIR)/heapdump-seed/.made
	@mkdir -p $(FUZZ_DIR)/heapdump-corpus $(FUZZ_DIR)/heapdump-crashes
	$(FUZZ_ENV) $(FUZZ_DIR)/heapdump_fuzz $(1) $(FUZZ_OPTS) -max_len=65536 \
	  -artifact_prefix=$(FUZZ_DIR)/heapdump-crashes/ $(FUZZ_DIR)/heapdump-corpus $(FUZZ_DIR)/heapdump-seed
endef
fuzz-heapdump:
	$(call fuzz_heapdump_run,$(FUZZ_LONG_OPTS))
test-fuzz-heapdump: ## Fuzz drain's post-mortem dump reader (drain --ram) for 5 s from real dumps' seeds (libFuzzer, ASan+UBSan)
	$(call fuzz_heapdump_run,-max_total_time=$(FUZZ_HEAPDUMP_SECONDS))

# The heap from a dump (t_heapwalk.sh, docs/POSTMORTEM.md "The heap map"): the FreeRTOS demo built
# with DEMO_HEAPWALK_MS (demo-heapwalk: four 12 KB blocks, one lost on purpose, three held; the
# heap frozen and heap_4's free list printed 400 ms in) is dumped there; drain --heap-map's free
# holes must be the firmware's list, the lost block unreachable and the held ones reachable.
ifeq ($(BOARD),qemu-mps2-an385-freertos)
DEMO_DEFS_demo-heapwalk := -DDEMO_HEAPWALK_MS=400
DEMO_LIB_demo-heapwalk := $(DEMO_LIB)
$(eval $(call board_demo,uart,demo-heapwalk))
endif
TESTS += postmortem-heapmap
.PHONY: test-postmortem-heapmap postmortem-heapmap-run
test-postmortem-heapmap: ## Post-mortem: the FreeRTOS demo dumped mid-run: --heap-map's holes equal heap_4's free list as the firmware printed it, a block lost on purpose unreachable, held ones reachable; in Chromium; 24 damaged dumps under ASan+UBSan
	@tests/need.sh arm-none-eabi-gcc qemu-system-arm chromium python3
	@$(MAKE) --no-print-directory -s $(PM_TOOLS)
	@$(MAKE) --no-print-directory -s BOARD=qemu-mps2-an385-freertos postmortem-heapmap-run
postmortem-heapmap-run: $(BOARD_DIR)/uart/demo-heapwalk.elf
	@mkdir -p $(BUILD)/test-artifacts/postmortem
	@$(BOARD_ENV) DRAIN=$(BUILD)/drain/drain-asan READELF=$(BOARD_CROSS)readelf ART=$(BUILD)/test-artifacts/postmortem \
		tests/postmortem/t_heapwalk.sh $(PM_OUT)/heapmap $<

# The same for newlib-nano's malloc on the Cortex-M3 (tests/postmortem/nano_fw.c, built through
# tests/newlib/fw.make as the newlib tests build theirs: Debian's libc_nano.a, malloc and free
# wrapped, every allocation sampled), and for full newlib's (dlmalloc; newlib_fw.c, the same heap,
# heap_fw.h): there the holes equal the firmware's own walk of its chunks and _mallinfo_r's
# fordblks and ordblks.
# pm_heapmap_libc: $(1) the test's name (nano, newlib), $(2) fw.make's LIBC, $(3) the firmware's
# source, $(4) t_heapwalk.sh's mode.
define pm_heapmap_libc
	@tests/newlib/need_newlib.sh
	@tests/need.sh qemu-system-arm chromium python3
	@$(MAKE) --no-print-directory -s $(PM_TOOLS)
	@$(MAKE) --no-print-directory -s -f tests/newlib/fw.make OBJ_ROOT=$(PM_OUT)/nano-obj OUT=$(PM_OUT)/$(1)-fw LIBC=$(2) \
		WRAP="malloc free" SRC=$(3) >$(PM_OUT)/$(1)-build.log 2>&1 || { cat $(PM_OUT)/$(1)-build.log; exit 1; }
	@$(MAKE) --no-print-directory -s BOARD=qemu-mps2-an385 PM_LIBC_NAME=$(1) PM_LIBC_MODE=$(4) postmortem-heapmap-libc-run
endef
TESTS += postmortem-heapmap-nano postmortem-heapmap-newlib
.PHONY: test-postmortem-heapmap-nano test-postmortem-heapmap-newlib postmortem-heapmap-libc-run
test-postmortem-heapmap-nano: ## Post-mortem: newlib-nano's heap dumped, frozen in a fragmented state: --heap-map's holes equal its free list as the firmware printed it, the lost block unreachable, the held ones reachable; in Chromium; 21 damaged dumps under ASan+UBSan
	$(call pm_heapmap_libc,nano,nano,tests/postmortem/nano_fw.c,nano)
test-postmortem-heapmap-newlib: ## Post-mortem: full newlib's heap (dlmalloc) dumped, fragmented: --heap-map's holes equal its chunks' walk as the firmware printed it and _mallinfo_r's counts, the lost block unreachable, the held ones reachable; in Chromium; 22 damaged dumps under ASan+UBSan
	$(call pm_heapmap_libc,newlib,full,tests/postmortem/newlib_fw.c,full)
postmortem-heapmap-libc-run:
	@mkdir -p $(BUILD)/test-artifacts/postmortem-$(PM_LIBC_NAME)
	@$(BOARD_ENV) DRAIN=$(BUILD)/drain/drain-asan READELF=$(BOARD_CROSS)readelf ART=$(BUILD)/test-artifacts/postmortem-$(PM_LIBC_NAME) \
		tests/postmortem/t_heapwalk.sh $(PM_OUT)/heapmap-$(PM_LIBC_NAME) $(PM_OUT)/$(PM_LIBC_NAME)-fw/fw.elf $(PM_LIBC_MODE)
