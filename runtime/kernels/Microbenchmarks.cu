//===- Microbenchmarks.cu - CUDA kernels for characterization -------------===//
//
// Compute-bound FMA loop, bandwidth-bound copy, a tiled GEMM, an
// attention-like kernel (QK^T, softmax, PV per row) and the L2 flush used
// to reach the null context. Built whenever nvcc is found; run only on a
// machine with a GPU (test/gpu/check.sh).
//
//===----------------------------------------------------------------------===//

#include "runtime/kernels/Microbenchmarks.h"

#include <cuda_runtime.h>

#include <string>

namespace {

__global__ void fmaLoop(float *out, int iters) {
  float a = threadIdx.x * 1e-3f, b = 1.0001f, c = 0.9999f;
  for (int i = 0; i < iters; ++i) {
    a = fmaf(a, b, c);
    b = fmaf(b, c, a * 1e-7f);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b;
}

__global__ void copyKernel(const float4 *__restrict__ in,
                           float4 *__restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

constexpr int Tile = 16;
__global__ void gemmTiled(const float *A, const float *B, float *C, int n) {
  __shared__ float As[Tile][Tile], Bs[Tile][Tile];
  int row = blockIdx.y * Tile + threadIdx.y, col = blockIdx.x * Tile + threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n; t += Tile) {
    As[threadIdx.y][threadIdx.x] =
        row < n && t + threadIdx.x < n ? A[row * n + t + threadIdx.x] : 0;
    Bs[threadIdx.y][threadIdx.x] =
        col < n && t + threadIdx.y < n ? B[(t + threadIdx.y) * n + col] : 0;
    __syncthreads();
    for (int k = 0; k < Tile; ++k)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n)
    C[row * n + col] = acc;
}

// One block per query row: scores against every key, softmax, weighted sum.
__global__ void attentionRow(const float *Q, const float *K, const float *V,
                             float *O, int seq, int dim) {
  extern __shared__ float scores[];
  int q = blockIdx.x;
  for (int k = threadIdx.x; k < seq; k += blockDim.x) {
    float s = 0;
    for (int d = 0; d < dim; ++d)
      s += Q[q * dim + d] * K[k * dim + d];
    scores[k] = s * rsqrtf(float(dim));
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = -1e30f, sum = 0;
    for (int k = 0; k < seq; ++k)
      m = fmaxf(m, scores[k]);
    for (int k = 0; k < seq; ++k)
      sum += (scores[k] = __expf(scores[k] - m));
    for (int k = 0; k < seq; ++k)
      scores[k] /= sum;
  }
  __syncthreads();
  for (int d = threadIdx.x; d < dim; d += blockDim.x) {
    float o = 0;
    for (int k = 0; k < seq; ++k)
      o += scores[k] * V[k * dim + d];
    O[q * dim + d] = o;
  }
}

__global__ void flushL2(volatile int *buf, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    buf[i] = buf[i] + 1;
}

bool check(cudaError_t e, std::string &err, const char *what) {
  if (e == cudaSuccess)
    return true;
  err = std::string(what) + ": " + cudaGetErrorString(e);
  return false;
}

} // namespace

namespace energy {
namespace rt {

bool runMicrobenchmark(Microbenchmark which, size_t size, int repeats,
                       double &seconds, std::string &err) {
  cudaEvent_t start, stop;
  if (!check(cudaEventCreate(&start), err, "cudaEventCreate") ||
      !check(cudaEventCreate(&stop), err, "cudaEventCreate"))
    return false;
  void *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
  size_t bytes = 0;
  switch (which) {
  case Microbenchmark::Fma:
    bytes = 1024 * 256 * sizeof(float);
    break;
  case Microbenchmark::Copy:
  case Microbenchmark::FlushL2:
    bytes = size;
    break;
  case Microbenchmark::Gemm:
  case Microbenchmark::Attention:
    bytes = size * size * sizeof(float);
    break;
  }
  bool ok = check(cudaMalloc(&a, bytes), err, "cudaMalloc") &&
            check(cudaMalloc(&b, bytes), err, "cudaMalloc") &&
            check(cudaMalloc(&c, bytes), err, "cudaMalloc") &&
            check(cudaMalloc(&d, bytes), err, "cudaMalloc") &&
            check(cudaMemset(a, 0, bytes), err, "cudaMemset") &&
            check(cudaMemset(b, 0, bytes), err, "cudaMemset");
  if (ok) {
    cudaEventRecord(start);
    for (int r = 0; r < repeats; ++r) {
      switch (which) {
      case Microbenchmark::Fma:
        fmaLoop<<<1024, 256>>>(static_cast<float *>(a), int(size));
        break;
      case Microbenchmark::Copy:
        copyKernel<<<1024, 256>>>(static_cast<const float4 *>(a),
                                  static_cast<float4 *>(b), bytes / 16);
        break;
      case Microbenchmark::Gemm: {
        dim3 block(Tile, Tile), grid((size + Tile - 1) / Tile,
                                     (size + Tile - 1) / Tile);
        gemmTiled<<<grid, block>>>(static_cast<float *>(a),
                                   static_cast<float *>(b),
                                   static_cast<float *>(c), int(size));
        break;
      }
      case Microbenchmark::Attention:
        attentionRow<<<int(size), 128, size * sizeof(float)>>>(
            static_cast<float *>(a), static_cast<float *>(b),
            static_cast<float *>(c), static_cast<float *>(d), int(size),
            int(size));
        break;
      case Microbenchmark::FlushL2:
        flushL2<<<1024, 256>>>(static_cast<volatile int *>(a), bytes / 4);
        break;
      }
    }
    cudaEventRecord(stop);
    ok = check(cudaEventSynchronize(stop), err, "kernel") &&
         check(cudaGetLastError(), err, "launch");
    float ms = 0;
    if (ok && check(cudaEventElapsedTime(&ms, start, stop), err,
                    "cudaEventElapsedTime"))
      seconds = ms * 1e-3 / repeats;
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  cudaFree(d);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ok;
}

} // namespace rt
} // namespace energy
