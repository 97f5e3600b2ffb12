/* qemu-malta-mips64(el) start-up: Status set up for kernel mode with vectors at EBase, stack,
 * .bss, main(), exit; the general exception vector and the interrupt entry. */
	.set noreorder
	.set noat

	.section .text.boot, "ax"
	.global _start
	.type _start, @function
_start:
	mfc0 $8, $12                   /* Status: clear BEV, ERL, EXL, IE and the interrupt mask */
	li $9, ~((1 << 22) | 0xff07)
	and $8, $8, $9
	mtc0 $8, $12
	mtc0 $0, $13                   /* Cause: Count running (DC = 0), general vector (IV = 0) */
	ehb
	dla $29, __stack_hi
	dla $8, __bss_start
	dla $9, __bss_end
1:	sltu $10, $8, $9
	beqz $10, 2f
	nop
	sd $0, 0($8)
	b 1b
	daddiu $8, $8, 8
2:	move $30, $0                   /* the prologue scanner stops in here: no frame allocation */
	jal main
	nop
	jal board_exit
	move $4, $2
3:	b 3b
	nop
	.size _start, . - _start

	.section .vectors, "ax"
	j irq_entry
	nop

	.text
/* Never executed: ends the prologue scanner's backward search (a `jr ra` with nothing an
 * epilogue would hold before it) so walks of interrupt stacks stop at irq_entry. */
	.word 0x0000000d               /* break */
	jr $31
	nop

/* Saves what C code may clobber (through k1, so the scanner sees no frame here), then calls
 * board_irq_handler(cause, epc) with Status.EXL set. */
	.global irq_entry
	.type irq_entry, @function
irq_entry:
	daddiu $27, $29, -176
	sd $1, 0($27)
	sd $2, 8($27)
	sd $3, 16($27)
	sd $4, 24($27)
	sd $5, 32($27)
	sd $6, 40($27)
	sd $7, 48($27)
	sd $8, 56($27)
	sd $9, 64($27)
	sd $10, 72($27)
	sd $11, 80($27)
	sd $12, 88($27)
	sd $13, 96($27)
	sd $14, 104($27)
	sd $15, 112($27)
	sd $24, 120($27)
	sd $25, 128($27)
	sd $31, 136($27)
	mfhi $8
	sd $8, 144($27)
	mflo $8
	sd $8, 152($27)
	move $29, $27
	mfc0 $4, $13                   /* Cause */
	dmfc0 $5, $14                  /* EPC */
	jal board_irq_handler
	nop
	ld $8, 144($29)
	mthi $8
	ld $8, 152($29)
	mtlo $8
	ld $1, 0($29)
	ld $2, 8($29)
	ld $3, 16($29)
	ld $4, 24($29)
	ld $5, 32($29)
	ld $6, 40($29)
	ld $7, 48($29)
	ld $8, 56($29)
	ld $9, 64($29)
	ld $10, 72($29)
	ld $11, 80($29)
	ld $12, 88($29)
	ld $13, 96($29)
	ld $14, 104($29)
	ld $15, 112($29)
	ld $24, 120($29)
	ld $25, 128($29)
	ld $31, 136($29)
	daddiu $29, $29, 176
	eret
	.size irq_entry, . - irq_entry
	.section .note.GNU-stack,"",@progbits
