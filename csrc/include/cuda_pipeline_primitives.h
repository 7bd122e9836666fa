#pragma once
// gpushare emulator stand-in: everything lives in cuda_pipeline.h
#include "cuda_pipeline.h"
