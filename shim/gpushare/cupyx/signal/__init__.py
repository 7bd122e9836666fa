"""gpushare's ``cupyx.signal`` (CuPy's cuSignal heritage), run on the client as CuPy's.

Ported from CuPy 14.2's ``cupyx/signal`` (pure Python over CuPy operations and custom
kernels; MIT licence, ``../scipy/LICENSE.cupy``; much of it from cuSignal, under the
notice below): each array operation inside is an ordinary gpushare call, and each
kernel is CuPy's source, sent through ``cupy.ElementwiseKernel`` / ``RawKernel`` /
``RawModule`` and run on the server (compiled by NVRTC on a GPU, by the C++ kernel
emulator on the CPU backend). The private CuPy helpers it uses are in ``_helpers.py``.

Copyright (c) 2019-2023 NVIDIA CORPORATION & AFFILIATES. All rights reserved.

Permission is hereby granted, free of charge, to any person obtaining a
copy of this software and associated documentation files (the "Software"),
to deal in the Software without restriction, including without limitation
the rights to use, copy, modify, merge, publish, distribute, sublicense,
and/or sell copies of the Software, and to permit persons to whom the
Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL
THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
DEALINGS IN THE SOFTWARE.
"""
from __future__ import annotations

from ._acoustics import complex_cepstrum, real_cepstrum  # noqa: F401
from ._acoustics import inverse_complex_cepstrum  # noqa: F401
from ._acoustics import minimum_phase  # noqa: F401
from ._convolution import convolve1d2o  # noqa: F401
from ._convolution import convolve1d3o  # noqa: F401
from ._filtering import channelize_poly  # noqa: F401
from ._filtering import firfilter, firfilter2, firfilter_zi  # noqa: F401
from ._filtering import freq_shift  # noqa: F401
from ._radartools import pulse_compression  # noqa: F401
from ._radartools import pulse_doppler  # noqa: F401
from ._radartools import cfar_alpha  # noqa: F401
from ._radartools import ca_cfar  # noqa: F401
from ._radartools import mvdr  # noqa: F401

__all__ = ["complex_cepstrum", "real_cepstrum", "inverse_complex_cepstrum",
           "minimum_phase", "convolve1d2o", "convolve1d3o", "channelize_poly",
           "firfilter", "firfilter2", "firfilter_zi", "freq_shift", "pulse_compression",
           "pulse_doppler", "cfar_alpha", "ca_cfar", "mvdr"]
