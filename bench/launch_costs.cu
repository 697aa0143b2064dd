/* bench/launch_costs.cu: what a device level pays besides its work, on one
 * or two GPUs (bench/cuda-bench.sh launch-costs builds and runs it; docs/PERFORMANCE.md,
 * "The fixed costs of a device level"): reading or writing a 64 Ki-word bitmap on the peer GPU
 * (NVLink, peer access) against the own, an empty kernel, the last-block
 * pattern with a mapped host write (the update), and 8 dependent kernels
 * plain, with a timing or a non-timing event after each, and with
 * programmatic dependent launch. Medians of 30, CUDA events around each. */
#include <cstdio>
#include <cstdint>
#include <algorithm>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
enum { TPB = 256 };
template <int MODE>
__global__ void k_read(const uint32_t *src, int64_t n, uint32_t *dst)
{
	for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < n; x += (int64_t)gridDim.x * blockDim.x) {
		uint32_t w = MODE == 0 ? __ldcv(&src[x]) : MODE == 1 ? __ldcg(&src[x]) : MODE == 2 ? src[x] : __ldg(&src[x]);
		if (w) dst[x] |= w;
	}
}
__global__ void k_read4(const uint4 *src, int64_t n, uint32_t *dst)
{
	for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < n; x += (int64_t)gridDim.x * blockDim.x) {
		uint4 w = __ldcv(&src[x]);
		if (w.x | w.y | w.z | w.w) dst[x] |= w.x;
	}
}
__global__ void k_write(const uint32_t *src, int64_t n, uint32_t *dst)
{
	for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < n; x += (int64_t)gridDim.x * blockDim.x)
		dst[x] = src[x];
}
__global__ void k_write_nz(const uint32_t *src, int64_t n, uint32_t *dst)
{
	for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < n; x += (int64_t)gridDim.x * blockDim.x) {
		uint32_t w = src[x];
		if (w) dst[x] = w;
	}
}
__global__ void k_empty() {}
__global__ void k_pdl(uint32_t *d)
{
	asm volatile("griddepcontrol.wait;" ::: "memory");
	if (threadIdx.x == 0 && blockIdx.x == 0) d[0]++;
	asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
__global__ void k_nopdl(uint32_t *d)
{
	if (threadIdx.x == 0 && blockIdx.x == 0) d[0]++;
}
__global__ void k_last(unsigned *done, volatile unsigned long long *host)
{
	__shared__ bool last;
	if (threadIdx.x == 0) { __threadfence(); last = atomicAdd(done, 1) == gridDim.x - 1; }
	__syncthreads();
	if (last && threadIdx.x == 0) { __threadfence(); host[0] = 1; __threadfence_system(); host[1] = 2; *done = 0; }
}
int main()
{
	const int64_t n = 1 << 16; // words
	uint32_t *a0, *l0, *a1;
	unsigned *done; unsigned long long *host;
	int nsm; CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, 0));
	int grid = std::min<int64_t>((n + TPB - 1) / TPB, nsm * 8);
	int ngpu = 0;
	CK(cudaGetDeviceCount(&ngpu));
	if (ngpu > 1) { /* the peer's bitmap, read in place as pull mode does */
		CK(cudaSetDevice(1)); CK(cudaMalloc(&a1, n * 4)); CK(cudaMemset(a1, 0, n * 4));
		CK(cudaSetDevice(0)); CK(cudaDeviceEnablePeerAccess(1, 0));
	}
	CK(cudaMalloc(&a0, n * 4)); CK(cudaMalloc(&l0, n * 4)); CK(cudaMemset(a0, 0, n * 4)); CK(cudaMemset(l0, 0, n * 4));
	CK(cudaMalloc(&done, 4)); CK(cudaMemset(done, 0, 4)); CK(cudaHostAlloc(&host, 16, cudaHostAllocMapped));
	cudaStream_t st; CK(cudaStreamCreate(&st));
	cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
	auto time = [&](const char *what, auto launch) {
		std::vector<float> v;
		for (int r = 0; r < 30; r++) {
			cudaEventRecord(e0, st); launch(); cudaEventRecord(e1, st); cudaEventSynchronize(e1);
			float ms; cudaEventElapsedTime(&ms, e0, e1); v.push_back(ms * 1000);
		}
		std::sort(v.begin(), v.end());
		printf("%-40s median %7.2f us  min %7.2f us  (%s)\n", what, v[15], v[0], cudaGetErrorString(cudaGetLastError()));
	};
	for (int pass = ngpu > 1 ? 0 : 1; pass < 2; pass++) {
	const char *where = pass ? "local" : "peer";
	uint32_t *src = pass ? a0 : a1;
	printf("--- source %s, %lld words, grid %d\n", where, (long long)n, grid);
	time("read ldcv", [&] { k_read<0><<<grid, TPB, 0, st>>>(src, n, l0); });
	time("read ldcg", [&] { k_read<1><<<grid, TPB, 0, st>>>(src, n, l0); });
	time("read ld", [&] { k_read<2><<<grid, TPB, 0, st>>>(src, n, l0); });
	time("read ldg", [&] { k_read<3><<<grid, TPB, 0, st>>>(src, n, l0); });
	time("read ldcv uint4", [&] { k_read4<<<(n / 4 + TPB - 1) / TPB, TPB, 0, st>>>((const uint4 *)src, n / 4, l0); });
	time("write (all words) to it", [&] { k_write<<<grid, TPB, 0, st>>>(l0, n, src); });
	time("write nonzero (none) to it", [&] { k_write_nz<<<grid, TPB, 0, st>>>(l0, n, src); });
	time("cudaMemcpyAsync l0 -> it", [&] { cudaMemcpyAsync(src, l0, n * 4, cudaMemcpyDefault, st); });
	}
	time("empty kernel, grid", [&] { k_empty<<<grid, TPB, 0, st>>>(); });
	time("last-block, mapped host write", [&] { k_last<<<grid, TPB, 0, st>>>(done, host); });
	time("two empty kernels", [&] { k_empty<<<grid, TPB, 0, st>>>(); k_empty<<<grid, TPB, 0, st>>>(); });
	cudaEvent_t evs[64];
	for (int i = 0; i < 64; i++) cudaEventCreate(&evs[i]);
	time("8 kernels", [&] { for (int i = 0; i < 8; i++) k_nopdl<<<grid, TPB, 0, st>>>(l0); });
	time("8 kernels, an event after each", [&] { for (int i = 0; i < 8; i++) { k_nopdl<<<grid, TPB, 0, st>>>(l0); cudaEventRecord(evs[i], st); } });
	cudaEvent_t nt[8]; for (int i = 0; i < 8; i++) cudaEventCreateWithFlags(&nt[i], cudaEventDisableTiming);
	time("8 kernels, a no-timing event after each", [&] { for (int i = 0; i < 8; i++) { k_nopdl<<<grid, TPB, 0, st>>>(l0); cudaEventRecord(nt[i], st); } });
	time("8 kernels PDL", [&] {
		for (int i = 0; i < 8; i++) {
			cudaLaunchConfig_t c = {}; cudaLaunchAttribute at[1];
			at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization; at[0].val.programmaticStreamSerializationAllowed = 1;
			c.gridDim = grid; c.blockDim = TPB; c.stream = st; c.attrs = at; c.numAttrs = 1;
			cudaLaunchKernelEx(&c, k_pdl, l0);
		} });
	return 0;
}
