/* Force-included into every translation unit by the hosted msamp.pc's Cflags (-include): in a C++
 * one compiled for a program (not -fPIC without -fPIE: a shared library is not linked with
 * libmsamp.a), a reference that makes the link take every C++ wrapper of libmsamp.a
 * (port/hosted/hosted_cxx.c says why a static libstdc++ needs them all). One weak definition
 * serves every translation unit; C ones see nothing, and link neither the wrappers nor libstdc++.
 */
#ifndef MSAMP_HOSTED_CXX_H
#define MSAMP_HOSTED_CXX_H
#if defined(__cplusplus) && (defined(__PIE__) || !defined(__PIC__))
extern "C" {
extern void (*const msamp_hosted_cxx_wrappers[])(void);
extern void (*const *msamp_hosted_cxx_link)(void);
__attribute__((weak, visibility("hidden"))) void (*const *msamp_hosted_cxx_link)(void) =
    msamp_hosted_cxx_wrappers;
}
#endif
#endif
