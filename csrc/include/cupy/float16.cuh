// gpushare: CuPy's <cupy/float16.cuh>. The emulator's float16 class (CuPy's, over
// __half) is defined in gpushare_cuda.h, which every kernel includes first; this
// header exists so that kernels written for CuPy that include it compile unchanged.
#pragma once
