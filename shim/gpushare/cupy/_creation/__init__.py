"""CuPy's private ``cupy._creation`` package: programs and CuPy's tests reach the
creation functions through it (``cupy._creation.from_data.array``)."""
