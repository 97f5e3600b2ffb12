/* qemu-virt-arm start-up (Cortex-A15, ARM state whatever the C code's ISA): vectors, stacks,
 * .bss, main(), exit; the IRQ entry. */
	.syntax unified
	.arm
	.section .text.boot, "ax"
	.global _start
	.type _start, %function
_start:
	.fnstart
	.cantunwind
	cpsid if
	cps #0x12                      /* IRQ mode: its own stack, low in the stack region */
	ldr sp, =__irq_stack_hi
	cps #0x13                      /* SVC mode: the main stack */
	ldr sp, =__stack_hi
	ldr r0, =vectors
	mcr p15, 0, r0, c12, c0, 0     /* VBAR */
	isb
	ldr r0, =__bss_start
	ldr r1, =__bss_end
	mov r2, #0
1:	cmp r0, r1
	strlo r2, [r0], #4
	blo 1b
	mov r7, #0                     /* frame walks end at main's caller */
	mov r11, #0
	mov lr, #0
	bl main
	bl board_exit
	.fnend
	.size _start, . - _start

	.text
	.balign 32
vectors:
	b fault_entry                  /* reset */
	b fault_entry                  /* undefined */
	b fault_entry                  /* svc */
	b fault_entry                  /* prefetch abort */
	b fault_entry                  /* data abort */
	b fault_entry
	b irq_entry
	b fault_entry                  /* fiq */

/* In IRQ mode: saves what the C handler may clobber, builds an empty frame record (walks of the
 * handler's stacks stop here, whatever layout the C code uses: zeros at fp - 4, fp, fp + 4), and
 * calls board_irq_handler. */
	.global irq_entry
	.type irq_entry, %function
irq_entry:
	.fnstart
	.cantunwind
	sub lr, lr, #4
	push {r0-r3, r7, r11, r12, lr}
	mov r0, #0
	push {r0}
	push {r0}
	push {r0}
	push {r0}
	add r11, sp, #4
	add r7, sp, #4
	bl board_irq_handler
	add sp, sp, #16
	pop {r0-r3, r7, r11, r12, lr}
	movs pc, lr
	.fnend
	.size irq_entry, . - irq_entry

	.global fault_entry
	.type fault_entry, %function
fault_entry:
	.fnstart
	.cantunwind
	mrs r0, cpsr
	mov r1, lr
	bl board_fault
	.fnend
	.size fault_entry, . - fault_entry
	.ltorg
	.section .note.GNU-stack,"",%progbits
