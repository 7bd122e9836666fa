// gpushare CUDA emulator runtime: thread pool (blocks run in parallel on the
// host cores), cooperative fibers (the threads of one block) with block and
// warp barriers, per-worker dynamic shared memory and the printf buffer.
//
// Built once (content-hashed) into libgpushare_rt.so; kernel modules receive
// a pointer to the gs_rt_api table at launch time (no link-time dependency).
#include "gpushare_rt.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ucontext.h>

namespace {

// ---------------------------------------------------------------- context
#if defined(__x86_64__)
extern "C" void gs_ctx_switch(void** save_sp, void* new_sp);
extern "C" void gs_fiber_entry();
asm(R"(
.text
.globl gs_ctx_switch
.type gs_ctx_switch,@function
.hidden gs_ctx_switch
gs_ctx_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
.size gs_ctx_switch,.-gs_ctx_switch
.globl gs_fiber_entry
.type gs_fiber_entry,@function
.hidden gs_fiber_entry
gs_fiber_entry:
    movq %r12, %rdi
    callq *%r13
    ud2
.size gs_fiber_entry,.-gs_fiber_entry
)");
#endif

struct Fiber;
struct BlockSched;

struct Fiber {
#if defined(__x86_64__)
  void* sp = nullptr;
#else
  ucontext_t uc;
#endif
  BlockSched* sched = nullptr;
  unsigned tid = 0;
  int state = 0;      // 0 runnable, 1 waiting, 2 done
  int kind = 0;       // 1 block barrier, 2 warp barrier
  int op = 0;
  unsigned mask = 0;
  int src = 0;
  int pred = 0;
  int result = 0;
  alignas(16) unsigned char val[16];
  alignas(16) unsigned char res[16];
};

struct Stack {
  void* base = nullptr;
  size_t size = 0;
};

size_t g_stack_size = 0;

size_t stack_size() {
  if (!g_stack_size) {
    size_t s = 256 * 1024;
    if (const char* e = getenv("GPUSHARE_FIBER_STACK")) {
      long v = atol(e);
      if (v >= 16 * 1024) s = (size_t)v;
    }
    long pg = sysconf(_SC_PAGESIZE);
    s = (s + pg - 1) / pg * pg;
    g_stack_size = s;
  }
  return g_stack_size;
}

struct WorkerState {
  std::vector<Stack> stacks;
  std::vector<Fiber> fibers;
  std::vector<unsigned char> dyn_smem_storage;
  void* dyn_smem = nullptr;
  size_t dyn_smem_size = 0;
  ~WorkerState() {
    for (auto& s : stacks) munmap(s.base, s.size);
  }
};

thread_local WorkerState* t_worker = nullptr;
thread_local Fiber* t_current = nullptr;

WorkerState& worker() {
  if (!t_worker) t_worker = new WorkerState();  // leaked at thread exit on purpose
  return *t_worker;
}

struct BlockSched {
#if defined(__x86_64__)
  void* sp = nullptr;
#else
  ucontext_t uc;
#endif
  Fiber* fibers = nullptr;
  unsigned n = 0;
  gs_thread_fn fn = nullptr;
  void* ctx = nullptr;
  bool yielded = false;  // a fiber yielded in this sweep (fiber_yield)
};

void switch_to_sched(Fiber* f) {
#if defined(__x86_64__)
  gs_ctx_switch(&f->sp, f->sched->sp);
#else
  swapcontext(&f->uc, &f->sched->uc);
#endif
}

extern "C" void gs_fiber_main(void* arg) {
  Fiber* f = static_cast<Fiber*>(arg);
  f->sched->fn(f->sched->ctx, f->tid);
  f->state = 2;
  switch_to_sched(f);
  abort();  // never resumed
}

#if !defined(__x86_64__)
void uc_entry(unsigned lo, unsigned hi) {
  uintptr_t p = ((uintptr_t)hi << 32) | (uintptr_t)lo;
  gs_fiber_main(reinterpret_cast<void*>(p));
}
#endif

void init_fiber(Fiber* f, Stack& st) {
  char* top = static_cast<char*>(st.base) + st.size;
#if defined(__x86_64__)
  uintptr_t t = reinterpret_cast<uintptr_t>(top) & ~(uintptr_t)15;
  uintptr_t sp = t - 64 - 16;
  uint64_t* s = reinterpret_cast<uint64_t*>(sp);
  uint32_t mxcsr;
  uint16_t fpucw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpucw));
  memset(s, 0, 64);
  memcpy(reinterpret_cast<char*>(s), &mxcsr, 4);
  memcpy(reinterpret_cast<char*>(s) + 4, &fpucw, 2);
  s[1] = 0;                                           // r15
  s[2] = 0;                                           // r14
  s[3] = reinterpret_cast<uint64_t>(&gs_fiber_main);  // r13
  s[4] = reinterpret_cast<uint64_t>(f);               // r12
  s[5] = 0;                                           // rbx
  s[6] = 0;                                           // rbp
  s[7] = reinterpret_cast<uint64_t>(&gs_fiber_entry);  // return address
  f->sp = reinterpret_cast<void*>(sp);
#else
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = st.base;
  f->uc.uc_stack.ss_size = st.size;
  f->uc.uc_link = nullptr;
  uintptr_t p = reinterpret_cast<uintptr_t>(f);
  makecontext(&f->uc, (void (*)())uc_entry, 2, (unsigned)(p & 0xffffffffu),
              (unsigned)(p >> 32));
#endif
}

void resume(BlockSched* s, Fiber* f) {
  t_current = f;
#if defined(__x86_64__)
  gs_ctx_switch(&s->sp, f->sp);
#else
  swapcontext(&s->uc, &f->uc);
#endif
  t_current = nullptr;
}

void release(Fiber* f) {
  f->state = 0;
  f->kind = 0;
}

// Release fibers waiting at barriers when the barrier condition holds.
// Returns true if anything was released.
bool release_block_barrier(BlockSched* s);

bool try_release(BlockSched* s) {
  bool any = false;
  unsigned n = s->n;
  Fiber* fb = s->fibers;
  // warp barriers: the lanes waiting at one operation with one mask (CUDA: every
  // live lane the mask names executes the same intrinsic with the same mask) go
  // together once all of them are there; lanes at another operation, or with
  // another mask, are another group (divergent code may hold several at once)
  for (unsigned w = 0; w * 32 < n; ++w) {
    unsigned lo = w * 32, hi = lo + 32 < n ? lo + 32 : n;
    unsigned waiting = 0, live = 0;
    for (unsigned t = lo; t < hi; ++t) {
      Fiber& f = fb[t];
      unsigned bit = 1u << (t - lo);
      if (f.state != 2) live |= bit;
      if (f.state == 1 && f.kind == 2) waiting |= bit;
    }
    unsigned seen = 0;
    for (unsigned first = lo; first < hi; ++first) {
      unsigned first_bit = 1u << (first - lo);
      if (!(waiting & first_bit) || (seen & first_bit)) continue;
      int op = fb[first].op;
      if (op == GS_OP_ACTIVE) continue;  // (below, once nothing else can go on)
      unsigned mask = fb[first].mask;
      unsigned group = 0;
      for (unsigned t = first; t < hi; ++t) {
        unsigned bit = 1u << (t - lo);
        if ((waiting & bit) && !(seen & bit) && fb[t].op == op && fb[t].mask == mask)
          group |= bit;
      }
      seen |= group;
      if (((mask & live) & ~group) != 0) continue;  // some participant not there yet
      unsigned ballot = 0;
      for (unsigned t = lo; t < hi; ++t)
        if (((group >> (t - lo)) & 1u) && fb[t].pred) ballot |= 1u << (t - lo);
      for (unsigned t = lo; t < hi; ++t) {
        if (!((group >> (t - lo)) & 1u)) continue;
        Fiber& f = fb[t];
        switch (f.op) {
          case GS_OP_SHFL: {
            int src = f.src;
            if (src >= 0 && (unsigned)src < 32 && ((group >> src) & 1u))
              memcpy(f.res, fb[lo + src].val, 16);
            else
              memcpy(f.res, f.val, 16);
            break;
          }
          case GS_OP_BALLOT: f.result = (int)(ballot & f.mask); break;
          case GS_OP_ANY: f.result = (ballot & f.mask) != 0; break;
          case GS_OP_ALL: f.result = (ballot & f.mask) == (group & f.mask); break;
          case GS_OP_MATCH_ANY: {
            unsigned m = 0;
            for (unsigned u = lo; u < hi; ++u)
              if (((group >> (u - lo)) & 1u) && memcmp(fb[u].val, f.val, 8) == 0)
                m |= 1u << (u - lo);
            f.result = (int)(m & f.mask);
            break;
          }
          default: f.result = 0;
        }
        release(&f);
      }
      any = true;
    }
  }
  // block barrier
  any = release_block_barrier(s) || any;
  if (any) return true;
  // __activemask (and coalesced_threads): on a GPU the lanes executing together, here
  // the lanes of the warp waiting at it once no fiber of the block can go on (those
  // of another branch have gone past it, exited, or wait elsewhere): the lanes that
  // took the branch, as a GPU runs them; lanes at another place it is written (its
  // site, in the mask field) are another group, as another branch's
  for (unsigned w = 0; w * 32 < n; ++w) {
    unsigned lo = w * 32, hi = lo + 32 < n ? lo + 32 : n, done = 0;
    for (unsigned first = lo; first < hi; ++first) {
      Fiber& f0 = fb[first];
      if ((done >> (first - lo)) & 1u) continue;
      if (!(f0.state == 1 && f0.kind == 2 && f0.op == GS_OP_ACTIVE)) continue;
      unsigned group = 0;
      for (unsigned t = first; t < hi; ++t)
        if (fb[t].state == 1 && fb[t].kind == 2 && fb[t].op == GS_OP_ACTIVE &&
            fb[t].mask == f0.mask)
          group |= 1u << (t - lo);
      done |= group;
      for (unsigned t = lo; t < hi; ++t) {
        if (!((group >> (t - lo)) & 1u)) continue;
        fb[t].result = (int)group;
        release(&fb[t]);
        any = true;
      }
    }
  }
  return any;
}

bool release_block_barrier(BlockSched* s) {
  bool any = false;
  unsigned n = s->n;
  Fiber* fb = s->fibers;
  unsigned waiting = 0, live = 0;
  int cnt = 0;
  for (unsigned t = 0; t < n; ++t) {
    Fiber& f = fb[t];
    if (f.state != 2) ++live;
    if (f.state == 1 && f.kind == 1) {
      ++waiting;
      if (f.pred) ++cnt;
    }
  }
  if (waiting && waiting == live) {
    for (unsigned t = 0; t < n; ++t) {
      Fiber& f = fb[t];
      if (f.state == 1 && f.kind == 1) {
        switch (f.op) {
          case GS_OP_COUNT: f.result = cnt; break;
          case GS_OP_AND: f.result = cnt == (int)waiting; break;
          case GS_OP_OR: f.result = cnt != 0; break;
          default: f.result = 0;
        }
        release(&f);
      }
    }
    any = true;
  }
  return any;
}

void run_block_fibers(unsigned nthreads, gs_thread_fn fn, void* ctx) {
  WorkerState& w = worker();
  size_t ss = stack_size();
  long pg = sysconf(_SC_PAGESIZE);
  while (w.stacks.size() < nthreads) {
    void* p = mmap(nullptr, ss, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {  // (a launch's resources: CUDA's out-of-resources error)
      fprintf(stderr, "gpushare: cannot allocate fiber stack\n");
      _exit(GS_EXIT_OUT_OF_RESOURCES);
    }
    mprotect(p, pg, PROT_NONE);  // guard page
    w.stacks.push_back(Stack{p, ss});
  }
  if (w.fibers.size() < nthreads) w.fibers.resize(nthreads);
  BlockSched s;
  s.fibers = w.fibers.data();
  s.n = nthreads;
  s.fn = fn;
  s.ctx = ctx;
  for (unsigned t = 0; t < nthreads; ++t) {
    Fiber& f = s.fibers[t];
    f.sched = &s;
    f.tid = t;
    f.state = 0;
    f.kind = 0;
    init_fiber(&f, w.stacks[t]);
  }
  unsigned done = 0;
  while (done < nthreads) {
    s.yielded = false;
    for (unsigned t = 0; t < nthreads; ++t) {
      Fiber& f = s.fibers[t];
      if (f.state == 0) {
        resume(&s, &f);
        if (f.state == 2) ++done;
      }
    }
    if (done == nthreads) break;
    // (a thread that yielded waits on the others without a barrier: they may still
    // release it, so nothing is deadlocked)
    if (!try_release(&s) && !s.yielded) {
      // Deadlock (divergent barrier): undefined behaviour on a GPU; release
      // everybody so that the emulator never hangs.
      for (unsigned t = 0; t < nthreads; ++t) {
        Fiber& f = s.fibers[t];
        if (f.state == 1) {
          memcpy(f.res, f.val, 16);
          f.result = 0;
          release(&f);
        }
      }
    }
  }
}

int block_sync(int op, int pred) {
  Fiber* f = t_current;
  if (!f) return pred;  // not in fiber mode: single thread semantics
  f->state = 1;
  f->kind = 1;
  f->op = op;
  f->pred = pred;
  switch_to_sched(f);
  return f->result;
}

int warp_sync(int op, unsigned mask, const void* val, int src, int pred,
              void* res) {
  Fiber* f = t_current;
  if (!f) {
    if (res && val) memcpy(res, val, 16);
    if (op == GS_OP_ACTIVE) return 1;  // (a thread alone)
    if (op == GS_OP_BALLOT) return pred ? 1 : 0;
    return pred;
  }
  f->state = 1;
  f->kind = 2;
  f->op = op;
  f->mask = mask;
  f->src = src;
  f->pred = pred;
  if (val) memcpy(f->val, val, 16);
  switch_to_sched(f);
  if (res) memcpy(res, f->res, 16);
  return f->result;
}

void fiber_yield() {
  Fiber* f = t_current;
  if (!f) {  // (threads run one after another here: another block's, at most)
    std::this_thread::yield();
    return;
  }
  f->sched->yielded = true;  // (runnable still: the scheduler's next sweep resumes it)
  switch_to_sched(f);
}

unsigned active_mask() {
  Fiber* f = t_current;
  if (!f) return 1u;
  BlockSched* s = f->sched;
  unsigned lo = f->tid & ~31u, m = 0;
  for (unsigned t = lo; t < lo + 32 && t < s->n; ++t)
    if (s->fibers[t].state != 2) m |= 1u << (t - lo);
  return m;
}

void* dyn_smem(size_t bytes) {
  WorkerState& w = worker();
  if (w.dyn_smem_size < bytes || !w.dyn_smem) {
    size_t cap = bytes < 64 ? 64 : bytes;
    w.dyn_smem_storage.assign(cap + 256, 0);
    uintptr_t p = reinterpret_cast<uintptr_t>(w.dyn_smem_storage.data());
    p = (p + 255) & ~(uintptr_t)255;
    w.dyn_smem = reinterpret_cast<void*>(p);
    w.dyn_smem_size = cap;
  }
  return w.dyn_smem;
}

// ------------------------------------------------------- the signal stack
// A kernel that overflows its fiber's stack (or a thread's) faults on the guard page
// with no stack left to run the fault handler on: every thread that runs kernels'
// code gets an alternate signal stack (kept for the thread's life), so the handler
// runs and the launch ends with CUDA's error like any other fault.
thread_local bool t_altstack = false;

void ensure_altstack() {
  if (t_altstack) return;
  t_altstack = true;
  stack_t old;
  if (sigaltstack(nullptr, &old) == 0 && !(old.ss_flags & SS_DISABLE)) return;  // has one
  const size_t size = 64 * 1024;
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;  // (the handler then runs on the faulting stack)
  stack_t ss;
  ss.ss_sp = p;
  ss.ss_size = size;
  ss.ss_flags = 0;
  if (sigaltstack(&ss, nullptr) != 0) munmap(p, size);
}

// ------------------------------------------------------------ flush-to-zero
// CuPy compiles every kernel with -ftz=true: its float32 instructions read and write
// subnormals as zeros. The server sets the launching thread's flushing bits (x86
// MXCSR's FTZ and DAZ, aarch64 FPCR.FZ) around the launches it flushes (kernels/
// _common.py: ftz_launch); each worker takes the launcher's bits for the launch (its
// fibers start from them: init_fiber) and puts its own back after it.
#if defined(__x86_64__) || defined(__i386__)
typedef uint32_t fpmode_t;
const fpmode_t kFlushBits = 0x8040u;
inline fpmode_t fp_mode() {
  uint32_t v;
  asm volatile("stmxcsr %0" : "=m"(v));
  return v;
}
inline void set_fp_mode(fpmode_t v) { asm volatile("ldmxcsr %0" : : "m"(v)); }
#elif defined(__aarch64__)
typedef uint64_t fpmode_t;
const fpmode_t kFlushBits = (uint64_t)1 << 24;
inline fpmode_t fp_mode() {
  uint64_t v;
  asm volatile("mrs %0, fpcr" : "=r"(v));
  return v;
}
inline void set_fp_mode(fpmode_t v) { asm volatile("msr fpcr, %0" : : "r"(v)); }
#else
typedef unsigned fpmode_t;
const fpmode_t kFlushBits = 0;
inline fpmode_t fp_mode() { return 0; }
inline void set_fp_mode(fpmode_t) {}
#endif

// the launcher's flushing bits on this worker for one launch
struct FlushScope {
  fpmode_t saved;
  explicit FlushScope(fpmode_t bits) : saved(fp_mode()) {
    if ((saved & kFlushBits) != bits) set_fp_mode((saved & ~kFlushBits) | bits);
  }
  ~FlushScope() {
    if (fp_mode() != saved) set_fp_mode(saved);
  }
};

// ------------------------------------------------------------- thread pool
thread_local bool t_inpool = false;
bool t_in_pool() { return t_inpool; }

class Pool {
 public:
  explicit Pool(int n) : n_(n) {
    for (int i = 1; i < n_; ++i) threads_.emplace_back([this, i] { loop(i); });
  }
  int size() const { return n_; }

  void run(long long nitems, gs_item_fn fn, void* ctx) {
    if (nitems <= 0) return;
    if (n_ <= 1 || nitems == 1) {
      t_inpool = true;
      for (long long i = 0; i < nitems; ++i) fn(ctx, i);
      t_inpool = false;
      return;
    }
    std::lock_guard<std::mutex> launch_lock(launch_mu_);
    {
      std::lock_guard<std::mutex> lk(mu_);
      fn_ = fn;
      ctx_ = ctx;
      flush_ = fp_mode() & kFlushBits;
      total_ = nitems;
      next_.store(0);
      pending_ = n_ - 1;
      ++gen_;
    }
    cv_.notify_all();
    t_inpool = true;
    work();
    t_inpool = false;
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [this] { return pending_ == 0; });
  }

 private:
  void work() {
    for (;;) {
      long long i = next_.fetch_add(1);
      if (i >= total_) break;
      fn_(ctx_, i);
    }
  }
  void loop(int) {
    t_inpool = true;
    ensure_altstack();
    unsigned long long seen = 0;
    for (;;) {
      fpmode_t bits;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return gen_ != seen; });
        seen = gen_;
        bits = flush_;
      }
      {
        FlushScope flushing(bits);
        work();
      }
      {
        std::lock_guard<std::mutex> lk(mu_);
        if (--pending_ == 0) done_cv_.notify_all();
      }
    }
  }

  int n_;
  std::vector<std::thread> threads_;
  std::mutex mu_, launch_mu_;
  std::condition_variable cv_, done_cv_;
  gs_item_fn fn_ = nullptr;
  void* ctx_ = nullptr;
  fpmode_t flush_ = 0;
  long long total_ = 0;
  std::atomic<long long> next_{0};
  int pending_ = 0;
  unsigned long long gen_ = 0;
};

Pool* g_pool = nullptr;
std::once_flag g_pool_once;

Pool& pool() {
  std::call_once(g_pool_once, [] {
    int n = (int)std::thread::hardware_concurrency();
    if (const char* e = getenv("GPUSHARE_KERNEL_THREADS")) {
      int v = atoi(e);
      if (v > 0) n = v;
    }
    if (n <= 0) n = 1;
    g_pool = new Pool(n);  // never destroyed (threads detached at exit)
  });
  return *g_pool;
}

// launches under way (kernels' code is running): the SIGFPE handler below emulates a
// division only then, so a fault anywhere else in the process stays what it was
std::atomic<int> g_launches{0};

// GS_EXIT_AT_LAUNCH when the call after this launch is another launch, else 0 (set by
// the server before each launch: gs_rt_fault_at_launch), added to a fault's exit status
volatile sig_atomic_t g_fault_shift = 0;

struct LaunchMark {
  LaunchMark() { g_launches.fetch_add(1, std::memory_order_relaxed); }
  ~LaunchMark() { g_launches.fetch_sub(1, std::memory_order_relaxed); }
};

void parallel_for(long long nitems, gs_item_fn fn, void* ctx) {
  LaunchMark mark;
  ensure_altstack();  // (the calling thread runs items too)
  // Nested launches (a kernel launching from inside a block) run inline.
  if (t_in_pool()) {
    for (long long i = 0; i < nitems; ++i) fn(ctx, i);
    return;
  }
  pool().run(nitems, fn, ctx);
}

// --------------------------------------------------- cooperative launches
// Every block of a cooperative launch on a thread of its own (kept for the next
// launch: a thread's fiber stacks and __shared__ variables are its own), so that the
// grid barrier can hold each block until all have come.
class CoopPool {
 public:
  void run(long long n, gs_item_fn fn, void* ctx) {
    if (n <= 0) return;
    std::lock_guard<std::mutex> launch_lock(launch_mu_);
    {
      std::lock_guard<std::mutex> lk(mu_);
      while ((long long)threads_.size() < n) {
        long long i = (long long)threads_.size();
        threads_.emplace_back([this, i] { loop(i); });
      }
      fn_ = fn;
      ctx_ = ctx;
      flush_ = fp_mode() & kFlushBits;
      n_ = n;
      pending_ = n;
      arrived_ = 0;
      ++gen_;
    }
    cv_.notify_all();
    std::unique_lock<std::mutex> lk(mu_);
    done_cv_.wait(lk, [this] { return pending_ == 0; });
  }

  void barrier() {
    std::unique_lock<std::mutex> lk(mu_);
    unsigned long long round = round_;
    if (++arrived_ == n_) {
      arrived_ = 0;
      ++round_;
      barrier_cv_.notify_all();
    } else {
      barrier_cv_.wait(lk, [&] { return round_ != round; });
    }
  }

 private:
  void loop(long long i) {
    t_inpool = true;  // a launch from inside a block runs inline
    ensure_altstack();
    unsigned long long seen = 0;
    for (;;) {
      gs_item_fn fn;
      void* ctx;
      fpmode_t bits;
      {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait(lk, [&] { return gen_ != seen && i < n_; });
        seen = gen_;
        fn = fn_;
        ctx = ctx_;
        bits = flush_;
      }
      {
        FlushScope flushing(bits);
        fn(ctx, i);
      }
      std::lock_guard<std::mutex> lk(mu_);
      if (--pending_ == 0) done_cv_.notify_all();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mu_, launch_mu_;
  std::condition_variable cv_, done_cv_, barrier_cv_;
  gs_item_fn fn_ = nullptr;
  void* ctx_ = nullptr;
  fpmode_t flush_ = 0;
  long long n_ = 0, pending_ = 0, arrived_ = 0;
  unsigned long long gen_ = 0, round_ = 0;
};

CoopPool& coop_pool() {
  static CoopPool* p = new CoopPool();  // never destroyed (threads detached at exit)
  return *p;
}

void coop_for(long long n, gs_item_fn fn, void* ctx) {
  LaunchMark mark;
  coop_pool().run(n, fn, ctx);
}
void grid_sync() { coop_pool().barrier(); }

// ------------------------------------------------------------------ printf
std::mutex g_out_mu;
std::string g_out;

void printf_append(const char* s, size_t n) {
  std::lock_guard<std::mutex> lk(g_out_mu);
  g_out.append(s, n);
}

int num_threads() { return pool().size(); }

// ------------------------------------------------- integer division traps
// A GPU's integer division never traps: CUDA leaves x / 0 unspecified, and NVIDIA's
// division routines give all bits set for the quotient (the remainder here is the
// dividend, so that x == q * 0 + r), INT_MIN / -1 wraps to INT_MIN with remainder 0.
// x86's DIV/IDIV raise #DE instead, which would kill the worker (SIGFPE) and the
// session with it. So a kernel's faulting DIV/IDIV is emulated: the handler decodes
// the instruction at the fault (prefixes, REX, F6/F7 /6 or /7, ModRM, SIB,
// displacement), reads its divisor, writes a GPU's results into RAX and RDX and
// steps over it, while a launch is under way (g_launches). A fault it cannot
// read, or one outside a launch, is left to the previous disposition.
#if defined(__x86_64__) && defined(__linux__)
struct sigaction g_prev_fpe;

// the ucontext registers in the x86 encoding's order (REX extends to 16)
const int kGreg[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                       REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                       REG_R12, REG_R13, REG_R14, REG_R15};

int32_t read_i32(const unsigned char* p) {
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}

bool emulate_division(ucontext_t* uc) {
  greg_t* g = uc->uc_mcontext.gregs;
  const unsigned char* p = reinterpret_cast<const unsigned char*>(g[REG_RIP]);
  int n = 0, bits = 32;
  bool addr32 = false, segment = false;
  for (;; ++n) {  // legacy prefixes
    if (n > 8) return false;
    unsigned char b = p[n];
    if (b == 0x66) bits = 16;
    else if (b == 0x67) addr32 = true;
    else if (b == 0x64 || b == 0x65) segment = true;
    else if (b != 0xF0 && b != 0xF2 && b != 0xF3 && b != 0x2E && b != 0x36 &&
             b != 0x3E && b != 0x26) break;
  }
  unsigned rex = 0;
  if ((p[n] & 0xF0) == 0x40) rex = p[n++];
  if (rex & 8) bits = 64;
  unsigned char op = p[n++];
  if (op == 0xF6) bits = 8;
  else if (op != 0xF7) return false;
  unsigned char modrm = p[n++];
  unsigned mod = modrm >> 6, reg = (modrm >> 3) & 7, rm = modrm & 7;
  if (reg != 6 && reg != 7) return false;  // not DIV, IDIV
  bool is_signed = reg == 7;
  uint64_t divisor;
  if (mod == 3) {
    unsigned r = rm | ((rex & 1) << 3);
    if (bits == 8 && !rex && r >= 4)  // AH, CH, DH, BH
      divisor = (static_cast<uint64_t>(g[kGreg[r - 4]]) >> 8) & 0xFF;
    else
      divisor = static_cast<uint64_t>(g[kGreg[r]]);
  } else {
    if (segment) return false;  // a thread-local operand (fs:/gs:): not read here
    uint64_t addr = 0;
    bool rip_relative = false;
    int64_t disp = 0;
    if (rm == 4) {  // SIB
      unsigned char sib = p[n++];
      unsigned scale = sib >> 6;
      unsigned index = ((sib >> 3) & 7) | ((rex & 2) << 2);
      unsigned base = (sib & 7) | ((rex & 1) << 3);
      if (index != 4) addr += static_cast<uint64_t>(g[kGreg[index]]) << scale;
      if ((sib & 7) == 5 && mod == 0) {
        disp = read_i32(p + n);
        n += 4;
      } else {
        addr += static_cast<uint64_t>(g[kGreg[base]]);
      }
    } else if (rm == 5 && mod == 0) {
      rip_relative = true;
      disp = read_i32(p + n);
      n += 4;
    } else {
      addr += static_cast<uint64_t>(g[kGreg[rm | ((rex & 1) << 3)]]);
    }
    if (mod == 1) {
      disp += static_cast<int8_t>(p[n]);
      n += 1;
    } else if (mod == 2) {
      disp += read_i32(p + n);
      n += 4;
    }
    // (F6/F7 /6 /7 have no immediate: n is the instruction's length now)
    addr = rip_relative ? reinterpret_cast<uint64_t>(p + n) + disp : addr + disp;
    if (addr32) addr &= 0xFFFFFFFFull;
    const unsigned char* m = reinterpret_cast<const unsigned char*>(addr);
    if (bits == 8) divisor = m[0];
    else if (bits == 16) { uint16_t v; memcpy(&v, m, 2); divisor = v; }
    else if (bits == 32) { uint32_t v; memcpy(&v, m, 4); divisor = v; }
    else memcpy(&divisor, m, 8);
  }
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  divisor &= mask;
  uint64_t rax = static_cast<uint64_t>(g[REG_RAX]), rdx = static_cast<uint64_t>(g[REG_RDX]);
  uint64_t low = rax & (bits == 8 ? 0xFFull : mask);  // the dividend's low part
  uint64_t q, r;
  if (divisor == 0) {
    q = mask;
    r = low;
  } else if (is_signed && divisor == mask) {  // MIN / -1: the quotient wraps
    q = (0 - low) & mask;
    r = 0;
  } else {
    return false;  // a quotient too large for a DIV: not from a C division
  }
  if (bits == 64) {
    rax = q;
    rdx = r;
  } else if (bits == 32) {
    rax = q & mask;  // (a 32-bit write clears the upper half)
    rdx = r & mask;
  } else if (bits == 16) {
    rax = (rax & ~0xFFFFull) | q;
    rdx = (rdx & ~0xFFFFull) | r;
  } else {  // AL the quotient, AH the remainder
    rax = (rax & ~0xFFFFull) | ((r & 0xFF) << 8) | (q & 0xFF);
  }
  g[REG_RAX] = static_cast<greg_t>(rax);
  g[REG_RDX] = static_cast<greg_t>(rdx);
  g[REG_RIP] += n;
  return true;
}

void on_sigfpe(int sig, siginfo_t* info, void* context) {
  if ((info->si_code == FPE_INTDIV || info->si_code == FPE_INTOVF) &&
      g_launches.load(std::memory_order_relaxed) > 0 &&
      emulate_division(static_cast<ucontext_t*>(context)))
    return;
  // not a division this handler reads: what would have happened without it
  if ((g_prev_fpe.sa_flags & SA_SIGINFO) && g_prev_fpe.sa_sigaction != nullptr) {
    g_prev_fpe.sa_sigaction(sig, info, context);
    return;
  }
  if (!(g_prev_fpe.sa_flags & SA_SIGINFO) && g_prev_fpe.sa_handler != SIG_DFL &&
      g_prev_fpe.sa_handler != SIG_IGN) {
    g_prev_fpe.sa_handler(sig);
    return;
  }
  if (g_launches.load(std::memory_order_relaxed) > 0)
    _exit(GS_EXIT_LAUNCH_FAILURE + g_fault_shift);
  signal(SIGFPE, SIG_DFL);  // the instruction faults again, and the process dies of it
}

#endif

// ----------------------------------------------------------- kernel faults
// A kernel's failed assert (abort), __trap (SIGTRAP), bad pointer (SIGSEGV, SIGBUS)
// or illegal instruction ends a GPU launch with a CUDA error (cudaErrorAssert,
// cudaErrorLaunchFailure, cudaErrorIllegalAddress, cudaErrorIllegalInstruction)
// that leaves the context unusable. Here the worker process cannot go on either (the
// fault may have corrupted it), but it says which: while a launch is under way it
// exits with GS_EXIT_* (gpushare_rt.h), which the server reports to the client as
// that CUDA error. A fault outside a launch keeps its previous disposition.
struct Fault {
  int sig, code;
  struct sigaction prev;
};
Fault g_faults[] = {
    {SIGABRT, GS_EXIT_ASSERT, {}},
    {SIGTRAP, GS_EXIT_LAUNCH_FAILURE, {}},
    {SIGSEGV, GS_EXIT_ILLEGAL_ADDRESS, {}},
    {SIGBUS, GS_EXIT_ILLEGAL_ADDRESS, {}},
    {SIGILL, GS_EXIT_ILLEGAL_INSTRUCTION, {}},
};

void on_fault(int sig, siginfo_t* info, void* context) {
  for (Fault& f : g_faults) {
    if (f.sig != sig) continue;
    if (g_launches.load(std::memory_order_relaxed) > 0) _exit(f.code + g_fault_shift);
    if ((f.prev.sa_flags & SA_SIGINFO) && f.prev.sa_sigaction != nullptr) {
      f.prev.sa_sigaction(sig, info, context);
      return;
    }
    if (!(f.prev.sa_flags & SA_SIGINFO) && f.prev.sa_handler != SIG_DFL &&
        f.prev.sa_handler != SIG_IGN) {
      f.prev.sa_handler(sig);
      return;
    }
    // as without this handler: the default action, now (abort's own raise, a
    // fault's instruction run again)
    signal(sig, SIG_DFL);
    if (sig == SIGABRT || sig == SIGTRAP) raise(sig);
    return;
  }
}

__attribute__((constructor)) void install_fault_handlers() {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
#if defined(__x86_64__) && defined(__linux__)
  sa.sa_sigaction = on_sigfpe;
  sigaction(SIGFPE, &sa, &g_prev_fpe);
#endif
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;  // (a thread's alternate stack: ensure_altstack)
  for (Fault& f : g_faults) sigaction(f.sig, &sa, &f.prev);
}

gs_rt_api g_api = {
    GS_RT_ABI_VERSION, &parallel_for, &run_block_fibers, &block_sync,
    &warp_sync,        &active_mask,  &dyn_smem,         &printf_append,
    &num_threads,      &coop_for,     &grid_sync,        &fiber_yield,
};

}  // namespace

extern "C" {

const gs_rt_api* gs_rt_get_api(void) { return &g_api; }

size_t gs_rt_output_size(void) {
  std::lock_guard<std::mutex> lk(g_out_mu);
  return g_out.size();
}

size_t gs_rt_output_take(char* buf, size_t cap) {
  std::lock_guard<std::mutex> lk(g_out_mu);
  size_t n = g_out.size() < cap ? g_out.size() : cap;
  memcpy(buf, g_out.data(), n);
  g_out.erase(0, n);
  return n;
}

int gs_rt_num_threads(void) { return num_threads(); }

void gs_rt_fault_at_launch(int next_launches) {
  g_fault_shift = next_launches ? GS_EXIT_AT_LAUNCH : 0;
}
}
