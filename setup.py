"""Installs gpushare-hook.pth beside the packages, so that with GPUSHARE_SERVER set a
plain ``import cupy`` resolves to gpushare (see shim/gpushare/_hook.py). Everything
else is in pyproject.toml."""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HOOK = "gpushare-hook.pth"


class build_py_with_hook(build_py):
    def run(self) -> None:
        super().run()
        src = Path(__file__).parent / "shim" / "gpushare" / HOOK
        self.copy_file(str(src), str(Path(self.build_lib) / HOOK), preserve_mode=0)


setup(cmdclass={"build_py": build_py_with_hook})
