/* snap_import.h — snap-import's pieces: byte sources (plain range or gzip
 * stream), a line-aligned block reader, the text parser (SNAP edge lists and
 * Matrix Market coordinate entries) with its chunked tuple store, a gzip
 * stream's blocks dealt to the ranks, and the distributed relabelling of
 * sparse ids to 0..N-1 (the ids a rank owns meanwhile: snap_owner.h). */
#ifndef SNAP_IMPORT_H
#define SNAP_IMPORT_H

#include <stdint.h>
#include <stddef.h>
#include <zlib.h>
#include "b2.h"

#define SNAP_MAX_ID (UINT64_C(1) << 62) /* ids above this are refused */

/* A positional data error: remembered when found, printed after the ranks
 * agreed which one comes first in the file. `block` is the text block it was
 * found in (lines counted from the block's start), or SNAP_ABS for a line
 * number that is already global (header of a Matrix Market file). */
#define SNAP_ABS UINT64_MAX
typedef struct snap_err {
	int code; /* 0 none, else B2_EDATA */
	uint64_t block, line;
	char msg[400];
} snap_err;
void snap_err_set(snap_err *e, uint64_t block, uint64_t line, const char *fmt, ...) B2_PRINTF(4, 5);

/* ---- byte sources (snap_read.c) ----------------------------------------- */
typedef struct snap_src {
	const char *path;
	int fd, gz;
	uint64_t pos, end; /* plain: next offset to read, end of the range */
	z_stream z;
	int zinit, zdone, in_eof, after_member; /* after_member: past a member's end */
	unsigned char *zin;
	size_t zin_cap;
	char zmsg[300]; /* set with B2_EDATA: what is wrong with the gzip stream */
	uint64_t in_total; /* bytes read from the file (gzip) */
} snap_src;
/* Plain bytes [pos, end) of an open file, or the whole file inflated. */
int snap_src_plain(snap_src *s, const char *path, int fd, uint64_t pos, uint64_t end);
int snap_src_gzip(snap_src *s, const char *path, int fd);
/* Up to cap bytes; *got 0 at the end. B2_EIO printed; B2_EDATA: s->zmsg. */
int snap_src_read(snap_src *s, char *dst, size_t cap, size_t *got);
void snap_src_close(snap_src *s);

/* Line reader over a source: hands out blocks of whole lines (at most cap
 * bytes; the last one of the input may lack its line end). A line longer
 * than cap is refused unless it is a comment, which is then handed out as a
 * blank line (its line end alone, so line counts stay right). */
typedef struct snap_lr {
	snap_src *src;
	char *buf; /* cap + 1 bytes: the parser may add a final '\n' */
	size_t cap, beg, end;
	int eof;
	char comment;
	uint64_t consumed; /* source bytes before buf[beg] (header reading only) */
} snap_lr;
int snap_lr_init(snap_lr *r, snap_src *src, size_t cap, char comment);
void snap_lr_free(snap_lr *r);
/* Next block: *text (inside r->buf, valid until the next call), *len 0 at
 * the end. B2_EDATA: *why says what (the caller knows the line). */
int snap_lr_block(snap_lr *r, char **text, size_t *len, char *why, size_t whysz);
/* One line without its end (for headers); *line NULL at the end. */
int snap_lr_line(snap_lr *r, char **line, size_t *len, char *why, size_t whysz);
/* Makes sure at least n bytes are buffered (or the input ends). */
int snap_lr_peek(snap_lr *r, size_t n, char *why, size_t whysz);

/* ---- Matrix Market header (snap_read.c) ---------------------------------- */
typedef struct snap_mm {
	int is_mm;
	int fields;    /* tokens per entry line: 2 pattern, 3 integer/real */
	int integer;   /* field integer: values must be whole numbers */
	int symmetric; /* symmetric or skew-symmetric */
	char field[16], symmetry[24];
	uint64_t rows, cols, nnz;
	uint64_t size_line;  /* line number of the size line */
	uint64_t lines;      /* lines the header takes (banner .. size line) */
} snap_mm;
/* Reads the banner, comments and size line from r (positioned at the file's
 * start). Errors are B2_EDATA with e filled (global line numbers); a matrix
 * that is not square is one (rows and columns are both the vertices). */
int snap_mm_header(snap_mm *mm, snap_lr *r, snap_err *e);

/* ---- tuple store and parser (snap_parse.c) ------------------------------- */
typedef struct snap_chunk {
	int64_t *a; /* 2*cap ints: u0 v0 u1 v1 ... */
	uint64_t n, cap;
} snap_chunk;
typedef struct snap_store {
	snap_chunk *ch;
	size_t nch, chcap;
	uint64_t total;
	uint64_t idmin, idmax; /* of the ids stored, when total > 0 (the parser keeps them) */
} snap_store;
int snap_store_grow(snap_store *s);
void snap_store_free(snap_store *s);

typedef struct snap_parser {
	const char *path;
	int mm, fields, integer;
	uint64_t rows, cols; /* Matrix Market bounds (1-based indices) */
	char comment;
	snap_store *out;
	uint64_t block, lines; /* current block, lines of it parsed so far */
	/* SNAP header comments: first "# Nodes: N Edges: M" and first
	 * "Directed graph"/"Undirected graph" line met by this rank */
	int hdr_has, dir_has, dir_val;
	uint64_t hdr_block, hdr_line, dir_block, dir_line;
	uint64_t hdr_nodes, hdr_edges;
	snap_err err;
} snap_parser;
/* Parses whole lines text[0..len); text[len] must be writable (a missing
 * final line end is added there). Stops at the first bad line
 * (B2_EDATA, ps->err) and keeps failing afterwards. */
int snap_parse(snap_parser *ps, char *text, size_t len);

/* ---- blocks of text and their dealing (snap_deal.c) ----------------------- */
/* Blocks this rank parsed: global index, tuples, lines. */
typedef struct snap_blocks {
	uint64_t *id, *tuples, *lines;
	size_t n, cap;
} snap_blocks;
int snap_blocks_add(snap_blocks *b, uint64_t id, uint64_t tuples, uint64_t lines);
uint64_t snap_count_nl(const char *p, size_t n);
/* A gzip input, rank 0: inflates (a thread) and parses (P = 1) or deals
 * the blocks to ranks 1..P-1 in turn; *nblocks: how many; a bad spot in
 * the stream goes to ps->err (P = 1) or deal_err (the block after the last
 * one dealt). Ranks 1..P-1: snap_gz_take parses the blocks dealt to them. */
int snap_gz_deal(snap_parser *ps, snap_lr *lr, snap_blocks *bl, b2_progress *pg, int P,
                 uint64_t *nblocks, snap_err *deal_err);
int snap_gz_take(snap_parser *ps, snap_blocks *bl, uint64_t block_bytes, int P);

/* ---- relabelling (snap_relabel.c) ---------------------------------------- */
enum { SNAP_MAP_AUTO, SNAP_MAP_BITMAP, SNAP_MAP_HASH, SNAP_MAP_DECLARED };
typedef struct snap_relabel_out {
	uint64_t num_vertices;
	uint64_t base;  /* first new id this rank owns */
	uint64_t count; /* how many it owns */
	int64_t *ids;   /* their original ids, increasing (count) */
	int mode;       /* SNAP_MAP_BITMAP, _HASH or _DECLARED: how this rank mapped */
	int presence;   /* P > 1: 1 presence bitmaps, 0 ends exchanged with owners */
	uint64_t map_bytes;
	double t_mark, t_exchange, t_map; /* seconds: marking, between ranks, mapping */
} snap_relabel_out;
/* Collective: replaces every id in st (all ranks' tuples together) by its
 * rank among the distinct ids of all ranks. batch: ends per exchange round. */
int snap_relabel(snap_relabel_out *out, snap_store *st, uint64_t total_tuples,
                 uint64_t batch, int mode, int id_cache, MPI_Comm comm);
/* Collective, no exchange: a Matrix Market matrix declares its n vertices,
 * so index x (1..n, checked by the parser) becomes vertex x - 1, isolated
 * vertices included, and this rank's slice of /vertex_ids (b2_share of n)
 * is the identity + 1. */
int snap_declared(snap_relabel_out *out, snap_store *st, uint64_t n, MPI_Comm comm);
void snap_relabel_free(snap_relabel_out *out);
/* Waits for a request by testing with short sleeps in between, instead of
 * MPI's busy polling, which takes the core from the rank being waited for
 * when ranks share cores. */
int snap_wait(MPI_Request *req, const char *what);
/* b2_agree, waiting as snap_wait does. */
int snap_agree(int code, MPI_Comm comm);

#endif
