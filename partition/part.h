/* part.h — partition2d's shared state: reading and routing (route.c), the
 * owners' sort/deduplicate/spill/merge into CSC (csc.c), output (main.c).
 *
 * Units of work: grid block p is cut into k pieces of w = ceil(b*R / k)
 * local columns (k = 1 unless there are fewer blocks than ranks: then
 * k = P / gcd(R*C, P), so every rank gets work); unit u = p*k + q is handled
 * by rank u mod P. A rank's units, in order, form one "virtual" CSC of NC
 * columns: unit slot s starts at virtual column s_base[s]. An edge travelling
 * to its owner is the 64-bit key (virtual column << rowbits) | local row, so
 * that sorting keys sorts by (unit, column, row) at once. */
#ifndef PARTITION_PART_H
#define PARTITION_PART_H

#include <stdint.h>
#include <hdf5.h>
#include "b2.h"

/* x / d and x mod d for a fixed d: a multiply by floor(2^64/d) gives the
 * quotient or up to two less; the remainder check corrects it. */
typedef struct fdiv {
	uint64_t d, m;
	int shift; /* >= 0: d is 2^shift */
} fdiv;

static inline void fdiv_init(fdiv *f, uint64_t d)
{
	f->d = d;
	f->shift = -1;
	f->m = 0;
	if ((d & (d - 1)) == 0) {
		f->shift = __builtin_ctzll(d);
	} else {
		f->m = UINT64_MAX / d;
	}
}

static inline uint64_t fdiv_qr(const fdiv *f, uint64_t x, uint64_t *r)
{
	if (f->shift >= 0) {
		*r = x & (f->d - 1);
		return x >> f->shift;
	}
	uint64_t q = (uint64_t)(((unsigned __int128)x * f->m) >> 64);
	uint64_t rr = x - q * f->d;
	while (rr >= f->d) {
		q++;
		rr -= f->d;
	}
	*r = rr;
	return q;
}

typedef struct part {
	/* problem */
	int R, C;
	int64_t N, M;
	uint64_t b, bR, bC, RC;
	int P, me;
	uint64_t k, w;       /* pieces per block, columns per piece */
	uint64_t nunits;     /* R*C*k */
	fdiv div_w;          /* c / w */
	uint64_t nslots, NC; /* my units; columns of my virtual CSC */
	uint64_t *s_lo, *s_width, *s_base; /* [nslots]: piece's first local column, width, virtual base */
	int rowbits;
	fdiv div_b;          /* x / b */
	uint64_t *blk_q;     /* optional tables over blocks t < RC: t / R, t mod R */
	uint32_t *blk_r;
	uint64_t *u_base;    /* optional tables over units: virtual base on its owner, */
	uint32_t *u_dest;    /* and the owner */
	/* budget */
	uint64_t mem;        /* bytes per rank */
	int mem_given;       /* by --mem (messages name it only then) */
	uint64_t S;          /* keys the store holds */
	uint64_t T;          /* tuples read per rank per round */
	/* owner state */
	uint64_t *keys, nkeys; /* received, not yet sorted */
	uint64_t *tmp;       /* [S]: the radix sort's second buffer */
	int colbits;         /* bits of a key above rowbits */
	uint64_t *deg;       /* [NC]: edges per column before deduplication */
	uint64_t *cp;        /* [NC+1]: column pointers of the final virtual CSC */
	uint32_t *rows;      /* final rows, when they fit in memory */
	uint64_t nrows;      /* final number of rows (deduplicated) */
	int spill_fd;        /* sorted runs (unlinked file) */
	int rows_fd;         /* final rows when runs were merged (unlinked file) */
	uint64_t *run_off, *run_len; /* in keys */
	int nruns, run_cap;
	uint64_t spill_bytes;
	char spill_prefix[4096];
	/* counters */
	uint64_t fp, loops, read_tuples;
	double t_read, t_route, t_sort, t_merge, t_write;
	const char *edges_path, *out_path;
} part;

/* route.c: reads this rank's share of /edges and routes every directed edge
 * to its owner; collective. */
int part_route(part *pt, hid_t edges);
/* csc.c */
int part_store_alloc(part *pt);
int part_spill(part *pt);     /* sorts the store into a run on disk */
int part_finalize(part *pt);  /* builds the final CSC (in memory or merged) */
int part_rows_read(const part *pt, uint32_t *buf, uint64_t off, uint64_t n);
void part_free(part *pt);
int part_open_tmp(int *fd, const part *pt, const char *what);

#endif
