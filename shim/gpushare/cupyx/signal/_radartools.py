"""``cupyx.signal``'s radar tools, ported from CuPy 14.2's
``cupyx/signal/_radartools/_radartools.py`` and ``_beamformers.py`` (from cuSignal; MIT
licence, NVIDIA's notice in ``__init__.py``, CuPy's in ``../scipy/LICENSE.cupy``).

Each array operation is an ordinary gpushare call (windows from the served
``cupyx.scipy.signal.windows``); the CA-CFAR raw kernels are CuPy's sources, launched
through ``cupy.RawKernel`` on the server.
"""
from __future__ import annotations

from typing import Any

from ... import cupy
from ._helpers import session_kernel


def _pulse_preprocess(x: Any, normalize: bool, window: Any) -> Any:
    if window is not None:
        n = x.shape[-1]
        if callable(window):
            w = window(cupy.fft.fftfreq(n).astype(x.dtype))
        elif isinstance(window, cupy.ndarray):
            if window.shape != (n,):
                raise ValueError("window must have the same length as data")
            w = window
        else:
            from ..scipy.signal import windows
            w = windows.get_window(window, n, False).astype(x.dtype)
        x = x * w

    if normalize:
        x = x / cupy.linalg.norm(x)

    return x


def pulse_compression(x: Any, template: Any, normalize: bool = False, window: Any = None,
                      nfft: int | None = None) -> Any:
    """Pulse compression: matched filtering of the received signal ``x`` with the
    transmitted pulse ``template``, which increases range resolution and SNR.

    Parameters
    ----------
    x : ndarray
        Received signal, assume 2D array with [num_pulses, sample_per_pulse]
    template : ndarray
        Transmitted signal, assume 1D array
    normalize : bool
        Normalize transmitted signal
    window : array_like, callable, string, float, or tuple, optional
        Specifies the window applied to the signal in the Fourier
        domain.
    nfft : int, size of FFT for pulse compression. Default is number of
        samples per pulse

    Returns
    -------
    compressedIQ : ndarray
        Pulse compressed output

    See Also
    --------
    cupyx.signal.pulse_compression
    """
    num_pulses, samples_per_pulse = x.shape
    dtype = cupy.result_type(x, template)

    if nfft is None:
        nfft = samples_per_pulse

    t = _pulse_preprocess(template, normalize, window)
    fft_x = cupy.fft.fft(x, nfft)
    fft_t = cupy.fft.fft(t, nfft)
    out = cupy.fft.ifft(fft_x * fft_t.conj(), nfft)
    if dtype.kind != 'c':
        out = out.real
    return out


def pulse_doppler(x: Any, window: Any = None, nfft: int | None = None) -> Any:
    """Pulse doppler processing: the range/doppler matrix, an FFT across the slow-time
    (pulse) dimension.

    Parameters
    ----------
    x : ndarray
        Received signal, assume 2D array with [num_pulses, sample_per_pulse]
    window : array_like, callable, string, float, or tuple, optional
        Specifies the window applied to the signal in the Fourier
        domain.
    nfft : int, size of FFT for pulse compression. Default is number of
        samples per pulse

    Returns
    -------
    pd_dataMatrix : ndarray
        Pulse-doppler output (range/doppler matrix)

    See Also
    --------
    cupyx.signal.pulse_doppler
    """
    num_pulses, samples_per_pulse = x.shape

    if nfft is None:
        nfft = num_pulses

    xT = _pulse_preprocess(x.T, False, window)
    return cupy.fft.fft(xT, nfft).T


def cfar_alpha(pfa: Any, N: int) -> Any:
    """The value of alpha for a probability of false alarm ``pfa`` and ``N``
    reference cells: ``N * (pfa ** (-1.0 / N) - 1)``.

    See Also
    --------
    cupyx.signal.cfar_alpha
    """
    return N * (pfa ** (-1.0 / N) - 1)


def ca_cfar(array: Any, guard_cells: Any, reference_cells: Any,
            pfa: float = 1e-3) -> tuple[Any, Any]:
    """The cell-averaged constant false alarm rate (CA CFAR) detector threshold and
    detections of a 1-D or 2-D array.

    Parameters
    ----------
    array : ndarray
        Array containing data to be processed.
    guard_cells : int or (int, int)
        One-sided guard cell count (in each dimension, for 2-D data).
    reference_cells : int or (int, int)
        One-sided reference cell count (in each dimension, for 2-D data).
    pfa : float
        Probability of false alarm.

    Returns
    -------
    threshold : ndarray
        CFAR threshold
    return : ndarray
        CFAR detections

    See Also
    --------
    cupyx.signal.ca_cfar
    """
    shape = array.shape
    if len(shape) > 2:
        raise TypeError('Only 1D and 2D arrays are currently supported.')
    mask = cupy.zeros(shape, dtype=cupy.float32)

    if len(shape) == 1:
        if len(array) <= 2 * guard_cells + 2 * reference_cells:
            raise ValueError('Array too small for given parameters')
        intermediate = cupy.cumsum(array, axis=0, dtype=cupy.float32)
        N = 2 * reference_cells
        alpha = cfar_alpha(pfa, N)
        tpb = (32,)
        bpg = ((len(array) - 2 * reference_cells - 2 * guard_cells +
               tpb[0] - 1) // tpb[0],)
        _ca_cfar_1d_kernel()(bpg, tpb, (array, intermediate, mask,
                                        len(array), N, cupy.float32(alpha),
                                        guard_cells, reference_cells))
    elif len(shape) == 2:
        if len(guard_cells) != 2 or len(reference_cells) != 2:
            raise TypeError('Guard and reference cells must be two '
                            'dimensional.')
        guard_cells_x, guard_cells_y = guard_cells
        reference_cells_x, reference_cells_y = reference_cells
        if shape[0] - 2 * guard_cells_x - 2 * reference_cells_x <= 0:
            raise ValueError('Array first dimension too small for given '
                             'parameters.')
        if shape[1] - 2 * guard_cells_y - 2 * reference_cells_y <= 0:
            raise ValueError('Array second dimension too small for given '
                             'parameters.')
        intermediate = cupy.cumsum(array, axis=0, dtype=cupy.float32)
        intermediate = cupy.cumsum(intermediate, axis=1, dtype=cupy.float32)
        N = 2 * reference_cells_x * (2 * reference_cells_y +
                                     2 * guard_cells_y + 1)
        N += 2 * (2 * guard_cells_x + 1) * reference_cells_y
        alpha = cfar_alpha(pfa, N)
        tpb = (8, 8)
        bpg_x = (shape[0] - 2 * (reference_cells_x + guard_cells_x) + tpb[0] -
                 1) // tpb[0]
        bpg_y = (shape[1] - 2 * (reference_cells_y + guard_cells_y) + tpb[1] -
                 1) // tpb[1]
        bpg = (bpg_x, bpg_y)
        _ca_cfar_2d_kernel()(bpg, tpb, (array, intermediate, mask,
                             shape[0], shape[1], N, cupy.float32(alpha),
                             guard_cells_x, guard_cells_y, reference_cells_x,
                             reference_cells_y))
    return (mask, array - mask > 0)


_CA_CFAR_2D_KERNEL = r'''
extern "C" __global__ void
_ca_cfar_2d_kernel(float * array, float * intermediate, float * mask,
                   int width, int height, int N, float alpha,
                   int guard_cells_x, int guard_cells_y,
                   int reference_cells_x, int reference_cells_y)
{
    int i_init = threadIdx.x+blockIdx.x*blockDim.x;
    int j_init = threadIdx.y+blockIdx.y*blockDim.y;
    int i, j, x, y, offset;
    int tro, tlo, blo, bro, tri, tli, bli, bri;
    float outer_area, inner_area, T;
    for (i=i_init; i<width-2*(guard_cells_x+reference_cells_x);
         i += blockDim.x*gridDim.x){
        for (j=j_init; j<height-2*(guard_cells_y+reference_cells_y);
             j += blockDim.y*gridDim.y){
            /* 'tri' is Top Right Inner (square), 'blo' is Bottom Left
             * Outer (square), etc. These are the corners at which
             * the intermediate array must be evaluated.
             */
            x = i+guard_cells_x+reference_cells_x;
            y = j+guard_cells_y+reference_cells_y;
            offset = x*height+y;
            tro = (x+guard_cells_x+reference_cells_x)*height+y+
                guard_cells_y+reference_cells_y;
            tlo = (x-guard_cells_x-reference_cells_x-1)*height+y+
                guard_cells_y+reference_cells_y;
            blo = (x-guard_cells_x-reference_cells_x-1)*height+y-
                guard_cells_y-reference_cells_y-1;
            bro = (x+guard_cells_x+reference_cells_x)*height+y-
                guard_cells_y-reference_cells_y-1;
            tri = (x+guard_cells_x)*height+y+guard_cells_y;
            tli = (x-guard_cells_x-1)*height+y+guard_cells_y;
            bli = (x-guard_cells_x-1)*height+y-guard_cells_y-1;
            bri = (x+guard_cells_x)*height+y-guard_cells_y-1;
            /* It would be nice to eliminate the triple
             * branching here, but it only occurs on the boundaries
             * of the array (i==0 or j==0). So it shouldn't hurt
             * overall performance much.
             */
            if (i>0 && j>0){
                outer_area = intermediate[tro]-intermediate[tlo]-
                    intermediate[bro]+intermediate[blo];
            } else if (i == 0 && j > 0){
                outer_area = intermediate[tro]-intermediate[bro];
            } else if (i > 0 && j == 0){
                outer_area = intermediate[tro]-intermediate[tlo];
            } else if (i == 0 && j == 0){
                outer_area = intermediate[tro];
            }
            inner_area = intermediate[tri]-intermediate[tli]-
                intermediate[bri]+intermediate[bli];
            T = outer_area-inner_area;
            T = alpha/N*T;
            mask[offset] = T;
        }
    }
}
'''


def _ca_cfar_2d_kernel() -> Any:
    return session_kernel("_ca_cfar_2d_kernel",
                          lambda: cupy.RawKernel(_CA_CFAR_2D_KERNEL, '_ca_cfar_2d_kernel'))


_CA_CFAR_1D_KERNEL = r'''
extern "C" __global__ void
_ca_cfar_1d_kernel(float * array, float * intermediate, float * mask,
                   int width, int N, float alpha,
                   int guard_cells, int reference_cells)
{
    int i_init = threadIdx.x+blockIdx.x*blockDim.x;
    int i, x;
    int br, bl, sr, sl;
    float big_area, small_area, T;
    for (i=i_init; i<width-2*(guard_cells+reference_cells);
         i += blockDim.x*gridDim.x){
        x = i+guard_cells+reference_cells;
        br = x+guard_cells+reference_cells;
        bl = x-guard_cells-reference_cells-1;
        sr = x+guard_cells;
        sl = x-guard_cells-1;
        if (i>0){
            big_area = intermediate[br]-intermediate[bl];
        } else{
            big_area = intermediate[br];
        }
        small_area = intermediate[sr]-intermediate[sl];
        T = big_area-small_area;
        T = alpha/N*T;
        mask[x] = T;
    }
}
'''


def _ca_cfar_1d_kernel() -> Any:
    return session_kernel("_ca_cfar_1d_kernel",
                          lambda: cupy.RawKernel(_CA_CFAR_1D_KERNEL, '_ca_cfar_1d_kernel'))


# --- _beamformers.py ---------------------------------------------------------------------
def mvdr(x: Any, sv: Any, calc_cov: bool = True) -> Any:
    """Minimum variance distortionless response (MVDR) beamformer weights.

    Parameters
    ----------
    x : ndarray
        Received signal or input covariance matrix, assume 2D array with
        size [num_sensors, num_samples]
    sv: ndarray
        Steering vector, assume 1D array with size [num_sensors, 1]
    calc_cov : bool
        Whether ``x`` is sensor/observation data (its covariance matrix is
        calculated) or a precalculated covariance matrix.

    Notes
    -----
    Unlike MATLAB where input matrix x is of size MxN where N represents the number of
    array elements, the data are row-major: each row is complex-valued data from a given
    sensor (i.e. NxM).

    See Also
    --------
    cupyx.signal.mvdr
    """
    if x.shape[0] > x.shape[1]:
        raise ValueError(
            "Matrix has more sensors than samples. Consider \
            transposing and remember cuSignal is row-major, unlike MATLAB"
        )

    if x.shape[0] != sv.shape[0]:
        raise ValueError("Steering Vector and input data do not align")

    if calc_cov:
        x = cupy.cov(x, dtype=x.dtype)

    wB = cupy.linalg.inv(x).dot(sv)
    wA = sv.conj().dot(wB)  # 1x1 scalar
    return wB / wA
