/* qemu-virt-aarch64 start-up: stack, FP enable, vectors, .bss, main(), exit; the IRQ entry. */
    .section .text.boot, "ax"
    .global _start
_start:
    ldr x0, =__stack_hi
    mov sp, x0
    mov x29, xzr                    /* the outermost frame record is {0, 0}: walks stop here */
    mov x30, xzr
    stp x29, x30, [sp, #-16]!
    mov x29, sp
    mov x0, #(3 << 20)              /* CPACR_EL1.FPEN: do not trap FP/SIMD */
    msr cpacr_el1, x0
    ldr x0, =vectors
    msr vbar_el1, x0
    isb
    ldr x0, =__bss_start
    ldr x1, =__bss_end
1:  cmp x0, x1
    b.hs 2f
    str xzr, [x0], #8
    b 1b
2:  bl main
    bl board_exit
3:  b 3b

/* Exception vectors at EL1 with SP_EL1: the IRQ entries call board_irq_handler, every other
 * exception calls board_fault(kind, esr, elr), which exits with an error status. */
    .macro unexpected kind
    .balign 0x80
    mov x0, #\kind
    mrs x1, esr_el1
    mrs x2, elr_el1
    b board_fault
    .endm
    .macro irq
    .balign 0x80
    b irq_entry
    .endm

    .text
    .balign 0x800
vectors:
    unexpected 0                    /* current EL, SP_EL0: sync, irq, fiq, serror */
    unexpected 1
    unexpected 2
    unexpected 3
    unexpected 4                    /* current EL, SP_ELx */
    irq
    unexpected 6
    unexpected 7
    unexpected 8                    /* lower EL, AArch64 */
    unexpected 9
    unexpected 10
    unexpected 11
    unexpected 12                   /* lower EL, AArch32 */
    unexpected 13
    unexpected 14
    unexpected 15

/* Saves the caller-saved registers and the return state, ends the frame chain with a {0, 0}
 * record (an interrupt's call stacks then start at this entry, wherever it struck), and calls the
 * C handler with IRQs still masked (no nesting). */
    .global irq_entry
    .type irq_entry, %function
irq_entry:
    sub sp, sp, #208
    stp x0, x1, [sp, #0]
    stp x2, x3, [sp, #16]
    stp x4, x5, [sp, #32]
    stp x6, x7, [sp, #48]
    stp x8, x9, [sp, #64]
    stp x10, x11, [sp, #80]
    stp x12, x13, [sp, #96]
    stp x14, x15, [sp, #112]
    stp x16, x17, [sp, #128]
    stp x18, x29, [sp, #144]
    mrs x0, elr_el1
    mrs x1, spsr_el1
    stp x0, x1, [sp, #160]
    str x30, [sp, #176]
    stp xzr, xzr, [sp, #192]
    add x29, sp, #192
    bl board_irq_handler
    ldp x0, x1, [sp, #160]
    msr elr_el1, x0
    msr spsr_el1, x1
    ldr x30, [sp, #176]
    ldp x18, x29, [sp, #144]
    ldp x16, x17, [sp, #128]
    ldp x14, x15, [sp, #112]
    ldp x12, x13, [sp, #96]
    ldp x10, x11, [sp, #80]
    ldp x8, x9, [sp, #64]
    ldp x6, x7, [sp, #48]
    ldp x4, x5, [sp, #32]
    ldp x2, x3, [sp, #16]
    ldp x0, x1, [sp, #0]
    add sp, sp, #208
    eret
    .size irq_entry, . - irq_entry
