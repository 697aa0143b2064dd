/* vgraph.c — bfs-validate: the distributed adjacency (set-up, once) and the
 * Graph500 checks of one search (validate.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "h5util.h"
#include "validate.h"

const char *const v_rule_names[V_NRULES + 1] = {
	"pass", "root", "range", "component", "tree", "tree_level", "edge_level", "tree_edge", "nedge",
};

#define LV_UNREACHED UINT32_MAX         /* pred -1 */
#define LV_BROKEN (UINT32_MAX - 1)      /* reached, but no level: not a rooted tree */
#define LV_PEND (UINT32_MAX - 2)        /* level not known yet (pointer jumping) */
#define LV_MAXLEVEL (UINT32_MAX - 3)

static int owner_of(const vgraph *g, uint64_t v) { return (int)(v / g->bs); }

static int bits_for(uint64_t x) /* bits to hold values 0..x */
{
	int b = 0;
	while (b < 64 && (x >> b) != 0)
		b++;
	return b ? b : 1;
}

/* LSD radix sort of keys with `bits` significant bits, 16 bits per pass.
 * Not common/'s b2_radix_sort: for these keys (about 40 bits) three wide
 * passes beat its four cache-sized ones; set-up at scale 20 on 2 ranks took
 * 0.95 s with this one and 1.48 s with that. */
static int radix_sort(uint64_t **keys, uint64_t n, int bits)
{
	int error = 0;
	uint64_t *tmp = NULL, *cnt = NULL;
	if (n < 2)
		return 0;
	B2_TRY(b2_alloc(&tmp, n * sizeof *tmp, "sorting the adjacency"));
	B2_TRY(b2_alloc(&cnt, 65536 * sizeof *cnt, "sorting the adjacency"));
	uint64_t *a = *keys, *b = tmp;
	for (int shift = 0; shift < bits; shift += 16) {
		memset(cnt, 0, 65536 * sizeof *cnt);
		for (uint64_t i = 0; i < n; i++)
			cnt[(a[i] >> shift) & 0xffff]++;
		uint64_t s = 0;
		for (int d = 0; d < 65536; d++) {
			uint64_t c = cnt[d];
			cnt[d] = s;
			s += c;
		}
		for (uint64_t i = 0; i < n; i++)
			b[cnt[(a[i] >> shift) & 0xffff]++] = a[i];
		uint64_t *t = a;
		a = b;
		b = t;
	}
	*keys = a;
	tmp = b; /* the other buffer is freed */
done:
	free(tmp);
	free(cnt);
	return error;
}

void vgraph_free(vgraph *g)
{
	free(g->ptr); free(g->gid); free(g->tix); free(g->slot); free(g->mult); free(g->tdeg);
	free(g->rcnt); free(g->rdsp); free(g->scnt); free(g->sdsp); free(g->sidx);
	memset(g, 0, sizeof *g);
}

/* Grows *buf (uint64) to hold at least need elements. */
static int reserve(uint64_t **buf, uint64_t *cap, uint64_t need)
{
	if (need <= *cap)
		return 0;
	uint64_t c = *cap ? *cap : 1024;
	while (c < need)
		c += c / 2 + 1024;
	void *p = realloc(*buf, c * sizeof **buf);
	if (!p)
		return b2_err(B2_EIO, "out of host memory: %llu bytes for the adjacency",
		              (unsigned long long)(c * sizeof **buf));
	*buf = p;
	*cap = c;
	return 0;
}

int vgraph_build(vgraph *g, hid_t file, const char *path, uint64_t n, uint64_t m, uint64_t read_rows)
{
	int error = 0, P = b2_nranks, me = b2_rank;
	hid_t dset = -1;
	int64_t *rows = NULL;
	uint64_t *sbuf = NULL, *keys = NULL, kcap = 0, nkeys = 0, *bitmap = NULL;
	uint32_t *grank = NULL, *ghosts = NULL;
	int *scount = NULL, *sdispl = NULL, *rcount = NULL, *rdispl = NULL;
	memset(g, 0, sizeof *g);
	g->n = n;
	g->m = m;
	g->bs = n ? (n + (uint64_t)P - 1) / (uint64_t)P : 1;
	g->lo = (uint64_t)me * g->bs;
	g->nloc = g->lo >= n ? 0 : (n - g->lo < g->bs ? n - g->lo : g->bs);
	if (g->lo >= n)
		g->lo = n;
	const int nb = bits_for(n ? n - 1 : 0);

	B2_TRY(b2_dset_open(&dset, file, "/edges", H5T_NATIVE_INT64, 2, 2, path));
	uint64_t drows;
	B2_TRY(b2_dset_rows(&drows, dset));
	if (drows != m)
		B2_FAIL0(B2_EDATA, "%s: /edges has %llu rows but num_edges says %llu", path,
		         (unsigned long long)drows, (unsigned long long)m);

	uint64_t r0, r1;
	b2_share(&r0, &r1, m, P, me);
	uint64_t rounds = (r1 - r0 + read_rows - 1) / read_rows, maxrounds = rounds;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&rounds, &maxrounds, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	B2_TRY(b2_alloc(&rows, 2 * read_rows * sizeof *rows, "reading /edges"));
	B2_TRY(b2_alloc(&sbuf, 2 * read_rows * sizeof *sbuf, "redistributing /edges"));
	B2_TRY(b2_calloc(&scount, (size_t)P, sizeof(int), "counts"));
	B2_TRY(b2_calloc(&sdispl, (size_t)P, sizeof(int), "counts"));
	B2_TRY(b2_calloc(&rcount, (size_t)P, sizeof(int), "counts"));
	B2_TRY(b2_calloc(&rdispl, (size_t)P, sizeof(int), "counts"));
	B2_TRY(reserve(&keys, &kcap, 2 * (m / (uint64_t)P) + (m / (uint64_t)P) / 8 + 1024));

	uint64_t fp = 0, loops = 0;
	b2_progress prog;
	b2_progress_begin(&prog, "reading edges", "tuples", (double)m);
	for (uint64_t rd = 0; rd < maxrounds; rd++) {
		uint64_t row0 = r0 + rd * read_rows, cnt = 0;
		if (row0 < r1)
			cnt = r1 - row0 < read_rows ? r1 - row0 : read_rows;
		else
			row0 = r0;
		error = b2_dset_read_rows(dset, H5T_NATIVE_INT64, row0, cnt, rows, P > 1);
		if (error)
			b2_err(B2_EDATA, "%s: cannot read /edges rows %llu..%llu (truncated file?)", path,
			       (unsigned long long)row0, (unsigned long long)(row0 + cnt));
		memset(scount, 0, (size_t)P * sizeof(int));
		for (uint64_t k = 0; k < cnt && !error; k++) {
			int64_t u = rows[2 * k], v = rows[2 * k + 1];
			if (u < 0 || v < 0 || (uint64_t)u >= n || (uint64_t)v >= n) {
				error = b2_err(B2_EDATA, "%s: /edges row %llu is (%lld, %lld): expected vertex ids "
				               "from 0 to %llu", path, (unsigned long long)(row0 + k),
				               (long long)u, (long long)v, (unsigned long long)(n - 1));
				break;
			}
			fp += b2_fp_tuple(row0 + k, u, v);
			if (u == v) {
				loops++;
				continue;
			}
			scount[owner_of(g, (uint64_t)u)]++;
			scount[owner_of(g, (uint64_t)v)]++;
		}
		error = b2_agree(error, MPI_COMM_WORLD);
		if (error)
			goto done;
		for (int r = 0, s = 0; r < P; r++) {
			sdispl[r] = s;
			s += scount[r];
		}
		for (uint64_t k = 0; k < cnt; k++) {
			uint64_t u = (uint64_t)rows[2 * k], v = (uint64_t)rows[2 * k + 1];
			if (u == v)
				continue;
			int ou = owner_of(g, u), ov = owner_of(g, v);
			sbuf[sdispl[ou]++] = ((u - (uint64_t)ou * g->bs) << nb) | v;
			sbuf[sdispl[ov]++] = ((v - (uint64_t)ov * g->bs) << nb) | u;
		}
		for (int r = 0, s = 0; r < P; r++) {
			sdispl[r] = s;
			s += scount[r];
		}
		B2_TRY(b2_mpi_ok(MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD),
		                 "MPI_Alltoall"));
		uint64_t rtot = 0;
		for (int r = 0; r < P; r++) {
			rdispl[r] = (int)rtot;
			rtot += (uint64_t)rcount[r];
		}
		if (rtot > INT_MAX)
			error = b2_err(B2_EIO, "internal: exchange of %llu tuple ends is too large for one "
			               "round; use a smaller --read-rows", (unsigned long long)rtot);
		if (!error)
			error = reserve(&keys, &kcap, nkeys + rtot);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		B2_TRY(b2_mpi_ok(MPI_Alltoallv(sbuf, scount, sdispl, MPI_UINT64_T, keys + nkeys, rcount,
		                               rdispl, MPI_UINT64_T, MPI_COMM_WORLD), "MPI_Alltoallv"));
		nkeys += rtot;
		b2_progress_step(&prog, (double)((rd + 1) * read_rows) * P);
	}
	b2_progress_end(&prog);
	free(rows); rows = NULL;
	free(sbuf); sbuf = NULL;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&fp, &g->fingerprint, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&loops, &g->selfloops, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));

	/* sort by (local vertex, neighbour), then compress runs into a CSR */
	error = radix_sort(&keys, nkeys, nb + bits_for(g->bs ? g->bs - 1 : 0));
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	uint64_t uniq = 0;
	for (uint64_t i = 0; i < nkeys; i++)
		if (i == 0 || keys[i] != keys[i - 1] || (i >= 65535 && keys[i] == keys[i - 65535]))
			uniq++; /* runs longer than 65535 split: an upper bound, fine for allocation */
	error = b2_calloc(&g->ptr, g->nloc + 1, sizeof *g->ptr, "row pointers");
	if (!error) error = b2_alloc(&g->gid, uniq * sizeof *g->gid, "the adjacency");
	if (!error) error = b2_alloc(&g->mult, uniq * sizeof *g->mult, "the adjacency");
	if (!error) error = b2_calloc(&g->tdeg, g->nloc, sizeof *g->tdeg, "degrees");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	const uint64_t vmask = (UINT64_C(1) << nb) - 1;
	uint64_t e = 0;
	for (uint64_t i = 0; i < nkeys; i++) {
		uint64_t a = keys[i] >> nb, v = keys[i] & vmask;
		g->tdeg[a]++;
		if (e > 0 && keys[i] == keys[i - 1] && g->mult[e - 1] < UINT16_MAX) {
			g->mult[e - 1]++;
			continue;
		}
		g->gid[e] = (uint32_t)v;
		g->mult[e] = 1;
		g->ptr[a + 1]++;
		e++;
	}
	for (uint64_t a = 0; a < g->nloc; a++)
		g->ptr[a + 1] += g->ptr[a];
	free(keys); keys = NULL;

	/* ghosts: remote neighbours, numbered in global-id order after own vertices */
	uint64_t words = (n + 63) / 64;
	error = b2_calloc(&bitmap, words + 1, sizeof *bitmap, "the ghost bitmap");
	if (!error) error = b2_alloc(&grank, (words + 1) * sizeof *grank, "the ghost directory");
	if (!error) error = b2_alloc(&g->tix, (e ? e : 1) * sizeof *g->tix, "the adjacency");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	const uint64_t hi = g->lo + g->nloc;
	for (uint64_t i = 0; i < e; i++) {
		uint64_t v = g->gid[i];
		if (v < g->lo || v >= hi)
			bitmap[v >> 6] |= UINT64_C(1) << (v & 63);
	}
	uint64_t ng = 0;
	for (uint64_t w = 0; w < words; w++) {
		grank[w] = (uint32_t)ng;
		ng += (uint64_t)__builtin_popcountll(bitmap[w]);
	}
	g->nghost = ng;
	if (ng > INT_MAX)
		error = b2_err(B2_EIO, "%llu remote neighbours on one rank: more than this program's "
		               "exchanges allow; run on more ranks", (unsigned long long)ng);
	if (!error)
		error = b2_alloc(&ghosts, (ng ? ng : 1) * sizeof *ghosts, "the ghost list");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	for (uint64_t w = 0, k = 0; w < words; w++)
		for (uint64_t x = bitmap[w]; x; x &= x - 1)
			ghosts[k++] = (uint32_t)(w * 64 + (uint64_t)__builtin_ctzll(x));
	for (uint64_t i = 0; i < e; i++) {
		uint64_t v = g->gid[i];
		if (v >= g->lo && v < hi)
			g->tix[i] = (uint32_t)(v - g->lo);
		else
			g->tix[i] = (uint32_t)(g->nloc + grank[v >> 6] +
			            (uint64_t)__builtin_popcountll(bitmap[v >> 6] & ((UINT64_C(1) << (v & 63)) - 1)));
	}
	free(bitmap); bitmap = NULL;
	free(grank); grank = NULL;

	/* hot ordering of the level table: most referenced slots first */
	{
		uint64_t ns = g->nloc + ng, *refs = NULL, *ord = NULL;
		error = b2_calloc(&refs, ns + 1, sizeof *refs, "ordering the level table");
		if (!error) error = b2_alloc(&ord, (ns + 1) * sizeof *ord, "ordering the level table");
		if (!error) error = b2_alloc(&g->slot, (ns + 1) * sizeof *g->slot, "the level table");
		if (!error) {
			uint64_t maxr = 0;
			for (uint64_t i = 0; i < e; i++)
				refs[g->tix[i]]++;
			for (uint64_t j = 0; j < ns; j++)
				maxr = refs[j] > maxr ? refs[j] : maxr;
			int sb = bits_for(ns);
			for (uint64_t j = 0; j < ns; j++)
				ord[j] = ((maxr - refs[j]) << sb) | j;
			error = radix_sort(&ord, ns, sb + bits_for(maxr));
			for (uint64_t r = 0; !error && r < ns; r++)
				g->slot[ord[r] & ((UINT64_C(1) << sb) - 1)] = (uint32_t)r;
			for (uint64_t i = 0; !error && i < e; i++)
				g->tix[i] = g->slot[g->tix[i]];
		}
		free(refs);
		free(ord);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	}

	/* the fixed exchange pattern: tell each owner which of its levels we need */
	error = b2_calloc(&g->rcnt, (size_t)P, sizeof(int), "counts");
	if (!error) error = b2_calloc(&g->rdsp, (size_t)P, sizeof(int), "counts");
	if (!error) error = b2_calloc(&g->scnt, (size_t)P, sizeof(int), "counts");
	if (!error) error = b2_calloc(&g->sdsp, (size_t)P, sizeof(int), "counts");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	for (uint64_t k = 0; k < ng; k++)
		g->rcnt[owner_of(g, ghosts[k])]++;
	for (int r = 0, s = 0; r < P; r++) {
		g->rdsp[r] = s;
		s += g->rcnt[r];
	}
	B2_TRY(b2_mpi_ok(MPI_Alltoall(g->rcnt, 1, MPI_INT, g->scnt, 1, MPI_INT, MPI_COMM_WORLD),
	                 "MPI_Alltoall"));
	uint64_t stot = 0;
	for (int r = 0; r < P; r++) {
		g->sdsp[r] = (int)stot;
		stot += (uint64_t)g->scnt[r];
	}
	error = stot > INT_MAX ? b2_err(B2_EIO, "too many levels to send from one rank; run on more ranks") : 0;
	if (!error)
		error = b2_alloc(&g->sidx, (stot ? stot : 1) * sizeof *g->sidx, "the exchange pattern");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_mpi_ok(MPI_Alltoallv(ghosts, g->rcnt, g->rdsp, MPI_UINT32_T, g->sidx, g->scnt, g->sdsp,
	                               MPI_UINT32_T, MPI_COMM_WORLD), "MPI_Alltoallv"));
	for (uint64_t k = 0; k < stot; k++)
		g->sidx[k] -= (uint32_t)g->lo;
	uint64_t nnz = e;
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&nnz, &g->nnz_total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
done:
	if (dset >= 0)
		H5Dclose(dset);
	free(rows); free(sbuf); free(keys); free(bitmap); free(grank); free(ghosts);
	free(scount); free(sdispl); free(rcount); free(rdispl);
	if (error)
		vgraph_free(g);
	return error;
}

/* ---- one search ---------------------------------------------------------- */

/* Pointer jumping: a pending vertex knows an ancestor `anc`, `dist` steps up. */
typedef struct jnode {
	uint32_t anc, dist;
} jnode;

/* What an owner tells about one of its vertices: its level or state, and
 * while pending its ancestor and distance. */
typedef struct jinfo {
	uint32_t lv, anc, dist;
} jinfo;

/* Vertex i learns its ancestor's jinfo: finishes, jumps, or breaks.
 * Returns 1 when i broke. */
static int apply_jump(uint32_t *tbl, jnode *J, uint64_t i, jinfo ji, uint64_t n)
{
	if (ji.lv <= LV_MAXLEVEL) {
		uint64_t l = (uint64_t)J[i].dist + ji.lv;
		tbl[i] = l > LV_MAXLEVEL ? LV_BROKEN : (uint32_t)l;
	} else if (ji.lv == LV_PEND) {
		uint64_t d = (uint64_t)J[i].dist + ji.dist;
		J[i].anc = ji.anc;
		J[i].dist = (uint32_t)d;
		if (d > n) /* longer than any path: a cycle */
			tbl[i] = LV_BROKEN;
	} else { /* the chain reaches an unreached or broken vertex */
		tbl[i] = LV_BROKEN;
	}
	return tbl[i] == LV_BROKEN;
}

#define L8_BROKEN 254
#define L8_UNREACHED 255
static inline uint8_t to8(uint32_t l)
{
	return l == LV_UNREACHED ? L8_UNREACHED : l > LV_MAXLEVEL ? L8_BROKEN : (uint8_t)l;
}

typedef struct scanout {
	int64_t ex_comp, ex_tl, ex_el, ex_te, sum_tdeg, cross;
} scanout;

/* First position in gid[b, end) (sorted) holding a value >= key. */
static inline uint64_t lower_bound(const uint32_t *gid, uint64_t b, uint64_t end, uint64_t key)
{
	while (b < end) {
		uint64_t m = b + (end - b) / 2;
		if (gid[m] < key)
			b = m + 1;
		else
			end = m;
	}
	return b;
}

/* One pass for rules 3, 5, 6, 7 and the sums for nedge. Each undirected edge
 * {v, w} is looked at once, in the row of its smaller end (the row's suffix
 * of neighbours > v: rows are sorted by global id), whether v is reached or
 * not. Rule 7 is a binary search of pred[v] in v's row; rule 5 needs v's
 * whole row only when that fails (if the parent is a neighbour, it is one
 * level up by construction of the levels). lvl: own vertices' levels; hot:
 * the level table in hot order (vgraph.slot). */
#define DEFINE_SCAN(NAME, T, UNR)                                                              \
static void NAME(scanout *o, const vgraph *g, const int64_t *pred, const T *lvl, const T *hot,  \
                 int64_t root)                                                                 \
{                                                                                              \
	int64_t ex_comp = INT64_MAX, ex_tl = INT64_MAX, ex_el = INT64_MAX, ex_te = INT64_MAX;        \
	int64_t sum_tdeg = 0, cross = 0;                                                           \
	const uint64_t *ptr = g->ptr, lo = g->lo, nloc = g->nloc;                                  \
	const uint32_t *gid = g->gid, *tix = g->tix;                                               \
	const uint16_t *mult = g->mult;                                                            \
	_Pragma("omp parallel for if (nloc > 65536) schedule(dynamic, 4096) reduction(min:ex_comp, ex_tl, ex_el, ex_te) reduction(+:sum_tdeg, cross)") \
	for (uint64_t i = 0; i < nloc; i++) {                                                      \
		uint64_t b = ptr[i], end = ptr[i + 1];                                                 \
		int64_t p = pred[i], v = (int64_t)(lo + i), la = lvl[i];                               \
		if (p == -1) { /* unreached: only crossings to larger neighbours */                   \
			if (b == end || gid[end - 1] <= (uint64_t)v)                                       \
				continue;                                                                      \
			for (uint64_t e = lower_bound(gid, b, end, (uint64_t)v + 1); e < end; e++)         \
				if (hot[tix[e]] != UNR) {                                                      \
					cross += mult[e];                                                          \
					ex_comp = ex_comp < v ? ex_comp : v;                                       \
				}                                                                              \
			continue;                                                                          \
		}                                                                                      \
		int badlev = 0;                                                                        \
		sum_tdeg += g->tdeg[i];                                                                \
		if (b == end && v != root)                                                             \
			ex_comp = ex_comp < v ? ex_comp : v; /* reached, but no edge at all */             \
		for (uint64_t e = lower_bound(gid, b, end, (uint64_t)v + 1); e < end; e++) {           \
			int64_t lb = hot[tix[e]];                                                          \
			if (lb == UNR) {                                                                   \
				cross += mult[e];                                                              \
				ex_comp = ex_comp < (int64_t)gid[e] ? ex_comp : (int64_t)gid[e];               \
			} else                                                                             \
				badlev |= (uint64_t)(lb - la + 1) > 2;                                         \
		}                                                                                      \
		if (badlev)                                                                            \
			ex_el = ex_el < v ? ex_el : v;                                                     \
		if (v == root)                                                                         \
			continue;                                                                          \
		uint64_t l = p >= 0 && (uint64_t)p < g->n ? lower_bound(gid, b, end, (uint64_t)p) : end;\
		if (l < end && gid[l] == (uint64_t)p)                                                  \
			continue; /* the parent is a neighbour, one level up */                            \
		ex_te = ex_te < v ? ex_te : v;                                                         \
		int up = 0;                                                                            \
		for (uint64_t e = b; e < end; e++)                                                     \
			up |= (int64_t)hot[tix[e]] + 1 == la;                                              \
		if (!up)                                                                               \
			ex_tl = ex_tl < v ? ex_tl : v;                                                     \
	}                                                                                          \
	o->ex_comp = ex_comp, o->ex_tl = ex_tl, o->ex_el = ex_el, o->ex_te = ex_te;                \
	o->sum_tdeg = sum_tdeg, o->cross = cross;                                                  \
}
DEFINE_SCAN(scan_u8, uint8_t, L8_UNREACHED)
DEFINE_SCAN(scan_u32, uint32_t, LV_UNREACHED)

static void note(int64_t *ex, int64_t v)
{
	if (v < *ex)
		*ex = v;
}

int vcheck(vresult *res, const vgraph *g, const int64_t *pred, int64_t root, int64_t bfs_nedge)
{
	int error = 0, P = b2_nranks;
	const uint64_t n = g->n, lo = g->lo, nloc = g->nloc;
	uint32_t *tbl = NULL, *hot = NULL, *sbuf = NULL, *req = NULL, *rreq = NULL, *plist = NULL, *who = NULL;
	jnode *J = NULL;
	jinfo *rep = NULL, *rrep = NULL;
	MPI_Datatype jt = MPI_DATATYPE_NULL;
	int *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
	int64_t ex[V_NRULES + 1], exall[V_NRULES + 1]; /* smallest example per rule, INT64_MAX none */
	for (int r = 0; r <= V_NRULES; r++)
		ex[r] = INT64_MAX;
	memset(res, 0, sizeof *res);

	uint64_t stot = 0;
	for (int r = 0; r < P; r++)
		stot += (uint64_t)g->scnt[r];
	error = b2_alloc_n(&tbl, nloc + g->nghost + 1, sizeof *tbl, "levels");
	if (!error) error = b2_alloc_n(&hot, nloc + g->nghost + 1, sizeof *hot, "levels");
	if (!error) error = b2_alloc(&sbuf, (stot + 1) * sizeof *sbuf, "levels to send");
	if (!error) error = b2_alloc(&J, (nloc + 1) * sizeof *J, "pointer jumping");
	if (!error) error = b2_alloc(&plist, (nloc + 1) * sizeof *plist, "pointer jumping");
	if (!error) error = b2_calloc(&sc, (size_t)P * 8, sizeof(int), "counts");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	rc = sc + P, sd = sc + 2 * P, rd = sc + 3 * P;

	double t0 = b2_now();
	/* rules 1, 2 and the start of pointer jumping */
	uint64_t pend = 0;
	for (uint64_t i = 0; i < nloc; i++) {
		uint64_t v = lo + i;
		int64_t p = pred[i];
		J[i].anc = J[i].dist = 0;
		if ((int64_t)v == root) {
			if (p != root)
				note(&ex[V_ROOT], (int64_t)v);
			tbl[i] = 0;
		} else if (p == -1) {
			tbl[i] = LV_UNREACHED;
		} else if (p < -1 || (uint64_t)p >= n) {
			note(&ex[V_RANGE], (int64_t)v);
			tbl[i] = LV_BROKEN;
		} else if ((uint64_t)p == v) {
			note(&ex[V_TREE], (int64_t)v); /* a non-root that is its own parent: a cycle of one */
			tbl[i] = LV_BROKEN;
		} else {
			tbl[i] = LV_PEND;
			J[i].anc = (uint32_t)p;
			J[i].dist = 1;
			plist[pend++] = (uint32_t)i;
		}
	}
	res->t_init = b2_now() - t0;
	t0 = b2_now();
	/* levels by pointer jumping: a pending vertex v knows an ancestor J[v].anc
	 * J[v].dist steps up; each round it reads its ancestor's state, and either
	 * finishes (the ancestor has a level), breaks (the ancestor is unreached or
	 * broken, or dist > N: a cycle), or jumps to the ancestor's ancestor.
	 * Distances double per round, so ceil(log2 N) + 3 rounds bound a tree;
	 * plist holds the pending vertices. */
	int maxround = bits_for(n) + 3;
	B2_TRY(b2_mpi_ok(MPI_Type_contiguous(sizeof(jinfo), MPI_BYTE, &jt), "MPI_Type_contiguous"));
	B2_TRY(b2_mpi_ok(MPI_Type_commit(&jt), "MPI_Type_commit"));
	for (int round = 0;; round++) {
		res->rounds = round;
		if (round >= maxround) { /* still pending: on or below a cycle */
			for (uint64_t k = 0; k < pend; k++) {
				tbl[plist[k]] = LV_BROKEN;
				note(&ex[V_TREE], (int64_t)(lo + plist[k]));
			}
			break;
		}
		/* requests for remote ancestors (a snapshot), then local ancestors in
		 * place (a local jump may land on a remote ancestor: next round) */
		memset(sc, 0, (size_t)P * 4 * sizeof(int));
		uint64_t nreq = 0;
		for (uint64_t k = 0; k < pend; k++) {
			uint64_t t = J[plist[k]].anc;
			if (t < lo || t >= lo + nloc) {
				sc[owner_of(g, t)]++;
				nreq++;
			}
		}
		for (int r = 0, s = 0; r < P; r++) {
			sd[r] = s;
			s += sc[r];
		}
		free(req); free(who); req = NULL; who = NULL;
		error = b2_alloc(&req, (nreq + 1) * sizeof *req, "pointer jumping");
		if (!error) error = b2_alloc(&who, (nreq + 1) * sizeof *who, "pointer jumping");
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		for (uint64_t k = 0; k < pend; k++) {
			uint64_t i = plist[k], t = J[i].anc;
			if (t >= lo && t < lo + nloc)
				continue;
			int o = owner_of(g, t);
			who[sd[o]] = (uint32_t)i;
			req[sd[o]++] = (uint32_t)t;
		}
		for (int r = 0, s = 0; r < P; r++) {
			sd[r] = s;
			s += sc[r];
		}
		for (uint64_t k = 0; k < pend; k++) {
			uint64_t i = plist[k], t = J[i].anc;
			if (t < lo || t >= lo + nloc)
				continue;
			uint64_t j = t - lo;
			jinfo ji = {tbl[j], J[j].anc, J[j].dist};
			if (apply_jump(tbl, J, i, ji, n))
				note(&ex[V_TREE], (int64_t)(lo + i));
		}
		/* request counts, and whether the sender had pending vertices: when no
		 * rank had, pointer jumping is over (no separate reduction) */
		int *s2 = sc + 4 * P, *r2 = sc + 6 * P, anyp = 0;
		for (int r = 0; r < P; r++)
			s2[2 * r] = sc[r], s2[2 * r + 1] = pend > 0;
		B2_TRY(b2_mpi_ok(MPI_Alltoall(s2, 2, MPI_INT, r2, 2, MPI_INT, MPI_COMM_WORLD), "MPI_Alltoall"));
		for (int r = 0; r < P; r++)
			rc[r] = r2[2 * r], anyp |= r2[2 * r + 1];
		if (!anyp)
			break;
		uint64_t nin = 0;
		for (int r = 0; r < P; r++) {
			rd[r] = (int)nin;
			nin += (uint64_t)rc[r];
		}
		free(rreq); free(rep); free(rrep); rreq = NULL; rep = NULL; rrep = NULL;
		error = b2_alloc(&rreq, (nin + 1) * sizeof *rreq, "pointer jumping");
		if (!error) error = b2_alloc(&rep, (nin + 1) * sizeof *rep, "pointer jumping");
		if (!error) error = b2_alloc(&rrep, (nreq + 1) * sizeof *rrep, "pointer jumping");
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		B2_TRY(b2_mpi_ok(MPI_Alltoallv(req, sc, sd, MPI_UINT32_T, rreq, rc, rd, MPI_UINT32_T,
		                               MPI_COMM_WORLD), "MPI_Alltoallv"));
		for (uint64_t k = 0; k < nin; k++) {
			uint64_t j = rreq[k] - lo;
			rep[k].lv = tbl[j];
			rep[k].anc = J[j].anc;
			rep[k].dist = J[j].dist;
		}
		B2_TRY(b2_mpi_ok(MPI_Alltoallv(rep, rc, rd, jt, rrep, sc, sd, jt, MPI_COMM_WORLD),
		                 "MPI_Alltoallv"));
		for (uint64_t k = 0; k < nreq; k++)
			if (apply_jump(tbl, J, who[k], rrep[k], n))
				note(&ex[V_TREE], (int64_t)(lo + who[k]));
		uint64_t keep = 0;
		for (uint64_t k = 0; k < pend; k++)
			if (tbl[plist[k]] == LV_PEND)
				plist[keep++] = plist[k];
		pend = keep;
	}
	if (root >= (int64_t)lo && root < (int64_t)(lo + nloc) && pred[root - (int64_t)lo] == -1)
		tbl[root - (int64_t)lo] = LV_UNREACHED; /* rule 1 fails; nedge counts it unreached */
	res->t_jump = b2_now() - t0;
	t0 = b2_now();
	/* ghost levels: one exchange with the fixed pattern */
	for (uint64_t k = 0; k < stot; k++)
		sbuf[k] = tbl[g->sidx[k]];
	B2_TRY(b2_mpi_ok(MPI_Alltoallv(sbuf, g->scnt, g->sdsp, MPI_UINT32_T, tbl + nloc, g->rcnt, g->rdsp,
	                               MPI_UINT32_T, MPI_COMM_WORLD), "MPI_Alltoallv"));

	res->t_ghost = b2_now() - t0;
	t0 = b2_now();
	struct timespec c0, c1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
	/* levels in one byte when the tree is shallow (a quarter of the cache
	 * footprint), else four */
	int64_t lmax = 0, gmax = 0;
	for (uint64_t i = 0; i < nloc; i++)
		if (tbl[i] <= LV_MAXLEVEL && tbl[i] > lmax)
			lmax = tbl[i];
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&lmax, &gmax, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce"));
	scanout so;
	res->level_bytes = gmax < L8_BROKEN ? 1 : 4;
	if (gmax < L8_BROKEN) {
		uint8_t *h8 = (uint8_t *)hot; /* reuse: large enough */
		for (uint64_t j = 0; j < nloc + g->nghost; j++)
			h8[g->slot[j]] = to8(tbl[j]);
		uint8_t *lv8 = NULL;
		error = b2_alloc(&lv8, nloc + 1, "levels");
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		for (uint64_t i = 0; i < nloc; i++)
			lv8[i] = to8(tbl[i]);
		scan_u8(&so, g, pred, lv8, h8, root);
		free(lv8);
	} else {
		for (uint64_t j = 0; j < nloc + g->nghost; j++)
			hot[g->slot[j]] = tbl[j];
		scan_u32(&so, g, pred, tbl, hot, root);
	}
	int64_t ex_comp = so.ex_comp, ex_tl = so.ex_tl, ex_el = so.ex_el, ex_te = so.ex_te;
	int64_t sum_tdeg = so.sum_tdeg, cross = so.cross;
	res->t_scan = b2_now() - t0;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
	res->c_scan = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
	note(&ex[V_COMPONENT], ex_comp);
	note(&ex[V_TREE_LEVEL], ex_tl);
	note(&ex[V_EDGE_LEVEL], ex_el);
	note(&ex[V_TREE_EDGE], ex_te);

	int64_t loc[2] = {sum_tdeg, cross}, tot[2];
	B2_TRY(b2_mpi_ok(MPI_Allreduce(loc, tot, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce"));
	B2_TRY(b2_mpi_ok(MPI_Allreduce(ex, exall, V_NRULES + 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	res->nedge = (tot[0] - tot[1]) / 2;
	if (res->nedge != bfs_nedge)
		exall[V_NEDGE] = 0; /* no vertex to show */
	res->rule = V_PASS;
	res->example = -1;
	for (int r = V_NRULES; r >= 1; r--) {
		res->failing[r] = exall[r] != INT64_MAX;
		if (res->failing[r]) {
			res->rule = r;
			res->example = r == V_NEDGE ? -1 : exall[r];
		}
	}
done:
	if (jt != MPI_DATATYPE_NULL)
		MPI_Type_free(&jt);
	free(tbl); free(hot); free(sbuf); free(J); free(plist); free(sc);
	free(req); free(who); free(rreq); free(rep); free(rrep);
	return error;
}
