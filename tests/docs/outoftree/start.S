/* The out-of-tree firmware's start-up (test docs-firmware-outoftree): a user's own, for QEMU's Arm
 * virt machine at EL1 (qemu-system-aarch64 -M virt -kernel): the stack, a {0, 0} frame record that
 * ends every walk, .bss zeroed, main(). */
    .section .text.boot, "ax"
    .global _start
_start:
    ldr x0, =stack_top
    mov sp, x0
    stp xzr, xzr, [sp, #-16]!
    mov x29, sp
    ldr x0, =bss_start
    ldr x1, =bss_end
1:  cmp x0, x1
    b.hs 2f
    str xzr, [x0], #8
    b 1b
2:  bl main
3:  wfi
    b 3b
