/* The ARM run-time ABI's memory helpers, which clang calls for struct copies and zeroing on
 * arm-none-eabi (newlib provides them in a full firmware; the demo has only mini_libc). Shared by
 * the ARM boards. The word-aligned forms (4, 8) are aliases of the plain ones: memcpy, memmove and
 * memset need no alignment. */
#include <stddef.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);

void __aeabi_memcpy(void *dst, const void *src, size_t n);
void __aeabi_memmove(void *dst, const void *src, size_t n);
void __aeabi_memset(void *dst, size_t n, int c);
void __aeabi_memclr(void *dst, size_t n);

#define AEABI_ALIAS(name) __attribute__((alias(#name)))

void __aeabi_memcpy(void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
}
void __aeabi_memcpy4(void *dst, const void *src, size_t n) AEABI_ALIAS(__aeabi_memcpy);
void __aeabi_memcpy8(void *dst, const void *src, size_t n) AEABI_ALIAS(__aeabi_memcpy);

void __aeabi_memmove(void *dst, const void *src, size_t n)
{
    memmove(dst, src, n);
}
void __aeabi_memmove4(void *dst, const void *src, size_t n) AEABI_ALIAS(__aeabi_memmove);
void __aeabi_memmove8(void *dst, const void *src, size_t n) AEABI_ALIAS(__aeabi_memmove);

void __aeabi_memset(void *dst, size_t n, int c)
{
    memset(dst, c, n);
}
void __aeabi_memset4(void *dst, size_t n, int c) AEABI_ALIAS(__aeabi_memset);
void __aeabi_memset8(void *dst, size_t n, int c) AEABI_ALIAS(__aeabi_memset);

void __aeabi_memclr(void *dst, size_t n)
{
    memset(dst, 0, n);
}
void __aeabi_memclr4(void *dst, size_t n) AEABI_ALIAS(__aeabi_memclr);
void __aeabi_memclr8(void *dst, size_t n) AEABI_ALIAS(__aeabi_memclr);
