/* The host file and console operations of msamp_semihost.h over MIPS UHI semihosting (`sdbbp 1`,
 * operation in t9, arguments in a0..a3, result in v0), for boards run under QEMU with
 * -semihosting-config enable=on,target=native. port/transport/semihosting.c runs on top unchanged.
 * Without semihosting enabled on the host the trap is a debug exception: use only on such boards. */
#include <stddef.h>
#include <stdint.h>

#include "msamp_semihost.h"

enum { UHI_EXIT = 1, UHI_OPEN = 2, UHI_CLOSE = 3, UHI_READ = 4, UHI_WRITE = 5, UHI_PLOG = 13 };
/* open flags in UHI's (GDB's) numbering */
#define UHI_O_WRONLY 0x001
#define UHI_O_RDWR 0x002
#define UHI_O_APPEND 0x008
#define UHI_O_CREAT 0x200
#define UHI_O_TRUNC 0x400

static intptr_t uhi(uintptr_t op, uintptr_t a0, uintptr_t a1, uintptr_t a2)
{
    register uintptr_t t9 __asm__("$25") = op;
    register uintptr_t r4 __asm__("$4") = a0;
    register uintptr_t r5 __asm__("$5") = a1;
    register uintptr_t r6 __asm__("$6") = a2;
    register uintptr_t v0 __asm__("$2");
    register uintptr_t v1 __asm__("$3");
    __asm__ volatile("sdbbp 1" : "=r"(v0), "=r"(v1), "+r"(r4) : "r"(t9), "r"(r5), "r"(r6) : "memory");
    (void)v1; /* errno */
    return (intptr_t)v0;
}

intptr_t msamp_semihost_open_write(const char *path)
{
    intptr_t fd = uhi(UHI_OPEN, (uintptr_t)path, UHI_O_WRONLY | UHI_O_CREAT | UHI_O_TRUNC, 0644);
    return fd < 0 ? -1 : fd;
}

size_t msamp_semihost_write(intptr_t handle, const void *data, size_t len)
{
    intptr_t done = uhi(UHI_WRITE, (uintptr_t)handle, (uintptr_t)data, len);
    if (done < 0)
        return len;
    return (size_t)done >= len ? 0 : len - (size_t)done;
}

intptr_t msamp_semihost_open_append(const char *path)
{
    intptr_t fd = uhi(UHI_OPEN, (uintptr_t)path, UHI_O_RDWR | UHI_O_APPEND | UHI_O_CREAT, 0644);
    return fd < 0 ? -1 : fd;
}

size_t msamp_semihost_read(intptr_t handle, void *data, size_t len)
{
    intptr_t done = uhi(UHI_READ, (uintptr_t)handle, (uintptr_t)data, len);
    if (done < 0)
        return len;
    return (size_t)done >= len ? 0 : len - (size_t)done;
}

int msamp_semihost_close(intptr_t handle)
{
    return uhi(UHI_CLOSE, (uintptr_t)handle, 0, 0) == 0 ? 0 : -1;
}

/* UHI_plog formats a "%d" in the text with a1: console text here never holds one. */
void msamp_semihost_console(const char *text)
{
    uhi(UHI_PLOG, (uintptr_t)text, 0, 0);
}

void msamp_semihost_exit(int status)
{
    uhi(UHI_EXIT, (uintptr_t)(unsigned)status, 0, 0);
}
