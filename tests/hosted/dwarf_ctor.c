/*
 * A library the DWARF-stacks test dlopen()s, built without frame pointers: its constructor
 * allocates (through the program's dwarf_ctor_alloc, so that msamp's wrapper sees the call) while
 * the dynamic loader runs it under its own lock.
 */
#include <stddef.h>

void dwarf_ctor_alloc(size_t n); /* the program's, exported to this library */

static volatile size_t dwarf_ctor_runs;

__attribute__((constructor)) static void dwarf_ctor(void)
{
    dwarf_ctor_alloc(200 + dwarf_ctor_runs % 7);
    dwarf_ctor_runs++;
}
