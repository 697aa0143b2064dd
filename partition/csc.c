/* csc.c — partition2d's owner side: received edge keys are radix-sorted
 * (by block, column, row at once) and deduplicated; the sorted order also
 * gives the degree data (column counts before deduplication). When the
 * store fills up, its
 * contents become a sorted, deduplicated run in a spill file beside the
 * output; at the end the runs are merged (k-way, deduplicating across runs)
 * into the final column pointers and a file of row indices. Spill files are
 * unlinked as soon as they are opened, so no exit path leaves them behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "part.h"

/* ---- temporary files ----------------------------------------------------- */

int part_open_tmp(int *fd, const part *pt, const char *what)
{
	char path[4200];
	snprintf(path, sizeof path, "%s-%s", pt->spill_prefix, what);
	*fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (*fd < 0)
		return b2_err_held(B2_EIO, "cannot create temporary data beside %s: %s", pt->out_path,
		                   strerror(errno));
	unlink(path); /* gone when closed, whatever happens to the process */
	return 0;
}

static int pwrite_all(const part *pt, int fd, const void *buf, size_t n, uint64_t off)
{
	const char *p = buf;
	while (n > 0) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return b2_err_held(B2_EIO, "cannot write temporary data beside %s: %s", pt->out_path,
			                   w < 0 ? strerror(errno) : "short write");
		p += w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static int pread_all(const part *pt, int fd, void *buf, size_t n, uint64_t off)
{
	char *p = buf;
	while (n > 0) {
		ssize_t r = pread(fd, p, n, (off_t)off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return b2_err_held(B2_EIO, "cannot read back temporary data beside %s: %s", pt->out_path,
			                   r < 0 ? strerror(errno) : "unexpected end of file");
		p += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* ---- building CSC from keys ---------------------------------------------- */

/* b2_alloc, asking for transparent huge pages: the radix sort's scatter
 * writes to 2048 places at once, which 4 KiB pages turn into TLB misses. */
static int alloc_big(void *out, size_t bytes, const char *what)
{
	void *p = NULL;
	size_t align = bytes >= ((size_t)4 << 20) ? (size_t)1 << 21 : 64;
	bytes = (bytes + 63) & ~(size_t)63;
	if (posix_memalign(&p, align, bytes ? bytes : 64) != 0)
		p = NULL;
	*(void **)out = p;
	if (!p)
		return b2_err(B2_EIO, "out of host memory: %zu bytes for %s", bytes, what);
	if (align > 64)
		madvise(p, bytes & ~(align - 1), MADV_HUGEPAGE); /* a hint: failure is harmless */
	return 0;
}

/* What sized a buffer of the budget, for an out-of-memory message. */
static const char *budget(const part *pt, const char *what, char *buf, size_t n)
{
	snprintf(buf, n, "%s (%s)", what, pt->mem_given ? "within --mem" :
	         "within the default budget, a quarter of this node's memory per rank");
	return buf;
}

int part_store_alloc(part *pt)
{
	int error = 0;
	pt->spill_fd = pt->rows_fd = -1;
	char why[160];
	B2_TRY(alloc_big(&pt->keys, (pt->S ? pt->S : 1) * sizeof *pt->keys,
	                 budget(pt, "the edge store", why, sizeof why)));
	B2_TRY(b2_calloc(&pt->deg, pt->NC + 1, sizeof *pt->deg, "degree counts"));
	B2_TRY(b2_alloc(&pt->cp, (pt->NC + 1) * sizeof *pt->cp, "column pointers"));
done:
	return error;
}

/* Sorts the store's keys (pt->keys or pt->tmp holds them afterwards: the
 * return value). The callers' deduplicating passes also add the column
 * counts before deduplication to pt->deg. */
static int sort_store(part *pt, uint64_t **sorted, b2_progress *pr)
{
	int error = 0;
	char why[160];
	if (!pt->tmp)
		B2_TRY(alloc_big(&pt->tmp, (pt->S ? pt->S : 1) * sizeof *pt->tmp,
		                 budget(pt, "sorting edges", why, sizeof why)));
	/* the sort is most of the work after the routing: 0.8 of the progress */
	*sorted = b2_radix_sort_progress(pt->keys, pt->tmp, pt->nkeys, pt->rowbits + pt->colbits, pr, 0, 0.8);
done:
	return error;
}

int part_spill(part *pt)
{
	int error = 0;
	uint64_t *buf = NULL, *k = NULL, nu = 0;
	const size_t BUFK = 1 << 16;
	double t0 = b2_now();
	if (pt->nkeys == 0)
		return 0;
	if (pt->spill_fd < 0)
		B2_TRY(part_open_tmp(&pt->spill_fd, pt, "runs"));
	if (pt->nruns == pt->run_cap) {
		int cap = pt->run_cap ? 2 * pt->run_cap : 16;
		uint64_t *o = realloc(pt->run_off, (size_t)cap * sizeof *o);
		if (!o)
			B2_FAIL(B2_EIO, "out of host memory for the list of runs");
		pt->run_off = o;
		uint64_t *l = realloc(pt->run_len, (size_t)cap * sizeof *l);
		if (!l)
			B2_FAIL(B2_EIO, "out of host memory for the list of runs");
		pt->run_len = l;
		pt->run_cap = cap;
	}
	B2_TRY(sort_store(pt, &k, NULL));
	B2_TRY(b2_alloc(&buf, BUFK * sizeof *buf, "spill buffer"));
	uint64_t off = pt->spill_bytes, nb = 0;
	const int rb = pt->rowbits;
	for (uint64_t x = 0, prev = 0; x < pt->nkeys; x++) {
		pt->deg[k[x] >> rb]++;
		if (x > 0 && k[x] == prev)
			continue;
		prev = buf[nb++] = k[x];
		nu++;
		if (nb == BUFK) {
			B2_TRY(pwrite_all(pt, pt->spill_fd, buf, nb * sizeof *buf, off));
			off += nb * sizeof *buf;
			nb = 0;
		}
	}
	if (nb)
		B2_TRY(pwrite_all(pt, pt->spill_fd, buf, nb * sizeof *buf, off));
	pt->run_off[pt->nruns] = pt->spill_bytes / sizeof *buf;
	pt->run_len[pt->nruns] = nu;
	pt->nruns++;
	pt->spill_bytes += nu * sizeof *buf;
	pt->nkeys = 0;
done:
	free(buf);
	pt->t_sort += b2_now() - t0;
	return error;
}

/* ---- merging runs -------------------------------------------------------- */

typedef struct reader {
	uint64_t next, left; /* in keys, in the spill file */
	uint64_t *buf;
	size_t pos, len, cap;
} reader;

static int reader_fill(const part *pt, reader *r)
{
	size_t n = r->left < r->cap ? (size_t)r->left : r->cap;
	r->pos = 0;
	r->len = n;
	if (n == 0)
		return 0;
	int error = pread_all(pt, pt->spill_fd, r->buf, n * sizeof *r->buf, r->next * sizeof *r->buf);
	r->next += n;
	r->left -= n;
	return error;
}

static int merge(part *pt)
{
	int error = 0, k = pt->nruns, nh = 0;
	reader *rd = NULL;
	int *heap = NULL;
	uint32_t *obuf = NULL;
	const size_t OBUF = 1 << 18;
	size_t on = 0;
	uint64_t ooff = 0, last = 0, cap;
	int have_last = 0;
	const int rb = pt->rowbits;
	const uint64_t rmask = rb >= 64 ? UINT64_MAX : ((uint64_t)1 << rb) - 1;

	B2_TRY(part_open_tmp(&pt->rows_fd, pt, "rows"));
	B2_TRY(b2_calloc(&rd, (size_t)k, sizeof *rd, "merge readers"));
	B2_TRY(b2_alloc(&heap, (size_t)k * sizeof *heap, "merge heap"));
	B2_TRY(b2_alloc(&obuf, OBUF * sizeof *obuf, "merge output"));
	cap = pt->mem / 2 / sizeof(uint64_t) / (uint64_t)k;
	if (cap > (1 << 20)) cap = 1 << 20;
	if (cap < 512) cap = 512;
	for (int i = 0; i < k; i++) {
		rd[i].next = pt->run_off[i];
		rd[i].left = pt->run_len[i];
		rd[i].cap = (size_t)cap;
		B2_TRY(b2_alloc(&rd[i].buf, cap * sizeof *rd[i].buf, "merge reader buffer"));
		B2_TRY(reader_fill(pt, &rd[i]));
	}
	/* min-heap of readers by their current key */
#define HEAD(i) (rd[i].buf[rd[i].pos])
	for (int i = 0; i < k; i++) {
		if (rd[i].len == 0)
			continue;
		int c = nh++;
		heap[c] = i;
		while (c > 0 && HEAD(heap[(c - 1) / 2]) > HEAD(heap[c])) {
			int t = heap[c]; heap[c] = heap[(c - 1) / 2]; heap[(c - 1) / 2] = t;
			c = (c - 1) / 2;
		}
	}
	memset(pt->cp, 0, (pt->NC + 1) * sizeof *pt->cp);
	uint64_t nout = 0, total = 0, done_keys = 0;
	for (int i = 0; i < k; i++)
		total += pt->run_len[i];
	b2_progress pr;
	b2_progress_begin(&pr, "partitioning: merging sorted runs (rank 0)", "edges", (double)total);
	while (nh > 0) {
		int i = heap[0];
		uint64_t key = HEAD(i);
		if (!have_last || key != last) {
			pt->cp[(key >> rb) + 1]++;
			obuf[on++] = (uint32_t)(key & rmask);
			nout++;
			if (on == OBUF) {
				B2_TRY(pwrite_all(pt, pt->rows_fd, obuf, on * sizeof *obuf, ooff));
				ooff += on * sizeof *obuf;
				on = 0;
			}
			last = key;
			have_last = 1;
		}
		if (++rd[i].pos == rd[i].len) {
			B2_TRY(reader_fill(pt, &rd[i]));
			done_keys += cap;
			b2_progress_step(&pr, (double)done_keys);
		}
		if (rd[i].len == 0)
			heap[0] = heap[--nh];
		/* sift down */
		int c = 0;
		for (;;) {
			int l = 2 * c + 1, m = c;
			if (l < nh && HEAD(heap[l]) < HEAD(heap[m])) m = l;
			if (l + 1 < nh && HEAD(heap[l + 1]) < HEAD(heap[m])) m = l + 1;
			if (m == c) break;
			int t = heap[c]; heap[c] = heap[m]; heap[m] = t;
			c = m;
		}
	}
#undef HEAD
	b2_progress_end(&pr);
	if (on)
		B2_TRY(pwrite_all(pt, pt->rows_fd, obuf, on * sizeof *obuf, ooff));
	for (uint64_t g = 0; g < pt->NC; g++)
		pt->cp[g + 1] += pt->cp[g];
	pt->nrows = nout;
	/* the runs are no longer needed: give their disk space back now */
	if (pt->spill_fd >= 0 && ftruncate(pt->spill_fd, 0) != 0)
		b2_warn("cannot truncate the spill file: %s", strerror(errno));
done:
	if (rd)
		for (int i = 0; i < k; i++)
			free(rd[i].buf);
	free(rd);
	free(heap);
	free(obuf);
	return error;
}

int part_finalize(part *pt)
{
	int error = 0;
	double t0 = b2_now();
	if (pt->nruns == 0) {
		/* sorted keys -> column pointers and rows, the rows written over the
		 * keys' own memory (row w sits below key w) */
		uint64_t *k = NULL, w = 0;
		const int rb = pt->rowbits;
		const uint64_t rmask = ((uint64_t)1 << rb) - 1;
		b2_progress pr;
		/* rank 0's own keys stand for all ranks' (they are about equal) */
		b2_progress_begin(&pr, "partitioning: sorting and compressing (rank 0)", "keys",
		                  (double)pt->nkeys);
		B2_TRY(sort_store(pt, &k, &pr));
		char *rowbytes = (char *)k; /* memcpy: rows and keys share memory */
		memset(pt->cp, 0, (pt->NC + 1) * sizeof *pt->cp);
		for (uint64_t x = 0, prev = 0; x < pt->nkeys; x++) {
			uint64_t key = k[x];
			if ((x & 0xfffff) == 0)
				b2_progress_step(&pr, 0.8 * (double)pt->nkeys + 0.2 * (double)x);
			pt->deg[key >> rb]++;
			if (x > 0 && key == prev)
				continue;
			prev = key;
			pt->cp[(key >> rb) + 1]++;
			uint32_t r = (uint32_t)(key & rmask);
			memcpy(rowbytes + 4 * w++, &r, sizeof r);
		}
		for (uint64_t g = 0; g < pt->NC; g++)
			pt->cp[g + 1] += pt->cp[g];
		free(k == pt->keys ? pt->tmp : pt->keys);
		pt->keys = pt->tmp = NULL;
		uint32_t *shrunk = realloc(k, (w ? w : 1) * sizeof(uint32_t));
		pt->rows = shrunk ? shrunk : (uint32_t *)k;
		pt->nrows = w;
		pt->t_sort += b2_now() - t0;
		b2_progress_end(&pr);
	} else {
		B2_TRY(part_spill(pt));
		free(pt->keys);
		free(pt->tmp);
		pt->keys = pt->tmp = NULL;
		B2_TRY(merge(pt));
		pt->t_merge += b2_now() - t0;
	}
done:
	return error;
}

int part_rows_read(const part *pt, uint32_t *buf, uint64_t off, uint64_t n)
{
	if (pt->rows) {
		memcpy(buf, pt->rows + off, n * sizeof *buf);
		return 0;
	}
	return pread_all(pt, pt->rows_fd, buf, n * sizeof *buf, off * sizeof *buf);
}

void part_free(part *pt)
{
	free(pt->keys);
	free(pt->tmp);
	free(pt->deg);
	free(pt->cp);
	free(pt->rows);
	free(pt->run_off);
	free(pt->run_len);
	free(pt->blk_q);
	free(pt->u_base);
	free(pt->u_dest);
	free(pt->s_lo);
	free(pt->s_width);
	free(pt->s_base);
	free(pt->blk_r);
	if (pt->spill_fd >= 0)
		close(pt->spill_fd);
	if (pt->rows_fd >= 0)
		close(pt->rows_fd);
	pt->keys = pt->tmp = pt->deg = pt->cp = NULL;
	pt->rows = NULL;
	pt->spill_fd = pt->rows_fd = -1;
}
