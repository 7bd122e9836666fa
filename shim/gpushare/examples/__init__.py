"""Small, ordinary CuPy programs bundled with gpushare (run them with ``gpushare run -m``)."""
