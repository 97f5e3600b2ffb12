/* msamp_mips64_capture(regs): its caller's return point, sp and s8, for the prologue scanner.
 * Written in assembly because no C function can see its caller's registers. */
#include "msamp_mips64.h"

__asm__(".pushsection .text.msamp_mips64_capture, \"ax\", @progbits\n"
        ".set push\n"
        ".set noreorder\n"
        ".balign 4\n"
        ".global msamp_mips64_capture\n"
        ".type msamp_mips64_capture, @function\n"
        ".ent msamp_mips64_capture\n"
        "msamp_mips64_capture:\n"
        "  sd $31, 0($4)\n"
        "  sd $29, 8($4)\n"
        "  jr $31\n"
        "  sd $30, 16($4)\n"
        ".end msamp_mips64_capture\n"
        ".size msamp_mips64_capture, . - msamp_mips64_capture\n"
        ".set pop\n"
        ".popsection\n");
