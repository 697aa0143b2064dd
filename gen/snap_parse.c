/* snap_parse.c — the text parser: SNAP edge-list lines and Matrix Market
 * coordinate entries into a chunked store of (u, v) int64 pairs, in input
 * order. A fast path takes the common "digits blank digits [CR] LF" line;
 * everything else (comments, blank lines, extra columns, errors) goes through
 * a careful tokenizer that names what is wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "snap_import.h"

/* ---- tuple store --------------------------------------------------------- */

#define CHUNK_MIN (UINT64_C(1) << 12)
#define CHUNK_MAX (UINT64_C(1) << 20) /* 16 MiB of tuples */

int snap_store_grow(snap_store *s)
{
	int error = 0;
	if (s->nch == s->chcap) {
		size_t nc = s->chcap ? 2 * s->chcap : 16;
		snap_chunk *ch = realloc(s->ch, nc * sizeof *ch);
		if (!ch)
			return b2_err(B2_EIO, "out of host memory: tuple chunk list");
		s->ch = ch;
		s->chcap = nc;
	}
	uint64_t cap = s->nch ? 2 * s->ch[s->nch - 1].cap : CHUNK_MIN;
	if (cap > CHUNK_MAX)
		cap = CHUNK_MAX;
	snap_chunk *c = &s->ch[s->nch];
	B2_TRY(b2_alloc(&c->a, cap * 2 * sizeof(int64_t), "tuples"));
	c->n = 0;
	c->cap = cap;
	s->nch++;
done:
	return error;
}

void snap_store_free(snap_store *s)
{
	for (size_t i = 0; i < s->nch; i++)
		free(s->ch[i].a);
	free(s->ch);
	memset(s, 0, sizeof *s);
}

/* ---- careful path --------------------------------------------------------- */

#define IS_BLANK(c) ((c) == ' ' || (c) == '\t' || (c) == '\r')

/* 'tok' for messages: at most 40 bytes, non-printable bytes as \xNN. */
static void show(char *out, size_t outsz, const char *t, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n && i < 40 && k + 5 < outsz; i++) {
		unsigned char c = (unsigned char)t[i];
		if (c >= 0x20 && c < 0x7f)
			out[k++] = (char)c;
		else
			k += (size_t)snprintf(out + k, outsz - k, "\\x%02x", c);
	}
	if (n > 40 && k + 4 < outsz) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = 0;
}

static int binary_byte(const char *t, size_t n, unsigned *byte)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)t[i];
		if (c < 0x20 || c >= 0x7f) {
			*byte = c;
			return 1;
		}
	}
	return 0;
}

/* An id token: 0 ok; else an error message in why. */
static int parse_id(uint64_t *out, const char *t, size_t n, const char *what, char *why, size_t whysz)
{
	char s[200];
	unsigned byte;
	uint64_t v = 0;
	size_t i = 0;
	if (binary_byte(t, n, &byte)) {
		show(s, sizeof s, t, n);
		snprintf(why, whysz, "binary data (byte 0x%02x) where %s was expected: '%s'", byte, what, s);
		return -1;
	}
	if (n >= 2 && t[0] == '-' && t[1] >= '0' && t[1] <= '9') {
		for (i = 1; i < n && t[i] >= '0' && t[i] <= '9'; i++)
			;
		if (i == n) {
			show(s, sizeof s, t, n);
			snprintf(why, whysz, "negative id '%s': %s must be a whole number from 0 to 2^62", s, what);
			return -1;
		}
		i = 0;
	}
	for (; i < n && t[i] >= '0' && t[i] <= '9'; i++) {
		if (v > (SNAP_MAX_ID - (uint64_t)(t[i] - '0')) / 10) {
			/* keep scanning: a non-digit later makes it a bad token instead */
			size_t j = i;
			while (j < n && t[j] >= '0' && t[j] <= '9')
				j++;
			show(s, sizeof s, t, n);
			if (j == n)
				snprintf(why, whysz, "id %s is above 2^62 (%s must be a whole number from 0 to 2^62)", s, what);
			else
				snprintf(why, whysz, "expected %s (a whole number from 0 to 2^62), found '%s'", what, s);
			return -1;
		}
		v = v * 10 + (uint64_t)(t[i] - '0');
	}
	if (i != n || n == 0) {
		show(s, sizeof s, t, n);
		snprintf(why, whysz, "expected %s (a whole number from 0 to 2^62), found '%s'", what, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* The value of an integer Matrix Market entry: [+-]digits. */
static int whole(const char *t, size_t n)
{
	size_t i = n > 0 && (t[0] == '+' || t[0] == '-');
	if (i == n)
		return 0;
	for (; i < n; i++)
		if (t[i] < '0' || t[i] > '9')
			return 0;
	return 1;
}

/* A weight or other extra column: any decimal number. */
static int numeric(const char *t, size_t n)
{
	int digits = 0;
	for (size_t i = 0; i < n; i++) {
		char c = t[i];
		if (c >= '0' && c <= '9')
			digits = 1;
		else if (!(c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E'))
			return 0;
	}
	return digits;
}

static void snap_comment(snap_parser *ps, const char *line, size_t len)
{
	char c[512];
	size_t n = len < sizeof c - 1 ? len : sizeof c - 1;
	memcpy(c, line, n);
	c[n] = 0;
	if (!ps->hdr_has) {
		char *a = strstr(c, "Nodes:"), *b = strstr(c, "Edges:");
		if (a && b) {
			char *e1, *e2;
			/* signed: a negative count is echoed as written */
			long long nn = strtoll(a + 6, &e1, 10), ne = strtoll(b + 6, &e2, 10);
			if (e1 != a + 6 && e2 != b + 6) {
				ps->hdr_has = 1;
				ps->hdr_nodes = (uint64_t)nn;
				ps->hdr_edges = (uint64_t)ne;
				ps->hdr_block = ps->block;
				ps->hdr_line = ps->lines + 1;
			}
		}
	}
	if (!ps->dir_has) {
		int v = strcasestr(c, "undirected graph") ? 0 : strcasestr(c, "directed graph") ? 1 : -1;
		if (v >= 0) {
			ps->dir_has = 1;
			ps->dir_val = v;
			ps->dir_block = ps->block;
			ps->dir_line = ps->lines + 1;
		}
	}
}

static int push(snap_parser *ps, uint64_t u, uint64_t v)
{
	snap_store *s = ps->out;
	if (!s->nch || s->ch[s->nch - 1].n == s->ch[s->nch - 1].cap) {
		int error = snap_store_grow(s);
		if (error)
			return error;
	}
	snap_chunk *c = &s->ch[s->nch - 1];
	c->a[2 * c->n] = (int64_t)u;
	c->a[2 * c->n + 1] = (int64_t)v;
	c->n++;
	if (!s->total)
		s->idmin = s->idmax = u;
	s->idmin = u < s->idmin ? u : s->idmin;
	s->idmin = v < s->idmin ? v : s->idmin;
	s->idmax = u > s->idmax ? u : s->idmax;
	s->idmax = v > s->idmax ? v : s->idmax;
	s->total++;
	return 0;
}

static int starts_with_comment(const char *p, const char *e, char cc)
{
	while (p < e && IS_BLANK(*p))
		p++;
	return p < e && *p == cc;
}

/* One whole line [p, eol) the fast path did not take. */
static int slow_line(snap_parser *ps, const char *p, const char *eol)
{
	const char *tok[4];
	size_t tlen[4];
	int nt = 0, more = 0;
	char why[300];
	const char *q = p, *e = eol;
	while (e > p && IS_BLANK(e[-1]))
		e--;
	/* CR only among the blanks that end a line: CR-only line ends would
	 * otherwise read as one long line of extra columns */
	if (!starts_with_comment(p, e, ps->comment) && memchr(p, '\r', (size_t)(e - p))) {
		snap_err_set(&ps->err, ps->block, ps->lines + 1,
		             "carriage return inside a line: lines must end with LF or CR LF (old Mac CR-only line ends?)");
		return B2_EDATA;
	}
	while (q < eol) {
		while (q < eol && IS_BLANK(*q))
			q++;
		if (q == eol)
			break;
		const char *t = q;
		while (q < eol && !IS_BLANK(*q))
			q++;
		if (nt == 0 && *t == ps->comment) {
			if (!ps->mm)
				snap_comment(ps, p, (size_t)(eol - p));
			return 0;
		}
		if (nt < 4) {
			tok[nt] = t;
			tlen[nt] = (size_t)(q - t);
			nt++;
		} else
			more = 1;
	}
	if (nt == 0)
		return 0; /* blank line */
	uint64_t line = ps->lines + 1;
	const char *w1 = ps->mm ? "a row index" : "a vertex id";
	const char *w2 = ps->mm ? "a column index" : "a vertex id";
	uint64_t u, v;
	if (parse_id(&u, tok[0], tlen[0], w1, why, sizeof why)) {
		snap_err_set(&ps->err, ps->block, line, "%s", why);
		return B2_EDATA;
	}
	if (nt < 2) {
		if (ps->mm)
			snap_err_set(&ps->err, ps->block, line, "expected %d numbers (row column%s), found one",
			             ps->fields, ps->fields == 3 ? " value" : "");
		else
			snap_err_set(&ps->err, ps->block, line,
			             "expected two vertex ids (FromNodeId ToNodeId), found one number");
		return B2_EDATA;
	}
	if (parse_id(&v, tok[1], tlen[1], w2, why, sizeof why)) {
		snap_err_set(&ps->err, ps->block, line, "%s", why);
		return B2_EDATA;
	}
	for (int i = 2; i < nt; i++) {
		if (!numeric(tok[i], tlen[i])) {
			char s[200];
			unsigned byte;
			show(s, sizeof s, tok[i], tlen[i]);
			if (binary_byte(tok[i], tlen[i], &byte))
				snap_err_set(&ps->err, ps->block, line, "binary data (byte 0x%02x) in column %d: '%s'",
				             byte, i + 1, s);
			else
				snap_err_set(&ps->err, ps->block, line, "expected a number in column %d, found '%s'",
				             i + 1, s);
			return B2_EDATA;
		}
	}
	if (ps->mm) {
		if (nt != ps->fields || more) {
			snap_err_set(&ps->err, ps->block, line,
			             "expected %d numbers per entry (row column%s) in a %s matrix, found %s%d",
			             ps->fields, ps->fields == 3 ? " value" : "",
			             ps->fields == 3 ? "valued" : "pattern", more ? "more than " : "", nt);
			return B2_EDATA;
		}
		if (ps->integer && !whole(tok[2], tlen[2])) {
			char s[200];
			show(s, sizeof s, tok[2], tlen[2]);
			snap_err_set(&ps->err, ps->block, line, "expected a whole number as the value (the banner "
			             "says 'integer'), found '%s'", s);
			return B2_EDATA;
		}
		if (u < 1 || u > ps->rows) {
			snap_err_set(&ps->err, ps->block, line, "row index %llu outside 1..%llu",
			             (unsigned long long)u, (unsigned long long)ps->rows);
			return B2_EDATA;
		}
		if (v < 1 || v > ps->cols) {
			snap_err_set(&ps->err, ps->block, line, "column index %llu outside 1..%llu",
			             (unsigned long long)v, (unsigned long long)ps->cols);
			return B2_EDATA;
		}
	}
	return push(ps, u, v);
}

/* ---- the parser ------------------------------------------------------------ */

int snap_parse(snap_parser *ps, char *text, size_t len)
{
	int error = 0;
	if (ps->err.code)
		return ps->err.code;
	if (len == 0)
		return 0;
	if (text[len - 1] != '\n')
		text[len++] = '\n'; /* the file's last line lacks its end */
	const char *p = text, *end = text + len;
	snap_store *s = ps->out;
	const int mm = ps->mm;
	const uint64_t rows = ps->rows, cols = ps->cols;
	/* where the next tuple goes, and how many fit there */
	int64_t *dst = NULL;
	uint64_t room = 0;
	if (s->nch) {
		snap_chunk *c = &s->ch[s->nch - 1];
		dst = c->a + 2 * c->n;
		room = c->cap - c->n;
	}
	/* the id range, for the relabelling: kept here, where the ids pass anyway */
	uint64_t mn = s->total ? s->idmin : UINT64_MAX, mx = s->total ? s->idmax : 0;
#define SYNC_STORE() do { if (s->nch) { snap_chunk *c_ = &s->ch[s->nch - 1]; \
	uint64_t used_ = (uint64_t)(dst - c_->a) / 2 - c_->n; c_->n += used_; s->total += used_; \
	if (s->total) { s->idmin = mn; s->idmax = mx; } } } while (0)
	while (p < end) {
		const char *ls = p;
		unsigned d = (unsigned char)*p - '0';
		if (d < 10) {
			uint64_t u = d, v;
			p++;
			while ((d = (unsigned char)*p - '0') < 10) {
				u = u * 10 + d;
				p++;
			}
			if (p - ls > 18 || (*p != ' ' && *p != '\t'))
				goto slow;
			do
				p++;
			while (*p == ' ' || *p == '\t');
			const char *vs = p;
			if ((d = (unsigned char)*p - '0') >= 10)
				goto slow;
			v = d;
			p++;
			while ((d = (unsigned char)*p - '0') < 10) {
				v = v * 10 + d;
				p++;
			}
			if (p - vs > 18)
				goto slow;
			while (*p == ' ' || *p == '\t' || *p == '\r')
				p++;
			if (*p != '\n')
				goto slow;
			if (mm && (ps->fields != 2 || u - 1 >= rows || v - 1 >= cols))
				goto slow;
			if (room == 0) {
				SYNC_STORE();
				B2_TRY(snap_store_grow(s));
				snap_chunk *c = &s->ch[s->nch - 1];
				dst = c->a;
				room = c->cap;
			}
			dst[0] = (int64_t)u;
			dst[1] = (int64_t)v;
			mn = u < mn ? u : mn;
			mn = v < mn ? v : mn;
			mx = u > mx ? u : mx;
			mx = v > mx ? v : mx;
			dst += 2;
			room--;
			p++;
			ps->lines++;
			continue;
		}
	slow:;
		const char *eol = memchr(ls, '\n', (size_t)(end - ls));
		SYNC_STORE();
		error = slow_line(ps, ls, eol);
		if (error)
			goto done_nosync;
		if (s->nch) {
			snap_chunk *c = &s->ch[s->nch - 1];
			dst = c->a + 2 * c->n;
			room = c->cap - c->n;
		}
		if (s->total) {
			mn = s->idmin;
			mx = s->idmax;
		}
		p = eol + 1;
		ps->lines++;
	}
done:
	SYNC_STORE();
done_nosync:
#undef SYNC_STORE
	return error;
}
