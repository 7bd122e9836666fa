"""``python -m benchmarks``: see :mod:`benchmarks`."""
import sys

from .run import main

sys.exit(main())
