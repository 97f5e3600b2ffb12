# SEGGER RTT (docs/RTT.md): the transport's host unit test (port/transport/rtt.c, the probe played
# by the test), drain's gdb: input against a hostile fake GDB server (ASan+UBSan), and the demo
# over RTT through QEMU's gdbstub on the two boards that have TRANSPORT=rtt, against the UART.
RTT_T := $(BUILD)/rtt
RTT_T_CFLAGS := -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror $(SAN_FLAGS) -Iinclude -Iport/transport \
	-DMSAMP_RTT_UP_SIZE=64 -DMSAMP_RTT_DOWN_SIZE=16
$(RTT_T)/test_rtt: tests/rtt/test_rtt.c port/transport/rtt.c include/msamp_port.h
	@mkdir -p $(@D)
	$(CC) $(RTT_T_CFLAGS) $< -lpthread -o $@
$(RTT_T)/test_rtt_block: tests/rtt/test_rtt.c port/transport/rtt.c include/msamp_port.h
	@mkdir -p $(@D)
	$(CC) $(RTT_T_CFLAGS) -DMSAMP_RTT_BLOCK=1 $< -lpthread -o $@
$(RTT_T)/test_rtt_ch0: tests/rtt/test_rtt.c port/transport/rtt.c include/msamp_port.h
	@mkdir -p $(@D)
	$(CC) $(RTT_T_CFLAGS) -DMSAMP_RTT_CHANNEL=0 $< -lpthread -o $@

TESTS += rtt-unit rtt-gdb rtt-qemu-aarch64 rtt-qemu-an385
test-rtt-unit: $(RTT_T)/test_rtt $(RTT_T)/test_rtt_block $(RTT_T)/test_rtt_ch0 ## RTT transport on the host, the probe simulated: layout, wrap-around, full buffer, scribbled offsets, down-channel, blocking mode (ASan+UBSan)
	$(RTT_T)/test_rtt && $(RTT_T)/test_rtt_ch0 && $(RTT_T)/test_rtt_block

test-rtt-gdb: $(DRAIN_T)/drain-asan $(DRAIN_T)/gen ## drain gdb: against a fake GDB server: the stream intact (acks, RLE, no-ack), hostile servers give clear errors (ASan+UBSan)
	@tests/need.sh python3
	@DRAIN=$(DRAIN_T)/drain-asan T=$(RTT_T) GEN=$(DRAIN_T)/gen tests/rtt/t_gdb.sh

# $(1) board: the demo over RTT and over the UART, built by the board's make.
rtt_qemu = @$(MAKE) --no-print-directory -s BOARD=$(1) rtt-qemu-one
test-rtt-qemu-aarch64: ## Demo over RTT through QEMU's gdbstub on qemu-virt-aarch64: truth checks, per-site equal to the UART run
	$(call rtt_qemu,qemu-virt-aarch64)
test-rtt-qemu-an385: ## The same on qemu-mps2-an385 (Cortex-M3, 32-bit control block)
	$(call rtt_qemu,qemu-mps2-an385)
.PHONY: rtt-qemu-one
rtt-qemu-one:
	@tests/need.sh $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU)) go ss
	@$(MAKE) --no-print-directory -s host_tools/drain host_tools/msamp-dump $(BOARD_DIR)/rtt/demo.elf $(BOARD_DIR)/uart/demo.elf
	@$(BOARD_ENV) tests/rtt/e2e.sh $(BOARD_DIR)
