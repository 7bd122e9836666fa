"""``cupy.cuda.texture``: CUDA arrays, texture and surface objects, made and kept on
the server (on the CPU backend, ``gpushare_server/backends/cpu_texture.py``; a
kernel's ``cudaTextureObject_t`` argument is the server object's).

NumPy arrays given to ``CUDAarray.copy_from``/``copy_to`` are this machine's: they
travel through a device array of the same shape and dtype, so the server's checks
(CuPy's) apply to them as to device arrays.
"""
from __future__ import annotations

from typing import Any

import numpy

from .. import _objects
from .._objects import RemoteObjectProxy

__all__ = ["ChannelFormatDescriptor", "CUDAarray", "ResourceDescriptor", "TextureDescriptor",
           "TextureObject", "SurfaceObject"]


class _TextureProxy(RemoteObjectProxy):
    """A texture object of the server's, made by the class of that name."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return _objects.create(cls, f"cupy.cuda.texture.{cls.__name__}", cls.__name__,
                               *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    # CuPy's members (``texture.pxd``/``.pyx``): the methods each class defines here,
    # ``ptr`` and the readonly attributes in ``_gs_data`` (read from the server); any
    # other name is an AttributeError (RemoteObjectProxy)

    @property
    def ptr(self) -> int:
        return int(self._gs_session.call("getattr", "ptr", (self,)))


@_objects.register("ChannelFormatDescriptor")
class ChannelFormatDescriptor(_TextureProxy):
    """See Also: cupy.cuda.texture.ChannelFormatDescriptor"""

    def get_channel_format(self) -> dict:
        return self._call("get_channel_format")


@_objects.register("CUDAarray")
class CUDAarray(_TextureProxy):
    """See Also: cupy.cuda.texture.CUDAarray"""

    def copy_from(self, in_arr: Any, stream: Any = None) -> None:
        """Copy a device or host array into the CUDA array."""
        if isinstance(in_arr, numpy.ndarray):
            from .. import asarray
            in_arr = asarray(numpy.ascontiguousarray(in_arr))
        self._call("copy_from", in_arr, stream)

    def copy_to(self, out_arr: Any, stream: Any = None) -> None:
        """Copy the CUDA array into a C-contiguous device or host array."""
        if not out_arr.flags.c_contiguous:
            raise ValueError("The output array must be C-contiguous")
        if isinstance(out_arr, numpy.ndarray):
            from .. import empty
            device = empty(out_arr.shape, dtype=out_arr.dtype)
            self._call("copy_to", device, stream)
            device.get(out=out_arr)
            return
        self._call("copy_to", out_arr, stream)

    _gs_data = frozenset({"desc", "width", "height", "depth", "flags", "ndim"})


@_objects.register("ResourceDescriptor")
class ResourceDescriptor(_TextureProxy):
    """See Also: cupy.cuda.texture.ResourceDescriptor"""

    def get_resource_desc(self) -> dict:
        return self._call("get_resource_desc")

    _gs_data = frozenset({"chDesc", "cuArr", "arr"})


@_objects.register("TextureDescriptor")
class TextureDescriptor(_TextureProxy):
    """See Also: cupy.cuda.texture.TextureDescriptor"""

    def get_texture_desc(self) -> dict:
        return self._call("get_texture_desc")


@_objects.register("TextureObject")
class TextureObject(_TextureProxy):
    """See Also: cupy.cuda.texture.TextureObject (a kernel argument: the server's
    texture object)"""

    _gs_data = frozenset({"ResDesc", "TexDesc"})


@_objects.register("SurfaceObject")
class SurfaceObject(_TextureProxy):
    """See Also: cupy.cuda.texture.SurfaceObject (a kernel argument: the server's
    surface object)"""

    _gs_data = frozenset({"ResDesc"})
