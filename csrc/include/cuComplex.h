#pragma once
// gpushare emulator stand-in for CUDA's cuComplex.h: the same functions, with the
// same arithmetic (cuCdiv's scaling, cuCabs' overflow-avoiding form, cuCfma's order)
#include "gpushare_cuda.h"
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

/* ------------------- single complex ------------------- */
static inline float cuCrealf(cuFloatComplex x) { return x.x; }
static inline float cuCimagf(cuFloatComplex x) { return x.y; }
static inline cuFloatComplex make_cuFloatComplex(float r, float i) { return make_float2(r, i); }
static inline cuFloatComplex cuConjf(cuFloatComplex x) {
    return make_cuFloatComplex(cuCrealf(x), -cuCimagf(x));
}
static inline cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y) {
    return make_cuFloatComplex(cuCrealf(x) + cuCrealf(y), cuCimagf(x) + cuCimagf(y));
}
static inline cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y) {
    return make_cuFloatComplex(cuCrealf(x) - cuCrealf(y), cuCimagf(x) - cuCimagf(y));
}
static inline cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y) {
    return make_cuFloatComplex((cuCrealf(x) * cuCrealf(y)) - (cuCimagf(x) * cuCimagf(y)),
                               (cuCrealf(x) * cuCimagf(y)) + (cuCimagf(x) * cuCrealf(y)));
}
static inline cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y) {
    float s = fabsf(cuCrealf(y)) + fabsf(cuCimagf(y));
    float oos = 1.0f / s;
    float ars = cuCrealf(x) * oos;
    float ais = cuCimagf(x) * oos;
    float brs = cuCrealf(y) * oos;
    float bis = cuCimagf(y) * oos;
    s = std::fma(brs, brs, bis * bis);  // (contracted, as NVRTC compiles it)
    oos = 1.0f / s;
    return make_cuFloatComplex(std::fma(ars, brs, ais * bis) * oos,
                               std::fma(ais, brs, -(ars * bis)) * oos);
}
static inline float cuCabsf(cuFloatComplex x) {
    float a = fabsf(cuCrealf(x));
    float b = fabsf(cuCimagf(x));
    float v, w, t;
    if (a > b) { v = a; w = b; } else { v = b; w = a; }
    t = w / v;
    t = 1.0f + t * t;
    t = v * sqrtf(t);
    if ((v == 0.0f) || (v > 3.402823466e38f) || (w > 3.402823466e38f)) {
        t = v + w;
    }
    return t;
}

/* ------------------- double complex ------------------- */
static inline double cuCreal(cuDoubleComplex x) { return x.x; }
static inline double cuCimag(cuDoubleComplex x) { return x.y; }
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i) {
    return make_double2(r, i);
}
static inline cuDoubleComplex cuConj(cuDoubleComplex x) {
    return make_cuDoubleComplex(cuCreal(x), -cuCimag(x));
}
static inline cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y) {
    return make_cuDoubleComplex(cuCreal(x) + cuCreal(y), cuCimag(x) + cuCimag(y));
}
static inline cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y) {
    return make_cuDoubleComplex(cuCreal(x) - cuCreal(y), cuCimag(x) - cuCimag(y));
}
static inline cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y) {
    return make_cuDoubleComplex((cuCreal(x) * cuCreal(y)) - (cuCimag(x) * cuCimag(y)),
                                (cuCreal(x) * cuCimag(y)) + (cuCimag(x) * cuCreal(y)));
}
static inline cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y) {
    double s = fabs(cuCreal(y)) + fabs(cuCimag(y));
    double oos = 1.0 / s;
    double ars = cuCreal(x) * oos;
    double ais = cuCimag(x) * oos;
    double brs = cuCreal(y) * oos;
    double bis = cuCimag(y) * oos;
    s = std::fma(brs, brs, bis * bis);  // (contracted, as NVRTC compiles it)
    oos = 1.0 / s;
    return make_cuDoubleComplex(std::fma(ars, brs, ais * bis) * oos,
                                std::fma(ais, brs, -(ars * bis)) * oos);
}
static inline double cuCabs(cuDoubleComplex x) {
    double a = fabs(cuCreal(x));
    double b = fabs(cuCimag(x));
    double v, w, t;
    if (a > b) { v = a; w = b; } else { v = b; w = a; }
    t = w / v;
    t = 1.0 + t * t;
    t = v * sqrt(t);
    if ((v == 0.0) || (v > 1.79769313486231570e+308) || (w > 1.79769313486231570e+308)) {
        t = v + w;
    }
    return t;
}

/* ------------------- aliases, conversions, fma ------------------- */
static inline cuComplex make_cuComplex(float x, float y) { return make_cuFloatComplex(x, y); }
static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) {
    return make_cuDoubleComplex((double)cuCrealf(c), (double)cuCimagf(c));
}
static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) {
    return make_cuFloatComplex((float)cuCreal(c), (float)cuCimag(c));
}
static inline cuComplex cuCfmaf(cuComplex x, cuComplex y, cuComplex d) {
    float real_res = (cuCrealf(x) * cuCrealf(y)) + cuCrealf(d);
    float imag_res = (cuCrealf(x) * cuCimagf(y)) + cuCimagf(d);
    real_res = -(cuCimagf(x) * cuCimagf(y)) + real_res;
    imag_res = (cuCimagf(x) * cuCrealf(y)) + imag_res;
    return make_cuComplex(real_res, imag_res);
}
static inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
    double real_res = (cuCreal(x) * cuCreal(y)) + cuCreal(d);
    double imag_res = (cuCreal(x) * cuCimag(y)) + cuCimag(d);
    real_res = -(cuCimag(x) * cuCimag(y)) + real_res;
    imag_res = (cuCimag(x) * cuCreal(y)) + imag_res;
    return make_cuDoubleComplex(real_res, imag_res);
}
