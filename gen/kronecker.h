/* kronecker.h — the Graph500 Kronecker (R-MAT) generator as pure functions of
 * (scale, edgefactor, seed, initiator) and a position, so any rank can make
 * any row of /edges without talking to the others. docs/FORMATS.md ("How
 * rmat-gen fills /edges") is the specification. */
#ifndef B2_KRONECKER_H
#define B2_KRONECKER_H

#include <stdint.h>
#include "b2.h"

typedef struct rmat {
	int scale;
	uint64_t edgefactor, seed, num_edges; /* num_edges = edgefactor << scale */
	double initiator[4];                  /* A, B, C, D */
	int relabel;                          /* 0: raw Kronecker samples in sample order (tests) */
	/* derived */
	uint64_t key_kron;
	uint64_t thr[3];         /* y < thr[i] <=> y / 2^32 < A, A+B, A+B+C (y 32 random bits) */
	uint64_t relabel_mul[3], relabel_add[3];
	uint64_t perm_key[4];    /* Feistel round keys for the tuple order */
	int perm_half_bits;      /* the permutation works on 2*half bits */
} rmat;

/* Fills derived fields; returns B2_EUSAGE with a message for bad parameters. */
int rmat_setup(rmat *g, int scale, uint64_t edgefactor, uint64_t seed, const double init[4], int relabel);

/* A fast generator for the levels of one sample, seeded per sample from the
 * counter-based stream (so sample q is still computable directly): a
 * Weyl sequence through a 64x64->128 multiply-fold (wyrand). */
static inline uint64_t rmat_level_bits(uint64_t *s)
{
	*s += 0xa0761d6478bd642fULL;
	__uint128_t t = (__uint128_t)*s * (*s ^ 0xe7037ed1a0b428dbULL);
	return (uint64_t)(t >> 64) ^ (uint64_t)t;
}

/* Sample q of the Kronecker process, before relabelling. Each 64-bit word
 * decides two bit levels, 32 random bits each (probabilities resolved to
 * 2^-32). */
static inline void rmat_kron_sample(const rmat *g, uint64_t q, uint64_t *u, uint64_t *v)
{
	uint64_t a = 0, b = 0, s = b2_rng_at(g->key_kron, q);
	const uint64_t t0 = g->thr[0], t1 = g->thr[1], t2 = g->thr[2];
	for (int l = 0; l < g->scale; l += 2) {
		uint64_t x = rmat_level_bits(&s), y0 = x & 0xffffffffULL, y1 = x >> 32;
		/* quadrant 0..3 = (0,0) (0,1) (1,0) (1,1) with probabilities A, B, C, D */
		uint64_t q0 = (uint64_t)(y0 >= t0) + (y0 >= t1) + (y0 >= t2);
		uint64_t q1 = (uint64_t)(y1 >= t0) + (y1 >= t1) + (y1 >= t2);
		a |= (q0 >> 1) << l | (q1 >> 1) << (l + 1);
		b |= (q0 & 1) << l | (q1 & 1) << (l + 1);
	}
	/* an odd scale drew one level too many */
	const uint64_t mask = (UINT64_C(1) << g->scale) - 1;
	a &= mask;
	b &= mask;
	*u = a;
	*v = b;
}

/* The vertex relabelling sigma, a bijection of [0, 2^scale). */
uint64_t rmat_relabel(const rmat *g, uint64_t x);
/* The tuple order pi, a bijection of [0, num_edges): row p holds sample pi(p). */
uint64_t rmat_order(const rmat *g, uint64_t p);
/* Rows [row0, row0 + n) of /edges into out[2n] (OpenMP-parallel). */
/* Rows [row0, row0 + n) of /edges into out[2n] (OpenMP-parallel); returns
 * their share of the edge-file fingerprint (sum of b2_fp_tuple). */
uint64_t rmat_fill(const rmat *g, uint64_t row0, uint64_t n, int64_t *out);

#endif
