/* Start-up of the Cortex-M boards that are not the Cortex-M3 (qemu-microbit's Cortex-M0,
 * qemu-mps2-an386's Cortex-M4F, qemu-mps2-an505's Cortex-M33): vector table, reset, the interrupt
 * entry. Thumb-1 instructions only (ARMv6-M: no high-register stores, no post-indexed addressing,
 * no cbz/cbnz, no IT blocks), so the one file serves every core. The FPU is given full access at
 * reset when the code is built for one (hard-float ABI: the compiler may use it anywhere). */
	.syntax unified
	.thumb

	.section .vectors, "a"
	.balign 4
	.word __stack_hi
	.word reset_handler
	.rept 14                       /* NMI .. SysTick (msamp reads SysTick without interrupts) */
	.word fault_entry
	.endr
	.rept 32                       /* external interrupts 0..31 */
	.word irq_entry
	.endr

	.text
/* Enables the FPU (if any), zeroes .bss and calls main with r7 = r11 = lr = 0: frame walks end at
 * main's caller. */
	.global reset_handler
	.type reset_handler, %function
	.thumb_func
reset_handler:
	.fnstart
	.cantunwind
#if defined(__ARM_FP)
	ldr r0, =0xe000ed88            /* CPACR: CP10 and CP11 full access */
	ldr r1, [r0]
	ldr r2, =0x00f00000
	orrs r1, r2
	str r1, [r0]
	dsb
	isb
#endif
	ldr r0, =__bss_start
	ldr r1, =__bss_end
	movs r2, #0
1:	cmp r0, r1
	bhs 2f
	str r2, [r0]
	adds r0, #4
	b 1b
2:	movs r7, #0
	mov r11, r7
	mov lr, r7
	bl main
	bl board_exit
	.fnend
	.size reset_handler, . - reset_handler

/* Every external interrupt: an empty frame record {0, 0} (frame walks of the handler's stacks stop
 * here, wherever it struck; the exidx walker stops at .cantunwind), then board_irq_handler. */
	.global irq_entry
	.type irq_entry, %function
	.thumb_func
irq_entry:
	.fnstart
	.cantunwind
	push {r7, lr}
	movs r0, #0
	push {r0}
	push {r0}
	mov r7, sp
	bl board_irq_handler
	add sp, sp, #8
	pop {r7, pc}
	.fnend
	.size irq_entry, . - irq_entry

	.global fault_entry
	.type fault_entry, %function
	.thumb_func
fault_entry:
	.fnstart
	.cantunwind
	mrs r0, ipsr
	mov r1, sp
	ldr r1, [r1, #24]              /* the stacked pc */
	bl board_fault
	.fnend
	.size fault_entry, . - fault_entry
	.ltorg
	.section .note.GNU-stack,"",%progbits
