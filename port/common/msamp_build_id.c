/* The GNU build-id from the note the linker script brackets with __msamp_build_id_start/_end: the
 * msamp_port_build_id() of the bare-metal ports (arm, mips64, riscv64, x86_64). */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"

/* Words: ELF notes are 4-byte aligned, and the section takes its notes' alignment. */
extern const uint32_t __msamp_build_id_start[], __msamp_build_id_end[];

/* The note's name, "GNU\0", read as one word in the target's byte order (as the note's words). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define GNU_NAME 0x474E5500u
#else
#define GNU_NAME 0x00554E47u
#endif
#define NT_GNU_BUILD_ID 3u

/* An ELF note: namesz, descsz, type (u32 each), the name padded to 4 bytes, then the descriptor. */
size_t msamp_port_build_id(const uint8_t **id)
{
    uintptr_t lo = (uintptr_t)__msamp_build_id_start, hi = (uintptr_t)__msamp_build_id_end;
    uintptr_t avail = hi - lo;
    const uint32_t *h = __msamp_build_id_start; /* namesz, descsz, type, name */
    if (hi < lo + 16u) /* no room for a note's head (lo + 16 does not wrap: the section is mapped) */
        return 0;
    if (h[0] != 4u || h[2] != NT_GNU_BUILD_ID || h[3] != GNU_NAME || h[1] > avail - 16u)
        return 0;
    *id = (const uint8_t *)(h + 4);
    return h[1];
}
