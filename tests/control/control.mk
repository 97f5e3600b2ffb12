# The down-channel (docs/CONTROL.md) end to end: drain --send and commands typed on its stdin, to
# the demo firmware over each UART (PL011 on qemu-virt-aarch64, CMSDK on qemu-mps2-an385 in the
# tiny profile, 16550 on qemu-virt-riscv64), over semihosting (qemu-virt-aarch64) and to a hosted
# program (MSAMP_CONTROL FIFO), all at once. The parser's unit test is tests/unit (unit-command).
CONTROL_T := $(BUILD)/tests/control
CONTROL_BOARDS := qemu-virt-aarch64 qemu-mps2-an385 qemu-virt-riscv64

$(CONTROL_T)/control_app: tests/control/control_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted pkg-config --libs msamp) -o $@

# The demo-long firmware of BOARD (UART, and semihosting where the board has it: the ones the
# board tests build) and a line "BOARD|BOARD_DIR|BOARD_QEMU" for the script.
ifneq ($(wildcard boards/$(BOARD)/board.mk),)
.PHONY: control-board
control-board: $(BOARD_DIR)/uart/demo-long.elf $(if $(filter semihosting,$(BOARD_TRANSPORTS)),$(BOARD_DIR)/semihosting/demo-long.elf)
	@mkdir -p $(CONTROL_T)
	@echo "$(BOARD)|$(BOARD_DIR)|$(BOARD_QEMU)" >$(CONTROL_T)/$(BOARD).board
endif

TESTS += control
test-control: ## Down-channel: drain --send/stdin commands acked over PL011, CMSDK, 16550, semihosting and hosted; marks, interval, snapshot in the stream; garbage counted
	@tests/need.sh python3 aarch64-linux-gnu-gcc arm-none-eabi-gcc riscv64-linux-gnu-gcc \
		qemu-system-aarch64 qemu-system-arm qemu-system-riscv64 pkg-config
	@mkdir -p $(CONTROL_T)
	@$(MAKE) --no-print-directory -s host_tools/drain host_tools/msamp-dump $(CONTROL_T)/control_app
	@pids=""; for b in $(CONTROL_BOARDS); do \
		$(MAKE) --no-print-directory -s BOARD=$$b control-board & pids="$$pids $$!"; done; \
		for p in $$pids; do wait $$p || exit 1; done
	@DRAIN=host_tools/drain DUMP=host_tools/msamp-dump tests/control/control.sh $(CONTROL_T) $(CONTROL_BOARDS)
