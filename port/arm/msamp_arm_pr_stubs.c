/* Code built with -funwind-tables refers to the EHABI personality routines from every index
 * entry; without these, the link pulls libgcc's unwinder (about 4 KB, and memcpy and abort) into
 * firmware that never throws. msamp only reads the tables. A firmware that uses C++ exceptions
 * must not link this file (build with MSAMP_ARM_PR_STUBS=0). */
#ifndef MSAMP_ARM_PR_STUBS
#define MSAMP_ARM_PR_STUBS 1
#endif

#if MSAMP_ARM_PR_STUBS
#define URC_FAILURE 9

int __aeabi_unwind_cpp_pr0(int state, void *ucbp, void *context);
int __aeabi_unwind_cpp_pr1(int state, void *ucbp, void *context);
int __aeabi_unwind_cpp_pr2(int state, void *ucbp, void *context);

int __aeabi_unwind_cpp_pr0(int state, void *ucbp, void *context)
{
    return URC_FAILURE;
}

int __aeabi_unwind_cpp_pr1(int state, void *ucbp, void *context)
{
    return URC_FAILURE;
}

int __aeabi_unwind_cpp_pr2(int state, void *ucbp, void *context)
{
    return URC_FAILURE;
}
#else
typedef int msamp_arm_pr_stubs_disabled;
#endif
