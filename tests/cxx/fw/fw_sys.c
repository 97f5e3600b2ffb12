/* What newlib and libstdc++ ask of the C++ firmware (tests/cxx/fw) beyond libnosys's stubs: the
 * heap newlib's malloc grows through _sbrk, a static array of FW_HEAP_BYTES (a larger request
 * fails in the allocator: NULL); getentropy (libstdc++'s std::random_device, linked with its string
 * code: no entropy here); __dso_handle (crtbegin.o's, not linked: the board's start-up replaces
 * the C runtime's). */
#include <errno.h>
#include <stddef.h>

#include "fw_heap.h"

void *_sbrk(ptrdiff_t incr);
int getentropy(void *buf, size_t len);

static _Alignas(16) unsigned char heap[FW_HEAP_BYTES];
static size_t brk;

void *_sbrk(ptrdiff_t incr)
{
    if (incr < 0 ? (size_t)-incr > brk : (size_t)incr > sizeof(heap) - brk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    void *p = heap + brk;
    brk += (size_t)incr;
    return p;
}

int getentropy(void *buf, size_t len)
{
    (void)buf;
    (void)len;
    errno = ENOSYS;
    return -1;
}

void *__dso_handle = &__dso_handle;
