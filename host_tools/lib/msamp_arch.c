/* The device architectures as the host knows them (msamp_arch.h). */
#include "msamp_arch.h"

#include <elf.h>
#include <stddef.h>

#include "msamp_wire.h"

static const char fp_walk[] =
    "the walker follows frame pointers: compile every file, msamp's and your own, with "
    "-fno-omit-frame-pointer (MSAMP_CFLAGS carries it; -O2 and -Os drop it otherwise)";
static const char arm_walk[] =
    "built with gcc, the ARM walker reads the unwind tables: compile every file, msamp's and your "
    "own, with -funwind-tables (port/msamp.mk's MSAMP_CFLAGS and port/msamp.cmake carry it) and "
    "keep .ARM.exidx and .ARM.extab in the image (KEEP them in the linker script); built with "
    "clang, it follows the r7 frame chain: compile with -fno-omit-frame-pointer";
static const char mips_walk[] =
    "the MIPS walker reads each function's prologue: compile with -fno-omit-frame-pointer and "
    "without -mips16 or microMIPS";

/* The first entry is the unknown architecture's. */
static const struct msamp_arch arches[] = {
    {MSAMP_ARCH_UNKNOWN, "unknown", 0, 0, 0, 1, 1, fp_walk},
    {MSAMP_ARCH_X86_64, "x86_64", EM_X86_64, 0, 0, 1, 1, fp_walk},
    {MSAMP_ARCH_AARCH64, "aarch64", EM_AARCH64, 0, 0, 1, 4, fp_walk},
    {MSAMP_ARCH_ARM, "arm", EM_ARM, 0, 0, 1, 4, arm_walk},
    {MSAMP_ARCH_ARM_THUMB, "thumb", EM_ARM, 0, 1, 1, 2, arm_walk},
    {MSAMP_ARCH_MIPS64, "mips64", EM_MIPS, 0, 0, 0, 8 /* jal and its delay slot */, mips_walk},
    {MSAMP_ARCH_RISCV64, "riscv64", EM_RISCV, ELFCLASS64, 0, 1, 2, fp_walk},
    {MSAMP_ARCH_RISCV32, "riscv32", EM_RISCV, ELFCLASS32, 0, 1, 2, fp_walk},
    {MSAMP_ARCH_X86, "x86", EM_386, 0, 0, 1, 1, fp_walk},
};

const struct msamp_arch *msamp_arch_get(unsigned arch)
{
    for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
        if (arches[i].id == arch)
            return &arches[i];
    return &arches[0];
}

unsigned msamp_arch_of_elf(unsigned machine, unsigned elf_class, uint64_t entry)
{
    for (size_t i = 1; i < sizeof(arches) / sizeof(arches[0]); i++) {
        const struct msamp_arch *a = &arches[i];
        if (a->elf_machine == machine && (!a->elf_class || a->elf_class == elf_class) &&
            (machine != EM_ARM || a->thumb_bit == (int)(entry & 1u)))
            return a->id;
    }
    return MSAMP_ARCH_UNKNOWN;
}
