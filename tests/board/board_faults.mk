# Device faults on QEMU boards (tests/board/faults.sh; docs/RELIABILITY.md): resets in the middle
# of a frame and of the boot SESSION, drain killed and restarted, power loss, full tables and ring
# with interrupts allocating. Firmware: variants of the demo built with DEMO_FAULTS
# (boards/examples/demo/demo_faults.h), with rules of their own here (boards/boards.mk's
# DEMO_VARIANTS stay as they are):
#   demo-faults-reset   demo-long's workload (>= 1.5 s, interval 1024) and a boot line with the
#                       session id
#   demo-faults-boots   demo-faults-reset as a device without entropy (DEMO_NO_ENTROPY: the clock
#                       gives the session id nothing), told apart by the boot counter alone
#   demo-faults-boots-nokeep  demo-faults-boots linking a library without the kept profile
#   demo-faults-tables  interval 1 pinned, a 128-slot live table and a 4-entry stack table, the
#                       timer interrupt every 50 us allocating and freeing, msamp_poll() stalled for
#                       700 of 2000 iterations; the firmware checks msamp's live table against its own
#                       registry of the blocks it holds
ifneq ($(wildcard boards/$(BOARD)/board.mk),)
FAULTS_VARIANTS := demo-faults-reset demo-faults-boots demo-faults-boots-nokeep demo-faults-tables
FAULTS_DEFS_demo-faults-reset := -DDEMO_FAULTS=1 -DDEMO_MIN_MS=1500 -DDEMO_INTERVAL=1024
FAULTS_DEFS_demo-faults-boots := $(FAULTS_DEFS_demo-faults-reset) -DDEMO_NO_ENTROPY=1
FAULTS_DEFS_demo-faults-boots-nokeep := $(FAULTS_DEFS_demo-faults-boots)
FAULTS_DEFS_demo-faults-tables := -DDEMO_FAULTS=2 -DDEMO_INTERVAL=1 -DDEMO_TIMER_US=50 -DDEMO_ITERATIONS=2000 \
	-DDEMO_STALL_FROM=500 -DDEMO_STALL_TO=1200
FAULTS_LIB := $(BOARD_DIR)/demo-faults-lib/libmsamp.a
FAULTS_LIB_OBJS := $(call obj_of,$(BOARD_DIR)/demo-faults-lib,$(MSAMP_LIB_SRCS))
FAULTS_LIB_DEFS := -DMSAMP_CFG_LIVE_CAPACITY=128 -DMSAMP_CFG_STACK_CAPACITY=4
# The reset and boots variants link the demo's library as it is by default (MSAMP_CFG_RESET_PROFILE
# 1): each boot after a warm reset sends the session the reset ended before its own, and the tests
# check each such session ended by a reset. demo-faults-boots-nokeep is demo-faults-boots with the
# library built with MSAMP_CFG_RESET_PROFILE 0 (nothing sent again; the RAM-dump block's header,
# whose session id seeds the next boot's, is in .noinit.msamp in every build).
# $(call test_lib,FOLDER,FLAGS,MAKEFILE): the rules of $(BOARD_DIR)/FOLDER/libmsamp.a, the library
# built with FLAGS added (board_reset.mk's too).
define test_lib
$(BOARD_DIR)/$(1)/%.o: %.c $(BOARD_FLAGS) $(3)
	@mkdir -p $$(@D)
	$$(BOARD_COMPILE) $$(OWN_CFLAGS) $(2) -c $$< -o $$@
$(call obj_of,$(BOARD_DIR)/$(1),$(MSAMP_OWN_SRCS)): OWN_CFLAGS := $(MSAMP_OWN_CFLAGS)
$(BOARD_DIR)/$(1)/libmsamp.a: $(call obj_of,$(BOARD_DIR)/$(1),$(MSAMP_LIB_SRCS))
	rm -f $$@
	$(BOARD_AR) rcs $$@ $$^
endef
FAULTS_NOKEEP_LIB := $(BOARD_DIR)/demo-faults-nokeep/libmsamp.a
$(eval $(call test_lib,demo-faults-nokeep,$(DEMO_MSAMP_DEFS) -DMSAMP_CFG_RESET_PROFILE=0,$(FAULTS_MK)))
FAULTS_LIB_demo-faults-reset := $(DEMO_LIB)
FAULTS_LIB_demo-faults-boots := $(DEMO_LIB)
FAULTS_LIB_demo-faults-boots-nokeep := $(FAULTS_NOKEEP_LIB)
FAULTS_LIB_demo-faults-tables := $(FAULTS_LIB)
FAULTS_MK := tests/board/board_faults.mk

$(BOARD_DIR)/demo-faults-lib/%.o: %.c $(BOARD_FLAGS) $(FAULTS_MK)
	@mkdir -p $(@D)
	$(BOARD_COMPILE) $(OWN_CFLAGS) $(DEMO_MSAMP_DEFS) $(FAULTS_LIB_DEFS) -c $< -o $@
$(call obj_of,$(BOARD_DIR)/demo-faults-lib,$(MSAMP_OWN_SRCS)): OWN_CFLAGS := $(MSAMP_OWN_CFLAGS)
$(FAULTS_LIB): $(FAULTS_LIB_OBJS)
	rm -f $@
	$(BOARD_AR) rcs $@ $^

define faults_demo
$(BOARD_DIR)/$(1)/$(2).o: $(DEMO_DIR)/demo.c $(BOARD_FLAGS) $(FAULTS_MK)
	@mkdir -p $$(@D)
	$$(BOARD_COMPILE) $(DEMO_MSAMP_DEFS) $(FAULTS_DEFS_$(2)) -c $$< -o $$@
$(BOARD_DIR)/$(1)/$(2)-hooks.o: $(DEMO_DIR)/demo_faults.c $(BOARD_FLAGS) $(FAULTS_MK)
	@mkdir -p $$(@D)
	$$(BOARD_COMPILE) $(DEMO_MSAMP_DEFS) $(FAULTS_DEFS_$(2)) -c $$< -o $$@
$(BOARD_DIR)/$(1)/$(2).elf: $(BOARD_DIR)/$(1)/$(2).o $(BOARD_DIR)/$(1)/$(2)-hooks.o $(BOARD_OBJS) $(DEMO_OBJS) \
		$(BOARD_DIR)/libmsamp_$(1).a $(FAULTS_LIB_$(2)) $(BOARD_LDSCRIPT)
	$$(BOARD_CC) $$(BOARD_TARGET_CFLAGS) $$(BOARD_LINK_FLAGS) -o $$@ $(BOARD_DIR)/$(1)/$(2).o \
		$(BOARD_DIR)/$(1)/$(2)-hooks.o $(BOARD_OBJS) $(DEMO_OBJS) $(BOARD_DIR)/libmsamp_$(1).a \
		$(FAULTS_LIB_$(2)) $(BOARD_LIBGCC)
endef
$(foreach v,$(FAULTS_VARIANTS),$(eval $(call faults_demo,uart,$(v))))
endif

# The tests: MODE of tests/board/faults.sh on BOARD (qemu-virt-aarch64 in `make test`).
FAULTS_NEEDS := $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU)) go socat ss
board_faults = @tests/need.sh $(FAULTS_NEEDS) && \
	$(MAKE) --no-print-directory -s $(if $(BOARD_DRAIN_BUILT),,host_tools/drain host_tools/msamp-dump) \
		$(foreach v,$(FAULTS_VARIANTS),$(BOARD_DIR)/uart/$(v).elf) && \
	$(BOARD_ENV) $(2) tests/board/faults.sh $(1) $(BOARD_DIR)

TESTS += board-faults-reset board-faults-boots board-faults-drain board-faults-power board-faults-tables
ROBUST_TESTS += board-faults-reset board-faults-boots board-faults-drain board-faults-power board-faults-tables
test-board-faults-reset: ## Resets (QMP) inside frames, splices inside the boot SESSION and the replay: one clean session per boot, ended by a reset
	$(call board_faults,reset)
test-board-faults-boots: ## A device without entropy: warm resets count boots in .noinit, each boot its own session id (kept profile on and off)
	$(call board_faults,boots)
test-board-faults-drain: ## Drain killed (SIGKILL), interrupted (SIGINT) and restarted on a TCP UART
	$(call board_faults,drain)
test-board-faults-power: ## QEMU killed under a connected drain (TCP, --follow): profile written, next boot clean
	$(call board_faults,power)
test-board-faults-tables: ## Tables and ring full, interrupts allocating: no deadlock, live table exact
	$(call board_faults,tables)

# Long forms: 8 seeds of 5 resets each (the short form: 1 seed, 3 resets, and the splices).
SOAK_TESTS += board-faults-reset-soak
test-board-faults-reset-soak: ## Resets at random times, 8 seeds x 5 resets
	$(call board_faults,reset,SOAK=1)
