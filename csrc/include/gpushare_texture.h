// CUDA texture and surface objects for the CPU kernel emulator.
//
// A cudaTextureObject_t / cudaSurfaceObject_t is the address of a gs_texture,
// filled by the CPU backend (server/gpushare_server/backends/cpu_texture.py, whose
// ctypes structure must match this one field for field). Fetches follow the CUDA
// Programming Guide's "Texture Fetching" appendix: point sampling takes the texel
// floor(x); linear filtering weighs the two (four, eight) texels around x - 0.5 with
// weights in 9-bit fixed point (8 fractional bits); normalized coordinates are
// scaled by the extent; out-of-range coordinates are clamped, wrapped, mirrored or
// read as the border colour (wrap and mirror with normalized coordinates only, as
// CUDA); cudaReadModeNormalizedFloat maps 8- and 16-bit integers to [0, 1] or
// [-1, 1]. tex1Dfetch reads linear memory by integer index (0 outside it). Surfaces
// take byte offsets along x; an access outside the array is dropped (reads give 0).
#ifndef GPUSHARE_TEXTURE_H
#define GPUSHARE_TEXTURE_H

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

enum cudaSurfaceBoundaryMode {
  cudaBoundaryModeZero = 0,
  cudaBoundaryModeClamp = 1,
  cudaBoundaryModeTrap = 2
};

struct gs_texture {
  char* data;               // the first texel
  long long width, height, depth;  // in texels (1 for a dimension not used)
  long long pitch;          // bytes from one row to the next
  long long slice;          // bytes from one 2-D slice to the next
  int dims;                 // 1, 2 or 3
  int channels;             // 1 to 4
  int channel_bytes;        // 1, 2 or 4
  int kind;                 // cudaChannelFormatKind: 0 signed, 1 unsigned, 2 float
  int address[3];           // cudaTextureAddressMode: 0 wrap, 1 clamp, 2 mirror, 3 border
  int filter;               // 0 point, 1 linear
  int read_mode;            // 0 element type, 1 normalized float
  int normalized;           // coordinates in [0, 1)
  int linear;               // 1-D linear memory (tex1Dfetch)
  float border[4];
};

namespace gs_tex {

// one channel of a texel, as a double (the raw value, or normalized)
static inline double channel(const gs_texture* t, const char* p, int c) {
  p += c * t->channel_bytes;
  double v = 0;
  if (t->kind == 2) {
    if (t->channel_bytes == 2) {
      unsigned short h;
      memcpy(&h, p, 2);
      v = gs_half_bits2float(h);
    } else {
      float f;
      memcpy(&f, p, 4);
      v = f;
    }
  } else if (t->kind == 0) {
    if (t->channel_bytes == 1) v = *(const signed char*)p;
    else if (t->channel_bytes == 2) { short s; memcpy(&s, p, 2); v = s; }
    else { int i; memcpy(&i, p, 4); v = i; }
    if (t->read_mode == 1 && t->channel_bytes < 4) {
      double m = t->channel_bytes == 1 ? 127.0 : 32767.0;
      v = v / m < -1.0 ? -1.0 : v / m;
    }
  } else {
    if (t->channel_bytes == 1) v = *(const unsigned char*)p;
    else if (t->channel_bytes == 2) { unsigned short s; memcpy(&s, p, 2); v = s; }
    else { unsigned int i; memcpy(&i, p, 4); v = i; }
    if (t->read_mode == 1 && t->channel_bytes < 4)
      v /= t->channel_bytes == 1 ? 255.0 : 65535.0;
  }
  return v;
}

// the texel at integer coordinates, or false when they fall outside (border)
static inline bool texel(const gs_texture* t, long long i, long long j, long long k,
                         double out[4]) {
  long long n[3] = {t->width, t->height, t->depth};
  long long idx[3] = {i, j, k};
  for (int d = 0; d < t->dims; ++d) {
    if (idx[d] < 0 || idx[d] >= n[d]) {
      if (t->address[d] == 3) {
        for (int c = 0; c < 4; ++c) out[c] = t->border[c];
        return false;
      }
      idx[d] = idx[d] < 0 ? 0 : n[d] - 1;  // clamp (what wrap and mirror came to)
    }
  }
  const char* p = t->data + idx[2] * t->slice + idx[1] * t->pitch +
                  idx[0] * (long long)(t->channels * t->channel_bytes);
  for (int c = 0; c < 4; ++c) out[c] = c < t->channels ? channel(t, p, c) : 0.0;
  return true;
}

// a coordinate in texels, after normalization and wrap/mirror (normalized only)
static inline double coordinate(const gs_texture* t, int d, double x) {
  long long n = d == 0 ? t->width : d == 1 ? t->height : t->depth;
  if (!t->normalized) return x;
  if (t->address[d] == 0) {          // wrap
    x = x - floor(x);
  } else if (t->address[d] == 2) {   // mirror
    double f = floor(x);
    x = ((long long)f % 2 == 0) ? x - f : 1.0 - (x - f);
  }
  return x * (double)n;
}

static inline double weight(double x) {  // 9-bit fixed point, 8 fractional bits
  return nearbyint(x * 256.0) / 256.0;
}

static inline void fetch(const gs_texture* t, double x, double y, double z, double out[4]) {
  double c[3] = {coordinate(t, 0, x), t->dims > 1 ? coordinate(t, 1, y) : 0.0,
                 t->dims > 2 ? coordinate(t, 2, z) : 0.0};
  if (t->filter == 0) {
    texel(t, (long long)floor(c[0]), (long long)floor(c[1]), (long long)floor(c[2]), out);
    return;
  }
  long long i0[3] = {0, 0, 0};
  double a[3] = {0, 0, 0};
  for (int d = 0; d < t->dims; ++d) {
    double b = c[d] - 0.5;
    double f = floor(b);
    i0[d] = (long long)f;
    a[d] = weight(b - f);
  }
  for (int ch = 0; ch < 4; ++ch) out[ch] = 0.0;
  int corners = 1 << t->dims;
  for (int m = 0; m < corners; ++m) {
    double w = 1.0;
    long long idx[3] = {i0[0], i0[1], i0[2]};
    for (int d = 0; d < t->dims; ++d) {
      int hi = (m >> d) & 1;
      idx[d] += hi;
      w *= hi ? a[d] : 1.0 - a[d];
    }
    double v[4];
    texel(t, idx[0], idx[1], idx[2], v);
    for (int ch = 0; ch < 4; ++ch) out[ch] += w * v[ch];
  }
}

// the value of type T from up to four channels
template <typename T> struct make {
  static T from(const double v[4]) { return (T)v[0]; }
};
#define GS_TEX_VEC(N, S)                                                     \
  template <> struct make<N##1> {                                            \
    static N##1 from(const double v[4]) { N##1 r; r.x = (S)v[0]; return r; } \
  };                                                                         \
  template <> struct make<N##2> {                                            \
    static N##2 from(const double v[4]) {                                    \
      N##2 r; r.x = (S)v[0]; r.y = (S)v[1]; return r; }                      \
  };                                                                         \
  template <> struct make<N##4> {                                            \
    static N##4 from(const double v[4]) {                                    \
      N##4 r; r.x = (S)v[0]; r.y = (S)v[1]; r.z = (S)v[2]; r.w = (S)v[3];    \
      return r; }                                                            \
  };
GS_TEX_VEC(char, signed char)
GS_TEX_VEC(uchar, unsigned char)
GS_TEX_VEC(short, short)
GS_TEX_VEC(ushort, unsigned short)
GS_TEX_VEC(int, int)
GS_TEX_VEC(uint, unsigned int)
GS_TEX_VEC(float, float)
#undef GS_TEX_VEC
template <> struct make<__half> {
  static __half from(const double v[4]) { return __half((float)v[0]); }
};

static inline const gs_texture* object(unsigned long long handle) {
  return reinterpret_cast<const gs_texture*>(handle);
}

// the bytes of a surface element at a byte offset along x, or null outside
static inline char* surface_at(unsigned long long handle, long long x_bytes, long long y,
                               long long z, size_t size) {
  const gs_texture* t = object(handle);
  long long row = t->width * (long long)(t->channels * t->channel_bytes);
  if (x_bytes < 0 || x_bytes + (long long)size > row || y < 0 || y >= t->height ||
      z < 0 || z >= t->depth)
    return nullptr;
  return t->data + z * t->slice + y * t->pitch + x_bytes;
}

}  // namespace gs_tex

template <typename T>
static inline T tex1Dfetch(cudaTextureObject_t tex, int x) {
  const gs_texture* t = gs_tex::object(tex);
  double v[4] = {0, 0, 0, 0};
  if (x >= 0 && x < t->width) {
    const char* p = t->data + (long long)x * (t->channels * t->channel_bytes);
    for (int c = 0; c < t->channels && c < 4; ++c) v[c] = gs_tex::channel(t, p, c);
  }
  return gs_tex::make<T>::from(v);
}

template <typename T>
static inline T tex1D(cudaTextureObject_t tex, float x) {
  double v[4];
  gs_tex::fetch(gs_tex::object(tex), x, 0, 0, v);
  return gs_tex::make<T>::from(v);
}

template <typename T>
static inline T tex2D(cudaTextureObject_t tex, float x, float y) {
  double v[4];
  gs_tex::fetch(gs_tex::object(tex), x, y, 0, v);
  return gs_tex::make<T>::from(v);
}

template <typename T>
static inline T tex3D(cudaTextureObject_t tex, float x, float y, float z) {
  double v[4];
  gs_tex::fetch(gs_tex::object(tex), x, y, z, v);
  return gs_tex::make<T>::from(v);
}

// the forms that write through a pointer
template <typename T>
static inline void tex1Dfetch(T* out, cudaTextureObject_t tex, int x) {
  *out = tex1Dfetch<T>(tex, x);
}
template <typename T>
static inline void tex1D(T* out, cudaTextureObject_t tex, float x) { *out = tex1D<T>(tex, x); }
template <typename T>
static inline void tex2D(T* out, cudaTextureObject_t tex, float x, float y) {
  *out = tex2D<T>(tex, x, y);
}
template <typename T>
static inline void tex3D(T* out, cudaTextureObject_t tex, float x, float y, float z) {
  *out = tex3D<T>(tex, x, y, z);
}

template <typename T>
static inline void surf1Dwrite(T value, cudaSurfaceObject_t surf, int x,
                               cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {
  char* p = gs_tex::surface_at(surf, x, 0, 0, sizeof(T));
  if (p) memcpy(p, &value, sizeof(T));
}
template <typename T>
static inline void surf2Dwrite(T value, cudaSurfaceObject_t surf, int x, int y,
                               cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {
  char* p = gs_tex::surface_at(surf, x, y, 0, sizeof(T));
  if (p) memcpy(p, &value, sizeof(T));
}
template <typename T>
static inline void surf3Dwrite(T value, cudaSurfaceObject_t surf, int x, int y, int z,
                               cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {
  char* p = gs_tex::surface_at(surf, x, y, z, sizeof(T));
  if (p) memcpy(p, &value, sizeof(T));
}
template <typename T>
static inline T surf1Dread(cudaSurfaceObject_t surf, int x,
                           cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {
  T value{};
  const char* p = gs_tex::surface_at(surf, x, 0, 0, sizeof(T));
  if (p) memcpy(&value, p, sizeof(T));
  return value;
}
template <typename T>
static inline T surf2Dread(cudaSurfaceObject_t surf, int x, int y,
                           cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {
  T value{};
  const char* p = gs_tex::surface_at(surf, x, y, 0, sizeof(T));
  if (p) memcpy(&value, p, sizeof(T));
  return value;
}
template <typename T>
static inline T surf3Dread(cudaSurfaceObject_t surf, int x, int y, int z,
                           cudaSurfaceBoundaryMode = cudaBoundaryModeTrap) {
  T value{};
  const char* p = gs_tex::surface_at(surf, x, y, z, sizeof(T));
  if (p) memcpy(&value, p, sizeof(T));
  return value;
}
template <typename T>
static inline void surf1Dread(T* out, cudaSurfaceObject_t surf, int x,
                              cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  *out = surf1Dread<T>(surf, x, m);
}
template <typename T>
static inline void surf2Dread(T* out, cudaSurfaceObject_t surf, int x, int y,
                              cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  *out = surf2Dread<T>(surf, x, y, m);
}
template <typename T>
static inline void surf3Dread(T* out, cudaSurfaceObject_t surf, int x, int y, int z,
                              cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap) {
  *out = surf3Dread<T>(surf, x, y, z, m);
}

#endif  // GPUSHARE_TEXTURE_H
