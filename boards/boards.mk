# Generic board rules, driven by boards/$(BOARD)/board.mk (see boards/README.md): the library for
# the board, the demo firmware, QEMU runs, `make demo` and `make size`.
# The demo firmware, an example that runs on every board (docs/BOARDS.md).
DEMO_DIR := boards/examples/demo
ifneq ($(wildcard boards/$(BOARD)/board.mk),)
include boards/$(BOARD)/board.mk
# What every board's transports share, unless its board.mk says otherwise: semihosting writes the
# stream to stream.bin in QEMU's folder; SEGGER RTT (docs/RTT.md) makes the demo wait for the
# probe (drain gdb:..., through QEMU's gdbstub) when the up-buffer is full, as it waits for the
# UART's FIFO, so it loses nothing (a board.mk sets -DMSAMP_RTT_UP_SIZE=... -DMSAMP_RTT_BLOCK=1).
BOARD_TRANSPORT_SRCS_semihosting ?= port/transport/semihosting.c
BOARD_TRANSPORT_DEFS_semihosting ?= -DMSAMP_SEMIHOST_PATH='"stream.bin"'
BOARD_TRANSPORT_SRCS_rtt ?= port/transport/rtt.c

# A board.mk may set BOARD_VARIANT (e.g. -thumb, -clang) to keep builds of one board apart, and
# BOARD_PROFILE, the core's profile it builds by default (full, or tiny for small parts);
# MSAMP_PROFILE=... builds the other one (in a folder of its own).
BOARD_DEPS ?= host cross qemu test
# The demo's main file: the common demo, or a board's own (an RTOS board's tasks).
BOARD_DEMO_SRC ?= $(DEMO_DIR)/demo.c
BOARD_PROFILE ?= full
MSAMP_PROFILE ?= $(BOARD_PROFILE)
BOARD_VARIANT := $(BOARD_VARIANT)$(if $(filter-out $(BOARD_PROFILE),$(MSAMP_PROFILE)),-$(MSAMP_PROFILE))
BOARD_DIR := $(BUILD)/$(BOARD)$(BOARD_VARIANT)
# BOARD_COMPILER=clang builds every target file with clang for BOARD_CLANG_TARGET and links with
# lld; libgcc still comes from the cross gcc (for the few helpers the compilers call).
BOARD_COMPILER ?= gcc
# The libgcc multilib of the board's CPU flags (Thumb-only cores need the Thumb one).
BOARD_LIBGCC := $(shell $(BOARD_CROSS)gcc $(BOARD_CFLAGS) -print-libgcc-file-name 2>/dev/null)
ifeq ($(BOARD_COMPILER),clang)
BOARD_CC := clang --target=$(BOARD_CLANG_TARGET)
BOARD_LD_SELECT := -fuse-ld=lld
BOARD_NOLOOPCALLS :=
BOARD_NOPIE :=
else
BOARD_CC := $(BOARD_CROSS)gcc
BOARD_LD_SELECT :=
BOARD_NOLOOPCALLS := -fno-tree-loop-distribute-patterns
BOARD_NOPIE := -no-pie
endif
BOARD_AR := $(BOARD_CROSS)ar
BOARD_SIZE := $(BOARD_CROSS)size
BOARD_TRANSPORT_OK := $(filter $(TRANSPORT),$(BOARD_TRANSPORTS))

# The library through the firmware-integration fragment, as a firmware project takes it: the
# port's sources (port/$(BOARD_ARCH)/port.mk), the core's, their flags. Transports are built per
# board below (one library each), the semihosting helpers with the board: its console and exit.
MSAMP_ARCH := $(BOARD_ARCH)
MSAMP_TRANSPORT := none
# The board's compiler decides the walker's flags (-funwind-tables for gcc on arm; clang's r7
# frame chain needs none): CC is the host's here.
MSAMP_COMPILER := $(BOARD_COMPILER)
include port/msamp.mk
BOARD_SRCS += $(MSAMP_SEMIHOSTING_SRCS)

# Flags for all target code of a board. The library must not depend on the board's heap or libc.
# BOARD_EXTRA_DEFS: more -D for all of it, for a build folder of its own (BUILD=...): the paced
# links of tests/link (-DMSAMP_UART_BAUD=9600 -DMSAMP_CFG_LINK_ADAPT=0 ...).
BOARD_TARGET_CFLAGS := $(TARGET_WARN) -ffreestanding -nostdlib -fno-pie -O2 -g \
	-fno-asynchronous-unwind-tables -fno-unwind-tables $(BOARD_CFLAGS) $(MSAMP_CFLAGS) -Iboards $(BOARD_EXTRA_DEFS)
BOARD_LINK_FLAGS := $(BOARD_LD_SELECT) -nostdlib -static $(BOARD_NOPIE) -T $(BOARD_LDSCRIPT) $(BOARD_LDFLAGS) $(MSAMP_LDFLAGS)
# Every compile of a board's target code: make keeps each object's header dependencies (.d).
BOARD_COMPILE = $(BOARD_CC) $(BOARD_TARGET_CFLAGS) -MMD -MP

# $(BOARD_FLAGS) holds every flag this build folder's objects are compiled and linked with; it is
# rewritten only when one changes, and every object, library and image depends on it.
BOARD_FLAGS := $(BOARD_DIR)/flags
board_flags_text = $(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(MSAMP_OWN_CFLAGS) $(BOARD_VENDOR_CFLAGS) $(OBJ_DEFS) $(BOARD_NOLOOPCALLS) \
	$(DEMO_MSAMP_DEFS) $(foreach t,$(BOARD_TRANSPORTS),$(BOARD_TRANSPORT_DEFS_$(t))) \
	$(foreach v,$(DEMO_VARIANTS) $(DEMO_CLOCK_VARIANTS) $(DEMO_OTHER_VARIANTS),$(DEMO_DEFS_$(v))) $(BOARD_SELFTEST_DEFS) $(BOARD_LINK_FLAGS) $(BOARD_LIBGCC)
$(BOARD_FLAGS): board-flags-force
	$(if $(subst |$(board_flags_text)|,,|$(file <$@)|),$(shell mkdir -p $(@D))$(file >$@,$(board_flags_text)))
board-flags-force:
-include $(shell find $(BOARD_DIR) -name '*.d' 2>/dev/null)
# The compiler writes them; make never remakes one (its built-in `%: %.o` would otherwise try
# demo-seed1.d from demo-seed1.d.o through the analysis firmware's demo-seed%.o rule).
$(BOARD_DIR)/%.d: ;

obj_of = $(patsubst %.S,$(1)/%.o,$(patsubst %.c,$(1)/%.o,$(2)))
BOARD_LIB_OBJS := $(call obj_of,$(BOARD_DIR)/obj,$(MSAMP_LIB_SRCS))
BOARD_LIB := $(BOARD_DIR)/libmsamp.a
BOARD_OBJS := $(call obj_of,$(BOARD_DIR)/obj,$(BOARD_SRCS))
# The demo's heap and C library (a board with its own demo and heap keeps the library only).
BOARD_DEMO_SRCS ?= $(DEMO_DIR)/demo_heap.c $(DEMO_DIR)/mini_libc.c
DEMO_SRCS := $(BOARD_DEMO_SRCS)
DEMO_OBJS := $(call obj_of,$(BOARD_DIR)/obj,$(DEMO_SRCS))

# Demo variants: demo.c built with DEMO_DEFS_<variant>.
DEMO_VARIANTS := demo demo-stall demo-long demo-scale
DEMO_DEFS_demo :=
DEMO_DEFS_demo-stall := -DDEMO_STALL_FROM=500 -DDEMO_STALL_TO=2500
DEMO_DEFS_demo-long := -DDEMO_MIN_MS=1500 -DDEMO_INTERVAL=1024
# The adaptive interval on a device: every block sampled at the start (interval 8), a leak of
# ~2000 blocks, and a library whose live table has 128 slots (DEMO_SCALE_LIB): the live sampled set
# is over 15 times the table.
DEMO_DEFS_demo-scale := -DDEMO_INTERVAL=8 -DLEAK_EVERY=2
# Cortex-M boards (tests/board/clock.sh): demo-clock, the demo sampled every 32 bytes (every 16
# with DEMO_SMALL_RAM, whose 32 leaked blocks then leak over the whole run), and the same with an
# application's SysTick tick started before msamp_init (demo.c's DEMO_HAL_TICK): its tick given to
# msamp (demo-haltick), a wrong one (-wrong), none (-none).
DEMO_CLOCK_VARIANTS := $(if $(findstring -mcpu=cortex-m,$(BOARD_CFLAGS)),demo-clock demo-haltick demo-haltick-wrong demo-haltick-none)
DEMO_DEFS_demo-clock := $(if $(findstring DEMO_SMALL_RAM=1,$(BOARD_CFLAGS)),-DDEMO_INTERVAL=16 -DLEAK_EVERY=125,-DDEMO_INTERVAL=32)
DEMO_DEFS_demo-haltick := $(DEMO_DEFS_demo-clock) -DDEMO_HAL_TICK=1
DEMO_DEFS_demo-haltick-wrong := $(DEMO_DEFS_demo-clock) -DDEMO_HAL_TICK=2
DEMO_DEFS_demo-haltick-none := $(DEMO_DEFS_demo-clock) -DDEMO_HAL_TICK=3

# Built only when asked for: demo-exhaust, the time-to-exhaustion calibration's firmware
# (tests/calibrate/board.sh, CALIB_EXHAUST=1): the leak paced by msamp's clock (demo.c's
# DEMO_LEAK_US, a block every millisecond), uniform in device time whatever QEMU's host load, for
# at least 0.6 s (4000 iterations took 0.17 to 0.8 s under load: in the shortest the leak's
# ~14 sampled blocks of the recent half were too few to be judged a leak).
DEMO_OTHER_VARIANTS := demo-exhaust
DEMO_DEFS_demo-exhaust := -DDEMO_LEAK_US=1000 -DDEMO_MIN_MS=600

$(BOARD_DIR)/obj/%.o: %.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) $(OWN_CFLAGS) $(OBJ_DEFS) -c $< -o $@
# msamp's own objects but the wrappers and hooks, as port/msamp.mk suggests (MSAMP_OWN_CFLAGS).
$(call obj_of,$(BOARD_DIR)/obj,$(MSAMP_OWN_SRCS)): OWN_CFLAGS := $(MSAMP_OWN_CFLAGS)

$(BOARD_DIR)/obj/%.o: %.S $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) -c $< -o $@

$(BOARD_DIR)/obj/$(DEMO_DIR)/mini_libc.o: OBJ_DEFS := $(BOARD_NOLOOPCALLS)
# A board's vendored sources (BOARD_VENDOR_SRCS, of BOARD_SRCS: an RTOS kernel as it comes) are
# built with BOARD_VENDOR_CFLAGS after the board's flags: what they alone need.
ifneq ($(BOARD_VENDOR_SRCS),)
$(call obj_of,$(BOARD_DIR)/obj,$(BOARD_VENDOR_SRCS)): OWN_CFLAGS := $(BOARD_VENDOR_CFLAGS)
endif

$(BOARD_LIB): $(BOARD_LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	$(BOARD_AR) rcs $@ $^

# The demo links the library built with its own configuration header, as a firmware project
# would (MSAMP_CONFIG_FILE): a live table sized for its heap.
DEMO_LIB := $(BOARD_DIR)/demo-lib/libmsamp.a
DEMO_LIB_OBJS := $(call obj_of,$(BOARD_DIR)/demo-lib,$(MSAMP_LIB_SRCS))
DEMO_MSAMP_DEFS := -DMSAMP_CONFIG_FILE='"demo_msamp_config.h"' -I$(DEMO_DIR)
$(BOARD_DIR)/demo-lib/%.o: %.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) $(OWN_CFLAGS) $(DEMO_MSAMP_DEFS) -c $< -o $@
$(call obj_of,$(BOARD_DIR)/demo-lib,$(MSAMP_OWN_SRCS)): OWN_CFLAGS := $(MSAMP_OWN_CFLAGS)
$(DEMO_LIB): $(DEMO_LIB_OBJS)
	rm -f $@
	$(BOARD_AR) rcs $@ $^
DEMO_SCALE_LIB := $(BOARD_DIR)/demo-scale-lib/libmsamp.a
DEMO_SCALE_LIB_OBJS := $(call obj_of,$(BOARD_DIR)/demo-scale-lib,$(MSAMP_LIB_SRCS))
$(BOARD_DIR)/demo-scale-lib/%.o: %.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) $(OWN_CFLAGS) $(DEMO_MSAMP_DEFS) -DMSAMP_CFG_LIVE_CAPACITY=128 -c $< -o $@
$(call obj_of,$(BOARD_DIR)/demo-scale-lib,$(MSAMP_OWN_SRCS)): OWN_CFLAGS := $(MSAMP_OWN_CFLAGS)
$(DEMO_SCALE_LIB): $(DEMO_SCALE_LIB_OBJS)
	rm -f $@
	$(BOARD_AR) rcs $@ $^
DEMO_LIB_demo := $(DEMO_LIB)
DEMO_LIB_demo-stall := $(DEMO_LIB)
DEMO_LIB_demo-long := $(DEMO_LIB)
DEMO_LIB_demo-scale := $(DEMO_SCALE_LIB)
$(foreach v,$(DEMO_CLOCK_VARIANTS) $(DEMO_OTHER_VARIANTS),$(eval DEMO_LIB_$(v) := $(DEMO_LIB)))

# One small library per transport: libmsamp_<transport>.a.
define board_transport
BOARD_TOBJS_$(1) := $$(call obj_of,$(BOARD_DIR)/obj-$(1),$(BOARD_TRANSPORT_SRCS_$(1)))
$(BOARD_DIR)/obj-$(1)/%.o: %.c $(BOARD_FLAGS)
	@mkdir -p $$(@D)
	$$(BOARD_COMPILE) $$(MSAMP_OWN_CFLAGS) $(BOARD_TRANSPORT_DEFS_$(1)) -c $$< -o $$@
$(BOARD_DIR)/libmsamp_$(1).a: $$(BOARD_TOBJS_$(1))
	rm -f $$@
	$$(BOARD_AR) rcs $$@ $$^
endef
define board_demo
$(BOARD_DIR)/$(1)/$(2).o: $(BOARD_DEMO_SRC) $(BOARD_FLAGS)
	@mkdir -p $$(@D)
	$$(BOARD_COMPILE) $(DEMO_MSAMP_DEFS) $(DEMO_DEFS_$(2)) -c $$< -o $$@
$(BOARD_DIR)/$(1)/$(2).elf: $(BOARD_DIR)/$(1)/$(2).o $(BOARD_OBJS) $(DEMO_OBJS) $(BOARD_DIR)/libmsamp_$(1).a $(DEMO_LIB_$(2)) $(BOARD_LDSCRIPT)
	$$(BOARD_CC) $$(BOARD_TARGET_CFLAGS) $$(BOARD_LINK_FLAGS) -o $$@ $(BOARD_DIR)/$(1)/$(2).o \
		$(BOARD_OBJS) $(DEMO_OBJS) $(BOARD_DIR)/libmsamp_$(1).a $(DEMO_LIB_$(2)) $(BOARD_LIBGCC)
endef
$(foreach t,$(BOARD_TRANSPORTS),$(eval $(call board_transport,$(t))))
$(foreach t,$(BOARD_TRANSPORTS),$(foreach v,$(DEMO_VARIANTS) $(DEMO_CLOCK_VARIANTS) $(DEMO_OTHER_VARIANTS),$(eval $(call board_demo,$(t),$(v)))))

BOARD_ENV := BOARD_QEMU="$(BOARD_QEMU)" BOARD_QEMU_TIMEOUT=$(BOARD_QEMU_TIMEOUT)
DEMO_ELF := $(BOARD_DIR)/$(TRANSPORT)/demo.elf
DRAIN ?= host_tools/drain

.PHONY: lib firmware run demo size board-check board-dir board-qemu board-flags-force
board-dir:
	@echo $(BOARD_DIR)
board-qemu:
	@echo $(BOARD_QEMU)

board-check:
	@[ -n "$(BOARD_TRANSPORT_OK)" ] || { echo "board $(BOARD) has no transport '$(TRANSPORT)' (it has: $(BOARD_TRANSPORTS))" >&2; exit 2; }

lib: $(BOARD_LIB) ## Build build/BOARD/libmsamp.a (core, port, wrappers) as a firmware project links it
	@echo "$(BOARD_LIB)"

firmware: board-check $(DEMO_ELF) ## Build the demo firmware for BOARD and TRANSPORT

run: board-check $(DEMO_ELF) ## Run the demo firmware under QEMU (stream in build/BOARD/TRANSPORT/run/stream.bin)
	@$(BOARD_ENV) boards/qemu_run.sh $(DEMO_ELF) $(TRANSPORT) $(BOARD_DIR)/$(TRANSPORT)/run
	@echo "stream: $(BOARD_DIR)/$(TRANSPORT)/run/stream.bin ($$(stat -c %s $(BOARD_DIR)/$(TRANSPORT)/run/stream.bin) bytes)"

demo: ## From a fresh Debian 12: build the tools and the demo, run it under QEMU, drain to out/demo.pb.gz, show top sites
	@ci/deps.sh $(BOARD_DEPS)
	@$(MAKE) --no-print-directory -s board-check tools $(DRAIN) $(DEMO_ELF)
	@$(BOARD_ENV) DRAIN=$(DRAIN) $(DEMO_DIR)/run_demo.sh $(DEMO_ELF) $(TRANSPORT) $(BOARD_DIR)/$(TRANSPORT)/demo-run out/demo.pb.gz

# What msamp adds to a firmware: tests/ports/size_probe.c linked with msamp (the allocator wrapped,
# the board's first transport, msamp_init and msamp_poll called) and without it; make size prints
# the difference of the two images (size-probe: text data bss).
PROBE_DIR := $(BOARD_DIR)/size-probe
PROBE_TRANSPORT := $(firstword $(BOARD_TRANSPORTS))
PROBE_LINK := $(BOARD_LD_SELECT) -nostdlib -static $(BOARD_NOPIE) -T tests/ports/size_probe.ld \
	-Wl,--gc-sections -Wl,--build-id $(BOARD_LDFLAGS)
$(PROBE_DIR)/with.o: tests/ports/size_probe.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) -DWITH_MSAMP -c $< -o $@
$(PROBE_DIR)/without.o: tests/ports/size_probe.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) -c $< -o $@
$(PROBE_DIR)/heap.o: tests/ports/size_probe_heap.c $(BOARD_FLAGS)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) -c $< -o $@
# The demo's memcpy & co., in an archive: linked only where msamp calls them, and then counted.
$(PROBE_DIR)/libc.a: $(filter %/mini_libc.o,$(DEMO_OBJS)) $(filter %/aeabi_mem.o,$(BOARD_OBJS))
	@mkdir -p $(@D)
	rm -f $@
	$(BOARD_AR) rcs $@ $^
$(PROBE_DIR)/with.elf: $(PROBE_DIR)/with.o $(PROBE_DIR)/heap.o $(BOARD_LIB) \
		$(BOARD_DIR)/libmsamp_$(PROBE_TRANSPORT).a $(PROBE_DIR)/libc.a tests/ports/size_probe.ld
	$(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(PROBE_LINK) $(MSAMP_LDFLAGS) -o $@ $(filter %.o %.a,$^) \
		$(BOARD_LIBGCC)
$(PROBE_DIR)/without.elf: $(PROBE_DIR)/without.o $(PROBE_DIR)/heap.o $(PROBE_DIR)/libc.a \
		tests/ports/size_probe.ld
	$(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(PROBE_LINK) -o $@ $(filter %.o %.a,$^) $(BOARD_LIBGCC)
.PHONY: size-probe
size-probe: $(PROBE_DIR)/with.elf $(PROBE_DIR)/without.elf ## What msamp adds to a firmware on BOARD: text data bss of the size probe with it less without
	@$(BOARD_SIZE) $^ | awk 'NR == 2 { t = $$1; d = $$2; b = $$3 } NR == 3 { print t - $$1, d - $$2, b - $$3 }'

# Smallest useful configuration (include/msamp_config_small.h): 32 live samples, 32 stacks of 16
# frames, a 512-byte ring.
SIZE_SMALL_DEFS := -include include/msamp_config_small.h
size: ## text/data/bss of the library per architecture and profile, default and smallest configuration
	@$(MAKE) --no-print-directory -s size-table

else
.PHONY: lib firmware run demo size
lib firmware run demo size:
	@echo "no board '$(BOARD)': boards are $(notdir $(patsubst %/board.mk,%,$(wildcard boards/*/board.mk)))" >&2; exit 2
endif
