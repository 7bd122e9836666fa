"""CuPy-fidelity items of session 30, each read in CuPy 14.2's source."""
from __future__ import annotations

import pickle
import re

import pytest

from _servers import BACKEND

#: the file NVRTC's log names: CuPy's source written to a new temporary directory as
#: ``<sha1 hex of its cache key>.cubin.cu`` (cupy/cuda/compiler.py)
NVRTC_FILE = r'/\S*tmp[a-z0-9_]{8}/[0-9a-f]{40}\.cubin\.cu'

pytestmark = pytest.mark.timeout(240)


def test_nvrtc_version_and_architectures_are_the_servers(cp):
    # cupy_backends/cuda/libs/nvrtc.pyx: getVersion() -> (major, minor),
    # getSupportedArchs() -> a tuple of ints. The answer is the server's installation's:
    # the CPU backend's CUDA is 12.0 (csrc/gpushare_cuda.h's CUDART_VERSION), a CuPy 14
    # server's CUDA 12 or 13 (an H200 with CuPy 14.2's CUDA 13 build said (13, 0)), its
    # runtime of the same major version
    version = cp.cuda.nvrtc.getVersion()
    assert type(version) is tuple and all(type(v) is int for v in version)
    if BACKEND == "cpu":
        assert version == (12, 0)
        assert cp.cuda.runtime.runtimeGetVersion() == 12000
    else:
        assert version[0] in (12, 13)
        assert cp.cuda.runtime.runtimeGetVersion() // 1000 == version[0]
    archs = cp.cuda.nvrtc.getSupportedArchs()
    assert type(archs) is tuple and all(type(a) is int for a in archs)
    assert int(cp.cuda.Device().compute_capability) in archs


def test_nvrtc_error_is_cupys_class_and_words(cp):
    err = cp.cuda.nvrtc.NVRTCError(6)
    assert isinstance(err, RuntimeError)
    assert err.status == 6 and str(err) == "NVRTC_ERROR_COMPILATION (6)"
    assert type(err).__module__ == "cupy_backends.cuda.libs.nvrtc"
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is type(err) and again.status == 6 and str(again) == str(err)
    with pytest.raises(cp.cuda.nvrtc.NVRTCError, match=r"NVRTC_ERROR_INVALID_INPUT \(3\)"):
        cp.cuda.nvrtc.check_status(3)
    cp.cuda.nvrtc.check_status(0)
    # (the compiler's own functions stay on the server)
    with pytest.raises(NotImplementedError, match="gpushare"):
        cp.cuda.nvrtc.createProgram("", "k", [], [])


def test_an_nvrtc_error_crosses_the_wire_with_its_status():
    # what the cupy backend sends for CuPy's NVRTCError, and what the client raises
    from gpushare import errors

    class ServersNVRTCError(RuntimeError):  # (stands for cupy_backends' class)
        def __init__(self, status):
            self.status = status
            super().__init__(f"NVRTC_ERROR_INVALID_OPTION ({status})")

    info = errors.error_info(ServersNVRTCError(5),
                             {ServersNVRTCError: "cupy.cuda.nvrtc.NVRTCError"})
    exc = errors.build_error(info)
    assert type(exc) is errors.NVRTCError and exc.status == 5
    assert str(exc) == "NVRTC_ERROR_INVALID_OPTION (5)"


def test_load_returns_a_pickles_object_as_it_is(cp, tmp_path):
    # cupy/_io/npz.py: load converts a NumPy array only ("else: return obj")
    import pickle as pickle_
    path = tmp_path / "obj.pkl"
    with open(path, "wb") as f:
        pickle_.dump({"lr": 0.1, "steps": [1, 2]}, f)
    assert cp.load(str(path), allow_pickle=True) == {"lr": 0.1, "steps": [1, 2]}
    x = cp.arange(4, dtype=cp.float32)
    with open(tmp_path / "x.pkl", "wb") as f:
        x.dump(f)
    back = cp.load(str(tmp_path / "x.pkl"), allow_pickle=True)
    assert isinstance(back, cp.ndarray) and back.dtype == cp.float32
    assert back.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_modules_say_their_names_are_cupys(cp):
    # array-agnostic code compares ``get_array_module(x).__name__`` with 'cupy'
    # (array_api_compat's is_cupy_namespace, SciPy's array API dispatch)
    import pickle as pickle_
    x = cp.arange(3)
    assert cp.get_array_module(x).__name__ == "cupy" and cp.__name__ == "cupy"
    assert cp.linalg.__name__ == "cupy.linalg" and cp.cuda.nvrtc.__name__ == "cupy.cuda.nvrtc"
    import gpushare.cupyx as cupyx
    assert cupyx.__name__ == "cupyx"
    assert cupyx.scipy.sparse.linalg.__name__ == "cupyx.scipy.sparse.linalg"
    assert cupyx.scipy.get_array_module(x).__name__ == "cupyx.scipy"
    # what the import system and pickle go by is unchanged: gpushare's own names
    assert cp.__spec__.name == "gpushare.cupy"
    assert pickle_.loads(pickle_.dumps(cp.linalg.norm)) is cp.linalg.norm
    assert pickle_.loads(pickle_.dumps(cp.arange)) is cp.arange
    # reloading, and importing a private submodule not imported yet (``from . import
    # _x``), which the import system does by the real name (in a process of its own:
    # both make new module objects)
    import subprocess
    import sys
    code = ("import importlib, gpushare.cupy as cp\n"
            "assert importlib.reload(cp.polynomial) is cp.polynomial\n"
            "from gpushare.cupy import _indexing\n"
            "assert _indexing.__name__ == 'gpushare.cupy._indexing'\n"
            "assert cp.__name__ == 'cupy'\n")
    env = {k: v for k, v in __import__("os").environ.items()
           if k not in ("GPUSHARE_SERVER", "GPUSHARE_HOOK")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr


def test_memory_async_pool_as_the_allocator(cp):
    # cupy/cuda/memory.pyx: MemoryAsyncPool (CUDA's stream-ordered allocator), set as
    # CuPy's allocator the common way
    pool = cp.cuda.MemoryAsyncPool()
    cp.cuda.set_allocator(pool.malloc)
    try:
        assert cp.cuda.get_allocator() == pool.malloc
        x = cp.arange(1000, dtype=cp.float64)
        assert float((x * 2).sum()) == 999000.0
        mem = cp.cuda.alloc(1000)
        assert isinstance(mem.mem, cp.cuda.MemoryAsync) and mem.mem.size == 1024
        assert mem.mem.stream_ref() == cp.cuda.get_current_stream()
        assert pool.used_bytes() >= x.nbytes and pool.total_bytes() >= pool.used_bytes()
        assert pool.free_bytes() == pool.total_bytes() - pool.used_bytes()
        with pytest.raises(NotImplementedError, match="not supported in MemoryAsyncPool"):
            pool.n_free_blocks()
        assert pool.get_limit() == 2 ** 64 - 1  # (CuPy's "no limit": never shrink)
        pool.set_limit(size=1024)
        assert pool.get_limit() == 1024
        with pytest.raises(cp.cuda.memory.OutOfMemoryError, match="limit set to: 1,024"):
            pool.malloc(pool.total_bytes() + (1 << 20))
        pool.set_limit(size=0)
        assert pool.get_limit() == 2 ** 64 - 1
        del mem
        pool.free_all_blocks()
        with pytest.raises(ValueError, match="handle must be"):
            cp.cuda.MemoryAsyncPool("elsewhere")
        with pytest.raises(NotImplementedError, match="cudaMemPoolCreate"):
            cp.cuda.MemoryAsyncPool("create")
    finally:
        cp.cuda.set_allocator(cp.get_default_memory_pool().malloc)


@pytest.mark.parametrize("name", ["cabs", "carg", "cexp", "creal"])
def test_a_kernel_named_as_a_c_library_builtin_runs_the_users_code(cp, name):
    # g++ gives a builtin's name default visibility, and the module's own reference
    # to it went to the process's libm: libm's cabs ran on the kernel's parameters,
    # silently (NVRTC declares no cabs: on a GPU the kernel is the user's)
    x = cp.asarray([1.0, 4.0], dtype=cp.float32)
    k = cp.ElementwiseKernel("float32 x", "float32 y", "y = x + 1", name)
    assert k(x).tolist() == [2.0, 5.0]
    c = cp.asarray([3 + 4j], dtype=cp.complex64)
    norm = cp.ElementwiseKernel("complex64 x", "float32 y", "y = norm(x)", "c" + "norm")
    arg = cp.ElementwiseKernel("complex64 x", "float32 y", "y = arg(x)", "carg")
    assert norm(c).tolist() == [25.0]
    assert abs(arg(c).tolist()[0] - 0.9272952) < 1e-6


@pytest.mark.parametrize("name", ["div", "select", "time", "read", "random", "rand"])
def test_a_kernel_may_be_named_as_a_host_c_library_function(cp, name):
    # NVRTC declares none of these (g++'s host headers do): CuPy compiles the kernel
    x = cp.asarray([1.0, 4.0], dtype=cp.float32)
    assert cp.ElementwiseKernel("float32 x", "float32 y", "y = x / 2", name)(x).tolist() \
        == [0.5, 2.0]
    raw = cp.RawKernel('extern "C" __global__ void %s(const float* a, float* b) '
                       '{ b[threadIdx.x] = a[threadIdx.x] * 3; }' % name, name)
    out = cp.zeros(2, dtype=cp.float32)
    raw((1,), (2,), (x, out))
    assert out.tolist() == [3.0, 12.0]
    red = cp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", name)
    assert float(red(x)) == 5.0


def test_renamed_kernels_keep_their_globals_and_other_errors(cp):
    mod = cp.RawModule(code='__device__ float write[2];\n'
                            'extern "C" __global__ void close(float* b) {\n'
                            '  write[threadIdx.x] = b[threadIdx.x] * 2;\n'
                            '  b[threadIdx.x] = write[threadIdx.x]; }\n')
    b = cp.asarray([1.0, 2.0], dtype=cp.float32)
    mod.get_function("close")((1,), (2,), (b,))
    assert b.tolist() == [2.0, 4.0]
    g = cp.ndarray((2,), cp.float32, memptr=mod.get_global("write"))
    assert g.tolist() == [2.0, 4.0]
    # another error of the same kernel is NVRTC's, without the renaming's trace
    bad = cp.RawKernel('extern "C" __global__ void read(float* b) { b[0] = oops; }', "read")
    with pytest.raises(cp.cuda.compiler.CompileException) as info:
        bad((1,), (1,), (b,))
    assert '"oops"' in str(info.value) and "gs_user" not in str(info.value)
    assert "conflicting" not in str(info.value)


@pytest.mark.parametrize("name", ["exp", "sqrt", "y0"])
def test_a_kernel_named_as_a_cuda_math_function_fails_as_with_nvrtc(cp, name):
    # CUDA declares these C functions for device code: NVRTC refuses the kernel too, at
    # the kernel's line of CuPy's source (an H200's words: NVRTC_FILE(8): error: more
    # than one instance of overloaded function "exp" has "C" linkage)
    x = cp.asarray([1.0], dtype=cp.float32)
    with pytest.raises(cp.cuda.compiler.CompileException) as info:
        cp.ElementwiseKernel("float32 x", "float32 y", "y = x", name)(x)
    assert re.match(rf'({NVRTC_FILE})\(8\): error: more than one instance of overloaded '
                    rf'function "{name}" has "C" linkage\n  .*extern "C" __global__ void '
                    rf'{name}\(.*\n +\^\n\n1 error detected in the compilation of "\1"\.\n$',
                    str(info.value)), str(info.value)
    # (a RawKernel's: its own first line, as an H200 printed it)
    with pytest.raises(cp.cuda.compiler.CompileException) as info:
        cp.RawKernel('extern "C" __global__ void %s(float* x) { }' % name, name).compile()
    assert re.fullmatch(
        rf'({NVRTC_FILE})\(1\): error: more than one instance of overloaded function '
        rf'"{name}" has "C" linkage\n  extern "C" __global__ void {name}\(float\* x\) '
        rf'\{{ \}}\n {{29}}\^\n\n1 error detected in the compilation of "\1"\.\n',
        str(info.value)), str(info.value)
