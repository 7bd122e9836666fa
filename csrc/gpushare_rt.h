/* gpushare CUDA emulator: C ABI between the runtime (libgpushare_rt.so) and
 * compiled kernel modules.  Kernel modules get the table at launch time. */
#ifndef GPUSHARE_RT_H
#define GPUSHARE_RT_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GS_RT_ABI_VERSION 3

enum {
  GS_OP_NONE = 0,
  GS_OP_COUNT = 1,
  GS_OP_AND = 2,
  GS_OP_OR = 3,
  GS_OP_SHFL = 4,
  GS_OP_BALLOT = 5,
  GS_OP_ANY = 6,
  GS_OP_ALL = 7,
  GS_OP_MATCH_ANY = 8,
  GS_OP_ACTIVE = 9 /* __activemask: the lanes that reached it together */
};

typedef void (*gs_item_fn)(void* ctx, long long item);
typedef void (*gs_thread_fn)(void* ctx, unsigned tid);

typedef struct gs_rt_api {
  int abi_version;
  /* run fn(ctx, i) for i in [0, n) on the worker pool */
  void (*parallel_for)(long long n, gs_item_fn fn, void* ctx);
  /* run the threads of one block as cooperative fibers on this worker */
  void (*run_block_fibers)(unsigned nthreads, gs_thread_fn fn, void* ctx);
  /* block barrier (__syncthreads*), returns the reduced predicate */
  int (*block_sync)(int op, int pred);
  /* warp barrier: exchange 16-byte payloads / vote (op GS_OP_*) */
  int (*warp_sync)(int op, unsigned mask, const void* val, int src, int pred,
                   void* res);
  unsigned (*active_mask)(void);
  /* per-worker dynamic shared memory buffer of at least `bytes` bytes */
  void* (*dyn_smem)(size_t bytes);
  void (*printf_append)(const char* s, size_t n);
  int (*num_threads)(void);
  /* a cooperative launch: fn(ctx, i) for every i in [0, n) at once, each on a thread
   * of its own (n at most GS_COOP_MAX_BLOCKS), so that grid_sync can wait for all */
  void (*coop_for)(long long n, gs_item_fn fn, void* ctx);
  /* the grid barrier of the cooperative launch under way (one caller per block) */
  void (*grid_sync)(void);
  /* let the block's other threads run (a thread waiting on them without a barrier:
   * __nanosleep, cuda::barrier's wait); outside fibers, the OS thread's turn */
  void (*yield)(void);
} gs_rt_api;

/* blocks a cooperative launch may have on the emulator (CUDA's limit is the blocks
 * that fit on the device at once; more is cudaErrorCooperativeLaunchTooLarge) */
#define GS_COOP_MAX_BLOCKS 256

/* a worker's exit status after a kernel's fault during a launch (the runtime's signal
 * handlers), which the server reports as CUDA's error (worker.py: KERNEL_FAULTS) */
#define GS_EXIT_ASSERT 80              /* cudaErrorAssert (a failed assert) */
#define GS_EXIT_ILLEGAL_ADDRESS 81     /* cudaErrorIllegalAddress (SIGSEGV, SIGBUS) */
#define GS_EXIT_ILLEGAL_INSTRUCTION 82 /* cudaErrorIllegalInstruction (SIGILL) */
#define GS_EXIT_LAUNCH_FAILURE 83      /* cudaErrorLaunchFailure (__trap, SIGFPE) */
#define GS_EXIT_OUT_OF_RESOURCES 84    /* cudaErrorLaunchOutOfResources (fiber stacks) */
/* added to the four statuses above (not to 84's) when the server said that the call
 * after this launch is another launch (gs_rt_fault_at_launch): on a GPU the sticky
 * error surfaces there, from the driver API (CUDA_ERROR_ASSERT...), not at a copy or a
 * synchronize (cudaErrorAssert...) */
#define GS_EXIT_AT_LAUNCH 10

typedef struct gs_launch_t {
  unsigned grid[3];
  unsigned block[3];
  size_t shared_mem;
  const gs_rt_api* rt;
  int cooperative;  /* cuLaunchCooperativeKernel (enable_cooperative_groups) */
} gs_launch_t;

#define GS_RT_EXPORT __attribute__((visibility("default")))
GS_RT_EXPORT const gs_rt_api* gs_rt_get_api(void);
GS_RT_EXPORT size_t gs_rt_output_size(void);
GS_RT_EXPORT size_t gs_rt_output_take(char* buf, size_t cap);
GS_RT_EXPORT int gs_rt_num_threads(void);
GS_RT_EXPORT void gs_rt_fault_at_launch(int next_launches);

#ifdef __cplusplus
}
#endif
#endif
