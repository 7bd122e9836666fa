"""``cupy.fft``: every public function runs on the server."""
from __future__ import annotations

import sys
import types

import numpy
import numpy.fft

from .. import _export_table

_export_table(sys.modules[__name__], "cupy.fft", numpy.fft, {})

#: ``cupy.fft.config``: plan caching is the server's business; these settings are
#: accepted so programs that set them run unchanged.
config = types.SimpleNamespace(enable_nd_planning=True, use_multi_gpus=False,
                               set_cufft_gpus=lambda gpus: None,
                               get_plan_cache=lambda: None,
                               show_plan_cache_info=lambda: None)
