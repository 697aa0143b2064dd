/* compact.h — compact bitmaps (plan.h COMPACT): a frontier of the sender's
 * block as one bit for each of the block's vertices that has a tuple
 * degree and was in no earlier frontier, in order. No other vertex can be
 * in a frontier (roots are drawn among vertices with edges), and an R-MAT
 * block has many: the expand's dense levels move that much less. Every
 * column peer holds each block's mask of such vertices (the backends'
 * compact_masks, less each frontier as it passes) and finds the bit offset
 * of each of its words in the compact form, so a word packs and unpacks
 * alone. The bit moves here serve both backends. */
#ifndef B2_TRAVERSE_COMPACT_H
#define B2_TRAVERSE_COMPACT_H

#include <stdint.h>

#ifdef __CUDACC__
#define B2_HD __host__ __device__ __forceinline__
#else
#define B2_HD inline
#endif

/* The bits of x at the set bits of m, packed to the low end in order. */
static B2_HD uint32_t b2_bits_gather(uint32_t x, uint32_t m)
{
	uint32_t r = 0;
	for (uint32_t out = 1; m; m &= m - 1, out <<= 1)
		if (x & m & (0u - m))
			r |= out;
	return r;
}

/* The low bits of x, in order, at the set bits of m. */
static B2_HD uint32_t b2_bits_scatter(uint32_t x, uint32_t m)
{
	uint32_t r = 0;
	for (; m; m &= m - 1, x >>= 1)
		if (x & 1)
			r |= m & (0u - m);
	return r;
}

/* n (<= 32) bits of the compact stream s from bit offset `at`. */
static B2_HD uint32_t b2_bits_read(const uint32_t *s, uint64_t at, unsigned n)
{
	if (n == 0)
		return 0;
	const unsigned sh = (unsigned)(at & 31);
	uint64_t v = s[at >> 5] >> sh;
	if (sh + n > 32)
		v |= (uint64_t)s[(at >> 5) + 1] << (32 - sh);
	return n == 32 ? (uint32_t)v : (uint32_t)v & ((1u << n) - 1);
}

/* off[w] = the set bits of mask's words before word w: where word w's
 * bits lie in the compact form. Returns the bits in all. */
static inline uint64_t b2_compact_offsets(const uint32_t *mask, int64_t bw, uint32_t *off)
{
	uint64_t at = 0;
	for (int64_t w = 0; w < bw; w++) {
		off[w] = (uint32_t)at;
		at += (uint64_t)__builtin_popcount(mask[w]);
	}
	return at;
}

#endif
