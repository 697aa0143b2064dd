/* snap_read.c — byte sources (a byte range of a plain file, or a whole gzip
 * stream inflated with zlib), the line-aligned block reader and the Matrix
 * Market header. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "snap_import.h"

void snap_err_set(snap_err *e, uint64_t block, uint64_t line, const char *fmt, ...)
{
	va_list ap;
	if (e->code)
		return; /* the first error is the one that counts */
	e->code = B2_EDATA;
	e->block = block;
	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
}

/* ---- sources ------------------------------------------------------------- */

int snap_src_plain(snap_src *s, const char *path, int fd, uint64_t pos, uint64_t end)
{
	memset(s, 0, sizeof *s);
	s->path = path;
	s->fd = fd;
	s->pos = pos;
	s->end = end;
	return 0;
}

int snap_src_gzip(snap_src *s, const char *path, int fd)
{
	int error = 0;
	memset(s, 0, sizeof *s);
	s->path = path;
	s->fd = fd;
	s->gz = 1;
	s->zin_cap = 1 << 20;
	B2_TRY(b2_alloc(&s->zin, s->zin_cap, "gzip input buffer"));
	/* 16 + 15: a gzip wrapper, the largest window */
	if (inflateInit2(&s->z, 16 + 15) != Z_OK)
		B2_FAIL(B2_EIO, "cannot set up zlib for %s: out of memory?", path);
	s->zinit = 1;
done:
	return error;
}

void snap_src_close(snap_src *s)
{
	if (s->zinit)
		inflateEnd(&s->z);
	free(s->zin);
	s->zin = NULL;
	s->zinit = 0;
}

static int src_fill_in(snap_src *s)
{
	ssize_t n;
	do
		n = read(s->fd, s->zin, s->zin_cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return b2_err(B2_EIO, "cannot read %s: %s", s->path, strerror(errno));
	s->z.next_in = s->zin;
	s->z.avail_in = (uInt)n;
	s->in_total += (uint64_t)n;
	if (n == 0)
		s->in_eof = 1;
	return 0;
}

static int src_read_gz(snap_src *s, char *dst, size_t cap, size_t *got)
{
	int error = 0;
	*got = 0;
	while (!s->zdone && *got == 0) {
		if (s->z.avail_in == 0 && !s->in_eof)
			B2_TRY(src_fill_in(s));
		s->z.next_out = (unsigned char *)dst;
		s->z.avail_out = (uInt)(cap > (1u << 30) ? (1u << 30) : cap);
		uInt before = s->z.avail_out;
		int rc = inflate(&s->z, Z_NO_FLUSH);
		*got = before - s->z.avail_out;
		if (rc == Z_STREAM_END) {
			/* gzip allows several members one after the other. The next
			 * one may start anywhere in the buffer, its first byte the
			 * buffer's last or the next read's first: inflate reads its
			 * header from whatever input comes, so the member is never
			 * judged on the bytes this buffer happens to hold */
			if (s->z.avail_in == 0 && !s->in_eof)
				B2_TRY(src_fill_in(s));
			if (s->z.avail_in == 0) {
				s->zdone = 1;
			} else {
				if (inflateReset(&s->z) != Z_OK)
					B2_FAIL(B2_EIO, "cannot reset zlib for %s", s->path);
				s->after_member = 1;
			}
		} else if (rc == Z_DATA_ERROR && s->after_member && s->z.total_out == 0 && s->z.msg &&
		           (strstr(s->z.msg, "header") || strstr(s->z.msg, "method"))) {
			snprintf(s->zmsg, sizeof s->zmsg,
			         "corrupt gzip stream: unexpected data after the end of the compressed stream");
			error = B2_EDATA;
			goto done;
		} else if (rc == Z_MEM_ERROR) {
			B2_FAIL(B2_EIO, "out of host memory inflating %s", s->path);
		} else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
			snprintf(s->zmsg, sizeof s->zmsg, "corrupt gzip stream (zlib: %s)",
			         s->z.msg ? s->z.msg : "invalid data");
			error = B2_EDATA;
			goto done;
		} else if (*got == 0 && s->z.avail_in == 0 && s->in_eof) {
			/* Z_BUF_ERROR or Z_OK with nothing left to read: cut short */
			snprintf(s->zmsg, sizeof s->zmsg, s->after_member && s->z.total_out == 0
			         ? "corrupt gzip stream: unexpected data after the end of the compressed stream"
			         : "truncated gzip stream: the file ends before the compressed data does");
			error = B2_EDATA;
			goto done;
		}
	}
done:
	return error;
}

int snap_src_read(snap_src *s, char *dst, size_t cap, size_t *got)
{
	if (s->gz)
		return src_read_gz(s, dst, cap, got);
	*got = 0;
	uint64_t want = s->end - s->pos;
	if (want > cap)
		want = cap;
	if (want == 0)
		return 0;
	ssize_t n;
	do
		n = pread(s->fd, dst, want, (off_t)s->pos);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return b2_err(B2_EIO, "cannot read %s: %s", s->path, strerror(errno));
	if (n == 0) /* the file shrank under us */
		return b2_err(B2_EIO, "cannot read %s: unexpected end of file at byte %llu", s->path,
		              (unsigned long long)s->pos);
	s->pos += (uint64_t)n;
	*got = (size_t)n;
	return 0;
}

/* ---- line reader --------------------------------------------------------- */

int snap_lr_init(snap_lr *r, snap_src *src, size_t cap, char comment)
{
	memset(r, 0, sizeof *r);
	r->src = src;
	r->cap = cap;
	r->comment = comment;
	return b2_alloc(&r->buf, cap + 1, "text block buffer");
}

void snap_lr_free(snap_lr *r)
{
	free(r->buf);
	r->buf = NULL;
}

/* Moves the unconsumed bytes to the front and reads until full or the end. */
static int lr_fill(snap_lr *r, char *why, size_t whysz)
{
	int error = 0;
	if (r->beg > 0) {
		memmove(r->buf, r->buf + r->beg, r->end - r->beg);
		r->end -= r->beg;
		r->consumed += r->beg;
		r->beg = 0;
	}
	while (!r->eof && r->end < r->cap) {
		size_t got = 0;
		error = snap_src_read(r->src, r->buf + r->end, r->cap - r->end, &got);
		if (error == B2_EDATA)
			snprintf(why, whysz, "%s", r->src->zmsg);
		if (error)
			return error;
		if (got == 0)
			r->eof = 1;
		r->end += got;
	}
	return 0;
}

int snap_lr_peek(snap_lr *r, size_t n, char *why, size_t whysz)
{
	if (r->end - r->beg >= n || r->eof)
		return 0;
	return lr_fill(r, why, whysz);
}

static int starts_comment(const char *p, const char *e, char cc)
{
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p < e && *p == cc;
}

/* The buffer is full and holds no line end: a comment is skipped up to its
 * end and handed on as a blank line (its line end); anything else is refused. */
static int lr_long_line(snap_lr *r, char *why, size_t whysz)
{
	int error = 0;
	if (!starts_comment(r->buf + r->beg, r->buf + r->end, r->comment)) {
		snprintf(why, whysz,
		         "no line end within %zu bytes: not a text edge list (binary data?)", r->cap);
		return B2_EDATA;
	}
	for (;;) {
		r->beg = r->end; /* drop what we have of the comment */
		B2_TRY(lr_fill(r, why, whysz));
		if (r->end == 0) { /* the file ends inside the comment */
			r->buf[0] = '\n';
			r->end = 1;
			break;
		}
		char *nl = memchr(r->buf, '\n', r->end);
		if (nl) {
			/* keep its line end alone: the comment counts as a blank line */
			r->beg = (size_t)(nl - r->buf);
			break;
		}
	}
done:
	return error;
}

int snap_lr_block(snap_lr *r, char **text, size_t *len, char *why, size_t whysz)
{
	int error = 0;
	*text = NULL;
	*len = 0;
	for (;;) {
		B2_TRY(lr_fill(r, why, whysz));
		size_t have = r->end - r->beg;
		if (have == 0)
			return 0;
		if (r->eof) { /* everything that is left; it may lack a final line end */
			*text = r->buf + r->beg;
			*len = have;
			r->beg = r->end;
			return 0;
		}
		char *p = r->buf + r->beg;
		char *nl = memrchr(p, '\n', have);
		if (nl) {
			*text = p;
			*len = (size_t)(nl - p) + 1;
			r->beg += *len;
			return 0;
		}
		B2_TRY(lr_long_line(r, why, whysz));
	}
done:
	return error;
}

int snap_lr_line(snap_lr *r, char **line, size_t *len, char *why, size_t whysz)
{
	int error = 0;
	*line = NULL;
	*len = 0;
	for (int round = 0; round < 2; round++) {
		char *p = r->buf + r->beg;
		size_t have = r->end - r->beg;
		char *nl = memchr(p, '\n', have);
		if (nl) {
			*line = p;
			*len = (size_t)(nl - p);
			r->beg += *len + 1;
			return 0;
		}
		if (r->eof) {
			if (have) {
				*line = p;
				*len = have;
				r->beg = r->end;
			}
			return 0;
		}
		B2_TRY(lr_fill(r, why, whysz));
	}
	snprintf(why, whysz, "no line end within %zu bytes: line too long", r->cap);
	error = B2_EDATA;
done:
	return error;
}

/* ---- Matrix Market header ----------------------------------------------- */

/* Splits a line into at most max whitespace-separated tokens (NUL-terminated
 * copies in buf). Returns the number found (max + 1 when there are more). */
static int tokens(char *buf, size_t bufsz, const char *line, size_t len, char **tok, int max)
{
	size_t n = len < bufsz - 1 ? len : bufsz - 1;
	memcpy(buf, line, n);
	buf[n] = 0;
	int k = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (k == max)
			return max + 1;
		tok[k++] = t;
	}
	return k;
}

static int parse_count(uint64_t *out, const char *t)
{
	char *end;
	if (!t || !(*t >= '0' && *t <= '9'))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(t, &end, 10);
	if (errno || *end || v > SNAP_MAX_ID)
		return -1;
	*out = v;
	return 0;
}

int snap_mm_header(snap_mm *mm, snap_lr *r, snap_err *e)
{
	int error = 0;
	char why[200] = "", buf[1024], *tok[8], *line;
	size_t len;
	uint64_t lineno = 0;
	memset(mm, 0, sizeof *mm);
	mm->is_mm = 1;
	/* banner: %%MatrixMarket matrix coordinate <field> <symmetry> */
	if ((error = snap_lr_line(r, &line, &len, why, sizeof why)) == B2_EDATA)
		snap_err_set(e, SNAP_ABS, 1, "%s", why);
	if (error)
		goto done;
	lineno = 1;
	int nt = tokens(buf, sizeof buf, line, len, tok, 5);
	if (nt != 5 || strcasecmp(tok[1], "matrix") != 0) {
		snap_err_set(e, SNAP_ABS, 1, "expected a Matrix Market banner "
		             "'%%%%MatrixMarket matrix coordinate <field> <symmetry>'");
		{ error = B2_EDATA; goto done; }
	}
	if (strcasecmp(tok[2], "coordinate") != 0) {
		snap_err_set(e, SNAP_ABS, 1, "Matrix Market format '%s' is not supported: only "
		             "'coordinate' (a sparse list of entries) describes a graph", tok[2]);
		{ error = B2_EDATA; goto done; }
	}
	snprintf(mm->field, sizeof mm->field, "%s", tok[3]);
	snprintf(mm->symmetry, sizeof mm->symmetry, "%s", tok[4]);
	if (!strcasecmp(tok[3], "pattern"))
		mm->fields = 2;
	else if (!strcasecmp(tok[3], "integer") || !strcasecmp(tok[3], "real") || !strcasecmp(tok[3], "double")) {
		mm->fields = 3;
		mm->integer = !strcasecmp(tok[3], "integer");
	}
	else {
		snap_err_set(e, SNAP_ABS, 1, "Matrix Market field '%s' is not supported: expected "
		             "pattern, integer or real", tok[3]);
		{ error = B2_EDATA; goto done; }
	}
	if (!strcasecmp(tok[4], "general"))
		mm->symmetric = 0;
	else if (!strcasecmp(tok[4], "symmetric") || !strcasecmp(tok[4], "skew-symmetric"))
		mm->symmetric = 1;
	else {
		snap_err_set(e, SNAP_ABS, 1, "Matrix Market symmetry '%s' is not supported: expected "
		             "general, symmetric or skew-symmetric", tok[4]);
		{ error = B2_EDATA; goto done; }
	}
	/* comments and blank lines, then the size line: rows cols entries */
	for (;;) {
		if ((error = snap_lr_line(r, &line, &len, why, sizeof why)) == B2_EDATA)
			snap_err_set(e, SNAP_ABS, lineno + 1, "%s", why);
		if (error)
			goto done;
		if (!line) {
			snap_err_set(e, SNAP_ABS, lineno ? lineno : 1,
			             "the Matrix Market file ends before its size line (rows columns entries)");
			{ error = B2_EDATA; goto done; }
		}
		lineno++;
		nt = tokens(buf, sizeof buf, line, len, tok, 3);
		if (nt == 0 || tok[0][0] == '%')
			continue;
		if (nt != 3 || parse_count(&mm->rows, tok[0]) || parse_count(&mm->cols, tok[1])
		    || parse_count(&mm->nnz, tok[2])) {
			snap_err_set(e, SNAP_ABS, lineno, "expected the Matrix Market size line "
			             "'rows columns entries' (three whole numbers)");
			{ error = B2_EDATA; goto done; }
		}
		break;
	}
	/* the rows are the edges' sources and the columns their targets: one
	 * vertex set, so one size */
	if (mm->rows != mm->cols) {
		snap_err_set(e, SNAP_ABS, lineno, "the size line declares a %llu x %llu matrix: a graph's "
		             "adjacency matrix must be square (rows = columns = vertices)",
		             (unsigned long long)mm->rows, (unsigned long long)mm->cols);
		{ error = B2_EDATA; goto done; }
	}
	/* vertex i keeps id i + 1 in /vertex_ids (8 bytes each): a size that no
	 * file or memory can hold is bad data, refused before any data is read */
	uint64_t idbytes;
	if (!b2_mul_ok(&idbytes, mm->rows, sizeof(int64_t)) || idbytes > (uint64_t)INT64_MAX) {
		snap_err_set(e, SNAP_ABS, lineno, "the size line declares %llu vertices: their ids "
		             "(/vertex_ids, 8 bytes each) would pass 2^63 bytes", (unsigned long long)mm->rows);
		{ error = B2_EDATA; goto done; }
	}
	mm->size_line = lineno;
	mm->lines = lineno;
done:
	return error;
}
