"""A tiled single-precision GEMM in a RawModule (shared memory, barriers, a 2-D
block), after CuPy's examples/gemm (MIT licence).

A real CuPy program, unchanged: tests/test_programs.py runs it through gpushare."""
import math, numpy, cupy
from cupy import testing

code = r'''
#define DIM_X 16
#define DIM_Y 16
#define BLK_M 64
#define BLK_N 64
#define BLK_K 4
#define DIM_XA 64
#define DIM_YA 4
#define DIM_XB 4
#define DIM_YB 64
#define THR_M (BLK_M / DIM_X)
#define THR_N (BLK_N / DIM_Y)
#define fetch(arr, col, m, n, bound) arr[min(n*col + m, bound)]

extern "C" __global__
void sgemm(int M, int N, int K, const float* A, const float* B, float* C)
{
    int idx = threadIdx.x;
    int idy = threadIdx.y;
    int idt = DIM_X * idy + idx;
    int idxA = idt % DIM_XA;
    int idyA = idt / DIM_XA;
    int idxB = idt % DIM_XB;
    int idyB = idt / DIM_XB;
    int blx = blockIdx.x;
    int bly = blockIdx.y;
    __shared__ float sA[BLK_K][BLK_M + 1];
    __shared__ float sB[BLK_N][BLK_K + 1];
    float rC[THR_N][THR_M];
    float rA[THR_M];
    float rB[THR_N];
    float ra[BLK_K / DIM_YA][BLK_M / DIM_XA];
    float rb[BLK_N / DIM_YB][BLK_K / DIM_XB];
    const float* offs_dA = A + blx * BLK_M + idyA * M + idxA;
    int boundA = (M * (K - 1) + M) - (blx * BLK_M + idyA * M + idxA) - 1;
    const float* offs_dB = B + bly * BLK_N * K + idyB * K + idxB;
    int boundB = (K * (N - 1) + K) - (bly * BLK_N * K + idyB * K + idxB) - 1;
    int m, n, k, kk;
    #pragma unroll
    for (n = 0; n < THR_N; n++)
        #pragma unroll
        for (m = 0 ; m < THR_M; m++)
            rC[n][m] = 0;
    #pragma unroll
    for (n = 0; n < BLK_K; n += DIM_YA)
        #pragma unroll
        for (m = 0; m < BLK_M; m += DIM_XA)
            sA[n + idyA][m + idxA] = fetch(offs_dA, M, m, n, boundA);
    #pragma unroll
    for (n = 0; n < BLK_N; n += DIM_YB)
        #pragma unroll
        for (m = 0; m < BLK_K; m += DIM_XB)
            sB[n + idyB][m + idxB] = fetch(offs_dB, K, m, n, boundB);
    __syncthreads();
    for (kk = 0; kk < K - BLK_K; kk += BLK_K) {
        offs_dA += BLK_K * M;
        boundA -= BLK_K * M;
        offs_dB += BLK_K;
        boundB -= BLK_K;
        #pragma unroll
        for (n = 0; n < BLK_K / DIM_YA; n++)
            #pragma unroll
            for (m = 0; m < BLK_M / DIM_XA; m++)
                ra[n][m] = fetch(offs_dA, M, m * DIM_XA, n * DIM_YA, boundA);
        #pragma unroll
        for (n = 0; n < BLK_N / DIM_YB; n++)
            #pragma unroll
            for (m = 0; m < BLK_K / DIM_XB; m++)
                rb[n][m] = fetch(offs_dB, K, m * DIM_XB, n * DIM_YB, boundB);
        #pragma unroll
        for (k = 0; k < BLK_K; k++) {
            #pragma unroll
            for (m = 0; m < THR_M; m++)
                rA[m] = sA[k][m * DIM_X + idx];
            #pragma unroll
            for (n = 0; n < THR_N; n++)
                rB[n] = sB[n * DIM_Y + idy][k];
            #pragma unroll
            for (n = 0; n < THR_N; n++)
                #pragma unroll
                for (m = 0; m < THR_M; m++)
                    rC[n][m] += rA[m] * rB[n];
        }
        __syncthreads();
        #pragma unroll
        for (n = 0; n < BLK_K / DIM_YA; n++)
            #pragma unroll
            for (m = 0; m < BLK_M / DIM_XA; m++)
                sA[n * DIM_YA + idyA][m * DIM_XA + idxA] = ra[n][m];
        #pragma unroll
        for (n = 0; n < BLK_N / DIM_YB; n++)
            #pragma unroll
            for (m = 0; m < BLK_K / DIM_XB; m++)
                sB[n * DIM_YB + idyB][m * DIM_XB + idxB] = rb[n][m];
        __syncthreads();
    }
    kk = K - kk;
    #pragma unroll
    for (k = 0; k < kk; k++) {
        #pragma unroll
        for (m = 0; m < THR_M; m++)
            rA[m] = sA[k][m * DIM_X + idx];
        #pragma unroll
        for (n = 0; n < THR_N; n++)
            rB[n] = sB[n * DIM_Y + idy][k];
        #pragma unroll
        for (n = 0; n < THR_N; n++)
            #pragma unroll
            for (m = 0; m < THR_M; m++)
                rC[n][m] += rA[m] * rB[n];
    }
    #pragma unroll
    for (n = 0; n < THR_N; n++) {
        int coord_dCn = bly * BLK_N + n * DIM_Y + idy;
        #pragma unroll
        for (m = 0; m < THR_M; m++) {
            int coord_dCm = blx * BLK_M + m * DIM_X + idx;
            if (coord_dCm < M && coord_dCn < N) {
                int offsC = coord_dCn * M + coord_dCm;
                C[offsC] = rC[n][m];
            }
        }
    }
}
'''

def sgemm(A, B, dim_x=16, dim_y=16, blk_m=64, blk_n=64, blk_k=4):
    assert A.dtype == cupy.float32 and B.dtype == cupy.float32
    assert A.flags.c_contiguous and B.flags.c_contiguous
    A = cupy.asfortranarray(A)
    B = cupy.asfortranarray(B)
    m, k = A.shape
    n = B.shape[1]
    C = cupy.empty((m, n), dtype=cupy.float32, order='F')
    mod = cupy.RawModule(code=code, options=('--std=c++11',))
    kern = mod.get_function('sgemm')
    grid = (int(math.ceil(m / blk_m)), int(math.ceil(n / blk_n)), 1)
    block = (dim_x, dim_y, 1)
    args = (m, n, k, A, B, C)
    kern(grid, block, args=args)
    return C

rng = numpy.random.default_rng(0)
A = cupy.asarray(rng.random((130, 70), dtype=numpy.float32))
B = cupy.asarray(rng.random((70, 90), dtype=numpy.float32))
start = cupy.cuda.Event(); end = cupy.cuda.Event()
start.record()
C = sgemm(A, B)
end.record(); end.synchronize()
t = cupy.cuda.get_elapsed_time(start, end)
testing.assert_allclose(C, cupy.matmul(A, B), rtol=1e-5)
print("sgemm OK")
