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
	uint64_t thr[3];         /* y < thr[i] <=> y / 2^32 < A, A+B, A+B+C (y: 32 random bits) */
	uint64_t relabel_mul[3], relabel_add[3];
	uint64_t perm_key[4];    /* Feistel round keys for the tuple order */
	int perm_half_bits;      /* the permutation works on 2*half bits */
} rmat;

/* Fills derived fields; returns B2_EUSAGE with a message for bad parameters. */
int rmat_setup(rmat *g, int scale, uint64_t edgefactor, uint64_t seed, const double init[4], int relabel);

/* The vertex relabelling sigma, a bijection of [0, 2^scale). */
uint64_t rmat_relabel(const rmat *g, uint64_t x);
/* The tuple order pi, a bijection of [0, num_edges): row p holds sample pi(p). */
uint64_t rmat_order(const rmat *g, uint64_t p);
/* Rows [row0, row0 + n) of /edges into out[2n] (OpenMP-parallel). */
/* Rows [row0, row0 + n) of /edges into out[2n] (OpenMP-parallel, and
 * vectorized across rows); returns their share of the edge-file fingerprint
 * (sum of b2_fp_tuple). */
uint64_t rmat_fill(const rmat *g, uint64_t row0, uint64_t n, int64_t *out);

#endif
