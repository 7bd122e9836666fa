#pragma once
// Minimal stand-in for Thrust's namespace configuration header, used by the
// complex number headers vendored from CuPy (include/cupy/complex/).
#include <thrust/detail/config/cpp_dialect.h>
#ifndef THRUST_NAMESPACE_BEGIN
#define THRUST_NAMESPACE_BEGIN namespace thrust {
#define THRUST_NAMESPACE_END }
#endif
