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

uint64_t rmat_relabel(const rmat *g, uint64_t x)
{
	const int s = g->scale, sh = (s + 1) / 2;
	const uint64_t mask = s >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << s) - 1;
	for (int r = 0; r < 3; r++) {
		x = (x * g->relabel_mul[r] + g->relabel_add[r]) & mask;
		x ^= x >> sh;
	}
	return x;
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

uint64_t rmat_fill(const rmat *g, uint64_t row0, uint64_t n, int64_t *out)
{
	uint64_t fp = 0;
	#pragma omp parallel for schedule(static) reduction(+:fp)
	for (int64_t k = 0; k < (int64_t)n; k++) {
		uint64_t p = row0 + (uint64_t)k, q = g->relabel ? rmat_order(g, p) : p, u, v;
		rmat_kron_sample(g, q, &u, &v);
		if (g->relabel) {
			u = rmat_relabel(g, u);
			v = rmat_relabel(g, v);
		}
		out[2 * k] = (int64_t)u;
		out[2 * k + 1] = (int64_t)v;
		fp += b2_fp_tuple(p, (int64_t)u, (int64_t)v);
	}
	return fp;
}
