// cooperative_groups for gpushare's CPU kernel emulator: thread blocks, warp tiles and
// their collectives, built on the emulator's own barriers and warp intrinsics
// (gpushare_cuda.h). grid_group::sync works in a cooperative launch of a kernel whose
// source names this_grid or grid_group (csrc/README.md).
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
template <unsigned GsN>
class thread_block_tile : public thread_group {
  static_assert(GsN >= 1 && GsN <= 32 && (GsN & (GsN - 1)) == 0,
                "thread_block_tile<N>: N must be a power of two no larger than 32");
  static unsigned tile_mask() {
    unsigned base = gs_lane() & ~(GsN - 1);
    return (GsN == 32 ? 0xffffffffu : ((1u << GsN) - 1u)) << base;
  }

 public:
  thread_block_tile() : thread_group(GsN, gs_lane() & (GsN - 1), tile_mask(), true) {}
  static constexpr unsigned long long size() { return GsN; }
  static constexpr unsigned long long num_threads() { return GsN; }
  unsigned long long meta_group_rank() const { return gs_linear_tid() / GsN; }
  unsigned long long meta_group_size() const {
    return (blockDim.x * blockDim.y * blockDim.z + GsN - 1) / GsN;
  }
  template <typename T> T shfl(T v, int src) const { return __shfl_sync(mask_, v, src, GsN); }
  template <typename T> T shfl_down(T v, unsigned d) const {
    return __shfl_down_sync(mask_, v, d, GsN);
  }
  template <typename T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask_, v, d, GsN); }
  template <typename T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask_, v, m, GsN); }
  int any(int p) const { return __any_sync(mask_, p); }
  int all(int p) const { return __all_sync(mask_, p); }
  unsigned ballot(int p) const {  // bit i: thread i of this tile
    return (__ballot_sync(mask_, p) >> (gs_lane() & ~(GsN - 1))) &
           (GsN == 32 ? 0xffffffffu : ((1u << GsN) - 1u));
  }
  unsigned gs_mask() const { return mask_ & gs_live_mask(); }
  template <typename T> unsigned match_any(T v) const {  // bit i: thread i of this tile
    return (__match_any_sync(mask_, v) >> (gs_lane() & ~(GsN - 1))) &
           (GsN == 32 ? 0xffffffffu : ((1u << GsN) - 1u));
  }
  template <typename T> unsigned match_all(T v, int& pred) const {
    unsigned m = __match_all_sync(mask_, v, &pred);
    return (m >> (gs_lane() & ~(GsN - 1))) & (GsN == 32 ? 0xffffffffu : ((1u << GsN) - 1u));
  }
};

template <unsigned GsN, typename Parent>
static inline thread_block_tile<GsN> tiled_partition(const Parent&) {
  return thread_block_tile<GsN>();
}

// tiled_partition(parent, n) with n known at run time: a group of n (a power of two up
// to 32) threads that can sync and tell ranks.
static inline thread_group tiled_partition(const thread_block&, unsigned n) {
  unsigned base = gs_lane() & ~(n - 1);
  unsigned mask = (n >= 32 ? 0xffffffffu : ((1u << n) - 1u)) << base;
  return thread_group(n, gs_lane() & (n - 1), mask, true);
}

// A set of lanes of one warp (coalesced_threads, labeled_partition, binary_partition):
// ranks are the lanes' order among the set, collectives use the set as the mask.
// (coalesced_threads() is the warp's lanes that have not exited: the emulator does not
// track which lanes took a branch together.)
class coalesced_group : public thread_group {
  static unsigned rank_in(unsigned m) { return __popc(m & gs_lanemask_lt()); }
  int lane_of(unsigned rank) const {  // the lane of the rank-th member
    unsigned m = mask_;
    for (unsigned r = 0; m; ++r, m &= m - 1)
      if (r == rank) return __ffs((int)m) - 1;
    return (int)gs_lane();
  }

 public:
  explicit coalesced_group(unsigned mask)
      : thread_group(__popc(mask), rank_in(mask), mask, true) {}
  unsigned long long meta_group_rank() const { return 0; }
  unsigned long long meta_group_size() const { return 1; }
  template <typename T> T shfl(T v, unsigned rank) const {
    return __shfl_sync(mask_, v, lane_of(rank % size_));
  }
  template <typename T> T shfl_down(T v, unsigned d) const {
    unsigned r = rank_ + d;
    return __shfl_sync(mask_, v, r < size_ ? lane_of(r) : (int)gs_lane());
  }
  template <typename T> T shfl_up(T v, unsigned d) const {
    return __shfl_sync(mask_, v, rank_ >= d ? lane_of(rank_ - d) : (int)gs_lane());
  }
  int any(int p) const { return __any_sync(mask_, p); }
  int all(int p) const { return __all_sync(mask_, p); }
  unsigned ballot(int p) const { return gs_compress(__ballot_sync(mask_, p)); }
  template <typename T> unsigned match_any(T v) const {
    return gs_compress(__match_any_sync(mask_, v));
  }
  template <typename T> unsigned match_all(T v, int& pred) const {
    return gs_compress(__match_all_sync(mask_, v, &pred));
  }
  unsigned gs_compress(unsigned lanes) const {  // lane bits -> rank bits
    unsigned r = 0, m = mask_;
    for (unsigned k = 0; m; ++k, m &= m - 1)
      if (lanes & (m & (0u - m))) r |= 1u << k;
    return r;
  }
  unsigned gs_mask() const { return mask_; }
};

// (a macro, as __activemask: each place it is written is its own site)
static inline coalesced_group gs_coalesced_threads_at(unsigned site) {
  return coalesced_group(gs_activemask_at(site));
}
#define coalesced_threads() gs_coalesced_threads_at(__COUNTER__ + 1u)

// the lanes of a warp-sized group that share a label / a predicate
template <typename Group>
static inline coalesced_group labeled_partition(const Group& g, int label) {
  unsigned parent = g.gs_mask();
  return coalesced_group(__match_any_sync(parent, label) & parent);
}
template <typename Group>
static inline coalesced_group labeled_partition(const Group& g, unsigned label) {
  return labeled_partition(g, (int)label);
}
template <typename Group>
static inline coalesced_group binary_partition(const Group& g, bool pred) {
  return labeled_partition(g, pred ? 1 : 0);
}

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
  dim3 dim_blocks() const { return gridDim; }
  dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  unsigned long long num_blocks() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  unsigned long long block_rank() const {
    return blockIdx.x + (unsigned long long)gridDim.x *
                            (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  }
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

template <unsigned GsN, typename T, typename Op>
static inline T reduce(const thread_block_tile<GsN>& g, T value, Op op) {
  for (unsigned d = 1; d < GsN; d <<= 1) value = op(value, g.shfl_xor(value, (int)d));
  return value;
}
template <typename T, typename Op>
static inline T reduce(const coalesced_group& g, T value, Op op) {
  // every member's value in rank order; 32 exchanges whatever the size, so that groups
  // of different sizes reducing at once leave together (the runtime does not keep a
  // warp's different operations apart)
  T r = value;
  for (unsigned k = 0; k < 32; ++k) {
    T x = g.shfl(value, k < g.size() ? k : (unsigned)g.thread_rank());
    if (k < g.size()) r = k == 0 ? x : op(r, x);
  }
  return r;
}

// scans (cooperative_groups/scan.h): Hillis-Steele over the group's ranks
template <typename Group, typename T, typename Op>
static inline T inclusive_scan(const Group& g, T value, Op op) {
  for (unsigned d = 1; d < 32; d <<= 1) {  // (as many steps for any size: see reduce)
    T y = g.shfl_up(value, d);
    if (g.thread_rank() >= d) value = op(y, value);
  }
  return value;
}
template <typename Group, typename T>
static inline T inclusive_scan(const Group& g, T value) {
  return inclusive_scan(g, value, plus<T>());
}
template <typename Group, typename T, typename Op>
static inline T exclusive_scan(const Group& g, T value, Op op) {
  T inc = inclusive_scan(g, value, op);
  T prev = g.shfl_up(inc, 1);
  return g.thread_rank() == 0 ? T() : prev;
}
template <typename Group, typename T>
static inline T exclusive_scan(const Group& g, T value) {
  return exclusive_scan(g, value, plus<T>());
}

// memcpy_async (cooperative_groups/memcpy_async.h): each thread of the group copies its
// share at once; wait() is the group's barrier, after which all of it is visible
template <typename Group>
static inline void gs_group_copy(const Group& g, void* dst, const void* src, size_t bytes) {
  size_t n = (size_t)g.size(), r = (size_t)g.thread_rank();
  size_t chunk = (bytes + n - 1) / n, lo = r * chunk, hi = lo + chunk;
  if (hi > bytes) hi = bytes;
  if (lo < hi) memcpy((char*)dst + lo, (const char*)src + lo, hi - lo);
}
template <typename Group, typename Size>
static inline void memcpy_async(const Group& g, void* dst, const void* src, Size bytes) {
  gs_group_copy(g, dst, src, (size_t)bytes);
}
template <typename Group>
static inline void wait(const Group& g) { g.sync(); }
template <unsigned GsN, typename Group>
static inline void wait_prior(const Group& g) { g.sync(); }

}  // namespace cooperative_groups
