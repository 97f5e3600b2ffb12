/* ARM semihosting operations over the architecture's trap (msamp_semihost_call(), in
 * semihost_trap.c). */
#include "msamp_semihost.h"

/* The operations' numbers (Arm's semihosting specification). */
#define SYS_OPEN 0x01u
#define SYS_CLOSE 0x02u
#define SYS_WRITE0 0x04u
#define SYS_WRITE 0x05u
#define SYS_READ 0x06u
#define SYS_EXIT 0x18u
#define SYS_EXIT_EXTENDED 0x20u
#define OPEN_MODE_WB 5u
#define OPEN_MODE_APLUSB 11u /* "a+b": read and append, created when missing */
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u

static size_t text_length(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

intptr_t msamp_semihost_open_write(const char *path)
{
    uintptr_t block[3] = {(uintptr_t)path, OPEN_MODE_WB, text_length(path)};
    return (intptr_t)msamp_semihost_call(SYS_OPEN, (uintptr_t)block);
}

size_t msamp_semihost_write(intptr_t handle, const void *data, size_t len)
{
    uintptr_t block[3] = {(uintptr_t)handle, (uintptr_t)data, len};
    return (size_t)msamp_semihost_call(SYS_WRITE, (uintptr_t)block);
}

intptr_t msamp_semihost_open_append(const char *path)
{
    uintptr_t block[3] = {(uintptr_t)path, OPEN_MODE_APLUSB, text_length(path)};
    return (intptr_t)msamp_semihost_call(SYS_OPEN, (uintptr_t)block);
}

size_t msamp_semihost_read(intptr_t handle, void *data, size_t len)
{
    uintptr_t block[3] = {(uintptr_t)handle, (uintptr_t)data, len};
    return (size_t)msamp_semihost_call(SYS_READ, (uintptr_t)block);
}

int msamp_semihost_close(intptr_t handle)
{
    uintptr_t block[1] = {(uintptr_t)handle};
    return msamp_semihost_call(SYS_CLOSE, (uintptr_t)block) == 0 ? 0 : -1;
}

void msamp_semihost_console(const char *text)
{
    msamp_semihost_call(SYS_WRITE0, (uintptr_t)text);
}

void msamp_semihost_exit(int status)
{
    /* On 64-bit hosts SYS_EXIT takes {reason, subcode}; on 32-bit ones only SYS_EXIT_EXTENDED
     * carries a status other than 0/1. Both take the same block. */
    uintptr_t block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)(unsigned)status};
    msamp_semihost_call(sizeof(uintptr_t) == 8 ? SYS_EXIT : SYS_EXIT_EXTENDED, (uintptr_t)block);
}
