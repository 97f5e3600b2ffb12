/* What the host knows of each device architecture (MSAMP_ARCH_* of include/msamp_wire.h), in one
 * table (msamp_arch.c): its name, its ELF images, its pointers, how a return address becomes the
 * address of its call, and what a stack walk that found no frame usually means there. A new
 * architecture is one entry of that table (and its MSAMP_ARCH_* value). */
#ifndef MSAMP_ARCH_H
#define MSAMP_ARCH_H

#include <stdint.h>

struct msamp_arch {
    unsigned id;          /* MSAMP_ARCH_* */
    const char *name;     /* as drain and msamp-dump print it */
    unsigned elf_machine; /* e_machine of its ELF images (EM_*); 0: none */
    unsigned elf_class;   /* ELFCLASS32 or ELFCLASS64 when the machine has both; 0: any */
    int thumb_bit;        /* bit 0 of a code address is the instruction set (Thumb), not a byte */
    int class_is_ptr;     /* an image's ELF class says the pointer size (not MIPS: n32, o32) */
    unsigned ret_adjust;  /* bytes from a return address back into its call instruction */
    const char *no_frame; /* what a stack walk that found no frame usually means */
};

/* The entry of arch; the one of MSAMP_ARCH_UNKNOWN for a value not in the table. */
const struct msamp_arch *msamp_arch_get(unsigned arch);

/* The architecture of an ELF image from its header: machine, class (ELFCLASS32/64) and entry
 * point (ARM: bit 0 set for Thumb code); MSAMP_ARCH_UNKNOWN when none fits. */
unsigned msamp_arch_of_elf(unsigned machine, unsigned elf_class, uint64_t entry);

/* A frame's return address (ptr_size bytes wide, 4 or 8) as an address inside its call: the mode
 * bit cleared, ret_adjust bytes back, so that symbolizing it names the caller's line. Inline: it
 * runs for every frame of a profile. */
static inline uint64_t msamp_arch_call_site(const struct msamp_arch *a, unsigned ptr_size,
                                            uint64_t ret)
{
    uint64_t pc = ptr_size == 4 ? ret & 0xffffffffu : ret;
    if (a->thumb_bit)
        pc &= ~(uint64_t)1;
    return pc >= a->ret_adjust ? pc - a->ret_adjust : pc;
}

#endif
