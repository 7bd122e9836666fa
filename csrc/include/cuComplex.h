#pragma once
// gpushare emulator stand-in for cuComplex.h
#include "gpushare_cuda.h"
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;
static inline float cuCrealf(cuFloatComplex x) { return x.x; }
static inline float cuCimagf(cuFloatComplex x) { return x.y; }
static inline cuFloatComplex make_cuFloatComplex(float r, float i) { return make_float2(r, i); }
static inline cuFloatComplex make_cuComplex(float r, float i) { return make_float2(r, i); }
static inline cuFloatComplex cuConjf(cuFloatComplex x) { return make_float2(x.x, -x.y); }
static inline cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) { return make_float2(a.x + b.x, a.y + b.y); }
static inline cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) { return make_float2(a.x - b.x, a.y - b.y); }
static inline cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
static inline cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) { float d = b.x * b.x + b.y * b.y; return make_float2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d); }
static inline float cuCabsf(cuFloatComplex x) { return hypotf(x.x, x.y); }
static inline double cuCreal(cuDoubleComplex x) { return x.x; }
static inline double cuCimag(cuDoubleComplex x) { return x.y; }
static inline cuDoubleComplex make_cuDoubleComplex(double r, double i) { return make_double2(r, i); }
static inline cuDoubleComplex cuConj(cuDoubleComplex x) { return make_double2(x.x, -x.y); }
static inline cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) { return make_double2(a.x + b.x, a.y + b.y); }
static inline cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) { return make_double2(a.x - b.x, a.y - b.y); }
static inline cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) { return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
static inline cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b) { double d = b.x * b.x + b.y * b.y; return make_double2((a.x * b.x + a.y * b.y) / d, (a.y * b.x - a.x * b.y) / d); }
static inline double cuCabs(cuDoubleComplex x) { return hypot(x.x, x.y); }
