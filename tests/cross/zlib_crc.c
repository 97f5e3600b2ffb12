/*
 * zlib's crc32() for the cross-built unit tests only: the host decoder that test_core links takes
 * its CRC-32 from zlib, and the Debian cross toolchains ship no zlib for the target. The same
 * CRC-32 (IEEE, reflected, inverted in and out, chainable like zlib's) is the core's own
 * msamp_crc32_update(), which test_core links anyway. Built into build/.../libz.a for -lz.
 */
#include <stddef.h>
#include <stdint.h>

uint32_t msamp_crc32_update(uint32_t crc, const uint8_t *p, size_t n);
unsigned long crc32(unsigned long crc, const unsigned char *buf, unsigned int len);

unsigned long crc32(unsigned long crc, const unsigned char *buf, unsigned int len)
{
    if (buf == NULL)
        return 0; /* zlib: the initial value */
    return msamp_crc32_update((uint32_t)crc, buf, len);
}
