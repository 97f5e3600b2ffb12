/* qemu-microvm-x86_64 start-up: PVH entry in 32-bit protected mode, page tables for the first GiB,
 * long mode, .bss, IDT, main(), exit; the interrupt entries. */
	.section .note.pvh, "a"
	.balign 4
	.long 4                        /* name size */
	.long 8                        /* descriptor size */
	.long 18                       /* XEN_ELFNOTE_PHYS32_ENTRY */
	.asciz "Xen"
	.quad _start

/* Points the page-directory-pointer entry at `entry` to the page directory `table`, whose 512
 * entries map 2 MiB pages from the start of its GiB (the first entry's address is `flags`'s high
 * bits: 0, or 0xc0000000 for the fourth GiB) with `flags`. */
	.macro map_gib table, entry, flags
	movl $\table, %eax
	orl $3, %eax
	movl %eax, \entry
	movl $\table, %edi
	movl $\flags, %eax
	movl $512, %ecx
0:	movl %eax, (%edi)
	addl $0x200000, %eax
	addl $8, %edi
	loop 0b
	.endm

	.section .text.boot, "ax"
	.code32
	.global _start
	.type _start, @function
_start:
	cli
	movl $__stack_hi, %esp
	/* .bss (the page tables live there) */
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	shrl $2, %ecx
	xorl %eax, %eax
	rep stosl
	/* PML4[0] -> PDPT */
	movl $pdpt, %eax
	orl $3, %eax
	movl %eax, pml4
	/* PDPT[0] -> PD, PD[i] = 2 MiB page i */
	map_gib pd, pdpt, 0x83         /* present, writable, 2 MiB */
	/* PDPT[3] -> PD_IO: the fourth GiB (local APIC, I/O APIC), uncached */
	map_gib pd_io, pdpt + 24, 0xc000009b /* present, writable, write-through, uncached, 2 MiB */
	movl $pml4, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $0x20, %eax                /* PAE */
	movl %eax, %cr4
	movl $0xc0000080, %ecx         /* EFER.LME */
	rdmsr
	orl $0x100, %eax
	wrmsr
	movl %cr0, %eax
	orl $0x80000001, %eax          /* paging, protection */
	movl %eax, %cr0
	lgdt gdt_ptr
	ljmp $0x08, $long_mode

	.code64
long_mode:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movabsq $__stack_hi, %rsp
	xorl %ebp, %ebp                /* frame walks end at main's caller */
	call board_setup_idt
	call main
	movl %eax, %edi
	call board_exit
2:	hlt
	jmp 2b
	.size _start, . - _start

	.section .rodata
	.balign 8
gdt:
	.quad 0
	.quad 0x00af9a000000ffff        /* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff        /* 0x10: data */
gdt_end:
gdt_ptr:
	.word gdt_end - gdt - 1
	.quad gdt

	.text
/* The timer interrupt (vector 32): saves what C code may clobber, ends the frame chain with an
 * empty record {0, 0} at rbp (walks of the handler's stacks stop here), calls board_irq_handler. */
	.global irq_entry
	.type irq_entry, @function
irq_entry:
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %rbp
	subq $8, %rsp                  /* 16-byte alignment at the call */
	pushq $0
	pushq $0
	movq %rsp, %rbp
	call board_irq_handler
	addq $24, %rsp
	popq %rbp
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	iretq
	.size irq_entry, . - irq_entry

/* Any other vector: board_fault(rip of the exception frame). Error codes are not told apart. */
	.global fault_entry
	.type fault_entry, @function
fault_entry:
	movq (%rsp), %rdi
	andq $-16, %rsp
	call board_fault
	.size fault_entry, . - fault_entry

	.bss
	.balign 4096
pml4:	.space 4096
pdpt:	.space 4096
pd:	.space 4096
pd_io:	.space 4096
	.section .note.GNU-stack,"",@progbits
