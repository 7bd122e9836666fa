"""gpushare: run unmodified CuPy programs against a remote GPU.

``import gpushare.cupy as cp`` (or, with ``GPUSHARE_SERVER`` set, plain ``import cupy``)
gives CuPy's API with every array held by a gpushare server. See README.md and
ARCHITECTURE.md.
"""
__version__ = "0.1.0"
__all__ = ["__version__"]
