"""Lists the packages, and installs gpushare-hook.pth beside them so that with
GPUSHARE_SERVER set a plain ``import cupy`` resolves to gpushare (see
shim/gpushare/_hook.py). Everything else is in pyproject.toml."""
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_py import build_py

HOOK = "gpushare-hook.pth"


class build_py_with_hook(build_py):
    def run(self) -> None:
        super().run()
        src = Path(__file__).parent / "shim" / "gpushare" / HOOK
        self.copy_file(str(src), str(Path(self.build_lib) / HOOK), preserve_mode=0)


# every package under shim/ (the client) and server/ (the server), found rather than
# listed, plus the kernel emulator's C sources (csrc/) as package data
PACKAGES = (find_packages("shim", include=["gpushare*"])
            + find_packages("server", include=["gpushare_server*"])
            + ["gpushare_server._csrc"])

# the client's operators in C (shim/gpushare/_accel.c): optional, as msgpack's and
# pyzmq's speedups are; without a compiler the pure-Python path serves
ACCEL = Extension("gpushare._accel", ["shim/gpushare/_accel.c"], optional=True)
# the worker's runs of operators' records in C (server/gpushare_server/_records.c),
# optional likewise
RECORDS = Extension("gpushare_server._records", ["server/gpushare_server/_records.c"],
                    optional=True)
# CUDA's float32 flush-to-zero around the CPU backend's NumPy calls
# (server/gpushare_server/_ftz.c), optional likewise (without it nothing is flushed:
# NumPy's IEEE answers, backends/cpu_ftz.py)
FTZ = Extension("gpushare_server._ftz", ["server/gpushare_server/_ftz.c"], optional=True)

setup(packages=PACKAGES, cmdclass={"build_py": build_py_with_hook},
      ext_modules=[ACCEL, RECORDS, FTZ])
