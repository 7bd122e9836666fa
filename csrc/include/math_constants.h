#pragma once
// gpushare emulator stand-in for CUDA's math_constants.h (subset)
#include "gpushare_cuda.h"
#define CUDART_SQRT_HALF_F 0.707106781f
#define CUDART_SQRT_2PI 2.5066282746310002e+0
#define CUDART_SQRT_HALF 7.0710678118654757e-1
#define CUDART_PIO2 1.5707963267948966e+0
#define CUDART_PIO2_F 1.570796327f
#define CUDART_2_OVER_PI 6.3661977236758138e-1
#define CUDART_LN2 6.9314718055994529e-1
#define CUDART_LN2_F 0.693147181f
#define CUDART_MAX_NORMAL_F __int_as_float(0x7f7fffff)
#define CUDART_MIN_DENORM_F __int_as_float(0x00000001)
#define CUDART_ZERO_F 0.0f
#define CUDART_ONE_F 1.0f
