/* Start-up of QEMU's RISC-V virt boards (qemu-virt-riscv32, qemu-virt-riscv64), machine mode, for
 * the XLEN the compiler targets: stack, the FPU on where there is one (mstatus.FS), trap vector,
 * .bss, main(), exit; the trap entry. Each board's start.S includes it. */
#if __riscv_xlen == 64
#define REG_S sd
#define REG_L ld
#define SZREG 8
#else
#define REG_S sw
#define REG_L lw
#define SZREG 4
#endif
	.section .text.boot, "ax"
	.global _start
	.type _start, @function
_start:
	csrw mie, zero
	csrci mstatus, 8
#ifdef __riscv_flen
	li t0, (1 << 13)               /* mstatus.FS = initial: the compiler may use FP registers */
	csrs mstatus, t0
#endif
	la sp, __stack_hi
	la t0, irq_entry
	csrw mtvec, t0
	la t0, __bss_start
	la t1, __bss_end
1:	bgeu t0, t1, 2f
	REG_S zero, 0(t0)
	addi t0, t0, SZREG
	j 1b
2:	li s0, 0                       /* frame walks end at main's caller */
	li ra, 0
	call main
	call board_exit
3:	j 3b
	.size _start, . - _start

	.text
/* OP (REG_S or REG_L) on the registers C code may clobber beyond ra and s0 (t0-t6, a0-a7), at
 * sp + 4 * SZREG upwards. */
	.macro caller_saved op
	.set slot, 4
	.irp r, t0, t1, t2, t3, t4, t5, t6, a0, a1, a2, a3, a4, a5, a6, a7
	\op \r, slot * SZREG(sp)
	.set slot, slot + 1
	.endr
	.endm

/* Saves what C code may clobber, builds an empty frame record (walks of the handler's stacks stop
 * here, wherever the trap struck), and calls board_irq_handler(mcause, mepc). The record
 * {previous fp 0, ra 0} is at s0 - 2 * SZREG. */
	.balign 4
	.global irq_entry
	.type irq_entry, @function
irq_entry:
	addi sp, sp, -20 * SZREG
	REG_S zero, 0 * SZREG(sp)
	REG_S zero, 1 * SZREG(sp)
	REG_S ra, 2 * SZREG(sp)
	REG_S s0, 3 * SZREG(sp)
	caller_saved REG_S
	addi s0, sp, 2 * SZREG
	csrr a0, mcause
	csrr a1, mepc
	call board_irq_handler
	REG_L ra, 2 * SZREG(sp)
	REG_L s0, 3 * SZREG(sp)
	caller_saved REG_L
	addi sp, sp, 20 * SZREG
	mret
	.size irq_entry, . - irq_entry
	.section .note.GNU-stack,"",@progbits
