"""The kernel emulator's tests run against the installed ``gpushare_server`` (like every
other test: the README's test command installs it), never the source tree, which
lacks what the install builds (``_records``)."""
import os
import tempfile

# Compile into a private cache unless the caller chose one.
os.environ.setdefault('GPUSHARE_KERNEL_CACHE',
                      tempfile.mkdtemp(prefix='gpushare-kernel-cache-'))
