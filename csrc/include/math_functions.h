#pragma once
// gpushare emulator stand-in: everything lives in gpushare_cuda.h
#include "gpushare_cuda.h"
