"""``cupy.cuda.texture``: CUDA arrays, texture objects read by kernels (point and
linear filtering, normalized coordinates, address modes, read modes) and surface
objects, through a real server (the CPU backend: ``backends/cpu_texture.py`` and the
emulator's ``gpushare_texture.h``)."""
import numpy
import pytest

pytestmark = pytest.mark.timeout(120)

_SOURCE = r'''
extern "C" {
__global__ void sample2D(float* out, cudaTextureObject_t tex, const float* xs,
                         const float* ys, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(tex, xs[i], ys[i]);
}
__global__ void sample2D4(float4* out, cudaTextureObject_t tex, float x, float y) {
  out[0] = tex2D<float4>(tex, x, y);
}
__global__ void fetch1D(int* out, cudaTextureObject_t tex, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<int>(tex, i - 1);   // index -1: outside, reads 0
}
__global__ void unorm(float* out, cudaTextureObject_t tex, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = tex1D<float>(tex, i + 0.5f);
}
__global__ void write2D(cudaSurfaceObject_t surf, int width, int height) {
  int x = threadIdx.x, y = threadIdx.y;
  if (x < width && y < height) {
    float v = surf2Dread<float>(surf, x * 4, y);
    surf2Dwrite(v * 10.0f + y, surf, x * 4, y);
  }
}
}
'''


def _weight(a):
    return numpy.rint(a * 256.0) / 256.0  # CUDA's 9-bit fixed-point weights


def _reference_linear(data, xs, ys, address, normalized):
    """CUDA's linear filtering of a 2-D single-channel texture (the Programming Guide's
    texture fetching appendix)."""
    h, w = data.shape
    if normalized:
        xs, ys = xs * w, ys * h
    out = []
    for x, y in zip(xs, ys):
        xb, yb = x - 0.5, y - 0.5
        i, j = int(numpy.floor(xb)), int(numpy.floor(yb))
        a, b = _weight(xb - i), _weight(yb - j)

        def texel(ii, jj):
            if address == "border" and not (0 <= ii < w and 0 <= jj < h):
                return 0.0
            return float(data[min(max(jj, 0), h - 1), min(max(ii, 0), w - 1)])
        out.append((1 - a) * (1 - b) * texel(i, j) + a * (1 - b) * texel(i + 1, j) +
                   (1 - a) * b * texel(i, j + 1) + a * b * texel(i + 1, j + 1))
    return numpy.array(out, dtype=numpy.float64)


@pytest.mark.parametrize("address", ["clamp", "border"])
@pytest.mark.parametrize("normalized", [False, True])
def test_linear_filtering_follows_cudas_formula(cp, address, normalized):
    from gpushare.cupy.cuda import runtime
    from gpushare.cupy.cuda.texture import (ChannelFormatDescriptor, CUDAarray,
                                            ResourceDescriptor, TextureDescriptor,
                                            TextureObject)
    rng = numpy.random.default_rng(0)
    data = rng.random((5, 7), dtype=numpy.float32)
    ch = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    assert ch.get_channel_format() == {"x": 32, "y": 0, "z": 0, "w": 0, "f": 2}
    arr = CUDAarray(ch, 7, 5)
    assert (arr.width, arr.height, arr.depth, arr.ndim) == (7, 5, 0, 2)
    arr.copy_from(data)  # a host array
    mode = runtime.cudaAddressModeClamp if address == "clamp" else \
        runtime.cudaAddressModeBorder
    tex = TextureObject(ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr),
                        TextureDescriptor((mode, mode), runtime.cudaFilterModeLinear,
                                          runtime.cudaReadModeElementType,
                                          normalizedCoords=int(normalized)))
    xs = rng.uniform(-1.5, 8.5, 64).astype(numpy.float32)
    ys = rng.uniform(-1.5, 6.5, 64).astype(numpy.float32)
    if normalized:
        xs, ys = xs / 7, ys / 5
    out = cp.zeros(64, dtype=cp.float32)
    mod = cp.RawModule(code=_SOURCE)
    mod.get_function("sample2D")((1,), (64,), (out, tex, cp.asarray(xs), cp.asarray(ys),
                                                cp.int32(64)))
    want = _reference_linear(data, xs.astype(numpy.float64), ys.astype(numpy.float64),
                             address, normalized)
    numpy.testing.assert_allclose(out.get(), want, rtol=1e-5, atol=1e-6)


def test_vector_texels_linear_memory_and_read_modes(cp):
    from gpushare.cupy.cuda import runtime
    from gpushare.cupy.cuda.texture import (ChannelFormatDescriptor, CUDAarray,
                                            ResourceDescriptor, TextureDescriptor,
                                            TextureObject)
    mod = cp.RawModule(code=_SOURCE)
    clamp = (runtime.cudaAddressModeClamp,) * 2
    # four float channels, point sampling
    ch4 = ChannelFormatDescriptor(32, 32, 32, 32, runtime.cudaChannelFormatKindFloat)
    arr = CUDAarray(ch4, 3, 2)
    texels = cp.arange(24, dtype=cp.float32).reshape(2, 12)
    arr.copy_from(texels)
    back = numpy.zeros((2, 12), dtype=numpy.float32)
    arr.copy_to(back)  # into a host array
    assert back.tolist() == texels.tolist()
    tex = TextureObject(ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr),
                        TextureDescriptor(clamp, runtime.cudaFilterModePoint,
                                          runtime.cudaReadModeElementType))
    out = cp.zeros(4, dtype=cp.float32)
    mod.get_function("sample2D4")((1,), (1,), (out, tex, cp.float32(2.5), cp.float32(1.5)))
    assert out.tolist() == [20.0, 21.0, 22.0, 23.0]  # texel (2, 1)
    # linear memory fetched by index
    ints = cp.arange(10, 15, dtype=cp.int32)
    chi = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindSigned)
    tex = TextureObject(ResourceDescriptor(runtime.cudaResourceTypeLinear, arr=ints,
                                           chDesc=chi, sizeInBytes=ints.nbytes),
                        TextureDescriptor())
    got = cp.full(6, -1, dtype=cp.int32)
    mod.get_function("fetch1D")((1,), (6,), (got, tex, cp.int32(6)))
    assert got.tolist() == [0, 10, 11, 12, 13, 14]
    # 8-bit texels read as normalized floats
    chu = ChannelFormatDescriptor(8, 0, 0, 0, runtime.cudaChannelFormatKindUnsigned)
    arr8 = CUDAarray(chu, 4)
    arr8.copy_from(cp.asarray([0, 51, 255, 128], dtype=cp.uint8))
    tex = TextureObject(ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr8),
                        TextureDescriptor(None, runtime.cudaFilterModePoint,
                                          runtime.cudaReadModeNormalizedFloat))
    f = cp.zeros(4, dtype=cp.float32)
    mod.get_function("unorm")((1,), (4,), (f, tex, cp.int32(4)))
    numpy.testing.assert_allclose(f.get(), [0.0, 0.2, 1.0, 128 / 255], rtol=1e-6)


def test_surfaces_and_cupys_checks(cp):
    from gpushare.cupy.cuda import runtime
    from gpushare.cupy.cuda.texture import (ChannelFormatDescriptor, CUDAarray,
                                            ResourceDescriptor, SurfaceObject)
    ch = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    arr = CUDAarray(ch, 4, 3, 0, runtime.cudaArraySurfaceLoadStore)
    arr.copy_from(cp.ones((3, 4), dtype=cp.float32))
    surf = SurfaceObject(ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr))
    cp.RawModule(code=_SOURCE).get_function("write2D")((1,), (4, 3), (surf, cp.int32(4),
                                                                        cp.int32(3)))
    out = cp.zeros((3, 4), dtype=cp.float32)
    arr.copy_to(out)
    assert out.tolist() == [[10.0] * 4, [11.0] * 4, [12.0] * 4]
    with pytest.raises(ValueError, match="shape mismatch"):
        arr.copy_from(cp.zeros((4, 3), dtype=cp.float32))
    with pytest.raises(ValueError, match="dtype mismatch"):
        arr.copy_from(cp.zeros((3, 4), dtype=cp.int32))
    with pytest.raises(ValueError, match="C-contiguous"):
        arr.copy_to(numpy.zeros((4, 3), dtype=numpy.float32).T)
    with pytest.raises(ValueError, match="width must be nonzero"):
        CUDAarray(ch, 0)
    with pytest.raises(ValueError, match="height must be nonzero"):
        CUDAarray(ch, 4, 0, 2)
    with pytest.raises(NotImplementedError, match="Mipmapped"):
        ResourceDescriptor(runtime.cudaResourceTypeMipmappedArray)
    plain = CUDAarray(ch, 4)  # not made for surfaces
    with pytest.raises(runtime.CUDARuntimeError, match="cudaErrorInvalidValue"):
        SurfaceObject(ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=plain))


def test_elementwise_kernels_take_texture_objects_and_ndimage_uses_them(cp):
    """An ElementwiseKernel's texture argument is a ``cudaTextureObject_t`` (a type
    placeholder binds to it, as in CuPy), which ``affine_transform(texture_memory=True)``
    relies on: CuPy's texture path, with CUDA's 8-bit filtering weights."""
    from gpushare.cupyx.scipy import ndimage as ndi
    from gpushare.cupy.cuda import runtime
    from gpushare.cupy.cuda.texture import (ChannelFormatDescriptor, CUDAarray,
                                            ResourceDescriptor, TextureDescriptor,
                                            TextureObject)
    ch = ChannelFormatDescriptor(32, 0, 0, 0, runtime.cudaChannelFormatKindFloat)
    arr = CUDAarray(ch, 5)
    arr.copy_from(cp.asarray([1, 2, 4, 8, 16], dtype=cp.float32))
    tex = TextureObject(ResourceDescriptor(runtime.cudaResourceTypeArray, cuArr=arr),
                        TextureDescriptor((runtime.cudaAddressModeClamp,),
                                          runtime.cudaFilterModeLinear,
                                          runtime.cudaReadModeElementType))
    k = cp.ElementwiseKernel("U t, float32 x", "float32 y", "y = tex1D<float>(t, x)",
                             "gs_tex_elementwise")
    y = k(tex, cp.asarray([0.5, 1.0, 2.25, 10.0], dtype=cp.float32))
    assert y.tolist() == [1.0, 1.5, 3.5, 16.0]  # x - 0.5 between texels

    rng = numpy.random.default_rng(3)
    image = rng.random((12, 15), dtype=numpy.float32)
    th = 0.3
    m = numpy.array([[numpy.cos(th), -numpy.sin(th), 2.0],
                     [numpy.sin(th), numpy.cos(th), -1.0], [0, 0, 1]], numpy.float32)
    got = ndi.affine_transform(cp.asarray(image), cp.asarray(m), order=1,
                               texture_memory=True)
    rows, cols = numpy.mgrid[0:12, 0:15]
    src_r = m[0, 0] * rows + m[0, 1] * cols + m[0, 2]
    src_c = m[1, 0] * rows + m[1, 1] * cols + m[1, 2]
    inside = (src_r > 1) & (src_r < 10) & (src_c > 1) & (src_c < 13)
    want = _reference_linear(image, (src_c + 0.5)[inside], (src_r + 0.5)[inside],
                             "border", False)
    numpy.testing.assert_allclose(got.get()[inside], want, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="only for float32"):
        ndi.affine_transform(cp.asarray(image, dtype=cp.float64), cp.asarray(m),
                             texture_memory=True)
