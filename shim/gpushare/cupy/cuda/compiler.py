"""``cupy.cuda.compiler``: kernel compile errors raised on the server, and the pieces of
CuPy's compiler module that need no compiler here."""
from __future__ import annotations

import struct
import warnings

from ...errors import CompileException, JitifyException  # noqa: F401


def _jitify_deprecation_warning(jitify: object) -> None:
    """CuPy 14's warning for any ``jitify=`` argument (RawKernel, RawModule)."""
    if jitify:
        warnings.warn(
            'jitify=True is deprecated and its support is staged for '
            'removal in CuPy v15.0.\n'
            'Please try compiling without jitify using the CCCL headers '
            'as needed.\n'
            'Also see https://nvidia.github.io/cccl/python/ for e.g. '
            'Thrust/CUB algorithm exposure to Python.',
            DeprecationWarning, stacklevel=3)
    else:
        warnings.warn(
            'The jitify argument is deprecated and staged for '
            'removal in CuPy v15.0. '
            'Avoid passing `jitify=False` to silence this warning.',
            DeprecationWarning, stacklevel=3)


def is_valid_kernel_name(name: str) -> bool:
    """See cupy.cuda.compiler.is_valid_kernel_name."""
    import re
    return re.match('^[a-zA-Z_][a-zA-Z_0-9]*$', name) is not None


# --- CuPy's kernel-cache payload (mangled names in front of a cubin) ---------------------
# The format of the entries CuPy 14.2 writes to its kernel cache for modules built with
# name expressions; pure functions of bytes, as CuPy's.
_cache_payload_magic = b'\x93CUPYNE\x00'
_cache_payload_version = 1


def _encode_cache_payload(mangled_names: list, cubin: bytes) -> bytes:
    """Prepend mangled names to a cubin for storage in the kernel cache (CuPy's)."""
    parts = [_cache_payload_magic, struct.pack('<I', len(mangled_names))]
    for mangled_name in mangled_names:
        encoded = mangled_name.encode('utf-8')
        parts.append(struct.pack('<I', len(encoded)))
        parts.append(encoded)
    parts.append(cubin)
    return b''.join(parts)


def _decode_cache_payload(payload: bytes, count: int):  # type: ignore[no-untyped-def]
    """``(mangled_names, cubin)`` of a cache payload, or None if it is not in this format
    or does not hold exactly ``count`` names (CuPy's)."""
    if not payload.startswith(_cache_payload_magic):
        return None
    pos = len(_cache_payload_magic)
    if len(payload) < pos + 4:
        return None
    stored_count = struct.unpack_from('<I', payload, pos)[0]
    pos += 4
    if stored_count != count:
        return None
    mangled_names = []
    for _ in range(stored_count):
        if len(payload) < pos + 4:
            return None
        size = struct.unpack_from('<I', payload, pos)[0]
        pos += 4
        if len(payload) < pos + size:
            return None
        mangled_names.append(payload[pos:pos + size].decode('utf-8'))
        pos += size
    return mangled_names, payload[pos:]
