/* Linux user-mode start-up for the walker tests (RISC-V 64): our own stack between
 * __msamp_stack_lo and __msamp_stack_hi, main(), exit_group; and a raw syscall entry. */
	.text
	.global _start
	.type _start, @function
_start:
	.option push
	.option norelax
	lla gp, __global_pointer$
	.option pop
	lla sp, __msamp_stack_hi
	li s0, 0
	li ra, 0
	call main
	li a7, 94 /* exit_group */
	ecall

/* long t_syscall(long nr, long a, long b, long c, long d, long e, long f) */
	.global t_syscall
	.type t_syscall, @function
t_syscall:
	mv a7, a0
	mv a0, a1
	mv a1, a2
	mv a2, a3
	mv a3, a4
	mv a4, a5
	mv a5, a6
	ecall
	ret

	.bss
	.balign 16
	.global __msamp_stack_lo, __msamp_stack_hi
__msamp_stack_lo:
	.space 1048576
__msamp_stack_hi:
	.section .note.GNU-stack,"",@progbits
