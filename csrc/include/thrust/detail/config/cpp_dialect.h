#pragma once
// Stand-in for CCCL's thrust/detail/config/cpp_dialect.h (CuPy 14 bundles CCCL 3.x): Thrust
// refuses a C++ dialect below C++17. The emulator always compiles as C++17, so it checks
// the dialect the program asked NVRTC for (--std=c++14...: GS_USER_CPLUSPLUS, set by
// kernels/_build.py: _user_flags); NVRTC's log makes the #error a catastrophic error.
#if defined(GS_USER_CPLUSPLUS) && GS_USER_CPLUSPLUS < 201703L
#  ifndef CCCL_IGNORE_DEPRECATED_CPP_DIALECT
#    error Thrust requires at least C++17. Define CCCL_IGNORE_DEPRECATED_CPP_DIALECT to suppress this message.
#  endif
#endif
