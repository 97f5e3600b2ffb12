# One test firmware for qemu-mps2-an385 (Cortex-M3) built with arm-none-eabi-gcc and Debian's newlib,
# the way a firmware project's Makefile takes msamp: through port/msamp.mk, whose MSAMP_CFLAGS
# (unwind tables, nesting guard) and MSAMP_LDFLAGS (--wrap) it uses as they are.
#   make -f tests/newlib/fw.make OUT=DIR WRAP="malloc _malloc_r ..." [LIBC=full|nano] [SRC=file.c]
#        [EXTRA_CFLAGS=...] [LIB_EXTRA_CFLAGS=...] [LDSCRIPT=...] [MSAMP_CFLAGS_FILTER=...]
# builds DIR/fw.elf. msamp's and the board's objects go to OBJ_ROOT (default: OUT's parent), one
# folder per set of flags, shared by the firmware builds of the tests. MSAMP_CFLAGS_FILTER takes flags out of MSAMP_CFLAGS (the tests' own
# negative controls: no unwind tables, no nesting guard); EXTRA_CFLAGS are the firmware file's,
# LIB_EXTRA_CFLAGS msamp's and the board's. Run from the msamp checkout.
OUT ?= build/newlib/fw
OBJ_ROOT ?= $(dir $(OUT))
WRAP ?= malloc free calloc realloc
LIBC ?= full
SRC ?= tests/newlib/newlib_fw.c
LDSCRIPT ?= boards/qemu-mps2-an385/link.ld
EXTRA_CFLAGS ?=
LIB_EXTRA_CFLAGS ?=
MSAMP_CFLAGS_FILTER ?=
CC := arm-none-eabi-gcc

MSAMP_DIR := .
MSAMP_ARCH := arm
MSAMP_TRANSPORT := cmsdk_uart
MSAMP_COMPILER := gcc
MSAMP_WRAP_FUNCS := $(WRAP)
MSAMP_LIBC_HEAP := newlib
include $(MSAMP_DIR)/port/msamp.mk

ifeq ($(filter full nano,$(LIBC)),)
$(error fw.make: LIBC is full or nano)
endif
CPU := -mthumb -mcpu=cortex-m3 -mfloat-abi=soft $(if $(filter nano,$(LIBC)),--specs=nano.specs)
FW_CFLAGS := -std=c11 -Os -g -Wall -Wextra -Werror -Werror=undef -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wvla -Wpointer-arith -Wno-unused-parameter $(CPU) -Iboards \
	-DMSAMP_CMSDK_UART_BASE=0x40004000 $(filter-out $(MSAMP_CFLAGS_FILTER),$(MSAMP_CFLAGS))
# msamp and the board: freestanding, as a firmware builds its libraries.
LIB_CFLAGS := $(FW_CFLAGS) -ffreestanding $(LIB_EXTRA_CFLAGS)
LIB_SRCS := $(MSAMP_SRCS) $(MSAMP_SEMIHOSTING_SRCS) boards/qemu-mps2-an385/start.S \
	boards/qemu-mps2-an385/board.c boards/common/board_port.c
LIB_DIR := $(patsubst %/,%,$(OBJ_ROOT))/obj-$(LIBC)-$(shell echo '$(LIB_CFLAGS)' | md5sum | cut -c1-10)
LIB_OBJS := $(patsubst %,$(LIB_DIR)/%.o,$(LIB_SRCS))

$(OUT)/fw.elf: $(OUT)/fw.o $(LIB_OBJS) $(LDSCRIPT)
	$(CC) $(CPU) -nostartfiles -static -Wl,-z,noexecstack -T $(LDSCRIPT) $(MSAMP_LDFLAGS) -o $@ $(OUT)/fw.o $(LIB_OBJS) \
		-Wl,--start-group -lc -lgcc -Wl,--end-group

# The firmware knows the wrap set (NL_WRAP_<name>=1): it leaves out calls whose outcome the check
# cannot predict for it; and the library (NL_NANO=1: newlib-nano).
$(OUT)/fw.o: $(SRC) FORCE
	@mkdir -p $(@D)
	$(CC) $(FW_CFLAGS) $(EXTRA_CFLAGS) $(foreach f,$(WRAP),-DNL_WRAP_$(f)=1) $(if $(filter nano,$(LIBC)),-DNL_NANO=1) -c $< -o $@
# Objects keep their header dependencies (.d) and follow this file.
$(LIB_DIR)/%.o: % tests/newlib/fw.make
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) $(OWN_CFLAGS) -MMD -MP -c $< -o $@
-include $(LIB_OBJS:.o=.d)
# msamp's own sources but the wrappers and hooks without frame pointers, as msamp.mk suggests.
$(patsubst %,$(LIB_DIR)/%.o,$(MSAMP_OWN_SRCS)): OWN_CFLAGS := $(MSAMP_OWN_CFLAGS)
.PHONY: FORCE
FORCE:
