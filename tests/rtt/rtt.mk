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

RTT_DOWN_SRCS := $(addprefix host_tools/src/drain/,input/input.c input/rttprobe.c input/gdbrsp.c util.c)
$(RTT_T)/t_down: tests/rtt/t_down.c $(RTT_DOWN_SRCS) $(DRAIN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(DRAIN_T_CFLAGS) $(DRAIN_INC) $< $(RTT_DOWN_SRCS) -lelf -o $@
test-rtt-gdb: $(DRAIN_T)/drain-asan $(DRAIN_T)/gen $(RTT_T)/t_down ## drain gdb: against a fake GDB server: the stream intact (acks, RLE, no-ack), the down-buffer written, hostile servers give clear errors (ASan+UBSan)
	@tests/need.sh python3
	@DRAIN=$(DRAIN_T)/drain-asan T=$(RTT_T) GEN=$(DRAIN_T)/gen DOWN=$(RTT_T)/t_down tests/rtt/t_gdb.sh

# $(1) board: the demo over RTT and over the UART, built by the board's make.
rtt_qemu = @$(MAKE) --no-print-directory -s BOARD=$(1) rtt-qemu-one
test-rtt-qemu-aarch64: ## Demo over RTT through QEMU's gdbstub on qemu-virt-aarch64: truth checks, per-site equal to the UART run
	$(call rtt_qemu,qemu-virt-aarch64)
test-rtt-qemu-an385: ## The same on qemu-mps2-an385 (Cortex-M3, 32-bit control block)
	$(call rtt_qemu,qemu-mps2-an385)
.PHONY: rtt-qemu-one
rtt-qemu-one:
	@tests/need.sh $(BOARD_CROSS)gcc $(firstword $(BOARD_QEMU)) go
	@$(MAKE) --no-print-directory -s host_tools/drain host_tools/msamp-dump $(BOARD_DIR)/rtt/demo.elf $(BOARD_DIR)/uart/demo.elf
	@$(BOARD_ENV) tests/rtt/e2e.sh $(BOARD_DIR)

# Device cost per byte of the RTT transport against the UART (bench-ports prints it).
ifneq ($(wildcard boards/$(BOARD)/board.mk),)
ifneq ($(filter rtt,$(BOARD_TRANSPORTS)),)
define rtt_bench_fw
$(BOARD_DIR)/bench-rtt/bench_$(1).o: tests/rtt/bench_rtt_fw.c $(BOARD_FLAGS)
	@mkdir -p $$(@D)
	$$(BOARD_COMPILE) -I$(DEMO_DIR) $(2) -c $$< -o $$@
$(BOARD_DIR)/bench-rtt/bench_$(1).elf: $(BOARD_DIR)/bench-rtt/bench_$(1).o $(BOARD_OBJS) $(DEMO_OBJS) \
		$(BOARD_LIB) $(BOARD_DIR)/libmsamp_$(1).a $(BOARD_LDSCRIPT)
	$$(BOARD_CC) $$(BOARD_TARGET_CFLAGS) $$(BOARD_LINK_FLAGS) -o $$@ $$(filter %.o,$$^) \
		$(BOARD_DIR)/libmsamp_$(1).a $(BOARD_LIB) $(BOARD_LIBGCC)
endef
$(eval $(call rtt_bench_fw,uart,))
$(eval $(call rtt_bench_fw,rtt,-DBENCH_RTT))
.PHONY: bench-rtt-one
bench-rtt-one: $(BOARD_DIR)/bench-rtt/bench_uart.elf $(BOARD_DIR)/bench-rtt/bench_rtt.elf
	@BOARD_QEMU="$(BOARD_QEMU)" tests/rtt/bench_transport.sh $(BOARD)$(BOARD_VARIANT) $^
endif
endif
