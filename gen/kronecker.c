/* kronecker.c — relabelling, tuple order and the row filler. */
#include <math.h>
#include "kronecker.h"

enum { STREAM_KRON = 1, STREAM_RELABEL = 2, STREAM_ORDER = 3 };

int rmat_setup(rmat *g, int scale, uint64_t edgefactor, uint64_t seed, const double init[4], int relabel)
{
	if (scale < 1 || scale > 40)
		return b2_usage_err("-s/--scale: expected a whole number from 1 to 40, got %d", scale);
	if (edgefactor < 1 || edgefactor > (UINT64_C(1) << (62 - scale)))
		return b2_usage_err("-e/--edgefactor: expected 1 to %llu at scale %d (at most 2^62 tuples)",
		                    (unsigned long long)(UINT64_C(1) << (62 - scale)), scale);
	double s = init[0] + init[1] + init[2];
	if (!(init[0] > 0 && init[1] >= 0 && init[2] >= 0 && s < 1.0))
		return b2_usage_err("--initiator: A, B, C must be positive (B, C may be 0) with A+B+C below 1; got %g,%g,%g (sum %g)",
		                    init[0], init[1], init[2], s);
	g->scale = scale;
	g->edgefactor = edgefactor;
	g->seed = seed;
	g->num_edges = edgefactor << scale;
	g->initiator[0] = init[0];
	g->initiator[1] = init[1];
	g->initiator[2] = init[2];
	g->initiator[3] = 1.0 - s;
	g->relabel = relabel;
	g->key_kron = b2_rng_key(seed, STREAM_KRON);
	double cum = 0;
	for (int i = 0; i < 3; i++) {
		cum += init[i];
		g->thr[i] = (uint64_t)ceil(cum * 0x1.0p32);
	}
	uint64_t kr = b2_rng_key(seed, STREAM_RELABEL), ko = b2_rng_key(seed, STREAM_ORDER);
	for (int r = 0; r < 3; r++) {
		g->relabel_mul[r] = b2_rng_at(kr, 2 * (uint64_t)r) | 1; /* odd: invertible mod 2^S */
		g->relabel_add[r] = b2_rng_at(kr, 2 * (uint64_t)r + 1);
	}
	for (int r = 0; r < 4; r++)
		g->perm_key[r] = b2_rng_at(ko, (uint64_t)r);
	int bits = 1;
	while (bits < 63 && (UINT64_C(1) << (2 * bits)) < g->num_edges)
		bits++;
	g->perm_half_bits = bits;
	return 0;
}

/* The generator works on blocks of rows, each step a loop over the block
 * with no branches, so that the compiler vectorizes across rows (AVX-512 or
 * AVX2 clones where the CPU has them, chosen at load time). */
#define BLOCK 64

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define VECTOR_CLONES
#endif

static inline uint64_t relabel1(const rmat *g, uint64_t x, uint64_t mask, int sh)
{
	for (int r = 0; r < 3; r++) {
		x = (x * g->relabel_mul[r] + g->relabel_add[r]) & mask;
		x ^= x >> sh;
	}
	return x;
}

uint64_t rmat_relabel(const rmat *g, uint64_t x)
{
	return relabel1(g, x, (UINT64_C(1) << g->scale) - 1, (g->scale + 1) / 2);
}

/* One pass of a 4-round balanced Feistel network on 2*h bits; the round
 * function is one multiply and a fold (a permutation needs no more). */
static inline uint64_t feistel(const rmat *g, uint64_t x)
{
	const int h = g->perm_half_bits;
	const uint64_t m = (UINT64_C(1) << h) - 1;
	uint64_t l = x >> h, r = x & m;
	for (int i = 0; i < 4; i++) {
		uint64_t f = (r ^ g->perm_key[i]) * 0x9e3779b97f4a7c15ULL;
		uint64_t t = l ^ ((f ^ (f >> 29)) & m);
		l = r;
		r = t;
	}
	return (l << h) | r;
}

uint64_t rmat_order(const rmat *g, uint64_t p)
{
	/* cycle walking: the domain is < 4 * num_edges, so few passes */
	uint64_t q = feistel(g, p);
	while (q >= g->num_edges)
		q = feistel(g, q);
	return q;
}

/* n <= BLOCK rows from row p0: tuples into out, returns the fingerprint. */
VECTOR_CLONES
static uint64_t fill_block(const rmat *g, uint64_t p0, int n, int64_t *out)
{
	uint64_t q[BLOCK], s[BLOCK], u[BLOCK], v[BLOCK], fp = 0;
	const uint64_t t0 = g->thr[0], t1 = g->thr[1], t2 = g->thr[2], key = g->key_kron;
	const uint64_t mask = (UINT64_C(1) << g->scale) - 1;
	const int sh = (g->scale + 1) / 2;
	/* 1. tuple order */
	if (g->relabel) {
		for (int i = 0; i < n; i++)
			q[i] = feistel(g, p0 + (uint64_t)i);
		/* cycle walking: up to 3/4 of the domain lies past num_edges; whole
		 * branch-free passes over the block keep the lanes vectorized */
		for (int pass = 0; pass < 32; pass++) {
			uint64_t out_of_range = 0;
			for (int i = 0; i < n; i++) {
				uint64_t bad = q[i] >= g->num_edges, f = feistel(g, q[i]);
				q[i] = bad ? f : q[i];
				out_of_range |= bad;
			}
			if (!out_of_range)
				break;
		}
		for (int i = 0; i < n; i++) /* a walk longer than 32 steps: rare */
			while (q[i] >= g->num_edges)
				q[i] = feistel(g, q[i]);
	} else {
		for (int i = 0; i < n; i++)
			q[i] = p0 + (uint64_t)i;
	}
	/* 2. Kronecker samples: a SplitMix64 stream per sample, seeded by the
	 *    counter-based stream at the sample's index; each word decides two
	 *    levels with 32 random bits each */
	for (int i = 0; i < n; i++) {
		s[i] = b2_rng_at(key, q[i]);
		u[i] = v[i] = 0;
	}
	for (int l = 0; l < g->scale; l += 2) {
		for (int i = 0; i < n; i++) {
			s[i] += 0x9e3779b97f4a7c15ULL;
			uint64_t x = b2_mix64(s[i]), y0 = x & 0xffffffffULL, y1 = x >> 32;
			/* quadrant 0..3 = (0,0) (0,1) (1,0) (1,1), probabilities A, B, C, D */
			uint64_t k0 = (uint64_t)(y0 >= t0) + (y0 >= t1) + (y0 >= t2);
			uint64_t k1 = (uint64_t)(y1 >= t0) + (y1 >= t1) + (y1 >= t2);
			u[i] |= (k0 >> 1) << l | (k1 >> 1) << (l + 1);
			v[i] |= (k0 & 1) << l | (k1 & 1) << (l + 1);
		}
	}
	/* 3. relabelling (an odd scale drew one level too many: mask it) */
	for (int i = 0; i < n; i++) {
		u[i] &= mask;
		v[i] &= mask;
		if (g->relabel) {
			u[i] = relabel1(g, u[i], mask, sh);
			v[i] = relabel1(g, v[i], mask, sh);
		}
	}
	for (int i = 0; i < n; i++) {
		out[2 * i] = (int64_t)u[i];
		out[2 * i + 1] = (int64_t)v[i];
		fp += b2_fp_tuple(p0 + (uint64_t)i, (int64_t)u[i], (int64_t)v[i]);
	}
	return fp;
}

uint64_t rmat_fill(const rmat *g, uint64_t row0, uint64_t n, int64_t *out)
{
	uint64_t fp = 0;
	int64_t nb = (int64_t)((n + BLOCK - 1) / BLOCK);
	#pragma omp parallel for schedule(static) reduction(+:fp)
	for (int64_t b = 0; b < nb; b++) {
		uint64_t off = (uint64_t)b * BLOCK, k = n - off < BLOCK ? n - off : BLOCK;
		fp += fill_block(g, row0 + off, (int)k, out + 2 * off);
	}
	return fp;
}
