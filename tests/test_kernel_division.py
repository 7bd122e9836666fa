"""Integer division by zero (and MIN / -1) in a user's kernel: on a GPU it never traps
(CUDA leaves the value unspecified; NVIDIA's division gives all bits set), where the
CPU backend's kernel emulator runs x86 DIV/IDIV, which raise #DE: the worker died of
SIGFPE and the session with it. The emulator's runtime now emulates a faulting
DIV/IDIV (``csrc/gpushare_rt.cpp``, ``emulate_division``): quotient all bits set,
remainder the dividend (x == q * 0 + r), MIN / -1 wrapping to MIN with remainder 0,
and the session goes on. On a GPU (``GPUSHARE_TEST_BACKEND=cupy``) only that the
session goes on is asserted, the values being the hardware's."""
from __future__ import annotations

import platform

import numpy
import pytest

from _servers import BACKEND

pytestmark = pytest.mark.timeout(240)

CPU = BACKEND == "cpu"
X86 = platform.machine() in ("x86_64", "AMD64")

DIVIDE = r'''
template <typename T>
__device__ void divide(const T* a, const T* b, T* q, T* r, int i) {
  q[i] = a[i] / b[i];
  r[i] = a[i] % b[i];
}
extern "C" __global__ void divide_all(
    const int* a32, const int* b32, int* q32, int* r32,
    const unsigned* au, const unsigned* bu, unsigned* qu, unsigned* ru,
    const long long* a64, const long long* b64, long long* q64, long long* r64,
    const unsigned long long* a64u, const unsigned long long* b64u,
    unsigned long long* q64u, unsigned long long* r64u,
    const short* a16, const short* b16, short* q16, short* r16,
    const signed char* a8, const signed char* b8, signed char* q8, signed char* r8) {
  int i = threadIdx.x;
  divide(a32, b32, q32, r32, i);
  divide(au, bu, qu, ru, i);
  divide(a64, b64, q64, r64, i);
  divide(a64u, b64u, q64u, r64u, i);
  divide(a16, b16, q16, r16, i);
  divide(a8, b8, q8, r8, i);
}
'''


def test_division_by_zero_in_a_raw_kernel_does_not_kill_the_session(cp):
    kernel = cp.RawKernel(DIVIDE, "divide_all")
    args, outs = [], {}
    cases = {  # dtype: (dividends, divisors)
        "int32": ([7, -7, -2**31, 9], [0, 0, -1, 2]),
        "uint32": ([7, 2**32 - 1, 0, 9], [0, 0, 0, 2]),
        "int64": ([7, -7, -2**63, 9], [0, 0, -1, 2]),
        "uint64": ([7, 2**64 - 1, 0, 9], [0, 0, 0, 2]),
        "int16": ([7, -7, -2**15, 9], [0, 0, -1, 2]),
        "int8": ([7, -7, -128, 9], [0, 0, -1, 2]),
    }
    for dtype, (a, b) in cases.items():
        q, r = cp.zeros(4, dtype), cp.zeros(4, dtype)
        args += [cp.array(a, dtype), cp.array(b, dtype), q, r]
        outs[dtype] = (q, r)
    kernel((1,), (4,), tuple(args))
    cp.cuda.Device().synchronize()
    # the session is alive: its arrays and a new call
    assert float(cp.arange(4).sum()) == 6.0
    assert outs["int32"][0][3].item() == 4 and outs["int32"][1][3].item() == 1
    if not CPU:
        return  # (the GPU's own values for the unspecified cases)
    assert outs["int32"][0].tolist() == [-1, -1, -2**31, 4]
    assert outs["int32"][1].tolist() == [7, -7, 0, 1]
    assert outs["uint32"][0].tolist() == [2**32 - 1] * 3 + [4]
    assert outs["uint32"][1].tolist() == [7, 2**32 - 1, 0, 1]
    assert outs["int64"][0].tolist() == [-1, -1, -2**63, 4]
    assert outs["int64"][1].tolist() == [7, -7, 0, 1]
    assert outs["uint64"][0].tolist() == [2**64 - 1] * 3 + [4]
    assert outs["uint64"][1].tolist() == [7, 2**64 - 1, 0, 1]
    # (short and char arithmetic is int arithmetic in C++: -2**15 / -1 is 2**15,
    # which wraps to -2**15 when stored)
    assert outs["int16"][0].tolist() == [-1, -1, -2**15, 4]
    assert outs["int16"][1].tolist() == [7, -7, 0, 1]
    assert outs["int8"][0].tolist() == [-1, -1, -128, 4]
    assert outs["int8"][1].tolist() == [7, -7, 0, 1]


def test_division_by_zero_in_an_elementwise_kernel(cp):
    kernel = cp.ElementwiseKernel("T x, T y", "T q, T r", "q = x / y; r = x % y",
                                  "divide_elementwise")
    x = cp.arange(-3, 5, dtype=cp.int32)
    y = cp.array([0, 1, 0, 2, 0, 3, 0, 4], dtype=cp.int32)
    q, r = kernel(x, y)
    expect_q = [a // b if b else -1 for a, b in zip(range(-3, 5), y.tolist())]
    got_q, got_r = q.tolist(), r.tolist()
    for i, (a, b) in enumerate(zip(range(-3, 5), y.tolist())):
        if b:  # C's truncating division where it is defined
            assert got_q[i] == int(a / b) and got_r[i] == a - int(a / b) * b
    if CPU:
        assert [got_q[i] for i in (0, 2, 4, 6)] == [expect_q[i] for i in (0, 2, 4, 6)]
        assert [got_r[i] for i in (0, 2, 4, 6)] == [-3, -1, 1, 3]
    assert int(cp.count_nonzero(x)) == 7  # (the session goes on)


# --- the instruction decoder, one encoding at a time (x86-64, CPU backend) ----------

#: AT&T operands of DIV/IDIV, each dividing 100 by a zero it finds there: rsi and r13
#: point at an array of zeros, rcx and r12 are 2 (an index), r9 is 0
ENCODINGS = {
    "register": ("idivl %%r9d", "32"),
    "register-64": ("idivq %%r9", "64"),
    "register-16": ("idivw %%r9w", "16"),
    "base": ("idivl (%%rsi)", "32"),
    "base+disp8": ("idivl 8(%%rsi)", "32"),
    "base+disp32": ("idivl 256(%%rsi)", "32"),
    "sib": ("idivl (%%rsi,%%rcx,4)", "32"),
    "sib+disp8": ("divl 4(%%rsi,%%rcx,8)", "32"),
    "sib-rex": ("idivq (%%r13,%%r12,8)", "64"),  # (r13 as base takes a disp8)
    "rex-base": ("idivl 12(%%r13)", "32"),
    "rip-relative": ("idivl gs_zero_divisor(%%rip)", "32"),
    "unsigned-64": ("divq 16(%%rsi)", "64"),
}

ASM = r'''
static int zero_divisor asm("gs_zero_divisor") __attribute__((used)) = 0;
extern "C" __global__ void trap(const long long* zeros, long long* out) {
  long long q = 0, r = 0;
  register long long r9 asm("r9") = 0;
  register long long r12 asm("r12") = 2;
  register const long long* r13 asm("r13") = zeros;
  asm volatile(
      "movq $100, %%rax\n\t"
      "%[cvt]\n\t"
      "%[insn]\n\t"
      : "=&a"(q), "=&d"(r)
      : "S"(zeros), "c"(2LL), "r"(r9), "r"(r12), "r"(r13), "m"(zero_divisor)
      : "memory", "cc");
  out[0] = q;
  out[1] = r;
}
'''


@pytest.mark.skipif(not (CPU and X86), reason="the emulator's x86-64 decoder")
@pytest.mark.parametrize("name", sorted(ENCODINGS))
def test_each_encoding_of_a_faulting_division(cp, name):
    insn, bits = ENCODINGS[name]
    extend = {"16": "cwtd", "32": "cltd", "64": "cqto"}[bits]
    if insn.startswith("div"):
        extend = "xorl %%edx, %%edx"
    source = ASM.replace("%[insn]", insn).replace("%[cvt]", extend)
    kernel = cp.RawKernel(source, "trap")
    zeros = cp.zeros(512, dtype=cp.int64)
    out = cp.full(2, 12345, dtype=cp.int64)
    kernel((1,), (1,), (zeros, out))
    q, r = out.tolist()
    mask = (1 << int(bits)) - 1
    # the quotient all bits set in the operand's width, the remainder the dividend
    assert q & mask == mask
    assert r & mask == 100
    assert int(zeros.sum()) == 0  # (nothing written where the operand was read)
