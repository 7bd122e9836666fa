"""Exception classes mirroring CuPy's."""
from __future__ import annotations

import math


class CompileException(Exception):
    """Same interface as ``cupy.cuda.compiler.CompileException``.

    ``str(e)`` is the compiler log; ``source``, ``name``, ``options`` and
    ``backend`` carry the rest, ``dump(f)`` writes CuPy's report.
    """

    def __init__(self, msg, source, name, options, backend='nvrtc'):
        self._msg = msg
        self.source = source
        self.name = name
        self.options = options
        self.backend = backend
        super().__init__()

    def __reduce__(self):
        return (type(self), (self._msg, self.source, self.name,
                             self.options, self.backend))

    def __repr__(self):
        return str(self)

    def __str__(self):
        return self.get_message()

    def get_message(self):
        return self._msg

    def dump(self, f):
        lines = self.source.split('\n')
        digits = int(math.floor(math.log10(len(lines)))) + 1
        linum_fmt = '{{:0{}d}} '.format(digits)
        f.write('{} '.format(self.backend.upper()))
        f.write('compilation error: {}\n'.format(self))
        f.write('-----\n')
        f.write('Name: {}\n'.format(self.name))
        f.write('Options: {}\n'.format(' '.join(self.options)))
        f.write('CUDA source:\n')
        for i, line in enumerate(lines):
            f.write(linum_fmt.format(i + 1) + line.rstrip() + '\n')
        f.write('-----\n')
        f.flush()


try:  # gpushare's own class, so the error crosses the wire under CuPy's name
    from gpushare.errors import CUDADriverError as _DriverErrorBase
except ImportError:  # the emulator used on its own
    _DriverErrorBase = RuntimeError
try:
    from gpushare.errors import JitifyException as _JitifyBase
except ImportError:  # the emulator used on its own, or an older client package
    _JitifyBase = Exception


class JitifyException(_JitifyBase):
    """Stands for ``cupy.cuda.compiler.JitifyException``: with ``jitify=True``, the
    source failed in Jitify's preprocessing (any compile error but a missing header,
    which Jitify comments out); ``str(e)`` is the ``CompileException``'s message, as
    CuPy's."""


#: the ``CUresult`` codes of the driver errors the emulator raises (``cuda.h``)
DRIVER_STATUS = {'CUDA_ERROR_INVALID_VALUE': 1, 'CUDA_ERROR_FILE_NOT_FOUND': 301,
                 'CUDA_ERROR_NOT_FOUND': 500, 'CUDA_ERROR_LAUNCH_FAILED': 719,
                 'CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE': 720}


class CUDADriverError(_DriverErrorBase):
    """Stands for ``cupy.cuda.driver.CUDADriverError`` (launch failures): ``status``
    the ``CUresult`` code, as CuPy's."""

    def __init__(self, status='CUDA_ERROR_INVALID_VALUE',
                 msg='invalid argument'):
        message = '%s: %s' % (status, msg)
        if _DriverErrorBase is RuntimeError:
            super().__init__(message)
        else:
            super().__init__(DRIVER_STATUS[status], message)
        self.status = DRIVER_STATUS[status]
