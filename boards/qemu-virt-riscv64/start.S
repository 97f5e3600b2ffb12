/* qemu-virt-riscv64 start-up (machine mode): stack, FPU on, trap vector, .bss, main(), exit;
 * the trap entry. */
	.section .text.boot, "ax"
	.global _start
	.type _start, @function
_start:
	csrw mie, zero
	csrci mstatus, 8
	li t0, (1 << 13)               /* mstatus.FS = initial: the compiler may use FP registers */
	csrs mstatus, t0
	la sp, __stack_hi
	la t0, irq_entry
	csrw mtvec, t0
	la t0, __bss_start
	la t1, __bss_end
1:	bgeu t0, t1, 2f
	sd zero, 0(t0)
	addi t0, t0, 8
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
	addi sp, sp, -160
	sd zero, 0(sp)                 /* the record at s0 - 16: {previous fp 0, ra 0} */
	sd zero, 8(sp)
	sd ra, 16(sp)
	sd s0, 24(sp)
	sd t0, 32(sp)
	sd t1, 40(sp)
	sd t2, 48(sp)
	sd t3, 56(sp)
	sd t4, 64(sp)
	sd t5, 72(sp)
	sd t6, 80(sp)
	sd a0, 88(sp)
	sd a1, 96(sp)
	sd a2, 104(sp)
	sd a3, 112(sp)
	sd a4, 120(sp)
	sd a5, 128(sp)
	sd a6, 136(sp)
	sd a7, 144(sp)
	addi s0, sp, 16
	csrr a0, mcause
	csrr a1, mepc
	call board_irq_handler
	ld ra, 16(sp)
	ld s0, 24(sp)
	ld t0, 32(sp)
	ld t1, 40(sp)
	ld t2, 48(sp)
	ld t3, 56(sp)
	ld t4, 64(sp)
	ld t5, 72(sp)
	ld t6, 80(sp)
	ld a0, 88(sp)
	ld a1, 96(sp)
	ld a2, 104(sp)
	ld a3, 112(sp)
	ld a4, 120(sp)
	ld a5, 128(sp)
	ld a6, 136(sp)
	ld a7, 144(sp)
	addi sp, sp, 160
	mret
	.size irq_entry, . - irq_entry
	.section .note.GNU-stack,"",@progbits
