#pragma once
// gpushare emulator stand-in: everything lives in cuda_bf16.h
#include "cuda_bf16.h"
