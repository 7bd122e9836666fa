#pragma once
// gpushare emulator stand-in: cuRAND's device API lives in curand_kernel.h
#include "curand_kernel.h"
