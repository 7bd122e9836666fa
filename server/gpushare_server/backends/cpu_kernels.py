"""User kernels on the CPU backend: CuPy's kernel classes over the C kernel emulator
(``gpushare_server.kernels``), as the server exposes them to clients."""
from __future__ import annotations

from typing import Any

from gpushare.kernel_includes import checked


def _emulator() -> Any:
    """The kernel emulator's package (optional: it needs cffi)."""
    try:
        from gpushare_server import kernels
    except ImportError as exc:
        raise NotImplementedError(
            f"gpushare: user kernels need the CPU backend's kernel emulator, which this "
            f"server cannot load ({exc}): install it with pip install 'gpushare[cpu]'"
        ) from None
    return kernels


def _kernels(name: str) -> Any:
    return getattr(_emulator(), name)


def _checked(name: str) -> Any:
    """The emulator's constructor ``name``, imported at the first call (the emulator
    is optional: cffi), refusing sources that would read the server's files."""
    construct = (lambda *a, **k: _kernels(name)(*a, **k))
    return construct if name == "fuse" else checked(name, construct)


KERNEL_OVERRIDES: dict[str, Any] = {
    f"cupy.{name}": _checked(name)
    for name in ("ElementwiseKernel", "ReductionKernel", "RawKernel", "RawModule", "fuse")
}


def _make_kernel(kind: str, key: str, spec: Any = None) -> Any:
    _emulator()
    from gpushare_server.kernels.remote import cpu_make_kernel
    return cpu_make_kernel(kind, key, spec)


#: the client constructs kernels by content hash through this name (see
#: ``gpushare_server.kernels.remote``)
KERNEL_OVERRIDES["gpushare.kernel"] = _make_kernel

#: kernel types a client may hold handles to, and the methods it may call on them
KERNEL_REMOTE_TYPES: dict[str, frozenset[str]] = {
    "ElementwiseKernel": frozenset({"__call__", "name", "nin", "nout", "nargs", "params",
                                    "cached_codes", "cached_code"}),
    "ReductionKernel": frozenset({"__call__", "name", "nin", "nout", "nargs", "params",
                                  "cached_codes", "cached_code"}),
    "RawKernel": frozenset({"__call__", "attributes", "compile", "max_dynamic_shared_size_bytes",
                            "num_regs", "max_threads_per_block", "shared_size_bytes",
                            "const_size_bytes", "local_size_bytes", "ptx_version",
                            "binary_version", "cache_mode_ca", "preferred_shared_memory_carveout",
                            "name", "code", "options", "backend", "translate_cucomplex",
                            "enable_cooperative_groups", "jitify", "file_path",
                            "name_expressions"}),
    "RawModule": frozenset({"get_function", "get_global", "compile", "code", "options",
                            "backend", "name_expressions", "translate_cucomplex",
                            "enable_cooperative_groups", "jitify", "file_path"}),
}
