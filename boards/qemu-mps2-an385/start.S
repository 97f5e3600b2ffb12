/* qemu-mps2-an385 start-up (Cortex-M3), the start-up of every Cortex-M board (qemu-microbit's
 * Cortex-M0, qemu-mps2-an386's Cortex-M4F, qemu-mps2-an505's Cortex-M33 too): vector table, reset,
 * the interrupt entry. Thumb-1 instructions only (ARMv6-M: no high-register stores, no
 * post-indexed addressing, no cbz/cbnz, no IT blocks). */
	.syntax unified
	.thumb

	.section .vectors, "a"
	.balign 4
	.word __stack_hi
	.word reset_handler
#ifdef BOARD_FREERTOS
/* qemu-mps2-an385-freertos: the kernel's SVC, PendSV and SysTick handlers (its ARM_CM3 port). */
	.rept 9                        /* NMI .. reserved */
	.word fault_entry
	.endr
	.word vPortSVCHandler
	.word fault_entry              /* DebugMon */
	.word fault_entry              /* reserved */
	.word xPortPendSVHandler
	.word xPortSysTickHandler
#else
	.rept 13                       /* NMI .. PendSV */
	.word fault_entry
	.endr
	.word SysTick_Handler          /* fault_entry unless the firmware has one (an application tick) */
#endif
	.rept 32                       /* external interrupts 0..31 */
	.word irq_entry
	.endr

	.text
/* Gives the FPU full access when the code is built for one (hard-float ABI: the compiler may use
 * it anywhere), zeroes .bss and calls main with r7 = r11 = lr = 0: frame walks end at main's
 * caller. */
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
	stmia r0!, {r2}
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

	.weak SysTick_Handler
	.thumb_set SysTick_Handler, fault_entry
	.global fault_entry
	.type fault_entry, %function
	.thumb_func
fault_entry:
	.fnstart
	.cantunwind
	mrs r0, ipsr
	ldr r1, [sp, #24]              /* the stacked pc */
	bl board_fault
	.fnend
	.size fault_entry, . - fault_entry
	.ltorg
	.section .note.GNU-stack,"",%progbits
