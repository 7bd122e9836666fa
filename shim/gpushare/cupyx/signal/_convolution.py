"""``cupyx.signal``'s higher-order convolutions, ported from CuPy 14.2's
``cupyx/signal/_convolution/_convolve.py`` (from cuSignal; MIT licence, NVIDIA's notice
in ``__init__.py``, CuPy's in ``../scipy/LICENSE.cupy``).

CuPy's elementwise kernels are sent as they are and run on the server.
"""
from __future__ import annotations

from typing import Any

from ... import cupy
from ._helpers import session_kernel


def _convolve1d2o_kernel() -> Any:
    return session_kernel("cupy_convolved2o", lambda: cupy.ElementwiseKernel(
        'raw T in1, raw T in2, int32 W, int32 H', 'T out',
        """
    T temp {};
    for (int x = 0; x < W; x++) {
      for (int y = 0; y < H; y++) {
        temp += in1[i + W - x - 1] * in1[i + H - y - 1] * in2[H * x + y];
      }
    }
    out = temp;
    """,
        "cupy_convolved2o",
    ))


def _convolve1d2o(in1: Any, in2: Any, mode: str) -> Any:
    assert mode == "valid"
    out_dim = in1.shape[0] - max(in2.shape) + 1
    dtype = cupy.result_type(in1, in2)
    out = cupy.empty(out_dim, dtype=dtype)
    _convolve1d2o_kernel()(in1, in2, *in2.shape, out)
    return out


def convolve1d2o(in1: Any, in2: Any, mode: str = 'valid', method: str = 'direct') -> Any:
    """Convolve a 1-dimensional array with a 2nd order filter (a second order
    convolution).

    Parameters
    ----------
    in1 : array_like
        First input, one-dimensional.
    in2 : array_like
        Second input, two-dimensional.
    mode : str {'full', 'valid', 'same'}, optional
        The size of the output; only ``'valid'`` is implemented (the others raise
        ``NotImplementedError``).
    method : str {'auto', 'direct', 'fft'}, optional
        Only ``'direct'`` (sums) is implemented.

    Returns
    -------
    out : ndarray
        A 1-dimensional array containing a subset of the discrete linear
        convolution of `in1` with `in2`.

    See Also
    --------
    cupyx.signal.convolve1d2o
    """
    if in1.ndim != 1:
        raise ValueError('in1 should have one dimension')
    if in2.ndim != 2:
        raise ValueError('in2 should have three dimension')

    if mode in ["same", "full"]:
        raise NotImplementedError("Mode == {} not implemented".format(mode))

    if method == "direct":
        return _convolve1d2o(in1, in2, mode)
    else:
        raise NotImplementedError("Only Direct method implemented")


def _convolve1d3o_kernel() -> Any:
    return session_kernel("cupy_convolved3o", lambda: cupy.ElementwiseKernel(
        'raw T in1, raw T in2, int32 W, int32 H, int32 D', 'T out',
        """
    T temp {};
    for (int x = 0; x < W; x++) {
      for (int y = 0; y < H; y++) {
        for (int z = 0; z < D; z++) {
          temp += in1[i + W - x - 1] * in1[i + H - y - 1] *
                  in1[i + D - z - 1] * in2[(H * x + y) * D + z];
        }
      }
    }
    out = temp;
    """,
        "cupy_convolved3o",
    ))


def _convolve1d3o(in1: Any, in2: Any, mode: str) -> Any:
    assert mode == "valid"
    out_dim = in1.shape[0] - max(in2.shape) + 1
    dtype = cupy.result_type(in1, in2)
    out = cupy.empty(out_dim, dtype=dtype)
    _convolve1d3o_kernel()(in1, in2, *in2.shape, out)
    return out


def convolve1d3o(in1: Any, in2: Any, mode: str = 'valid', method: str = 'direct') -> Any:
    """Convolve a 1-dimensional array with a 3rd order filter (a third order
    convolution).

    Parameters
    ----------
    in1 : array_like
        First input, one-dimensional.
    in2 : array_like
        Second input, three-dimensional.
    mode : str {'full', 'valid', 'same'}, optional
        The size of the output; only ``'valid'`` is implemented (the others raise
        ``NotImplementedError``).
    method : str {'auto', 'direct', 'fft'}, optional
        Only ``'direct'`` (sums) is implemented.

    Returns
    -------
    out : ndarray
        A 1-dimensional array containing a subset of the discrete linear
        convolution of `in1` with `in2`.

    See Also
    --------
    cupyx.signal.convolve1d3o
    """
    if in1.ndim != 1:
        raise ValueError('in1 should have one dimension')
    if in2.ndim != 3:
        raise ValueError('in2 should have three dimension')

    if mode in ["same", "full"]:
        raise NotImplementedError("Mode == {} not implemented".format(mode))

    if method == "direct":
        return _convolve1d3o(in1, in2, mode)
    else:
        raise NotImplementedError("Only Direct method implemented")
