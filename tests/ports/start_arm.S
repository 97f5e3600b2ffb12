/* Linux user-mode start-up for the walker tests (ARM or Thumb): a stack of our own between
 * __msamp_stack_lo and __msamp_stack_hi, main(), exit_group; and a raw syscall entry. */
	.syntax unified
#if defined(__thumb__)
#define FUNC(name) .global name; .type name, %function; .thumb_func; name:
	.thumb
#else
#define FUNC(name) .global name; .type name, %function; name:
	.arm
#endif
	.text
	.balign 4
FUNC(_start)
	ldr r0, =__msamp_stack_hi
	mov sp, r0
	movs r0, #0
	mov r11, r0
	mov r7, r0
	mov lr, r0
	bl main
	movs r7, #248 /* exit_group */
	svc #0
	b .

/* long t_syscall(long nr, long a, long b, long c, long d, long e) */
FUNC(t_syscall)
	push {r4, r5, r7, lr}
	mov r7, r0
	mov r0, r1
	mov r1, r2
	mov r2, r3
	ldr r3, [sp, #16]
	ldr r4, [sp, #20]
	ldr r5, [sp, #24]
	svc #0
	pop {r4, r5, r7, pc}
	.ltorg

	.bss
	.balign 16
	.global __msamp_stack_lo, __msamp_stack_hi
__msamp_stack_lo:
	.space 1048576
__msamp_stack_hi:
	.section .note.GNU-stack,"",%progbits
