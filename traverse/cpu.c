/* cpu.c — the OpenMP backend: the same algorithm, arrays and messages as the
 * CUDA backend (traverse/cuda/), with loops in place of kernels, so that the whole
 * pipeline runs and is tested on machines without a GPU. Top-down, the
 * visited bitmap is tested, then set with an atomic or: the first setter
 * wins. Bottom-up, each word of the visited bitmap (32 local rows) belongs
 * to one thread, which scans its unvisited rows' neighbours in the local
 * CSR for one in the column frontier bitmap. */
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "backend.h"
#include "compact.h"
#include "transpose.h"

typedef struct cpu_bk {
	b2_graph g;
	b2_bkopts o;
	int64_t b, bw, nr, nc, slotw;
	uint32_t *vis;      /* [nr/32] visited bitmap over all local rows */
	uint32_t *carried;  /* [nr/32] rows the row peers carried (found themselves) */
	int32_t *level;     /* [b] owned vertices */
	uint32_t *pred;     /* [nr] local column, or B2_PRED_REMOTE | sender column */
	uint32_t *front;    /* [b] own frontier (k) */
	int64_t nfront;
	int step_dir;       /* the last step's direction (B2_TOP_DOWN, B2_BOTTOM_UP) */
	int preds;          /* how the predecessors are resolved (B2_PREDS_) */
	uint32_t *dst;      /* [C][b] outgoing fold lists (slot j unused) */
	uint32_t *bmp;      /* [C][bw+1] outgoing bitmaps; slot j: the frontier */
	int64_t *cnt;       /* [C] */
	int64_t *nreq;      /* [C] predecessor requests to each row peer */
	uint32_t *allfront; /* [nc] local columns to expand */
	uint32_t *colmask;  /* [nc/32] sorts allfront (sequential CSC reads) */
	int64_t *pred64;    /* [b] */
	uint32_t *ans;      /* [C][b] answers to the row peers' predecessor requests */
	b2_msg *in;         /* staged messages, [max(R,C)] */
	int nin, self;
	/* bottom-up: the local block row-major, the column frontier as a
	 * bitmap over local columns, the owners' visited blocks */
	uint64_t *row_ptr;  /* [nr + 1] */
	uint32_t *col_idx;  /* [nnz] local columns, the hubs first (transpose.h) */
	/* a block given row-major (b2_graph.rowmajor): the CSC is made here
	 * from g's rows, and the rows again from it */
	uint64_t *csc_ptr;
	uint32_t *csc_idx;
	uint32_t *fcol;     /* [nc/32] */
	uint32_t *nzrow;    /* [nr/32] rows with a local edge */
	uint32_t *vsend, *vrecv; /* [bw], [C][bw] */
	/* compact bitmaps (compact.h): the column's masks as the run began
	 * and as the search has left them, [R][bw] each; one mask's words'
	 * bit offsets, [bw]; [R][bw + 1]: the peers' unpacked, slot i the own
	 * packed */
	uint32_t *cmask0, *cmask, *coff, *cbuf;
} cpu_bk;

static int cpu_host_alloc(void *out, size_t bytes, const char *what)
{
	return b2_alloc(out, bytes, what);
}
static void cpu_host_free(void *p) { free(p); }

static void cpu_destroy(void *p)
{
	cpu_bk *k = p;
	if (!k)
		return;
	free(k->vis); free(k->carried); free(k->level); free(k->pred); free(k->front); free(k->dst);
	free(k->bmp); free(k->cnt); free(k->allfront); free(k->colmask); free(k->pred64); free(k->in);
	free(k->row_ptr);
	free(k->col_idx);
	free(k->csc_ptr); free(k->csc_idx); free(k->fcol); free(k->vsend); free(k->vrecv);
	free(k->nzrow); free(k->ans); free(k->nreq);
	free(k->cmask0); free(k->cmask); free(k->coff); free(k->cbuf);
	free(k);
}

/* The local block's CSC in k->g (made from the rows where they were
 * given) and, for bottom-up steps, its rows (CSR) with the hubs first in
 * row_ptr and col_idx: the same rows whichever way the block came. */
static int orientations(cpu_bk *k, const b2_graph *g, int rows)
{
	int error = 0;
	if (g->rowmajor) {
		B2_TRY(b2_transpose(g->col_ptr, g->row_idx, g->nnz, k->nr, k->nc, &k->csc_ptr, &k->csc_idx,
		                    "the local block (CSC)"));
		k->g.col_ptr = k->csc_ptr;
		k->g.row_idx = k->csc_idx;
	}
	if (rows)
		B2_TRY(b2_rows_hubs_first(k->g.col_ptr, k->g.row_idx, g->nnz, k->nc, k->nr, &k->row_ptr,
		                          &k->col_idx, "bottom-up rows (CSR)"));
done:
	return error;
}

/* Rows without a local edge can never find a parent here: bottom-up steps
 * skip them by the word. */
static int nonempty_rows(cpu_bk *k)
{
	int error = 0;
	B2_TRY(b2_calloc(&k->nzrow, (size_t)b2_bmp_words(k->nr), 4, "bottom-up rows (CSR)"));
	for (int64_t r = 0; r < k->nr; r++)
		if (k->row_ptr[r + 1] > k->row_ptr[r])
			k->nzrow[r >> 5] |= 1u << (r & 31);
done:
	return error;
}

static int cpu_create(void **out, const b2_graph *g, const b2_bkopts *o)
{
	int error = 0;
	cpu_bk *k = NULL;
	B2_TRY(b2_calloc(&k, 1, sizeof *k, "CPU backend"));
	k->g = *g;
	k->o = *o;
	b2_geometry(g, &k->b, &k->bw, &k->nr, &k->nc, &k->slotw);
	int nslots = g->R > g->C ? g->R : g->C;
	B2_TRY(b2_calloc(&k->vis, (size_t)b2_bmp_words(k->nr), 4, "visited bitmap"));
	if (g->C > 1)
		B2_TRY(b2_calloc(&k->carried, (size_t)b2_bmp_words(k->nr), 4, "carried rows"));
	B2_TRY(b2_calloc(&k->level, (size_t)k->b, 4, "levels"));
	B2_TRY(b2_calloc(&k->pred, (size_t)k->nr, 4, "predecessors"));
	B2_TRY(b2_calloc(&k->front, (size_t)k->b, 4, "frontier"));
	B2_TRY(b2_calloc(&k->dst, (size_t)k->nr, 4, "fold lists"));
	if (g->C > 1)
		B2_TRY(b2_alloc(&k->ans, (size_t)k->nr * 4, "predecessor answers"));
	B2_TRY(b2_calloc(&k->bmp, (size_t)g->C * (size_t)(k->bw + 1), 4, "bitmaps"));
	B2_TRY(b2_calloc(&k->cnt, (size_t)g->C, 8, "counters"));
	B2_TRY(b2_calloc(&k->nreq, (size_t)g->C, 8, "counters"));
	B2_TRY(b2_calloc(&k->allfront, (size_t)k->nc, 4, "expanded frontier"));
	B2_TRY(b2_calloc(&k->colmask, (size_t)b2_bmp_words(k->nc), 4, "expanded frontier"));
	B2_TRY(b2_calloc(&k->pred64, (size_t)k->b, 8, "predecessors"));
	B2_TRY(b2_calloc(&k->in, (size_t)nslots, sizeof *k->in, "messages"));
	B2_TRY(orientations(k, g, o->bottom_up));
	if (o->bottom_up) {
		B2_TRY(nonempty_rows(k));
		B2_TRY(b2_calloc(&k->fcol, (size_t)b2_bmp_words(k->nc), 4, "column frontier"));
		B2_TRY(b2_calloc(&k->vsend, (size_t)k->bw, 4, "visited blocks"));
		B2_TRY(b2_calloc(&k->vrecv, (size_t)g->C * (size_t)k->bw, 4, "visited blocks"));
	}
	*out = k;
	k = NULL;
done:
	cpu_destroy(k);
	return error;
}

static int cpu_begin(void *p, int64_t root_k)
{
	cpu_bk *k = p;
	memset(k->vis, 0, (size_t)b2_bmp_words(k->nr) * 4);
	if (k->carried)
		memset(k->carried, 0, (size_t)b2_bmp_words(k->nr) * 4);
	for (int64_t x = 0; x < k->b; x++)
		k->level[x] = -1;
	memset(k->pred64, 0xff, (size_t)k->b * 8); /* -1: unreached */
	k->nfront = 0;
	if (k->cmask)
		memcpy(k->cmask, k->cmask0, (size_t)k->g.R * (size_t)k->bw * 4);
	if (k->o.pack_front)
		memset(k->bmp + (size_t)k->g.j * (size_t)(k->bw + 1), 0, (size_t)k->bw * 4);
	if (root_k >= 0) {
		int64_t r = (int64_t)k->g.j * k->b + root_k;
		k->vis[r >> 5] |= 1u << (r & 31);
		k->level[root_k] = 0;
		k->pred64[root_k] = ((int64_t)k->g.j * k->g.R + k->g.i) * k->b + root_k;
		k->front[0] = (uint32_t)root_k;
		k->nfront = 1;
		if (k->o.pack_front)
			k->bmp[(size_t)k->g.j * (size_t)(k->bw + 1) + (size_t)(root_k >> 5)] |=
				1u << (root_k & 31);
	}
	return 0;
}

static int cpu_compact_masks(void *p, const uint32_t *masks)
{
	int error = 0;
	cpu_bk *k = p;
	const size_t n = (size_t)k->g.R * (size_t)k->bw;
	B2_TRY(b2_alloc(&k->cmask0, n * 4, "compact bitmap masks"));
	B2_TRY(b2_alloc(&k->cmask, n * 4, "compact bitmap masks"));
	B2_TRY(b2_alloc(&k->coff, (size_t)k->bw * 4, "compact bitmap offsets"));
	B2_TRY(b2_calloc(&k->cbuf, (size_t)k->g.R * (size_t)(k->bw + 1), 4, "compact bitmaps"));
	memcpy(k->cmask0, masks, n * 4);
done:
	return error;
}

/* Block q's mask loses the vertices of message m (a list or a bitmap):
 * every column peer takes a frontier from its copy as the sender does. */
static void mask_drop(cpu_bk *k, const b2_msg *m, int q)
{
	uint32_t *mask = k->cmask + q * k->bw;
	if (m->bitmap)
		for (int64_t w = 0; w < k->bw; w++)
			mask[w] &= ~m->data[w];
	else
		for (int64_t x = 0; x < m->count; x++)
			mask[m->data[x] >> 5] &= ~(1u << (m->data[x] & 31));
}

/* Bitmap f of the own block (grid row i) as a compact bitmap into m, or 0
 * where f has a vertex its mask lacks. */
static int compact_pack(cpu_bk *k, const uint32_t *f, b2_msg *m)
{
	const uint32_t *mask = k->cmask + k->g.i * k->bw, *off = k->coff;
	const int64_t cw = b2_bmp_words((int64_t)b2_compact_offsets(mask, k->bw, k->coff));
	uint32_t *out = k->cbuf + k->g.i * (k->bw + 1);
	memset(out, 0, (size_t)cw * 4);
	for (int64_t w = 0; w < k->bw; w++) {
		if (f[w] & ~mask[w])
			return 0;
		const uint64_t v = b2_bits_gather(f[w], mask[w]);
		const unsigned sh = off[w] & 31;
		out[off[w] >> 5] |= (uint32_t)(v << sh);
		if (sh + __builtin_popcount(mask[w]) > 32)
			out[(off[w] >> 5) + 1] |= (uint32_t)(v >> (32 - sh));
	}
	out[cw] = (uint32_t)k->nfront;
	*m = (b2_msg){out, k->nfront, B2_MSG_COMPACT, cw + 1};
	return 1;
}

/* Host memory only: no device transport serves a backend without device
 * operations. */
static int cpu_front_msg(void *p, int form, b2_msg *m)
{
	cpu_bk *k = p;
	uint32_t *bmp = k->bmp + (size_t)k->g.j * (size_t)(k->bw + 1);
	*m = (b2_msg){k->front, k->nfront, B2_MSG_LIST, 0};
	if (form != B2_MSG_LIST && !(form == B2_MSG_COMPACT && k->cmask && compact_pack(k, bmp, m))) {
		*m = (b2_msg){bmp, k->nfront, B2_MSG_BITMAP, 0};
		bmp[k->bw] = (uint32_t)k->nfront;
	}
	if (k->cmask) { /* the column peers take it from their copy of the mask */
		const b2_msg own = {k->front, k->nfront, B2_MSG_LIST, 0};
		mask_drop(k, &own, k->g.i);
	}
	return 0;
}

/* Compact bitmap m from column peer q, unpacked into out (bw + 1 words),
 * its vertices leaving q's mask on the way (mask_drop's). */
static void compact_unpack(cpu_bk *k, const b2_msg *m, int q, uint32_t *out)
{
	uint32_t *mask = k->cmask + q * k->bw;
	const uint32_t *off = k->coff;
	b2_compact_offsets(mask, k->bw, k->coff);
	for (int64_t w = 0; w < k->bw; w++) {
		out[w] = b2_bits_scatter(b2_bits_read(m->data, off[w], (unsigned)__builtin_popcount(mask[w])),
		                         mask[w]);
		mask[w] &= ~out[w];
	}
	out[k->bw] = (uint32_t)m->count;
}

static int cpu_stage_in(void *p, int dir, const b2_msg *in, int nslots, int self)
{
	cpu_bk *k = p;
	for (int s = 0; s < nslots; s++) {
		k->in[s] = in[s];
		if (dir != B2_DIR_EXPAND || s == self)
			continue;
		if (in[s].bitmap == B2_MSG_COMPACT) {
			if (!k->cmask)
				return b2_err(B2_EFAIL, "internal: a compact bitmap without the masks");
			uint32_t *out = k->cbuf + (size_t)s * (size_t)(k->bw + 1);
			compact_unpack(k, &in[s], s, out);
			k->in[s] = (b2_msg){out, in[s].count, B2_MSG_BITMAP, 0};
		} else if (k->cmask) {
			mask_drop(k, &k->in[s], s);
		}
	}
	k->nin = nslots;
	k->self = self;
	return 0;
}

/* Appends the k of message m, plus offset, to out; returns the count. */
static int64_t unpack(uint32_t *out, const b2_msg *m, int64_t bw, uint32_t offset)
{
	int64_t n = 0;
	if (!m->bitmap) {
		for (int64_t x = 0; x < m->count; x++)
			out[x] = m->data[x] + offset;
		return m->count;
	}
	for (int64_t w = 0; w < bw; w++) {
		uint32_t word = m->data[w];
		while (word) {
			int bit = __builtin_ctz(word);
			word &= word - 1;
			out[n++] = (uint32_t)(w * 32 + bit) + offset;
		}
	}
	return n;
}

/* First setter of row r's visited bit? */
static inline int visit(uint32_t *vis, uint32_t r)
{
	uint32_t m = 1u << (r & 31);
	if (__atomic_load_n(&vis[r >> 5], __ATOMIC_RELAXED) & m)
		return 0;
	return !(__atomic_fetch_or(&vis[r >> 5], m, __ATOMIC_RELAXED) & m);
}

/* What a step writes, shared by its threads. */
typedef struct step {
	uint32_t *pred, *front, *dst, *bmp;
	int32_t *level;
	int64_t *cnt, *pred64;
	int64_t colbase;     /* global id of local column 0: j*b*R */
	int64_t b, bw, cap;
	int j, lvl, pack_front, pack_fold;
} step;

/* A thread's new own-frontier vertices, appended to the shared list in
 * batches: one atomic per batch, not one per vertex (gapbs's queue
 * buffers do the same). */
enum { QBATCH = 512 };
typedef struct tqueue {
	uint32_t v[QBATCH];
	int n;
} tqueue;

static void tq_flush(const step *st, tqueue *q)
{
	if (!q->n)
		return;
	int64_t off = __atomic_fetch_add(&st->cnt[st->j], q->n, __ATOMIC_RELAXED);
	memcpy(st->front + off, q->v, (size_t)q->n * 4);
	q->n = 0;
}

static inline void tq_push(const step *st, tqueue *q, uint32_t kk)
{
	q->v[q->n++] = kk;
	if (q->n == QBATCH)
		tq_flush(st, q);
}

/* A first visit of row r from local column u: predecessor, level (own
 * rows), the destination column's list and bitmap. */
static inline void discover(const step *st, tqueue *q, uint32_t r, uint32_t u)
{
	st->pred[r] = u;
	int c = (int)(r / (uint64_t)st->b);
	uint32_t kk = r - (uint32_t)(c * st->b);
	if (c == st->j) {
		/* an own vertex found from a local column: its global predecessor
		 * now, so that resolution has only the fold's to do */
		st->level[kk] = st->lvl;
		st->pred64[kk] = st->colbase + u;
		tq_push(st, q, kk);
	} else {
		int64_t off = __atomic_fetch_add(&st->cnt[c], 1, __ATOMIC_RELAXED);
		if (off < st->cap)
			st->dst[(size_t)c * (size_t)st->b + (size_t)off] = kk;
	}
	if (c == st->j ? st->pack_front : st->pack_fold)
		__atomic_fetch_or(&st->bmp[(size_t)c * (size_t)(st->bw + 1) + (kk >> 5)], 1u << (kk & 31),
		                  __ATOMIC_RELAXED);
}

static step step_of(cpu_bk *k, int lvl)
{
	return (step){.pred = k->pred, .front = k->front, .dst = k->dst, .bmp = k->bmp,
	              .level = k->level, .cnt = k->cnt, .pred64 = k->pred64,
	              .colbase = (int64_t)k->g.j * k->b * k->g.R, .b = k->b, .bw = k->bw,
	              .cap = k->o.fold_cap, .j = k->g.j, .lvl = lvl,
	              .pack_front = k->o.pack_front, .pack_fold = k->o.pack_fold};
}

/* dst's bits [at, at + 32*nw) |= the nw words of src (at need not be a
 * multiple of 32; the bits past src's block must be 0). */
static void or_shifted(uint32_t *dst, const uint32_t *src, int64_t nw, int64_t at)
{
	const int sh = (int)(at & 31);
	uint32_t *d = dst + (at >> 5);
	for (int64_t x = 0; x < nw; x++) {
		uint32_t w = src[x];
		if (!w)
			continue;
		d[x] |= w << sh;
		/* only real bits cross into the next word: none past dst's end */
		if (sh && w >> (32 - sh))
			d[x + 1] |= w >> (32 - sh);
	}
}

/* Bits [at, at + n) of src (srcw words) into dst[0 ..): the inverse of
 * or_shifted. */
static void get_shifted(uint32_t *dst, const uint32_t *src, int64_t srcw, int64_t n, int64_t at)
{
	const int sh = (int)(at & 31);
	const int64_t nw = b2_bmp_words(n), w0 = at >> 5;
	for (int64_t x = 0; x < nw; x++) {
		uint32_t hi = sh && w0 + x + 1 < srcw ? src[w0 + x + 1] << (32 - sh) : 0;
		dst[x] = (src[w0 + x] >> sh) | hi;
	}
	if (n & 31)
		dst[nw - 1] &= (1u << (n & 31)) - 1;
}

static int cpu_visited_bufs(void *p, uint32_t **send, uint32_t **recv)
{
	cpu_bk *k = p;
	get_shifted(k->vsend, k->vis, b2_bmp_words(k->nr), k->b, (int64_t)k->g.j * k->b);
	*send = k->vsend;
	*recv = k->vrecv;
	return 0;
}

static int cpu_visited_in(void *p, const uint32_t *recv)
{
	cpu_bk *k = p;
	for (int c = 0; c < k->g.C; c++)
		if (c != k->g.j)
			or_shifted(k->vis, recv + (size_t)c * (size_t)k->bw, k->bw, (int64_t)c * k->b);
	return 0;
}

/* Clears the level's discovery bitmaps (the frontier's and the fold's). */
static void clear_discoveries(cpu_bk *k)
{
	memset(k->cnt, 0, (size_t)k->g.C * 8);
	for (int c = 0; c < k->g.C; c++)
		if (c == k->g.j ? k->o.pack_front : k->o.pack_fold)
			memset(k->bmp + (size_t)c * (size_t)(k->bw + 1), 0, (size_t)k->bw * 4);
}

static int64_t top_down(cpu_bk *k, int lvl)
{
	const int64_t b = k->b, bw = k->bw;
	/* gather the column's frontier: own vertices first, then the peers' */
	int64_t n = unpack(k->allfront, &(b2_msg){k->front, k->nfront, 0, 0}, bw,
	                   (uint32_t)(k->g.i * b));
	for (int s = 0; s < k->nin; s++)
		if (s != k->self)
			n += unpack(k->allfront + n, &k->in[s], bw, (uint32_t)(s * b));
	/* a big frontier is put in column order through a bitmap, so that the
	 * CSC is read front to back (the GPU does not need this) */
	if (n > k->nc / 64) {
		int64_t cw = b2_bmp_words(k->nc), m = 0;
		memset(k->colmask, 0, (size_t)cw * 4);
		for (int64_t x = 0; x < n; x++)
			k->colmask[k->allfront[x] >> 5] |= 1u << (k->allfront[x] & 31);
		for (int64_t w = 0; w < cw; w++)
			for (uint32_t word = k->colmask[w]; word; word &= word - 1)
				k->allfront[m++] = (uint32_t)(w * 32 + __builtin_ctz(word));
	}
	clear_discoveries(k);
	const uint64_t *restrict col_ptr = k->g.col_ptr;
	const uint32_t *restrict row_idx = k->g.row_idx;
	const uint32_t *restrict allfront = k->allfront;
	uint32_t *vis = k->vis;
	const step st = step_of(k, lvl);
	int64_t examined = 0;
#pragma omp parallel reduction(+ : examined)
	{
		tqueue q = {.n = 0};
#pragma omp for schedule(dynamic, 64) nowait
		for (int64_t x = 0; x < n; x++) {
			const uint32_t u = allfront[x];
			const uint64_t end = col_ptr[u + 1];
			examined += (int64_t)(end - col_ptr[u]);
			for (uint64_t e = col_ptr[u]; e < end; e++) {
				const uint32_t r = row_idx[e];
				/* test first: most edges lead to visited rows */
				if (__atomic_load_n(&vis[r >> 5], __ATOMIC_RELAXED) & (1u << (r & 31)))
					continue;
				if (visit(vis, r))
					discover(&st, &q, r, u);
			}
		}
		tq_flush(&st, &q);
	}
	return examined;
}

/* Beamer's bottom-up step in the 2D block: the column frontier becomes a
 * bitmap over local columns; a thread owns a word of the visited bitmap, so
 * it sets the word's new bits without an atomic (and reads its next word's
 * only: the words of a chunk are one thread's). */
enum { BU_CHUNK = 256 }; /* visited words a thread takes at a time */

static int64_t bottom_up(cpu_bk *k, int lvl)
{
	const int64_t b = k->b, bw = k->bw, nr = k->nr;
	uint32_t *restrict fcol = k->fcol;
	memset(fcol, 0, (size_t)b2_bmp_words(k->nc) * 4);
	for (int64_t x = 0; x < k->nfront; x++) {
		uint32_t u = (uint32_t)(k->g.i * b) + k->front[x];
		fcol[u >> 5] |= 1u << (u & 31);
	}
	for (int s = 0; s < k->nin; s++) {
		const b2_msg *m = &k->in[s];
		if (s == k->self || m->count == 0)
			continue;
		if (m->bitmap)
			or_shifted(fcol, m->data, bw, (int64_t)s * b);
		else
			for (int64_t x = 0; x < m->count; x++) {
				uint32_t u = (uint32_t)(s * b) + m->data[x];
				fcol[u >> 5] |= 1u << (u & 31);
			}
	}
	clear_discoveries(k);
	const uint64_t *restrict row_ptr = k->row_ptr;
	const uint32_t *restrict col_idx = k->col_idx, *restrict nzrow = k->nzrow;
	uint32_t *vis = k->vis;
	const step st = step_of(k, lvl);
	int64_t examined = 0;
	const int64_t nw = b2_bmp_words(nr), nchunk = (nw + BU_CHUNK - 1) / BU_CHUNK;
#pragma omp parallel reduction(+ : examined)
	{
		tqueue q = {.n = 0};
#pragma omp for schedule(dynamic, 1) nowait
		for (int64_t ch = 0; ch < nchunk; ch++) {
			const int64_t wend = (ch + 1) * BU_CHUNK < nw ? (ch + 1) * BU_CHUNK : nw;
			for (int64_t w = ch * BU_CHUNK; w < wend; w++) {
				/* a row's scan is a short dependent chain (row_ptr, col_idx,
				 * fcol) ended by an unpredictable branch, so the core does not
				 * overlap rows by itself: the next word's rows (this thread's)
				 * start loading their neighbours now. BU loop 30 % faster at
				 * scale 18 (PERFORMANCE.md). */
				if (w + 1 < wend)
					for (uint32_t t = ~vis[w + 1] & nzrow[w + 1]; t; t &= t - 1)
						__builtin_prefetch(&col_idx[row_ptr[(w + 1) * 32 + __builtin_ctz(t)]]);
				uint32_t todo = ~vis[w] & nzrow[w], found = 0;
				for (; todo; todo &= todo - 1) {
					const int bit = __builtin_ctz(todo);
					const uint32_t r = (uint32_t)(w * 32 + bit);
					const uint64_t beg = row_ptr[r], end = row_ptr[r + 1];
					uint64_t e = beg;
					for (; e < end; e++) {
						const uint32_t u = col_idx[e];
						if (fcol[u >> 5] & (1u << (u & 31))) {
							found |= 1u << bit;
							discover(&st, &q, r, u);
							e++;
							break;
						}
					}
					examined += (int64_t)(e - beg);
				}
				if (found)
					vis[w] |= found;
			}
		}
		tq_flush(&st, &q);
	}
	return examined;
}

static int cpu_expand(void *p, const b2_step *s, int64_t *cnt_out, int64_t *examined)
{
	cpu_bk *k = p;
	*examined = s->dir == B2_BOTTOM_UP ? bottom_up(k, s->lvl) : top_down(k, s->lvl);
	k->step_dir = s->dir;
	k->nfront = k->cnt[k->g.j];
	memcpy(cnt_out, k->cnt, (size_t)k->g.C * 8);
	return 0;
}

static int cpu_fold_msgs(void *p, const int *use_bitmap, b2_msg *out)
{
	cpu_bk *k = p;
	for (int c = 0; c < k->g.C; c++) {
		const int own = c == k->g.j;
		out[c].count = k->cnt[c];
		/* own discoveries: the step's frontier list, or its bitmap */
		out[c].bitmap = use_bitmap[c] > 0 && (!own || k->o.pack_front);
		if (own && use_bitmap[c] < 0)
			out[c].data = NULL;
		else if (out[c].bitmap) {
			out[c].data = k->bmp + (size_t)c * (size_t)(k->bw + 1);
			out[c].data[k->bw] = (uint32_t)k->cnt[c];
		} else
			out[c].data = own ? k->front : k->dst + (size_t)c * (size_t)k->b;
	}
	return 0;
}

static int cpu_carry_in(void *p, const b2_msg *m, int c)
{
	cpu_bk *k = p;
	const int64_t at = (int64_t)c * k->b;
	/* visited, and the owner's own find: no answer is due for it
	 * (cpu_pred_answers without requests) */
	if (m->bitmap) {
		or_shifted(k->vis, m->data, k->bw, at);
		or_shifted(k->carried, m->data, k->bw, at);
	} else
		for (int64_t x = 0; x < m->count; x++) {
			const int64_t r = at + m->data[x];
			k->vis[r >> 5] |= 1u << (r & 31);
			k->carried[r >> 5] |= 1u << (r & 31);
		}
	return 0;
}

static int cpu_update(void *p, int lvl, b2_level_stats *st)
{
	cpu_bk *k = p;
	const int j = k->g.j;
	const int64_t b = k->b, bw = k->bw;
	uint32_t *fbmp = k->bmp + (size_t)j * (size_t)(bw + 1);
	for (int s = 0; s < k->nin; s++) {
		if (s == k->self)
			continue;
		/* unpack into the (now free) gather area, then one pass per vertex */
		int64_t n = unpack(k->allfront, &k->in[s], bw, 0);
		const uint32_t *list = k->allfront;
		const step sp = step_of(k, lvl);
#pragma omp parallel
		{
			tqueue q = {.n = 0};
#pragma omp for schedule(static) nowait
			for (int64_t x = 0; x < n; x++) {
				uint32_t kk = list[x], r = (uint32_t)(j * b) + kk;
				if (!visit(k->vis, r))
					continue;
				k->level[kk] = lvl;
				k->pred[r] = B2_PRED_REMOTE | (uint32_t)s;
				tq_push(&sp, &q, kk);
				if (k->o.pack_front)
					__atomic_fetch_or(&fbmp[kk >> 5], 1u << (kk & 31), __ATOMIC_RELAXED);
			}
			tq_flush(&sp, &q);
		}
	}
	k->nfront = k->cnt[j];
	int64_t deg = 0;
	/* the direction rule's edge count, unused after a bottom-up step */
	const int64_t nf = k->o.frontier_degree && k->step_dir == B2_TOP_DOWN ? k->nfront : 0;
#pragma omp parallel for reduction(+ : deg) if (nf > 4096)
	for (int64_t x = 0; x < nf; x++)
		deg += k->g.tdeg[k->front[x]];
	st->front = k->nfront;
	st->degree = deg;
	return 0;
}

/* Own vertices found locally, the root and the unreached already have their
 * global predecessor (discover, begin); left are those the fold brought,
 * whose provisional predecessor is the sender's grid column s: they are
 * requested from s (lists in dst, free after the levels). Answers only:
 * just the lists, the requests do not travel (s knows them). */
static int cpu_pred_requests(void *p, b2_msg *out)
{
	cpu_bk *k = p;
	const int64_t b = k->b;
	const int j = k->g.j;
	int64_t *n = k->nreq;
	memset(n, 0, (size_t)k->g.C * sizeof *n);
	for (int64_t x = 0; x < b; x++) {
		uint32_t q = k->pred[(size_t)j * (size_t)b + (size_t)x];
		if (k->level[x] > 0 && (q & B2_PRED_REMOTE)) {
			const uint32_t s = q & ~B2_PRED_REMOTE;
			k->dst[(size_t)s * (size_t)b + (size_t)n[s]++] = (uint32_t)x;
		}
	}
	for (int c = 0; c < k->g.C && k->preds != B2_PREDS_ANSWERS; c++)
		out[c] = (b2_msg){k->dst + (size_t)c * (size_t)b, n[c], 0, 0};
	return 0;
}

/* Peer c asks for the local columns recorded for rows c*b + k: the list
 * in[c], or (answers only) every row of c's block this rank found and c
 * did not (visited, not carried), in ascending order. */
static int cpu_pred_answers(void *p, const b2_msg *in, b2_msg *out)
{
	cpu_bk *k = p;
	const int64_t b = k->b;
	if (k->preds == B2_PREDS_ANSWERS)
		in = NULL;
	for (int c = 0; c < k->g.C; c++) {
		const uint32_t *pc = k->pred + (size_t)c * (size_t)b;
		uint32_t *a = k->ans + (size_t)c * (size_t)b;
		int64_t n = 0;
		if (c != k->g.j && !in)
			for (int64_t x = 0, r = c * b; x < b; x++, r++)
				if ((k->vis[r >> 5] & ~k->carried[r >> 5]) >> (r & 31) & 1)
					a[n++] = pc[x];
		if (c != k->g.j && in) {
			n = in[c].count;
#pragma omp parallel for schedule(static) if (n > 65536)
			for (int64_t x = 0; x < n; x++)
				a[x] = pc[in[c].data[x]];
		}
		out[c] = (b2_msg){a, n, 0, 0};
	}
	return 0;
}

/* The answers of row peer s: its grid column's columns start at s*b*R. */
static int cpu_pred_resolve(void *p, const b2_msg *in)
{
	cpu_bk *k = p;
	const int64_t b = k->b, R = k->g.R;
	if (k->preds == B2_PREDS_NONE) /* nothing came by the fold */
		return 0;
	for (int s = 0; s < k->g.C; s++) {
		const uint32_t *req = k->dst + (size_t)s * (size_t)b;
		const int64_t n = s == k->g.j ? 0 : in[s].count;
		if (s != k->g.j && n != k->nreq[s])
			return b2_err(B2_EFAIL, "internal: row peer %d answered %lld predecessors, "
			              "%lld were asked", s, (long long)n, (long long)k->nreq[s]);
#pragma omp parallel for schedule(static) if (n > 65536)
		for (int64_t x = 0; x < n; x++)
			k->pred64[req[x]] = s * b * R + in[s].data[x];
	}
	return 0;
}

static int cpu_pred(void *p, int64_t *out)
{
	cpu_bk *k = p;
	memcpy(out, k->pred64, (size_t)k->b * 8);
	return 0;
}

static int cpu_degree_sum(void *p, int64_t *sum)
{
	cpu_bk *k = p;
	int64_t s = 0;
	for (int64_t x = 0; x < k->b; x++)
		if (k->level[x] >= 0)
			s += k->g.tdeg[x];
	*sum = s;
	return 0;
}

static int cpu_configure(void *p, const b2_bkrun *run)
{
	cpu_bk *k = p;
	if (run->device_levels || run->preds == B2_PREDS_IN_PLACE)
		return b2_err(B2_EFAIL, "internal: the CPU backend has no device levels");
	k->preds = run->preds;
	return 0;
}

const b2_backend b2_cpu_backend = {
	.name = "cpu",
	.create = cpu_create,
	.destroy = cpu_destroy,
	.host_alloc = cpu_host_alloc,
	.host_free = cpu_host_free,
	.configure = cpu_configure,
	.begin = cpu_begin,
	.front_msg = cpu_front_msg,
	.stage_in = cpu_stage_in,
	.visited_bufs = cpu_visited_bufs,
	.visited_in = cpu_visited_in,
	.expand = cpu_expand,
	.fold_msgs = cpu_fold_msgs,
	.carry_in = cpu_carry_in,
	.update = cpu_update,
	.pred_requests = cpu_pred_requests,
	.pred_answers = cpu_pred_answers,
	.pred_resolve = cpu_pred_resolve,
	.pred = cpu_pred,
	.degree_sum = cpu_degree_sum,
	.compact_masks = cpu_compact_masks,
};
