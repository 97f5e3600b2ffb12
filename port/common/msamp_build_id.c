/* The GNU build-id from the note the linker script brackets with __msamp_build_id_start/_end: the
 * msamp_port_build_id() of the bare-metal ports (arm, mips64, riscv64, x86_64). */
#include <stddef.h>
#include <stdint.h>

#include "msamp_port.h"

extern const char __msamp_build_id_start[], __msamp_build_id_end[];

/* Note words are in the target's byte order. */
static uint32_t read_u32(const uint8_t *p)
{
    uint32_t v;
    __builtin_memcpy(&v, p, sizeof v);
    return v;
}

/* An ELF note: namesz, descsz, type (u32 each), the name padded to 4 bytes, then the descriptor. */
size_t msamp_port_build_id(const uint8_t **id)
{
    const uint8_t *p = (const uint8_t *)__msamp_build_id_start;
    const uint8_t *end = (const uint8_t *)__msamp_build_id_end;

    if (end < p || (size_t)(end - p) < 16)
        return 0;
    size_t avail = (size_t)(end - p);
    uint32_t namesz = read_u32(p), descsz = read_u32(p + 4), type = read_u32(p + 8);
    if (type != 3 || namesz != 4 || descsz == 0 || descsz > 64 || 16u + descsz > avail)
        return 0;
    if (p[12] != 'G' || p[13] != 'N' || p[14] != 'U' || p[15] != 0)
        return 0;
    *id = p + 16;
    return descsz;
}
