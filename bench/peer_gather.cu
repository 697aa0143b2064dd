/* bench/peer_gather.cu: the floor of a dense level's expand exchange on one
 * node: every GPU (up to 4) gathers the bitmaps of all of them, its own and
 * its peers' read in place over NVLink, into one buffer of R bitmaps, all
 * GPUs at once, as the ranks of an R x 1 grid do before a bottom-up level
 * (bench/cuda-bench.sh peer-gather builds and runs it; docs/PERFORMANCE.md, "The
 * column's gather"). Loads of 4 and 16 bytes, uncached (ld.cv, as the
 * search reads) and L2-only (ld.cg), one or two waves of blocks, and copy
 * engines (cudaMemcpyAsync, a stream a source). Argument: the bits of a
 * bitmap (default 2^26: 8 MiB, a GPU's block at 2^26 vertices a GPU). The
 * slowest GPU's time of each of 25 rounds (5 more first), the median. */
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
struct Src { const uint32_t *p[8]; };
__global__ void k4(Src s, int64_t bw, uint32_t *dst) {
  const uint32_t *src = s.p[blockIdx.y];
  for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < bw; x += (int64_t)gridDim.x * blockDim.x)
    dst[blockIdx.y * bw + x] = __ldcv(&src[x]);
}
__global__ void k16(Src s, int64_t bw, uint32_t *dst) {
  const uint4 *src = (const uint4 *)s.p[blockIdx.y];
  uint4 *d = (uint4 *)(dst + blockIdx.y * bw);
  for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < bw / 4; x += (int64_t)gridDim.x * blockDim.x)
    d[x] = __ldcv(&src[x]);
}
__global__ void k16x4(Src s, int64_t bw, uint32_t *dst) {
  const uint4 *src = (const uint4 *)s.p[blockIdx.y];
  uint4 *d = (uint4 *)(dst + blockIdx.y * bw);
  const int64_t n = bw / 4, st = (int64_t)gridDim.x * blockDim.x;
  for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < n; x += 4 * st) {
    uint4 v[4];
#pragma unroll
    for (int q = 0; q < 4; q++) if (x + q * st < n) v[q] = __ldcv(&src[x + q * st]);
#pragma unroll
    for (int q = 0; q < 4; q++) if (x + q * st < n) d[x + q * st] = v[q];
  }
}
__global__ void k4nc(Src s, int64_t bw, uint32_t *dst) {
  const uint32_t *src = s.p[blockIdx.y];
  for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < bw; x += (int64_t)gridDim.x * blockDim.x)
    dst[blockIdx.y * bw + x] = __ldcg(&src[x]);
}
int main(int argc, char **argv) {
  int n = 0; CK(cudaGetDeviceCount(&n)); n = n > 4 ? 4 : n;
  const int64_t bw = (argc > 1 ? atoll(argv[1]) : (1 << 26)) / 32; // words per bitmap (2^26 bits: 8 MiB)
  std::vector<uint32_t *> src(n), dst(n); std::vector<cudaStream_t> st(n * 4); std::vector<cudaEvent_t> e0(n), e1(n);
  int nsm = 0; CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
  for (int d = 0; d < n; d++) {
    CK(cudaSetDevice(d));
    for (int p = 0; p < n; p++) if (p != d) CK(cudaDeviceEnablePeerAccess(p, 0));
    CK(cudaMalloc(&src[d], bw * 4)); CK(cudaMalloc(&dst[d], bw * 4 * n)); CK(cudaMemset(src[d], 0x5a, bw * 4));
    for (int q = 0; q < 4; q++) CK(cudaStreamCreateWithFlags(&st[d * 4 + q], cudaStreamNonBlocking));
    CK(cudaEventCreate(&e0[d])); CK(cudaEventCreate(&e1[d]));
  }
  const char *names[] = {"ld.cv 4B (like k_column_frontier)", "ld.cv 16B", "ld.cv 16B x4 unrolled", "ld.cg 4B", "cudaMemcpyAsync, a stream per source"};
  for (int v = 0; v < 5; v++) {
    for (int grid_mul = 1; grid_mul <= (v == 4 ? 1 : 2); grid_mul++) {
      std::vector<float> t;
      for (int it = 0; it < 30; it++) {
        for (int d = 0; d < n; d++) { CK(cudaSetDevice(d)); CK(cudaDeviceSynchronize()); }
        for (int d = 0; d < n; d++) {
          CK(cudaSetDevice(d));
          Src s; for (int p = 0; p < n; p++) s.p[p] = src[p];
          CK(cudaEventRecord(e0[d], st[d * 4]));
          dim3 g(nsm * 8 * grid_mul / n, n);
          if (v == 0) k4<<<g, 256, 0, st[d * 4]>>>(s, bw, dst[d]);
          if (v == 1) k16<<<g, 256, 0, st[d * 4]>>>(s, bw, dst[d]);
          if (v == 2) k16x4<<<g, 256, 0, st[d * 4]>>>(s, bw, dst[d]);
          if (v == 3) k4nc<<<g, 256, 0, st[d * 4]>>>(s, bw, dst[d]);
          if (v == 4) { /* its host calls after e0 are timed too: an upper bound */
            cudaEvent_t f[4];
            for (int p = 1; p < n; p++) { CK(cudaEventCreate(&f[p])); CK(cudaStreamWaitEvent(st[d * 4 + p], e0[d])); }
            for (int p = 0; p < n; p++) CK(cudaMemcpyAsync(dst[d] + p * bw, src[p], bw * 4, cudaMemcpyDeviceToDevice, st[d * 4 + (p == d ? 0 : (p - (p > d)) + 1)]));
            for (int p = 1; p < n; p++) { CK(cudaEventRecord(f[p], st[d * 4 + p])); CK(cudaStreamWaitEvent(st[d * 4], f[p])); }
            for (int p = 1; p < n; p++) CK(cudaEventDestroy(f[p])); /* once the stream has used it */
          }
          CK(cudaGetLastError());
          CK(cudaEventRecord(e1[d], st[d * 4]));
        }
        float worst = 0;
        for (int d = 0; d < n; d++) { CK(cudaSetDevice(d)); CK(cudaEventSynchronize(e1[d])); float ms; CK(cudaEventElapsedTime(&ms, e0[d], e1[d])); worst = std::max(worst, ms); }
        if (it >= 5) t.push_back(worst * 1000);
      }
      std::sort(t.begin(), t.end());
      const double mib = (double)bw * 4 * (n - 1) / (1 << 20);
      printf("%-40s grid x%d: median %.1f us (min %.1f), %.0f GB/s from peers per GPU\n", names[v], grid_mul, t[t.size() / 2], t[0], mib * 1048576 / (t[t.size() / 2] * 1e-6) / 1e9);
    }
  }
  return 0;
}
