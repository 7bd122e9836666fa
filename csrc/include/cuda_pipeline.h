// gpushare emulator stand-in for CUDA's cuda_pipeline.h primitives: an "asynchronous"
// copy is done at once by the calling thread (its own later reads see it; other
// threads see it after a barrier, as on a GPU), so commit and wait have nothing left
// to do.
#pragma once
#include "gpushare_cuda.h"

// copies size_and_align - zfill bytes of src and zeroes the zfill bytes after them
static inline void __pipeline_memcpy_async(void* dst_shared, const void* src_global,
                                           size_t size_and_align, size_t zfill = 0) {
  size_t n = zfill < size_and_align ? size_and_align - zfill : 0;
  if (n) memcpy(dst_shared, src_global, n);
  if (size_and_align > n) memset((char*)dst_shared + n, 0, size_and_align - n);
}
static inline void __pipeline_commit() {}
static inline void __pipeline_wait_prior(size_t) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
