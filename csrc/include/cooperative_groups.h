// cooperative_groups for gpushare's CPU kernel emulator: thread blocks, warp tiles and
// their collectives, built on the emulator's own barriers and warp intrinsics
// (gpushare_cuda.h). A grid-wide barrier (grid_group::sync, a cooperative launch) is
// not available: blocks do not all run at once here. Using it is a compile error that
// says so.
#pragma once

namespace cooperative_groups {

template <typename T> struct gs_always_false { static constexpr bool value = false; };

class thread_group {
 public:
  explicit thread_group(unsigned size, unsigned rank, unsigned mask, bool warp)
      : size_(size), rank_(rank), mask_(mask), warp_(warp) {}
  void sync() const { if (warp_) __syncwarp(mask_); else __syncthreads(); }
  unsigned long long size() const { return size_; }
  unsigned long long num_threads() const { return size_; }
  unsigned long long thread_rank() const { return rank_; }

 protected:
  unsigned size_, rank_, mask_;
  bool warp_;
};

class thread_block : public thread_group {
 public:
  thread_block()
      : thread_group(blockDim.x * blockDim.y * blockDim.z, gs_linear_tid(), 0u, false) {}
  dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  dim3 group_dim() const { return blockDim; }
  dim3 dim_threads() const { return blockDim; }
};

static inline thread_block this_thread_block() { return thread_block(); }

template <typename Group> static inline void sync(const Group& g) { g.sync(); }

// A tile of N (a power of two, at most 32) consecutive threads of a warp.
template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                "thread_block_tile<N>: N must be a power of two no larger than 32");
  static unsigned tile_mask() {
    unsigned base = gs_lane() & ~(N - 1);
    return (N == 32 ? 0xffffffffu : ((1u << N) - 1u)) << base;
  }

 public:
  thread_block_tile() : thread_group(N, gs_lane() & (N - 1), tile_mask(), true) {}
  static constexpr unsigned long long size() { return N; }
  static constexpr unsigned long long num_threads() { return N; }
  unsigned long long meta_group_rank() const { return gs_linear_tid() / N; }
  unsigned long long meta_group_size() const {
    return (blockDim.x * blockDim.y * blockDim.z + N - 1) / N;
  }
  template <typename T> T shfl(T v, int src) const { return __shfl_sync(mask_, v, src, N); }
  template <typename T> T shfl_down(T v, unsigned d) const {
    return __shfl_down_sync(mask_, v, d, N);
  }
  template <typename T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask_, v, d, N); }
  template <typename T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask_, v, m, N); }
  int any(int p) const { return __any_sync(mask_, p); }
  int all(int p) const { return __all_sync(mask_, p); }
  unsigned ballot(int p) const {  // bit i: thread i of this tile
    return (__ballot_sync(mask_, p) >> (gs_lane() & ~(N - 1))) &
           (N == 32 ? 0xffffffffu : ((1u << N) - 1u));
  }
};

template <unsigned N, typename Parent>
static inline thread_block_tile<N> tiled_partition(const Parent&) {
  return thread_block_tile<N>();
}

// tiled_partition(parent, n) with n known at run time: a group of n (a power of two up
// to 32) threads that can sync and tell ranks.
static inline thread_group tiled_partition(const thread_block&, unsigned n) {
  unsigned base = gs_lane() & ~(n - 1);
  unsigned mask = (n >= 32 ? 0xffffffffu : ((1u << n) - 1u)) << base;
  return thread_group(n, gs_lane() & (n - 1), mask, true);
}

static inline thread_block_tile<32> coalesced_threads() { return thread_block_tile<32>(); }

class grid_group {
 public:
  unsigned long long size() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z * blockDim.x * blockDim.y *
           blockDim.z;
  }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const {
    unsigned long long block = blockIdx.x + (unsigned long long)gridDim.x *
                               (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    return block * blockDim.x * blockDim.y * blockDim.z + gs_linear_tid();
  }
  dim3 group_dim() const { return gridDim; }
  // valid in a cooperative launch (enable_cooperative_groups) of a kernel that names
  // this_grid or grid_group (GS_GRID_SYNC: gs_launch runs every block at once)
  bool is_valid() const { return gs_cooperative; }
#if GS_GRID_SYNC
  void sync() const {
    if (!gs_cooperative) __trap();    // as CUDA: a grid syncs in a cooperative launch only
    __syncthreads();                  // the block's threads are here...
    if (gs_linear_tid() == 0) gs_rt->grid_sync();  // ...and so are the other blocks
    __syncthreads();
  }
#else
  template <typename T = void> void sync() const {
    static_assert(gs_always_false<T>::value,
                  "gpushare's CPU kernel emulator syncs a whole grid only in a kernel "
                  "whose source names cooperative_groups' this_grid or grid_group");
  }
#endif
};

static inline grid_group this_grid() { return grid_group(); }

// reductions (cooperative_groups/reduce.h)
template <typename T> struct plus { T operator()(const T& a, const T& b) const { return a + b; } };
template <typename T> struct less {
  T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <typename T> struct greater {
  T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <typename T> struct bit_and { T operator()(const T& a, const T& b) const { return a & b; } };
template <typename T> struct bit_or { T operator()(const T& a, const T& b) const { return a | b; } };
template <typename T> struct bit_xor { T operator()(const T& a, const T& b) const { return a ^ b; } };

template <unsigned N, typename T, typename Op>
static inline T reduce(const thread_block_tile<N>& g, T value, Op op) {
  for (unsigned d = 1; d < N; d <<= 1) value = op(value, g.shfl_xor(value, (int)d));
  return value;
}

}  // namespace cooperative_groups
