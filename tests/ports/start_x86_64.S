/* Linux user-mode start-up for the walker tests (x86-64): our own stack between __msamp_stack_lo
 * and __msamp_stack_hi, main(), exit_group; and a raw syscall entry. */
	.text
	.global _start
	.type _start, @function
_start:
	leaq __msamp_stack_hi(%rip), %rsp
	xorl %ebp, %ebp
	call main
	movl %eax, %edi
	movl $231, %eax /* exit_group */
	syscall
	hlt

/* long t_syscall(long nr, long a, long b, long c, long d, long e, long f) */
	.global t_syscall
	.type t_syscall, @function
t_syscall:
	movq %rdi, %rax
	movq %rsi, %rdi
	movq %rdx, %rsi
	movq %rcx, %rdx
	movq %r8, %r10
	movq %r9, %r8
	movq 8(%rsp), %r9
	syscall
	ret

	.bss
	.balign 16
	.global __msamp_stack_lo, __msamp_stack_hi
__msamp_stack_lo:
	.space 1048576
__msamp_stack_hi:
	.section .note.GNU-stack,"",@progbits
