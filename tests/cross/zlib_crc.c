/*
 * zlib's crc32() for the cross-built unit tests only: the host decoder that test_core and
 * test_tiny link takes its CRC-32 from zlib, and the Debian cross toolchains ship no zlib for the
 * target. CRC-32/IEEE (reflected polynomial 0xEDB88320, inverted in and out, chainable like
 * zlib's), bit by bit: speed does not matter here. Built into build/.../libz.a for -lz.
 */
#include <stddef.h>

unsigned long crc32(unsigned long crc, const unsigned char *buf, unsigned int len);

unsigned long crc32(unsigned long crc, const unsigned char *buf, unsigned int len)
{
    if (buf == NULL)
        return 0; /* zlib: the initial value */
    unsigned long c = ~crc & 0xFFFFFFFFul;
    for (unsigned int i = 0; i < len; i++) {
        c ^= buf[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320ul & (0ul - (c & 1ul)));
    }
    return ~c & 0xFFFFFFFFul;
}
