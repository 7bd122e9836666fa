"""The kernel emulator's tests run against the installed ``gpushare_server`` (like every
other test: the README's test command installs it), never the source tree, which
lacks what the install builds (``_records``)."""
import atexit
import os
import shutil
import tempfile

# Compile into a private cache unless the caller chose one; it goes with the run.
if 'GPUSHARE_KERNEL_CACHE' not in os.environ:
    os.environ['GPUSHARE_KERNEL_CACHE'] = tempfile.mkdtemp(prefix='gpushare-kernel-cache-')
    atexit.register(shutil.rmtree, os.environ['GPUSHARE_KERNEL_CACHE'], True)
