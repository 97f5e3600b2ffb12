/* A library the preload test's program dlopen()s after start-up: its strdup is glibc's. */
#include <string.h>

char *preload_dl_dup(const char *s);

char *preload_dl_dup(const char *s)
{
    return strdup(s);
}
