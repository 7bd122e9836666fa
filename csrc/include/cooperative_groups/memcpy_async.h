// cooperative_groups::memcpy_async / wait live in ../cooperative_groups.h here.
#pragma once
#include "../cooperative_groups.h"
#ifndef GS_CUDA_ALIGNED_SIZE_T
#define GS_CUDA_ALIGNED_SIZE_T
namespace cuda {
// a size that promises an alignment (<cuda/barrier>): only the size matters here
template <size_t Alignment>
struct aligned_size_t {
  static constexpr size_t align = Alignment;
  size_t value;
  explicit aligned_size_t(size_t s) : value(s) {}
  operator size_t() const { return value; }
};
}  // namespace cuda
#endif
