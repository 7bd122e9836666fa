"""gpushare CUDA C/C++ emulator sources (headers and runtime), compiled lazily
at run time by :mod:`gpushare_server.kernels`."""
