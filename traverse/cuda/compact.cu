/* compact.cu — compact bitmaps (compact.h, plan.h COMPACT) on the GPU: the
 * own frontier packed for the column peers, a peer's unpacked into its
 * slot. A thread a word: each word's bits go to the bit offset the masks'
 * scan gave it. */
#include "common.cuh"

/* Word w of f packed at off[w] of out (zeroed), or counted in *bad where f
 * has a vertex mask lacks. */
__global__ void k_compact_pack(const uint32_t *f, const uint32_t *mask, const uint32_t *off,
                               int64_t bw, uint32_t *out, unsigned *bad)
{
	for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < bw;
	     w += (int64_t)gridDim.x * blockDim.x) {
		const uint32_t m = __ldg(&mask[w]), x = f[w];
		if (x & ~m)
			atomicAdd(bad, 1u);
		const uint64_t v = b2_bits_gather(x, m);
		if (!v)
			continue;
		const uint32_t at = __ldg(&off[w]), sh = at & 31;
		atomicOr(&out[at >> 5], (uint32_t)(v << sh));
		if (sh + __popc(m) > 32)
			atomicOr(&out[(at >> 5) + 1], (uint32_t)(v >> (32 - sh)));
	}
}

/* Word w of out from the packed stream in. */
__global__ void k_compact_unpack(const uint32_t *in, const uint32_t *mask, const uint32_t *off,
                                 int64_t bw, uint32_t *out)
{
	for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < bw;
	     w += (int64_t)gridDim.x * blockDim.x) {
		const uint32_t m = __ldg(&mask[w]);
		out[w] = m ? b2_bits_scatter(b2_bits_read(in, __ldg(&off[w]), __popc(m)), m) : 0;
	}
}

int cu_compact_masks(void *p, const uint32_t *masks)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	const size_t n = (size_t)k->g.R * (size_t)k->bw;
	uint32_t *off = (uint32_t *)malloc(n * 4);
	if (!off)
		return b2_err(B2_EIO_, "out of host memory: %zu bytes for the compact bitmap offsets", n * 4);
	for (int q = 0; q < k->g.R; q++) {
		const uint64_t bits = b2_compact_offsets(masks + q * k->bw, k->bw, off + q * k->bw);
		if (q == k->g.i)
			k->fr.cwords = b2_bmp_words((int64_t)bits);
	}
	DALLOC(k->fr.cmask, n * 4);
	DALLOC(k->fr.coff, n * 4);
	DALLOC(k->fr.cpack, (size_t)(k->bw + 2) * 4);
	CU_TRY(cudaMemcpy(k->fr.cmask, masks, n * 4, cudaMemcpyHostToDevice));
	CU_TRY(cudaMemcpy(k->fr.coff, off, n * 4, cudaMemcpyHostToDevice));
done:
	free(off);
	return error;
}

int compact_pack(cu_bk *k, const uint32_t *src, b2_msg *m, int *packed)
{
	int error = 0;
	const int64_t i = k->g.i, cw = k->fr.cwords;
	uint32_t *h = k->fr.h_front, *bad = h + k->slotw - 1; /* past any message */
	CU_TRY(cudaMemsetAsync(k->fr.cpack, 0, (size_t)(k->bw + 2) * 4, k->st));
	k_compact_pack<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(src, k->fr.cmask + i * k->bw,
	                                                       k->fr.coff + i * k->bw, k->bw,
	                                                       k->fr.cpack, k->fr.cpack + k->bw + 1);
	CU_TRY(cudaGetLastError());
	CU_TRY(cudaMemcpyAsync(h, k->fr.cpack, (size_t)cw * 4, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaMemcpyAsync(bad, k->fr.cpack + k->bw + 1, 4, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaStreamSynchronize(k->st));
	*packed = *bad == 0;
	h[cw] = (uint32_t)k->fr.nfront;
	*m = (b2_msg){h, k->fr.nfront, B2_MSG_COMPACT, cw + 1};
done:
	return error;
}

int compact_unpack(cu_bk *k, b2_msg *m, int q, uint32_t *slot)
{
	int error = 0;
	uint32_t *in = slot + k->bw + 1; /* the slot's second half (b2_msg_words) */
	CU_TRY(cudaMemcpyAsync(in, m->data, (size_t)(m->words - 1) * 4, cudaMemcpyHostToDevice, k->st));
	k_compact_unpack<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(in, k->fr.cmask + q * k->bw,
	                                                         k->fr.coff + q * k->bw, k->bw, slot);
	CU_TRY(cudaGetLastError());
	*m = (b2_msg){slot, m->count, B2_MSG_BITMAP, 0};
done:
	return error;
}
