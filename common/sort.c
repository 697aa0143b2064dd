/* sort.c — the radix sort of 64-bit keys that partition2d, snap-import and
 * bfs-validate share. */
#include <emmintrin.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"

/* LSD radix sort of a[0..n) on its low `bits` bits, digits of at most 11
 * bits (2048 buckets stay in cache), ping-ponging with tmp; passes whose
 * digit is the same for every key are skipped. */
uint64_t *b2_radix_sort(uint64_t *a, uint64_t *tmp, uint64_t n, int bits)
{
	return b2_radix_sort_progress(a, tmp, n, bits, NULL, 0, 1);
}

/* The counting pass and each scatter pass are a step of progress: key count
 * n advances pr from base to base + share * n over the sort. */
uint64_t *b2_radix_sort_progress(uint64_t *a, uint64_t *tmp, uint64_t n, int bits,
                                 b2_progress *pr, double base, double share)
{
	enum { MAXP = 6 };
	if (bits > 64)
		bits = 64;
	int passes = (bits + 10) / 11;
	if (passes < 1) passes = 1;
	if (passes > MAXP) passes = MAXP;
	int w = (bits + passes - 1) / passes;
	uint64_t mask = ((uint64_t)1 << w) - 1;
	static uint64_t cnt[MAXP][2048];
	static uint64_t wcb[2048 * 8] __attribute__((aligned(64)));
	static uint64_t wcs[2048];
	if (n < 2)
		return a;
	memset(cnt, 0, sizeof cnt);
	for (uint64_t k = 0; k < n; k++) {
		uint64_t x = a[k];
		for (int p = 0; p < passes; p++)
			cnt[p][(x >> (p * w)) & mask]++;
	}
	if (pr)
		b2_progress_step(pr, base + share * (double)n / (passes + 1));
	uint64_t *src = a, *dst = tmp;
	for (int p = 0; p < passes; p++) {
		int sh = p * w;
		if (cnt[p][(src[0] >> sh) & mask] == n)
			continue;
		uint64_t sum = 0;
		for (uint64_t d = 0; d <= mask; d++) {
			uint64_t c = cnt[p][d];
			cnt[p][d] = sum;
			sum += c;
		}
		/* software write-combining: keys gather in the cache line their
		 * place falls in, and whole lines go to memory with streaming
		 * stores (no read for ownership); a bucket's first and last
		 * partial lines are stored normally, slot by slot */
		uint64_t *c = cnt[p];
		for (uint64_t d = 0; d <= mask; d++)
			wcs[d] = c[d];
		for (uint64_t k = 0; k < n; k++) {
			uint64_t x = src[k], d = (x >> sh) & mask, at = c[d]++;
			uint64_t *line = wcb + d * 8;
			line[at & 7] = x;
			if ((at & 7) == 7) {
				uint64_t l0 = at - 7;
				if (l0 >= wcs[d]) {
					__m128i *o = (__m128i *)(dst + l0);
					const __m128i *i = (const __m128i *)line;
					_mm_stream_si128(o, _mm_load_si128(i));
					_mm_stream_si128(o + 1, _mm_load_si128(i + 1));
					_mm_stream_si128(o + 2, _mm_load_si128(i + 2));
					_mm_stream_si128(o + 3, _mm_load_si128(i + 3));
				} else {
					for (uint64_t q = wcs[d]; q <= at; q++)
						dst[q] = line[q & 7];
				}
			}
		}
		for (uint64_t d = 0; d <= mask; d++) {
			uint64_t l0 = c[d] & ~(uint64_t)7;
			for (uint64_t q = l0 > wcs[d] ? l0 : wcs[d]; q < c[d]; q++)
				dst[q] = wcb[d * 8 + (q & 7)];
		}
		_mm_sfence();
		if (pr)
			b2_progress_step(pr, base + share * (double)n * (p + 2) / (passes + 1));
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	return src;
}

int b2_radix_sort_alloc(uint64_t **keys, uint64_t n, int bits, const char *what)
{
	int error = 0;
	uint64_t *tmp = NULL, *sorted;
	if (n < 2)
		return 0;
	B2_TRY(b2_alloc(&tmp, n * sizeof *tmp, what));
	sorted = b2_radix_sort(*keys, tmp, n, bits);
	if (sorted == tmp) {
		tmp = *keys; /* the other buffer is freed */
		*keys = sorted;
	}
done:
	free(tmp);
	return error;
}
