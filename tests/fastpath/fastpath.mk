# The wrappers' unsampled path (issue 14's design: decide first, tail-call the allocator, the slow
# path in a function of its own): its length in the disassembly, and the frames the slow path
# walks from. The instruction limits: x86-64 the bare counting wrapper's 2 (add, jmp) plus 4 / 5 /
# 5 / 9 for malloc / free / calloc / realloc (the aligned allocators as malloc); AArch64 the counts
# gcc 12 reaches today. Free's and realloc's probe is the hosted free filter's: a 32-bit multiply,
# a shift and a byte test (issue 41: 15 -> 7 and 19 -> 11 on x86-64, 17 -> 11 and 26 -> 20 on
# AArch64, where issue 36 had made it the live table's two-multiply hash, a word and a bit).
FP := $(BUILD)/tests/fastpath
FP_CFLAGS := -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -fno-builtin-malloc \
	-fno-omit-frame-pointer
FP_PC = PKG_CONFIG_PATH=$(BUILD)/$(1) pkg-config --cflags --libs msamp
FP_LIMITS_x86_64 := malloc=6 free=7 calloc=7 realloc=11 aligned_alloc=6 memalign=6 posix_memalign=6
FP_LIMITS_aarch64 := malloc=8 free=11 calloc=9 realloc=20 aligned_alloc=8 memalign=8 posix_memalign=8

$(FP)/frames_app: tests/fastpath/frames_app.c $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted/msamp.pc
	@mkdir -p $(@D)
	$(CC) $(FP_CFLAGS) $< $$($(call FP_PC,hosted)) -o $@
$(FP)/frames_app_aarch64: tests/fastpath/frames_app.c $(BUILD)/hosted-aarch64/libmsamp.a \
		$(BUILD)/hosted-aarch64/msamp.pc
	@mkdir -p $(@D)
	aarch64-linux-gnu-gcc $(FP_CFLAGS) -static $< $$($(call FP_PC,hosted-aarch64)) -o $@

TESTS += fastpath-disasm fastpath-frames
test-fastpath-disasm: $(BUILD)/hosted/libmsamp.a $(BUILD)/hosted-aarch64/libmsamp.a ## The wrappers' unsampled path: frameless, a tail call, at most N instructions (x86-64, AArch64)
	@tests/need.sh python3 objdump aarch64-linux-gnu-objdump
	tests/fastpath/disasm.py objdump $(BUILD)/hosted/libmsamp.a x86_64 $(FP_LIMITS_x86_64)
	tests/fastpath/disasm.py aarch64-linux-gnu-objdump $(BUILD)/hosted-aarch64/libmsamp.a aarch64 \
		$(FP_LIMITS_aarch64)
test-fastpath-frames: $(FP)/frames_app $(FP)/frames_app_aarch64 $(BUILD)/tests/hosted/msamp_check ## Sampled stacks start at the allocating function (x86-64; AArch64 under qemu-user)
	@tests/need.sh qemu-aarch64
	tests/fastpath/frames.sh $(FP)/frames_app $(BUILD)/tests/hosted/msamp_check $(FP)/x86_64
	tests/fastpath/frames.sh $(FP)/frames_app_aarch64 $(BUILD)/tests/hosted/msamp_check \
		$(FP)/aarch64 qemu-aarch64
