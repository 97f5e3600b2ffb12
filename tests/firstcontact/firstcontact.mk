# First contact (issue 13): what a new user on a fresh Debian 12 machine runs first, checked on a
# machine that has every package installed.
#   firstcontact-demo-BOARD  make demo's run on BOARD (named without qemu-) under a QEMU that sees
#                            only what `apt-get install --no-install-recommends` of its package
#                            brings (tests/firstcontact/qemu_farm.sh): a board whose QEMU command
#                            needs a ROM of ipxe-qemu or seabios (a NIC, a VGA) fails
#   firstcontact-qemu-farm   the control: that QEMU really lacks those ROMs
#   firstcontact-deps        ci/deps.sh's groups bring every tool, header and library make demo
#                            (each board) and make hosted use, on a Debian 12 base system, and
#                            `ci/deps.sh all` every command the tests ask tests/need.sh for (and
#                            the Cortex-M3 newlib and libstdc++ that tests/newlib and tests/cxx link)
#   firstcontact-make-help   make help lists every test group and every target the docs name
FC_DIR = $(BUILD)/firstcontact
FC_BOARDS := $(notdir $(patsubst %/board.mk,%,$(wildcard boards/*/board.mk)))

# What make tools uses: the compiler, the system headers of drain's and msamp-dump's sources
# (written to $(1) by the compiler's -M), the libraries drain links
# and those it loads (DRAIN_DLOPEN: libpq.so.5, libpq5's, libpq-dev brings it).
fc_tools_headers = $(CC) $(HOST_TOOLS_CFLAGS) $(DRAIN_INC) -M $(DRAIN_SRCS) host_tools/src/msamp-dump.c \
	$(HOSTDEC_SRCS) >$(1)
fc_tools_items = make $(CC) $(AR) $$(for l in $(patsubst -l%,%,$(filter -l%,$(DRAIN_LIBS) -lz)); do \
	$(CC) -print-file-name=lib$$l.so; done) $(foreach l,$(DRAIN_DLOPEN),$$($(CC) -print-file-name=$(l)))
# The absolute paths of a -M listing.
fc_paths = $$(tr ' \\' '\n\n' <$(1) | grep '^/' | sort -u)

TESTS += firstcontact-qemu-farm
test-firstcontact-qemu-farm: ## The QEMU of the first-contact tests lacks ipxe-qemu's and seabios's ROMs
	@tests/need.sh dpkg-query qemu-system-aarch64 qemu-system-mips64el
	@tests/firstcontact/qemu_farm.sh $(FC_DIR)/farm-control qemu-system-aarch64 qemu-system-mips64el
	@tests/firstcontact/farm_control.sh $(FC_DIR)/farm-control

define fc_board_test
TESTS += firstcontact-demo-$(patsubst qemu-%,%,$(1))
test-firstcontact-demo-$(patsubst qemu-%,%,$(1)): ## make demo's run on $(1) with only what its QEMU package Depends on
	@$$(MAKE) --no-print-directory -s BOARD=$(1) firstcontact-demo
endef
$(foreach b,$(FC_BOARDS),$(eval $(call fc_board_test,$(b))))

TESTS += firstcontact-deps firstcontact-make-help
test-firstcontact-deps: ## ci/deps.sh installs every tool, header and library make demo and make hosted use
	@tests/need.sh dpkg-query apt-cache
	@mkdir -p $(FC_DIR)
	@$(call fc_tools_headers,$(FC_DIR)/tools.M)
	@set -e; for b in $(FC_BOARDS); do $(MAKE) --no-print-directory -s BOARD=$$b FC_TOOLS_M=1 firstcontact-deps-demo; done
	@$(CC) $(HOSTED_PORT_CFLAGS) -M $(HOSTED_PORT_SRCS) >$(FC_DIR)/hosted-port.M
	@$(CC) $(HOSTED_CORE_CFLAGS) -M $(HOSTED_CORE_SRCS) >$(FC_DIR)/hosted-core.M
	@tests/firstcontact/deps_check.sh hosted host $(fc_tools_items) nm pkg-config \
	  $(call fc_paths,$(FC_DIR)/tools.M) $(call fc_paths,$(FC_DIR)/hosted-port.M) \
	  $(call fc_paths,$(FC_DIR)/hosted-core.M)
	@tests/firstcontact/need_tools.sh $(filter %.mk Makefile,$(MAKEFILE_LIST)) >$(FC_DIR)/need-mk.txt
	@tests/firstcontact/deps_check.sh test all \
	  $$($(MAKE) --no-print-directory -s FC_NEED_FILE=$(FC_DIR)/need-mk.txt firstcontact-need-expand) \
	  $$(tests/firstcontact/need_tools.sh $$(find tests -name '*.sh')) \
	  arm-none-eabi-g++ $$(for l in libc_nano.a libstdc++.a; do \
	    arm-none-eabi-g++ -mthumb -mcpu=cortex-m3 -mfloat-abi=soft -print-file-name=$$l 2>/dev/null; done)

# The tools of the make fragments' tests/need.sh calls, their make references expanded (for the
# default BOARD): a word still holding a shell expansion is left out.
.PHONY: firstcontact-need-expand
firstcontact-need-expand:
	@$(eval FC_NEED := $(file <$(FC_NEED_FILE)))printf '%s\n' $(sort $(FC_NEED)) | grep -E '^[A-Za-z0-9][A-Za-z0-9_.+-]*$$'

test-firstcontact-make-help: ## make help lists every test group and every `make X` of the docs
	@MAKE="$(MAKE)" tests/firstcontact/make_help.sh

.PHONY: firstcontact-demo firstcontact-deps-demo
ifneq ($(wildcard boards/$(BOARD)/board.mk),)
# Run by the tests above with BOARD set (sub-makes).
firstcontact-demo:
	@tests/need.sh dpkg-query $(firstword $(BOARD_CC)) $(firstword $(BOARD_QEMU))
	@$(MAKE) --no-print-directory -s tools $(BOARD_DIR)/uart/demo.elf
	@tests/firstcontact/qemu_farm.sh $(FC_DIR)/farm-$(BOARD) $(firstword $(BOARD_QEMU))
	@$(BOARD_ENV) DRAIN=$(DRAIN) tests/firstcontact/farm_demo.sh $(FC_DIR)/farm-$(BOARD) $(BOARD_DIR)/uart/demo.elf \
	  $(FC_DIR)/demo-$(BOARD)

# make demo on BOARD: the tools, the board's compiler and QEMU, the firmware's headers and libgcc,
# what run_demo.sh runs, and go and graphviz's dot (the demo's last lines tell to open the profile
# with go tool pprof's web UI, whose graph view runs dot).
firstcontact-deps-demo:
	@tests/need.sh $(firstword $(BOARD_CC)) $(firstword $(BOARD_QEMU))
	@mkdir -p $(FC_DIR)
	@$(if $(FC_TOOLS_M),:,$(call fc_tools_headers,$(FC_DIR)/tools.M))
	@$(BOARD_CC) $(BOARD_TARGET_CFLAGS) $(DEMO_MSAMP_DEFS) -M $(BOARD_DEMO_SRC) \
	  $(filter %.c,$(DEMO_SRCS) $(BOARD_SRCS) $(MSAMP_LIB_SRCS)) >$(FC_DIR)/demo-$(BOARD).M
	@tests/firstcontact/deps_check.sh "demo BOARD=$(BOARD)" "$(BOARD_DEPS)" $(fc_tools_items) \
	  $(firstword $(BOARD_CC)) $(BOARD_AR) $(firstword $(BOARD_QEMU)) $(BOARD_LIBGCC) mkfifo timeout tee go dot \
	  $(call fc_paths,$(FC_DIR)/tools.M) $(call fc_paths,$(FC_DIR)/demo-$(BOARD).M)
endif
