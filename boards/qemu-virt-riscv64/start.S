/* qemu-virt-riscv64 start-up (machine mode, RV64GC: its FPU on): stack, trap vector, .bss, main(), exit; the
 * trap entry. The same code for both XLENs: boards/common/riscv_start.S. */
#include "../common/riscv_start.S"
