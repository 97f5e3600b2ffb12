/* Linux user-mode start-up for the walker tests (MIPS64 n64): our own stack between
 * __msamp_stack_lo and __msamp_stack_hi, main(), exit_group; and a raw syscall entry. */
	.text
	.set noreorder
	.balign 4
	.global __start
	.type __start, @function
	.ent __start
__start:
	dla $29, __msamp_stack_hi
	move $30, $0
	jal main
	nop
	move $4, $2
	li $2, 5205 /* exit_group */
	syscall
	.end __start

/* long t_syscall(long nr, long a, long b, long c, long d, long e, long f) */
	.global t_syscall
	.type t_syscall, @function
	.ent t_syscall
t_syscall:
	move $2, $4
	move $4, $5
	move $5, $6
	move $6, $7
	move $7, $8
	move $8, $9
	move $9, $10
	syscall
	beqz $7, 1f
	nop
	dsubu $2, $0, $2
1:	jr $31
	nop
	.end t_syscall

	.bss
	.balign 16
	.global __msamp_stack_lo, __msamp_stack_hi
__msamp_stack_lo:
	.space 1048576
__msamp_stack_hi:
	.section .note.GNU-stack,"",@progbits
