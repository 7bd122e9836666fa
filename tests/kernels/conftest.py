import os
import sys
import tempfile
from pathlib import Path

_server = Path(__file__).resolve().parents[2] / 'server'
if str(_server) not in sys.path:
    sys.path.insert(0, str(_server))

# Compile into a private cache unless the caller chose one.
os.environ.setdefault('GPUSHARE_KERNEL_CACHE',
                      tempfile.mkdtemp(prefix='gpushare-kernel-cache-'))
