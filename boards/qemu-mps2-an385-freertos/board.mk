# qemu-mps2-an385-freertos: QEMU's Arm MPS2 with a Cortex-M3 (AN385) running FreeRTOS V11.2.0 (the
# kernel vendored in third_party/FreeRTOS-Kernel/ (its VENDORED.md), its GCC/ARM_CM3 port and heap_4), with msamp's
# FreeRTOS layer (port/rtos/freertos/, docs/FREERTOS.md): a sampler context per task, samples
# labelled by task. The demo is this board's own (freertos_demo.c): tasks of three priorities
# allocating and freeing through queues, a leaking task, a task that passes its budget
# (msamp_task_budget; MSAMP_CFG_TASK_BUDGETS 4 here), a software timer and an interrupt that
# allocate. Start-up, linker script and board API are qemu-mps2-an385's (BOARD_FREERTOS: the
# kernel's vectors; BOARD_STACKS_IN_RAM: walks may read the task stacks in the kernel's heap), through
# boards/common/mps2.mk.
MPS2_MACHINE := mps2-an385
MPS2_UART_BASE := 0x40004000
include boards/common/mps2.mk
BOARD_CLANG_TARGET := thumbv7m-none-eabi
BOARD_PROFILE := full
MSAMP_RTOS := freertos
MSAMP_RTOS_TASKS := 12
FREERTOS_DIR := boards/qemu-mps2-an385-freertos/third_party/FreeRTOS-Kernel
FREERTOS_SRCS := $(addprefix $(FREERTOS_DIR)/,tasks.c list.c queue.c timers.c \
	portable/GCC/ARM_CM3/port.c portable/MemMang/heap_4.c)
BOARD_CFLAGS := -mthumb -mcpu=cortex-m3 -mfloat-abi=soft -Os $(MPS2_WALKER_CFLAGS) \
	-DBOARD_FREERTOS=1 -DMSAMP_CFG_TASK_BUDGETS=4 -Iboards/qemu-mps2-an385-freertos -I$(FREERTOS_DIR)/include \
	-I$(FREERTOS_DIR)/portable/GCC/ARM_CM3
# The UART transport's archive comes before the core's in the demo's link: name its writer.
BOARD_LDFLAGS := -Wl,--defsym=BOARD_STACKS_IN_RAM=1 -Wl,-u,msamp_transport_write
BOARD_SRCS += $(FREERTOS_SRCS)
BOARD_DEMO_SRC := boards/qemu-mps2-an385-freertos/freertos_demo.c
BOARD_DEMO_SRCS := boards/examples/demo/mini_libc.c
BOARD_TRANSPORTS := uart
# The vendored kernel is built as it comes, with the board's flags and every warning as an error
# (it trips none, gcc or clang). With clang, freestanding, it alone takes newlib's headers from the
# cross gcc for its <stdlib.h> and <string.h> (declarations only: memset and memcpy come from the
# demo's mini_libc).
BOARD_VENDOR_SRCS := $(FREERTOS_SRCS)
ifeq ($(BOARD_COMPILER),clang)
BOARD_VENDOR_CFLAGS := -isystem $(shell $(BOARD_CROSS)gcc -print-file-name=include)/../../../../arm-none-eabi/include
endif
