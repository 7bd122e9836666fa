"""``cupyx.signal``'s cepstrum functions, ported from CuPy 14.2's
``cupyx/signal/_acoustics/_cepstrum.py`` (from cuSignal; MIT licence, NVIDIA's notice in
``__init__.py``, CuPy's in ``../scipy/LICENSE.cupy``).

The FFTs are ordinary gpushare calls; CuPy's elementwise kernels are sent as they are
(source strings of ``cupy.ElementwiseKernel``) and run on the server.
"""
from __future__ import annotations

from typing import Any

from ... import cupy
from ._helpers import session_kernel


def _real_cepstrum_kernel() -> Any:
    return session_kernel("_real_cepstrum_kernel", lambda: cupy.ElementwiseKernel(
        "T spectrum",
        "T output",
        """
    output = log( abs( spectrum ) );
    """,
        "_real_cepstrum_kernel",
    ))


def real_cepstrum(x: Any, n: int | None = None, axis: int = -1) -> Any:
    r"""Calculates the real cepstrum of an input sequence ``x``: the inverse Fourier
    transform of the log magnitude DFT (spectrum) of the signal.

    Parameters
    ----------
    x : ndarray
        Input sequence, if x is a matrix, return cepstrum in direction of axis
    n : int
        Size of Fourier Transform; If none, will use length of input array
    axis: int
        Direction for cepstrum calculation

    Returns
    -------
    ceps : ndarray
        Complex cepstrum result

    See Also
    --------
    cupyx.signal.real_cepstrum
    """
    x = cupy.asarray(x)
    spectrum = cupy.fft.fft(x, n=n, axis=axis)
    spectrum = _real_cepstrum_kernel()(spectrum)
    return cupy.fft.ifft(spectrum, n=n, axis=axis).real


def _complex_cepstrum_kernel() -> Any:
    return session_kernel("_complex_cepstrum_kernel", lambda: cupy.ElementwiseKernel(
        "C spectrum, raw T unwrapped",
        "C output, T ndelay",
        """
    ndelay = round( unwrapped[center] / M_PI );
    const T temp { unwrapped[i] - ( M_PI * ndelay * i / center ) };

    output = log( abs( spectrum ) ) + C( 0, temp );
    """,
        "_complex_cepstrum_kernel",
        return_tuple=True,
        loop_prep="const int center { static_cast<int>( 0.5 * \
        ( _ind.size() + 1 ) ) };",
    ))


def complex_cepstrum(x: Any, n: int | None = None, axis: int = -1) -> tuple[Any, Any]:
    r"""Calculates the complex cepstrum of a real valued input sequence ``x``: the
    inverse Fourier transform of the log DFT (spectrum) of the signal, its phase
    unwrapped and altered to be zero at pi radians.

    Parameters
    ----------
    x : ndarray
        Input sequence, if x is a matrix, return cepstrum in direction of axis
    n : int
       Size of Fourier Transform; If none, will use length of input array
    axis: int
        Direction for cepstrum calculation

    Returns
    -------
    ceps : ndarray
        Complex cepstrum result
    ndelay : ndarray
        The samples of circular delay added to ``x``

    See Also
    --------
    cupyx.signal.complex_cepstrum
    """
    x = cupy.asarray(x)
    spectrum = cupy.fft.fft(x, n=n, axis=axis)
    unwrapped = cupy.unwrap(cupy.angle(spectrum))
    log_spectrum, ndelay = _complex_cepstrum_kernel()(spectrum, unwrapped)
    ceps = cupy.fft.ifft(log_spectrum, n=n, axis=axis).real

    return ceps, ndelay


def _inverse_complex_cepstrum_kernel() -> Any:
    return session_kernel(
        "_inverse_complex_cepstrum_kernel", lambda: cupy.ElementwiseKernel(
            "C log_spectrum, int32 ndelay, float64 pi",
            "C spectrum",
            """
    const double wrapped { log_spectrum.imag() + M_PI * ndelay * i / center };

    spectrum = exp( C( log_spectrum.real(), wrapped ) )
    """,
            "_inverse_complex_cepstrum_kernel",
            loop_prep="const double center { 0.5 * ( _ind.size() + 1 ) };",
        ))


def inverse_complex_cepstrum(ceps: Any, ndelay: Any) -> Any:
    r"""Compute the inverse complex cepstrum of a real sequence.

    Parameters
    ----------
    ceps : ndarray
        Real sequence to compute inverse complex cepstrum of.
    ndelay: int
        The amount of samples of circular delay added to `x`.

    Returns
    -------
    x : ndarray
        The inverse complex cepstrum of the real sequence `ceps`.

    See Also
    --------
    cupyx.signal.inverse_complex_cepstrum
    """
    ceps = cupy.asarray(ceps)
    log_spectrum = cupy.fft.fft(ceps)
    spectrum = _inverse_complex_cepstrum_kernel()(log_spectrum, ndelay, cupy.pi)
    iceps = cupy.fft.ifft(spectrum).real

    return iceps


def _minimum_phase_kernel() -> Any:
    return session_kernel("_minimum_phase_kernel", lambda: cupy.ElementwiseKernel(
        "T ceps",
        "T window",
        """
    if ( !i ) {
        window = ceps;
    } else if ( i < bend ) {
        window = ceps * 2.0;
    } else if ( i == bend ) {
        window = ceps * ( 1 - odd );
    } else {
        window = 0;
    }
    """,
        "_minimum_phase_kernel",
        loop_prep="const bool odd { (_ind.size() & 1) != 0 }; \
               const int bend { static_cast<int>( 0.5 * \
                    ( _ind.size() + odd ) ) };",
    ))


def minimum_phase(x: Any, n: int | None = None) -> Any:
    r"""Compute the minimum phase reconstruction of a real sequence, using its real
    cepstrum.

    Parameters
    ----------
    x : ndarray
        Real sequence to compute the minimum phase reconstruction of.
    n : {None, int}, optional
        Length of the Fourier transform.

    Returns
    -------
    m : ndarray
        The minimum phase reconstruction of the real sequence `x`.

    See Also
    --------
    cupyx.signal.minimum_phase
    """
    if n is None:
        n = len(x)
    ceps = real_cepstrum(x, n=n)
    window = _minimum_phase_kernel()(ceps)
    m = cupy.fft.ifft(cupy.exp(cupy.fft.fft(window))).real

    return m
