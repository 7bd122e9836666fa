"""A kernel's ``#include``s read the program's files, never the server's
(``gpushare/kernel_includes.py``): the client writes the headers it finds in its include
directories into the source, and the server refuses sources and options that would
have its compiler read or write its own files."""
import re

import pytest

from gpushare import kernel_includes

pytestmark = pytest.mark.timeout(120)

_KERNEL = r'''
extern "C" __global__ void f(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = twice(x[i]);
}
'''


@pytest.mark.parametrize("source", [
    '#include "/etc/passwd"\n',
    '#include </etc/hostname>\n',
    '#include "../../../../../etc/passwd"\n',
    '#include "sub/../../secret.h"\n',
    '#include "~/.ssh/id_rsa"\n',
    '#include "C:/Windows/win.ini"\n',
    '#define P "/etc/passwd"\n#include P\n',       # computed
    '#/* a comment */include "/etc/passwd"\n',     # comments are whitespace
    '%:include "/etc/passwd"\n',                   # the digraph of #
    '#inc\\\nlude "/etc/passwd"\n',                # a spliced line
    '  #  include_next <stdio.h>\n',
    '#import "x.h"\n',
    '#embed "/etc/passwd"\n',
])
def test_the_server_refuses_includes_of_its_own_files(source):
    assert kernel_includes.refusal(source + _KERNEL)
    from gpushare.errors import CompileException
    with pytest.raises(CompileException, match="gpushare: RawKernel"):
        kernel_includes.check_spec("RawKernel", (source + _KERNEL, "f"), {})


@pytest.mark.parametrize("source", [
    '#include <cupy/complex.cuh>\n#include "cuda_fp16.h"\n',
    '// #include "/etc/passwd"\n',
    '/*\n#include "/etc/passwd"\n*/\n',
    'const char* s = "#include </etc/passwd>";\n',
    'const char* r = R"x(\n#include "/etc/passwd"\n)x";\n',
    '#define INCLUDE_DIR 1\n#if __has_include(<cuda_fp16.h>)\n#endif\n',
])
def test_what_the_server_compiles(source):
    assert kernel_includes.refusal(source + _KERNEL) is None


@pytest.mark.parametrize("option", ["-I/etc", "-I", "--include-path=/etc",
                                    "--pre-include=/etc/passwd", "-include",
                                    "--create-pch=/tmp/x", "--use-pch=/etc/x",
                                    "--pch-dir=/tmp", "--time=/tmp/t",
                                    "-fdevice-time-trace=/tmp/t", "-isystem"])
def test_the_server_refuses_options_that_name_its_files(option):
    from gpushare.errors import CompileException
    with pytest.raises(CompileException, match="names a file or directory of the server"):
        kernel_includes.check_spec("RawKernel", ("", "f", (option,)), {})
    with pytest.raises(CompileException):
        kernel_includes.check_spec("RawModule", (), {"code": "", "options": [option]})
    kernel_includes.check_spec("RawKernel", ("", "f", ("-DX=1", "--std=c++17",
                                                       "-use_fast_math")), {})


def _headers(tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "vec.cuh").write_text('#pragma once\n#include "helper.cuh"\n'
                                 "__device__ inline float twice(float x) "
                                 "{ return helper(x) * 2.0f; }\n")
    (sub / "helper.cuh").write_text("#pragma once\n"
                                    "__device__ inline float helper(float x) "
                                    "{ return x + 1.0f; }\n")
    return sub


def test_headers_come_from_the_programs_include_directories(cp, tmp_path):
    sub = _headers(tmp_path)
    code = '#include "vec.cuh"\n#include "vec.cuh"\n#include <cupy/complex.cuh>\n' + _KERNEL
    x = cp.arange(4, dtype=cp.float32)
    for options in (("-I", str(sub)), ("-I" + str(sub), "--std=c++17"),
                    ("--include-path=" + str(sub),)):
        y = cp.zeros_like(x)
        k = cp.RawKernel(code, "f", options=options)
        k((1,), (4,), (x, y, cp.int32(4)))
        assert y.tolist() == [2.0, 4.0, 6.0, 8.0]
    assert "-I" not in " ".join(k.options)  # the include options stayed here
    # (C++14: cupy/complex.cuh includes CuPy 14's bundled CCCL, whose Thrust refuses a
    # dialect below C++17, as an H200 did: the header's #error, a catastrophic error)
    with pytest.raises(cp.cuda.compiler.CompileException) as info:
        cp.RawKernel(code, "f", options=("-I" + str(sub), "--std=c++14"))(
            (1,), (4,), (x, y, cp.int32(4)))
    assert re.match(r'\S+/thrust/detail/config/cpp_dialect\.h\(\d+\): catastrophic error: '
                    r'#error directive: Thrust requires at least C\+\+17\. Define '
                    r'CCCL_IGNORE_DEPRECATED_CPP_DIALECT to suppress this message\.\n',
                    str(info.value)), str(info.value)
    assert re.search(r'\n\n1 catastrophic error detected in the compilation of '
                     r'"/\S*tmp[a-z0-9_]{8}/[0-9a-f]{40}\.cubin\.cu"\.\nCompilation terminated\.',
                     str(info.value)), str(info.value)
    # (without Thrust a C++14 kernel compiles)
    y = cp.zeros_like(x)
    cp.RawKernel('#include "vec.cuh"\n' + _KERNEL, "f", options=("-I" + str(sub),
                                                              "--std=c++14"))(
        (1,), (4,), (x, y, cp.int32(4)))
    assert y.tolist() == [2.0, 4.0, 6.0, 8.0]
    m = cp.RawModule(code=code, options=("-I", str(sub)))
    y = cp.zeros_like(x)
    m.get_function("f")((1,), (4,), (x, y, cp.int32(4)))
    assert y.tolist() == [2.0, 4.0, 6.0, 8.0]
    e = cp.ElementwiseKernel("T x", "T y", "y = twice(x)", "gs_twice",
                             preamble='#include "vec.cuh"', options=("-I" + str(sub),))
    assert e(x).tolist() == [2.0, 4.0, 6.0, 8.0]
    # a source file's own directory, and an absolute path, as the local compiler reads them
    (sub / "k.cu").write_text('#include "vec.cuh"\n' + _KERNEL)
    m = cp.RawModule(path=str(sub / "k.cu"))
    m.get_function("f")((1,), (4,), (x, y, cp.int32(4)))
    assert y.tolist() == [2.0, 4.0, 6.0, 8.0]
    k = cp.RawKernel(f'#include "{sub / "vec.cuh"}"\n' + _KERNEL, "f")
    k((1,), (4,), (x, y, cp.int32(4)))
    assert y.tolist() == [2.0, 4.0, 6.0, 8.0]


def test_a_server_file_stays_out_of_reach(cp, tmp_path):
    # (a path this machine lacks: the client, which shares the tests' machine with the
    # server, would read an existing one itself, as CuPy would)
    with pytest.raises(cp.cuda.compiler.CompileException, match="outside the include"):
        cp.RawKernel(f'#include "{tmp_path}/server-only/secret.h"\n' + _KERNEL, "f").compile()
    with pytest.raises(cp.cuda.compiler.CompileException, match="computed #include"):
        cp.RawKernel('#define P "x.h"\n#include P\n' + _KERNEL, "f").compile()
    # a client that skips the proxy and names the constructors itself is refused too
    from gpushare import client
    s = client.get_session()
    for target, args, kwargs in (
            ("cupy.RawKernel", ('#include "/etc/passwd"\n', "f"), {}),
            ("cupy.RawKernel", ("", "f"), {"options": ("-I/etc",)}),
            ("cupy.RawModule", (), {"path": "/etc/passwd"}),
            ("cupy.ElementwiseKernel", ("T x", "T y", "y = x", "k"),
             {"preamble": '#include "/etc/passwd"'}),
            ("gpushare.kernel", ("RawKernel", "0" * 64,
                                 [['#include "/etc/passwd"\n', "f"], {}]), {})):
        with pytest.raises(cp.cuda.compiler.CompileException, match="gpushare"):
            s.call("call", target, args, kwargs)
    assert cp.arange(3).sum() == 3  # the session goes on
