"""``cupy.cuda.texture`` on the CPU backend: CUDA arrays, texture and surface objects.

A ``CUDAarray`` keeps its texels in a NumPy array; a ``TextureObject`` or
``SurfaceObject`` is a ``gs_texture`` structure (``csrc/include/gpushare_texture.h``,
which this ``ctypes`` structure mirrors field for field) whose address is what a kernel
receives as its ``cudaTextureObject_t``: the kernel emulator's ``tex1D``/``tex2D``/
``tex3D``/``tex1Dfetch`` and ``surf*D{read,write}`` read it. The constructors check
what CuPy's check (``cupy/cuda/texture.pyx``), with its messages.
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy

from gpushare.cython_args import argument_type_error
from gpushare.errors import CUDARuntimeError
from gpushare.protocol import HostArray

_ARRAY, _MIPMAPPED, _LINEAR, _PITCH2D = 0, 1, 2, 3
_SIGNED, _UNSIGNED, _FLOAT = 0, 1, 2
_SURFACE_LOAD_STORE = 2


class _GsTexture(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("width", ctypes.c_longlong),
                ("height", ctypes.c_longlong), ("depth", ctypes.c_longlong),
                ("pitch", ctypes.c_longlong), ("slice", ctypes.c_longlong),
                ("dims", ctypes.c_int), ("channels", ctypes.c_int),
                ("channel_bytes", ctypes.c_int), ("kind", ctypes.c_int),
                ("address", ctypes.c_int * 3), ("filter", ctypes.c_int),
                ("read_mode", ctypes.c_int), ("normalized", ctypes.c_int),
                ("linear", ctypes.c_int), ("border", ctypes.c_float * 4)]


def _invalid() -> CUDARuntimeError:
    return CUDARuntimeError(1, "cudaErrorInvalidValue: invalid argument")


class ChannelFormatDescriptor:
    """cupy.cuda.texture.ChannelFormatDescriptor: bits of each channel and their kind."""

    def __init__(self, x: int, y: int, z: int, w: int, f: int) -> None:
        self.x, self.y, self.z, self.w, self.f = int(x), int(y), int(z), int(w), int(f)
        self.ptr = id(self)

    def get_channel_format(self) -> dict:
        return {"x": self.x, "y": self.y, "z": self.z, "w": self.w, "f": self.f}

    def _layout(self) -> tuple[int, int]:
        """(channels, bytes per channel), as CUDA takes a descriptor (one size for
        all channels present)."""
        bits = [b for b in (self.x, self.y, self.z, self.w) if b > 0]
        if not bits or any(b != bits[0] for b in bits) or bits[0] not in (8, 16, 32) or \
                self.f not in (_SIGNED, _UNSIGNED, _FLOAT) or \
                self.f == _FLOAT and bits[0] == 8:
            raise CUDARuntimeError(1, "cudaErrorInvalidChannelDescriptor: invalid channel "
                                      "descriptor")
        return len(bits), bits[0] // 8

    def _dtype(self) -> numpy.dtype:
        _, size = self._layout()
        return numpy.dtype({_SIGNED: "i", _UNSIGNED: "u", _FLOAT: "f"}[self.f] + str(size))


def _host(arr: Any) -> Any:
    return arr.array if isinstance(arr, HostArray) else arr


class CUDAarray:
    """cupy.cuda.texture.CUDAarray: texels in a NumPy array of shape (depth, height,
    channels * width)."""

    def __init__(self, desc: ChannelFormatDescriptor, width: int, height: int = 0,
                 depth: int = 0, flags: int = 0) -> None:
        if not isinstance(desc, ChannelFormatDescriptor):
            raise argument_type_error("desc", "cupy.cuda.texture.ChannelFormatDescriptor",
                                      desc)
        width, height, depth = int(width), int(height), int(depth)
        if width == 0:
            raise ValueError("To create a CUDA array, width must be nonzero.")
        if height == 0 and depth > 0:
            raise ValueError("To create a 2D CUDA array, height must be nonzero.")
        channels, _ = desc._layout()
        self.desc, self.width, self.height, self.depth = desc, width, height, depth
        self.flags = int(flags)
        self.ndim = 3 if depth > 0 else 2 if height > 0 else 1
        self._texels = numpy.zeros((max(depth, 1), max(height, 1), channels * width),
                                   desc._dtype())
        self.ptr = id(self)

    def _check(self, arr: Any) -> None:
        """CuPy's ``_prepare_copy`` checks."""
        channels = sum(1 for b in (self.desc.x, self.desc.y, self.desc.z, self.desc.w)
                       if b > 0)
        shape = ((self.depth, self.height, channels * self.width) if self.ndim == 3 else
                 (self.height, channels * self.width) if self.ndim == 2 else
                 (channels * self.width,))
        if arr.shape != shape:
            raise ValueError("shape mismatch")
        allowed = {_SIGNED: (numpy.int8, numpy.int16, numpy.int32),
                   _UNSIGNED: (numpy.uint8, numpy.uint16, numpy.uint32),
                   _FLOAT: (numpy.float16, numpy.float32)}.get(self.desc.f)
        if allowed is None:
            raise ValueError("dtype not supported")
        if arr.dtype not in allowed:
            raise ValueError("dtype mismatch")
        if arr.dtype != self._texels.dtype:  # (bits of another size than the array's)
            raise _invalid()

    def copy_from(self, in_arr: Any, stream: Any = None) -> None:
        arr = numpy.ascontiguousarray(_host(in_arr))
        self._check(arr)
        self._texels[...] = arr.reshape(self._texels.shape)

    def copy_to(self, out_arr: Any, stream: Any = None) -> None:
        out = _host(out_arr)
        if not out.flags.c_contiguous:
            raise ValueError("The output array must be C-contiguous")
        self._check(out)
        out[...] = self._texels.reshape(out.shape)


class ResourceDescriptor:
    """cupy.cuda.texture.ResourceDescriptor: a CUDA array, or device memory (linear or
    pitched 2-D) with its channel format."""

    def __init__(self, restype: int, cuArr: Any = None, arr: Any = None, chDesc: Any = None,
                 sizeInBytes: int = 0, width: int = 0, height: int = 0,
                 pitchInBytes: int = 0) -> None:
        restype = int(restype)
        if restype == _MIPMAPPED:
            raise NotImplementedError("cudaResourceTypeMipmappedArray is currently not "
                                      "supported.")
        if cuArr is not None and not isinstance(cuArr, CUDAarray) or \
                chDesc is not None and not isinstance(chDesc, ChannelFormatDescriptor):
            raise TypeError("Argument 'cuArr' has incorrect type" if cuArr is not None and
                            not isinstance(cuArr, CUDAarray) else
                            "Argument 'chDesc' has incorrect type")
        if isinstance(arr, HostArray):
            raise TypeError("Argument 'arr' has incorrect type (expected cupy.ndarray, "
                            "got numpy.ndarray)")
        if restype == _ARRAY and cuArr is None or \
                restype in (_LINEAR, _PITCH2D) and (arr is None or chDesc is None):
            raise AttributeError("'NoneType' object has no attribute 'ptr'")
        self.restype = restype
        self.cuArr, self.arr, self.chDesc = cuArr, arr, chDesc
        self.sizeInBytes, self.width, self.height = int(sizeInBytes), int(width), int(height)
        self.pitchInBytes = int(pitchInBytes)
        self.ptr = id(self)

    def get_resource_desc(self) -> dict:
        desc: dict = {"resType": self.restype}
        if self.restype == _ARRAY:
            desc["array"] = {"array": self.cuArr.ptr}
        elif self.restype == _LINEAR:
            desc["linear"] = {"devPtr": self.arr.__array_interface__["data"][0],
                              "desc": self.chDesc.get_channel_format(),
                              "sizeInBytes": self.sizeInBytes}
        elif self.restype == _PITCH2D:
            desc["pitch2D"] = {"devPtr": self.arr.__array_interface__["data"][0],
                               "desc": self.chDesc.get_channel_format(),
                               "width": self.width, "height": self.height,
                               "pitchInBytes": self.pitchInBytes}
        return desc


class TextureDescriptor:
    """cupy.cuda.texture.TextureDescriptor: addressing, filtering and read mode."""

    def __init__(self, addressModes: Any = None, filterMode: int = 0, readMode: int = 0,
                 sRGB: Any = None, borderColors: Any = None, normalizedCoords: Any = None,
                 maxAnisotropy: Any = None) -> None:
        self.addressMode = [0, 0, 0]
        if addressModes is not None:
            assert len(addressModes) <= 3
            for i, mode in enumerate(addressModes):
                self.addressMode[i] = int(mode)
        self.filterMode, self.readMode = int(filterMode), int(readMode)
        self.sRGB = int(sRGB or 0)
        self.borderColor = [0.0, 0.0, 0.0, 0.0]
        if borderColors is not None:
            assert len(borderColors) <= 4
            for i, color in enumerate(borderColors):
                self.borderColor[i] = float(color)
        self.normalizedCoords = int(normalizedCoords or 0)
        self.maxAnisotropy = int(maxAnisotropy or 0)
        self.ptr = id(self)

    def get_texture_desc(self) -> dict:
        return {"addressMode": tuple(self.addressMode), "filterMode": self.filterMode,
                "readMode": self.readMode, "sRGB": self.sRGB,
                "borderColor": tuple(self.borderColor),
                "normalizedCoords": self.normalizedCoords,
                "maxAnisotropy": self.maxAnisotropy}


def _describe(res: ResourceDescriptor) -> tuple[_GsTexture, Any]:
    """The ``gs_texture`` of a resource, and the array it reads (kept alive)."""
    if not isinstance(res, ResourceDescriptor):
        raise TypeError("Argument 'ResDesc' has incorrect type")
    t = _GsTexture()
    if res.restype == _ARRAY:
        a = res.cuArr
        channels, size = a.desc._layout()
        data = a._texels
        t.width, t.height, t.depth = a.width, max(a.height, 1), max(a.depth, 1)
        t.dims = a.ndim
        t.pitch = a.width * channels * size
        t.slice = t.pitch * t.height
    else:
        channels, size = res.chDesc._layout()
        data = res.arr
        if not isinstance(data, numpy.ndarray):
            raise _invalid()
        base = data.__array_interface__["data"][0]
        end = base + (data.size - 1) * data.itemsize if data.size else base
        if res.restype == _LINEAR:
            t.width = res.sizeInBytes // (channels * size)
            t.height = t.depth = 1
            t.dims, t.linear = 1, 1
            t.pitch = t.slice = res.sizeInBytes
            extent = res.sizeInBytes
        elif res.restype == _PITCH2D:
            t.width, t.height, t.depth = res.width, res.height, 1
            t.dims = 2
            t.pitch = res.pitchInBytes
            t.slice = t.pitch * t.height
            if t.pitch < t.width * channels * size:
                raise _invalid()
            extent = t.pitch * (t.height - 1) + t.width * channels * size
        else:
            raise _invalid()
        if not data.flags.c_contiguous or base + extent > end + data.itemsize:
            raise _invalid()  # the texture would read outside the array
    t.data = data.__array_interface__["data"][0] if data.size else None
    t.channels, t.channel_bytes = channels, size
    t.kind = (res.cuArr.desc if res.restype == _ARRAY else res.chDesc).f
    return t, data


class TextureObject:
    """cupy.cuda.texture.TextureObject: its ``ptr`` is what a kernel's
    ``cudaTextureObject_t`` receives."""

    def __init__(self, ResDesc: ResourceDescriptor, TexDesc: TextureDescriptor) -> None:
        if not isinstance(TexDesc, TextureDescriptor):
            raise TypeError("Argument 'TexDesc' has incorrect type")
        t, self._data = _describe(ResDesc)
        for i in range(3):
            t.address[i] = TexDesc.addressMode[i]
        t.filter, t.read_mode = TexDesc.filterMode, TexDesc.readMode
        t.normalized = TexDesc.normalizedCoords
        for i in range(4):
            t.border[i] = TexDesc.borderColor[i]
        self._struct = t
        self.ptr = ctypes.addressof(t)
        self.ResDesc, self.TexDesc = ResDesc, TexDesc


class SurfaceObject:
    """cupy.cuda.texture.SurfaceObject: over a CUDA array made with
    ``cudaArraySurfaceLoadStore``."""

    def __init__(self, ResDesc: ResourceDescriptor) -> None:
        if not isinstance(ResDesc, ResourceDescriptor):
            raise TypeError("Argument 'ResDesc' has incorrect type")
        if ResDesc.restype != _ARRAY or not ResDesc.cuArr.flags & _SURFACE_LOAD_STORE:
            raise _invalid()
        self._struct, self._data = _describe(ResDesc)
        self.ptr = ctypes.addressof(self._struct)
        self.ResDesc = ResDesc


CLASSES = {"ChannelFormatDescriptor": ChannelFormatDescriptor, "CUDAarray": CUDAarray,
           "ResourceDescriptor": ResourceDescriptor, "TextureDescriptor": TextureDescriptor,
           "TextureObject": TextureObject, "SurfaceObject": SurfaceObject}

#: the members a client may reach (CuPy's public ones)
MEMBERS = {
    "ChannelFormatDescriptor": frozenset({"get_channel_format", "ptr"}),
    "CUDAarray": frozenset({"copy_from", "copy_to", "ptr", "desc", "width", "height",
                            "depth", "flags", "ndim"}),
    "ResourceDescriptor": frozenset({"get_resource_desc", "ptr", "chDesc", "cuArr", "arr"}),
    "TextureDescriptor": frozenset({"get_texture_desc", "ptr"}),
    "TextureObject": frozenset({"ptr", "ResDesc", "TexDesc"}),
    "SurfaceObject": frozenset({"ptr", "ResDesc"}),
}
