/* compact.cu — compact bitmaps (compact.h, plan.h COMPACT) on the GPU: the
 * own frontier packed for the column peers, a peer's unpacked into its
 * slot. A thread a word: each word's bits go to the bit offset a scan of
 * the mask's words gave it. The masks lose each frontier's vertices as it
 * passes (the own block's when sent, a peer's when received, in any
 * form), so every column peer holds the same mask of each block. */
#include "common.cuh"

/* Word w of f packed at off[w] of out (zeroed), or its vertices that mask
 * lacks counted in *bad; the mask loses f's vertices. */
__global__ void k_compact_pack(const uint32_t *f, uint32_t *mask, const uint32_t *off, int64_t bw,
                               uint32_t *out, unsigned *bad)
{
	for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < bw;
	     w += (int64_t)gridDim.x * blockDim.x) {
		const uint32_t m = mask[w], x = f[w];
		if (!x)
			continue;
		if (x & ~m)
			atomicAdd(bad, (unsigned)__popc(x & ~m));
		mask[w] = m & ~x;
		const uint64_t v = b2_bits_gather(x, m);
		if (!v)
			continue;
		const uint32_t at = off[w], sh = at & 31;
		atomicOr(&out[at >> 5], (uint32_t)(v << sh));
		if (sh + __popc(m) > 32)
			atomicOr(&out[(at >> 5) + 1], (uint32_t)(v >> (32 - sh)));
	}
}

/* Word w of out from the packed stream in; the mask loses its vertices. */
__global__ void k_compact_unpack(const uint32_t *in, uint32_t *mask, const uint32_t *off, int64_t bw,
                                 uint32_t *out)
{
	for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < bw;
	     w += (int64_t)gridDim.x * blockDim.x) {
		const uint32_t m = mask[w];
		const uint32_t x = m ? b2_bits_scatter(b2_bits_read(in, off[w], __popc(m)), m) : 0;
		out[w] = x;
		if (x)
			mask[w] = m & ~x;
	}
}

/* The mask loses the vertices of bitmap f (bw words), or of list f (n). */
__global__ void k_mask_drop_bitmap(uint32_t *mask, const uint32_t *f, int64_t bw)
{
	for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < bw;
	     w += (int64_t)gridDim.x * blockDim.x)
		if (f[w])
			mask[w] &= ~f[w];
}
__global__ void k_mask_drop_list(uint32_t *mask, const uint32_t *f, int64_t n)
{
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < n;
	     x += (int64_t)gridDim.x * blockDim.x)
		atomicAnd(&mask[f[x] >> 5], ~(1u << (f[x] & 31)));
}

static uint32_t *mask_of(cu_bk *k, int q)
{
	return k->fr.cmask + (size_t)q * (size_t)k->bw;
}

int cu_compact_masks(void *p, const uint32_t *masks)
{
	cu_bk *k = (cu_bk *)p;
	int error = 0;
	const size_t n = (size_t)k->g.R * (size_t)k->bw;
	size_t need = 0;
	k->fr.cbits0 = 0;
	for (int64_t w = 0; w < k->bw; w++)
		k->fr.cbits0 += __builtin_popcount(masks[(size_t)k->g.i * (size_t)k->bw + (size_t)w]);
	CU_TRY(cub::DeviceScan::ExclusiveSum(NULL, need, (uint32_t *)NULL, (uint32_t *)NULL, k->bw + 1));
	if (need > k->fr.cubbytes)
		return b2_err(B2_EFAIL_, "internal: the compact bitmaps' scan needs %zu bytes, not %zu",
		              need, k->fr.cubbytes);
	DALLOC(k->fr.cmask0, n * 4);
	DALLOC(k->fr.cmask, n * 4);
	DALLOC(k->fr.coff, (size_t)(k->bw + 1) * 4);
	DALLOC(k->fr.cpop, (size_t)(k->bw + 1) * 4);
	DALLOC(k->fr.cpack, (size_t)(k->bw + 2) * 4);
	CU_TRY(cudaMemcpy(k->fr.cmask0, masks, n * 4, cudaMemcpyHostToDevice));
	CU_TRY(cudaMemset(k->fr.cpop + k->bw, 0, 4));
done:
	return error;
}

int compact_begin(cu_bk *k)
{
	int error = 0;
	if (!k->fr.cmask)
		return 0;
	CU_TRY(cudaMemcpyAsync(k->fr.cmask, k->fr.cmask0, (size_t)k->g.R * (size_t)k->bw * 4,
	                       cudaMemcpyDeviceToDevice, k->st));
	k->fr.cbits = k->fr.cbits0;
done:
	return error;
}

/* coff = where each word of block q's mask lies in its compact bitmap,
 * coff[bw] its bits in all. */
static int offsets(cu_bk *k, int q)
{
	return word_scan(k, mask_of(k, q), k->bw, k->fr.cpop, k->fr.coff, k->bw + 1);
}

int compact_pack(cu_bk *k, const uint32_t *src, b2_msg *m, int *packed)
{
	int error = 0;
	const int64_t cw = b2_bmp_words(k->fr.cbits); /* the words it should take */
	int64_t words;
	uint32_t *h = k->fr.h_front, *bad = h + k->slotw - 1, *bits = h + k->slotw - 2; /* past any message */
	*packed = 0;
	B2_TRY(offsets(k, k->g.i));
	CU_TRY(cudaMemsetAsync(k->fr.cpack, 0, (size_t)cw * 4, k->st));
	CU_TRY(cudaMemsetAsync(k->fr.cpack + k->bw + 1, 0, 4, k->st));
	k_compact_pack<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(src, mask_of(k, k->g.i), k->fr.coff, k->bw,
	                                                       k->fr.cpack, k->fr.cpack + k->bw + 1);
	CU_TRY(cudaGetLastError());
	CU_TRY(cudaMemcpyAsync(h, k->fr.cpack, (size_t)cw * 4, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaMemcpyAsync(bad, k->fr.cpack + k->bw + 1, 4, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaMemcpyAsync(bits, k->fr.coff + k->bw, 4, cudaMemcpyDeviceToHost, k->st));
	CU_TRY(cudaStreamSynchronize(k->st));
	/* the mask's bits before this frontier (exact: cbits counts on the
	 * frontiers' sizes, which a vertex outside the mask would upset) */
	k->fr.cbits = (int64_t)*bits - (k->fr.nfront - (int64_t)*bad);
	words = b2_bmp_words(*bits);
	if (*bad || words > cw)
		return 0;
	h[words] = (uint32_t)k->fr.nfront;
	*m = (b2_msg){h, k->fr.nfront, B2_MSG_COMPACT, words + 1};
	*packed = 1;
done:
	return error;
}

int compact_drop_own(cu_bk *k, const uint32_t *bmp)
{
	if (!k->fr.nfront)
		return 0;
	const b2_msg own = {(uint32_t *)bmp, k->fr.nfront, B2_MSG_BITMAP, 0};
	int error = compact_drop(k, &own, k->g.i);
	if (!error)
		k->fr.cbits -= k->fr.nfront;
	return error;
}

int compact_drop(cu_bk *k, const b2_msg *m, int q)
{
	int error = 0;
	if (m->bitmap)
		k_mask_drop_bitmap<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(mask_of(k, q), m->data, k->bw);
	else
		k_mask_drop_list<<<blocks_for(k, m->count), TPB, 0, k->st>>>(mask_of(k, q), m->data, m->count);
	CU_TRY(cudaGetLastError());
done:
	return error;
}

int compact_unpack(cu_bk *k, b2_msg *m, int q, uint32_t *slot)
{
	int error = 0;
	uint32_t *in = slot + k->bw + 1; /* the slot's second half (b2_msg_words) */
	B2_TRY(offsets(k, q));
	CU_TRY(cudaMemcpyAsync(in, m->data, (size_t)(m->words - 1) * 4, cudaMemcpyHostToDevice, k->st));
	k_compact_unpack<<<blocks_for(k, k->bw), TPB, 0, k->st>>>(in, mask_of(k, q), k->fr.coff, k->bw, slot);
	CU_TRY(cudaGetLastError());
	*m = (b2_msg){slot, m->count, B2_MSG_BITMAP, 0};
done:
	return error;
}
