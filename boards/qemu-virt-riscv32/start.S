/* qemu-virt-riscv32 start-up (machine mode, RV32IMAC: no FPU): stack, trap vector, .bss, main(),
 * exit; the trap entry. */
	.section .text.boot, "ax"
	.global _start
	.type _start, @function
_start:
	csrw mie, zero
	csrci mstatus, 8
	la sp, __stack_hi
	la t0, irq_entry
	csrw mtvec, t0
	la t0, __bss_start
	la t1, __bss_end
1:	bgeu t0, t1, 2f
	sw zero, 0(t0)
	addi t0, t0, 4
	j 1b
2:	li s0, 0                       /* frame walks end at main's caller */
	li ra, 0
	call main
	call board_exit
3:	j 3b
	.size _start, . - _start

	.text
/* Saves what C code may clobber, builds an empty frame record (walks of the handler's stacks stop
 * here, wherever the trap struck), and calls board_irq_handler(mcause, mepc). */
	.balign 4
	.global irq_entry
	.type irq_entry, @function
irq_entry:
	addi sp, sp, -80
	sw zero, 0(sp)                 /* the record at s0 - 8: {previous fp 0, ra 0} */
	sw zero, 4(sp)
	sw ra, 8(sp)
	sw s0, 12(sp)
	sw t0, 16(sp)
	sw t1, 20(sp)
	sw t2, 24(sp)
	sw t3, 28(sp)
	sw t4, 32(sp)
	sw t5, 36(sp)
	sw t6, 40(sp)
	sw a0, 44(sp)
	sw a1, 48(sp)
	sw a2, 52(sp)
	sw a3, 56(sp)
	sw a4, 60(sp)
	sw a5, 64(sp)
	sw a6, 68(sp)
	sw a7, 72(sp)
	addi s0, sp, 8
	csrr a0, mcause
	csrr a1, mepc
	call board_irq_handler
	lw ra, 8(sp)
	lw s0, 12(sp)
	lw t0, 16(sp)
	lw t1, 20(sp)
	lw t2, 24(sp)
	lw t3, 28(sp)
	lw t4, 32(sp)
	lw t5, 36(sp)
	lw t6, 40(sp)
	lw a0, 44(sp)
	lw a1, 48(sp)
	lw a2, 52(sp)
	lw a3, 56(sp)
	lw a4, 60(sp)
	lw a5, 64(sp)
	lw a6, 68(sp)
	lw a7, 72(sp)
	addi sp, sp, 80
	mret
	.size irq_entry, . - irq_entry
	.section .note.GNU-stack,"",@progbits
