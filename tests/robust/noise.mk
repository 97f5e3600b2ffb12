# Noisy lines (tests/robust/noise.sh): real streams, one from a hosted program and one from the demo
# firmware over the UART of the default board under QEMU, damaged at byte error rates 1e-4, 1e-3
# and 1e-2 and read by drain built with ASan+UBSan. The short forms (errors of every kind mixed,
# one seed) are in `make test`; `make soak` runs each kind alone and mixed with 5 seeds.
ROBUST_T := $(BUILD)/robust
NOISE_TOOL := $(ROBUST_T)/noise
NOISE_ENV = DRAIN=$(DRAIN_T)/drain-asan MSAMP_DUMP=host_tools/msamp-dump NOISE=$(NOISE_TOOL) \
	OUT=$(ROBUST_T) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

$(NOISE_TOOL): tests/robust/noise.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CFLAGS) $< -o $@

# The hosted stream: drain's hosted end-to-end program at a 1 KiB interval (about 350 KB, 25,000
# samples), at a fixed seed, linked with a library of the firmware's 64-byte frames: the hosted
# library's default 256 is for outputs that lose nothing (a file, a pipe, TCP); a hosted program
# whose stream crosses a lossy link is built with -DMSAMP_CFG_FRAME_BYTES=64, as this one, and
# the firmware's stack re-send with every 128th sample (the hosted default is every 1024th).
$(eval $(call msamp_hosted_variant,hosted-frames64,$(CC),-DMSAMP_CFG_FRAME_BYTES=64 -DMSAMP_CFG_STACK_RESEND_SAMPLES=128,$(AR),nm,))
$(ROBUST_T)/hosted_app: tests/drain/hosted_app.c $(BUILD)/hosted-frames64/libmsamp.a $(BUILD)/hosted-frames64/msamp.pc
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted-frames64 pkg-config --cflags msamp) $< \
	  $$(PKG_CONFIG_PATH=$(BUILD)/hosted-frames64 pkg-config --libs msamp) -o $@
$(ROBUST_T)/hosted.bin: $(ROBUST_T)/hosted_app
	@mkdir -p $(@D)
	@rm -f $@
	cd $(@D) && MSAMP_OUTPUT=hosted.bin MSAMP_INTERVAL=1024 MSAMP_SEED=12345 \
	  $(abspath $(ROBUST_T)/hosted_app) hosted.truth >/dev/null

# The board stream: the demo firmware over the UART (about 90 KB, 5,000 samples).
$(ROBUST_T)/board.bin: $(BOARD_DIR)/uart/demo.elf
	@mkdir -p $(@D)
	@$(BOARD_ENV) boards/qemu_run.sh $< uart $(ROBUST_T)/board-run >/dev/null
	@cp $(ROBUST_T)/board-run/stream.bin $@

NOISE_TOOLS := $(NOISE_TOOL) $(DRAIN_T)/drain-asan host_tools/msamp-dump
TESTS += robust-noise-hosted robust-noise-board
ROBUST_TESTS += robust-noise-hosted robust-noise-board
SOAK_TESTS += robust-noise-hosted-soak robust-noise-board-soak

test-robust-noise-hosted: $(NOISE_TOOLS) $(ROBUST_T)/hosted.bin ## A hosted stream on a noisy line (1e-4..1e-2): totals within 2%/10%, intact frames' samples used
	@tests/need.sh go
	$(NOISE_ENV) tests/robust/noise.sh hosted $(ROBUST_T)/hosted.bin $(ROBUST_T)/hosted_app

test-robust-noise-board: $(NOISE_TOOLS) ## The demo firmware's UART stream on a noisy line (1e-4..1e-2), the same bounds
	@tests/need.sh go $(firstword $(BOARD_QEMU)) $(BOARD_CROSS)gcc
	@$(MAKE) --no-print-directory -s $(ROBUST_T)/board.bin
	$(NOISE_ENV) tests/robust/noise.sh board $(ROBUST_T)/board.bin $(BOARD_DIR)/uart/demo.elf

test-robust-noise-hosted-soak: $(NOISE_TOOLS) $(ROBUST_T)/hosted.bin
	@tests/need.sh go
	$(NOISE_ENV) SOAK=1 tests/robust/noise.sh hosted $(ROBUST_T)/hosted.bin $(ROBUST_T)/hosted_app

test-robust-noise-board-soak: $(NOISE_TOOLS)
	@tests/need.sh go $(firstword $(BOARD_QEMU)) $(BOARD_CROSS)gcc
	@$(MAKE) --no-print-directory -s $(ROBUST_T)/board.bin
	$(NOISE_ENV) SOAK=1 tests/robust/noise.sh board $(ROBUST_T)/board.bin $(BOARD_DIR)/uart/demo.elf
