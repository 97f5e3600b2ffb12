/* Every C++ wrapper of the hosted library, for a link that must take them all (hosted.mk builds
 * this file into libmsamp.a; msamp.pc's Cflags force-include msamp_hosted_cxx.h, which refers to
 * msamp_hosted_cxx_wrappers from C++ translation units only). A C++ program linked with
 * libstdc++.a (-static, -static-libstdc++) reads that library after libmsamp.a: its members call
 * operator new and delete forms the program's own code may not, and those calls, renamed by
 * --wrap, need the wrappers taken already. A C program refers to none of them: they are not
 * linked, nor is libstdc++. */
#include "wrap/msamp_wrap_cxx.h"

#define WRAP_DECL(ret, name, ...) ret name(__VA_ARGS__);
WRAP_DECL(void *, MSAMP_CXX_WRAP(_Znw, ), size_t)
WRAP_DECL(void *, MSAMP_CXX_WRAP(_Zna, ), size_t)
WRAP_DECL(void *, MSAMP_CXX_WRAP(_Znw, St11align_val_t), size_t, msamp_cxx_align)
WRAP_DECL(void *, MSAMP_CXX_WRAP(_Zna, St11align_val_t), size_t, msamp_cxx_align)
WRAP_DECL(void *, MSAMP_CXX_WRAP(_Znw, RKSt9nothrow_t), size_t, msamp_cxx_nothrow)
WRAP_DECL(void *, MSAMP_CXX_WRAP(_Zna, RKSt9nothrow_t), size_t, msamp_cxx_nothrow)
WRAP_DECL(void *, MSAMP_CXX_WRAP(_Znw, St11align_val_tRKSt9nothrow_t), size_t, msamp_cxx_align,
          msamp_cxx_nothrow)
WRAP_DECL(void *, MSAMP_CXX_WRAP(_Zna, St11align_val_tRKSt9nothrow_t), size_t, msamp_cxx_align,
          msamp_cxx_nothrow)
WRAP_DECL(void, __wrap__ZdlPv, void *)
WRAP_DECL(void, __wrap__ZdaPv, void *)
WRAP_DECL(void, MSAMP_CXX_WRAP(_ZdlPv, ), void *, size_t)
WRAP_DECL(void, MSAMP_CXX_WRAP(_ZdaPv, ), void *, size_t)
WRAP_DECL(void, __wrap__ZdlPvSt11align_val_t, void *, msamp_cxx_align)
WRAP_DECL(void, __wrap__ZdaPvSt11align_val_t, void *, msamp_cxx_align)
WRAP_DECL(void, MSAMP_CXX_WRAP(_ZdlPv, St11align_val_t), void *, size_t, msamp_cxx_align)
WRAP_DECL(void, MSAMP_CXX_WRAP(_ZdaPv, St11align_val_t), void *, size_t, msamp_cxx_align)
WRAP_DECL(void, __wrap__ZdlPvRKSt9nothrow_t, void *, msamp_cxx_nothrow)
WRAP_DECL(void, __wrap__ZdaPvRKSt9nothrow_t, void *, msamp_cxx_nothrow)
WRAP_DECL(void, __wrap__ZdlPvSt11align_val_tRKSt9nothrow_t, void *, msamp_cxx_align,
          msamp_cxx_nothrow)
WRAP_DECL(void, __wrap__ZdaPvSt11align_val_tRKSt9nothrow_t, void *, msamp_cxx_align,
          msamp_cxx_nothrow)

typedef void (*msamp_hosted_fn)(void);
extern const msamp_hosted_fn msamp_hosted_cxx_wrappers[];
const msamp_hosted_fn msamp_hosted_cxx_wrappers[] = {
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_Znw, ),
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_Zna, ),
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_Znw, St11align_val_t),
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_Zna, St11align_val_t),
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_Znw, RKSt9nothrow_t),
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_Zna, RKSt9nothrow_t),
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_Znw, St11align_val_tRKSt9nothrow_t),
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_Zna, St11align_val_tRKSt9nothrow_t),
    (msamp_hosted_fn)__wrap__ZdlPv,
    (msamp_hosted_fn)__wrap__ZdaPv,
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_ZdlPv, ),
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_ZdaPv, ),
    (msamp_hosted_fn)__wrap__ZdlPvSt11align_val_t,
    (msamp_hosted_fn)__wrap__ZdaPvSt11align_val_t,
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_ZdlPv, St11align_val_t),
    (msamp_hosted_fn)MSAMP_CXX_WRAP(_ZdaPv, St11align_val_t),
    (msamp_hosted_fn)__wrap__ZdlPvRKSt9nothrow_t,
    (msamp_hosted_fn)__wrap__ZdaPvRKSt9nothrow_t,
    (msamp_hosted_fn)__wrap__ZdlPvSt11align_val_tRKSt9nothrow_t,
    (msamp_hosted_fn)__wrap__ZdaPvSt11align_val_tRKSt9nothrow_t,
};
