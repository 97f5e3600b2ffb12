/* qemu-virt-riscv32 start-up (machine mode, RV32IMAC: no FPU): stack, trap vector, .bss, main(), exit; the
 * trap entry. The same code for both XLENs: boards/common/riscv_start.S. */
#include "../common/riscv_start.S"
