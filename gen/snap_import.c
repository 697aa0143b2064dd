/* snap_import.c — snap-import: SNAP edge lists (plain or gzip) and Matrix
 * Market coordinate files to a bfs2d edge file.
 *
 * Plan (docs/FORMATS.md "How snap-import fills /edges"):
 *  1. rank 0 opens the input, tells gzip from text by its first bytes, and
 *     reads a Matrix Market header if there is one;
 *  2. text is parsed in blocks of whole lines. A plain file is cut into P
 *     line-aligned byte ranges, one per rank (block r = rank r's range). A
 *     gzip stream is inflated by a thread of rank 0 (P = 1: and parsed by
 *     its main thread); with P > 1 rank 0 hands blocks of whole lines to
 *     ranks 1..P-1 in turn;
 *  3. the ranks add up the tuples and lines of every block: rows and line
 *     numbers follow, and the first bad line in file order is reported;
 *  4. SNAP ids are relabelled together (snap_relabel.c); a Matrix Market
 *     matrix keeps its declared vertices, index i being vertex i-1 (no
 *     exchange); every rank writes its rows of /edges and its slice of
 *     /vertex_ids. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "h5util.h"
#include "snap_import.h"

static const char help[] =
	"Usage: snap-import INPUT [--directed|--undirected] -o edges.h5\n"
	"Imports a SNAP edge list (plain or gzip-compressed text: one tuple 'u v' per\n"
	"line, '#' comments) or a Matrix Market coordinate file (pattern, integer or\n"
	"real; general or symmetric; '%' comments) into a bfs2d edge file. SNAP ids are\n"
	"renumbered 0..N-1 in increasing order (the originals kept in /vertex_ids); a\n"
	"Matrix Market matrix keeps its declared n vertices (it must be square): index i\n"
	"is vertex i-1, isolated vertices included, /vertex_ids is 1..n. Tuples stay in\n"
	"input order, self-loops and duplicates included. Runs on any number of ranks.\n"
	"gapbs edge lists (.el: 'u v' per line; .wel: 'u v w', the weight ignored) are\n"
	"SNAP edge lists in this sense and read as such (as are edge-export's).\n"
	"The import's wall time is recorded as generation_time (Graph500's\n"
	"graph_generation for an imported graph).\n"
	"\n"
	"Options:\n"
	"  -o, --output FILE    the edge file to write (required)\n"
	"      --directed       set the directed attribute to 1, whatever the input says\n"
	"      --undirected     set it to 0 (default: the SNAP header line 'Directed\n"
	"                       graph'/'Undirected graph', the Matrix Market symmetry\n"
	"                       (general 1, symmetric 0), else 1)\n"
	"      --block-bytes N  text block size (default 4194304); a data line must fit\n"
	"      --id-map M       auto|bitmap|hash: how SNAP ids are numbered (default auto:\n"
	"                       bitmaps when the ids are dense enough, else hashing;\n"
	"                       on several ranks hashing sends every tuple end to the\n"
	"                       rank that owns its id)\n"
	"      --batch N        tuple ends per exchange round when ends are sent\n"
	"                       (default 4194304)\n"
	"      --id-cache       remember recently sent ids (fewer messages; for ranks\n"
	"                       on several nodes)\n"
	"  -v, --verbose        progress, phase times and peak memory\n"
	"  -q, --quiet          errors only\n"
	"      --progress       progress even under mpiexec (B2_PROGRESS=1 too; default:\n"
	"                       only when stderr is a terminal)\n"
	"  -h, --help           this help\n"
	"  -V, --version        version, with the git commit built in\n"
	"\n"
	"Example:\n"
	"  snap-import tests/data/snap/ca-GrQc.txt -o data/ca-GrQc.h5\n"
	"\n"
	"Exit status: 0 done, 2 usage, 3 bad input data, 4 cannot read/write.\n";

enum { OPT_DIRECTED = 1000, OPT_UNDIRECTED, OPT_BLOCK, OPT_BATCH, OPT_IDMAP, OPT_IDCACHE };

typedef struct opts {
	b2_stdopts std;
	const char *input;
	int directed; /* -1: from the input */
	uint64_t block_bytes, batch;
	int idmap, id_cache;
} opts;

/* What rank 0 learns from the start of the input; broadcast as bytes. */
typedef struct info {
	int error, gz;
	snap_mm mm;
	uint64_t size, data_start;
} info;

static int parse_opts(opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{"directed", no_argument, 0, OPT_DIRECTED},
		{"undirected", no_argument, 0, OPT_UNDIRECTED},
		{"block-bytes", required_argument, 0, OPT_BLOCK},
		{"batch", required_argument, 0, OPT_BATCH},
		{"id-map", required_argument, 0, OPT_IDMAP},
		{"id-cache", no_argument, 0, OPT_IDCACHE},
		B2_STD_LONGOPTS,
		{0, 0, 0, 0}};
	int c, error = 0;
	memset(o, 0, sizeof *o);
	o->directed = -1;
	o->block_bytes = 4u << 20;
	o->batch = 4u << 20;
	o->idmap = SNAP_MAP_AUTO;
	while ((c = getopt_long(argc, argv, B2_STD_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case OPT_DIRECTED:
		case OPT_UNDIRECTED:
			if (o->directed >= 0 && o->directed != (c == OPT_DIRECTED))
				return b2_usage_err("--directed and --undirected exclude each other");
			o->directed = c == OPT_DIRECTED;
			break;
		case OPT_BLOCK:
			B2_TRY(b2_parse_u64(&o->block_bytes, optarg, "--block-bytes", 64, UINT64_C(1) << 30));
			break;
		case OPT_BATCH:
			B2_TRY(b2_parse_u64(&o->batch, optarg, "--batch", 2, UINT64_C(1) << 28));
			break;
		case OPT_IDCACHE:
			o->id_cache = 1;
			break;
		case OPT_IDMAP:
			B2_TRY(b2_parse_choice(&o->idmap, optarg, "--id-map",
			                       (const char *[]){"auto", "bitmap", "hash", NULL},
			                       (const int[]){SNAP_MAP_AUTO, SNAP_MAP_BITMAP, SNAP_MAP_HASH}));
			break;
		default:
			B2_TRY(b2_std_option(&o->std, c, optarg, help));
		}
	}
	if (optind >= argc)
		return b2_usage_err("missing INPUT (a SNAP edge list or a Matrix Market file)");
	if (optind + 1 < argc)
		return b2_usage_err("one INPUT only, got '%s' and '%s'", argv[optind], argv[optind + 1]);
	o->input = argv[optind];
	if (!o->std.output)
		return b2_usage_err("missing -o OUTPUT (the edge file to write)");
done:
	return error;
}

/* Rank 0: open, sniff, read a Matrix Market header. For gzip the reader
 * (src, lr) stays open, positioned at the first data line. */
static int sniff(info *in, int *fd, snap_src *src, snap_lr *lr, const opts *o)
{
	int error = 0;
	struct stat st;
	snap_err e = {0};
	char why[300] = "", head[16] = {0};
	const char *path = o->input;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (refused below) */
	*fd = open(path, O_RDONLY | O_NONBLOCK);
	if (*fd < 0)
		B2_FAIL(B2_EIO, "cannot open %s: %s", path, strerror(errno));
	if (fstat(*fd, &st) != 0)
		B2_FAIL(B2_EIO, "cannot read %s: %s", path, strerror(errno));
	B2_TRY(b2_input_mode_ok(path, st.st_mode));
	in->size = (uint64_t)st.st_size;
	if (in->size == 0)
		B2_FAIL(B2_EDATA, "%s: line 1: empty file: expected a SNAP edge list or a Matrix Market file", path);
	ssize_t n = pread(*fd, head, 2, 0);
	if (n < 0)
		B2_FAIL(B2_EIO, "cannot read %s: %s", path, strerror(errno));
	in->gz = n == 2 && (unsigned char)head[0] == 0x1f && (unsigned char)head[1] == 0x8b;
	if (in->gz)
		B2_TRY(snap_src_gzip(src, path, *fd));
	else
		B2_TRY(snap_src_plain(src, path, *fd, 0, in->size));
	B2_TRY(snap_lr_init(lr, src, o->block_bytes, '#'));
	error = snap_lr_peek(lr, 14, why, sizeof why);
	if (error == B2_EDATA) /* a gzip stream broken at once */
		B2_FAIL(B2_EDATA, "%s: line 1: %s", path, why);
	if (error)
		goto done;
	if (lr->end == 0)
		B2_FAIL(B2_EDATA, "%s: line 1: empty file after decompression: expected a SNAP edge list "
		        "or a Matrix Market file", path);
	if (lr->end >= 14 && !strncasecmp(lr->buf, "%%MatrixMarket", 14)) {
		lr->comment = '%';
		error = snap_mm_header(&in->mm, lr, &e);
		if (error == B2_EDATA)
			B2_FAIL(B2_EDATA, "%s: line %llu: %s", path, (unsigned long long)e.line, e.msg);
		if (error)
			goto done;
		in->data_start = lr->consumed + lr->beg;
	}
done:
	return error;
}

/* First '\n' at or after byte `from`: the start of the next line. */
static int next_line_start(uint64_t *out, int fd, const char *path, uint64_t from, uint64_t size)
{
	char buf[65536];
	uint64_t pos = from;
	while (pos < size) {
		ssize_t n = pread(fd, buf, sizeof buf, (off_t)pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return b2_err(B2_EIO, "cannot read %s: %s", path, n < 0 ? strerror(errno) : "file shrank");
		char *nl = memchr(buf, '\n', (size_t)n);
		if (nl) {
			*out = pos + (uint64_t)(nl - buf) + 1;
			return 0;
		}
		pos += (uint64_t)n;
	}
	*out = size;
	return 0;
}

static void set_parser(snap_parser *ps, const opts *o, const info *in, snap_store *st)
{
	memset(ps, 0, sizeof *ps);
	ps->path = o->input;
	ps->mm = in->mm.is_mm;
	ps->fields = in->mm.fields;
	ps->integer = in->mm.integer;
	ps->rows = in->mm.rows;
	ps->cols = in->mm.cols;
	ps->comment = in->mm.is_mm ? '%' : '#';
	ps->out = st;
}

/* Parses everything the reader hands out as one block `id`. */
static int parse_stream(snap_parser *ps, snap_lr *lr, snap_blocks *bl, uint64_t id, b2_progress *pg,
                        uint64_t pg_base)
{
	int error = 0;
	char why[300] = "";
	uint64_t t0 = ps->out->total;
	ps->block = id;
	ps->lines = 0;
	for (;;) {
		char *text;
		size_t len;
		error = snap_lr_block(lr, &text, &len, why, sizeof why);
		if (error == B2_EDATA) {
			snap_err_set(&ps->err, id, ps->lines + snap_count_nl(lr->buf + lr->beg, lr->end - lr->beg) + 1,
			             "%s", why);
			error = 0; /* reported later, in file order */
			break;
		}
		if (error || len == 0)
			break;
		if (snap_parse(ps, text, len) == B2_EIO) {
			error = B2_EIO;
			break;
		}
		if (ps->err.code)
			break;
		b2_progress_step(pg, (double)((lr->src->gz ? lr->src->in_total : lr->src->pos) - pg_base));
	}
	if (!error)
		error = snap_blocks_add(bl, id, ps->out->total - t0, ps->lines);
	return error;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t peak_rss_bytes(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_maxrss * 1024;
}

/* when the import started (main), for generation_time */
static double import_t0;

static int write_output(const opts *o, snap_store *st, const snap_blocks *bl, const uint64_t *row_off,
                        uint64_t M, const snap_relabel_out *rl, int directed, uint64_t *fp_out)
{
	int error = 0;
	b2_h5out out;
	hid_t edges = -1, vids = -1;
	int wb = -1;
	uint64_t fp = 0, gfp = 0;
	memset(&out, 0, sizeof out);
	out.file = -1;
	/* ranks with fewer tuples (rank 0 with a gzip input: none) finish the
	 * relabelling first; they wait here, and for the others' writes below,
	 * without taking a shared core from them (as snap_wait) */
	B2_TRY(snap_agree(0, MPI_COMM_WORLD));
	B2_TRY(b2_h5_create(&out, o->std.output, MPI_COMM_WORLD, "bfs2d-edges", 1));
	uint64_t dims[2] = {M, 2};
	error = b2_dset_create(&edges, out.file, "edges", H5T_STD_I64LE, 2, dims, UINT64_C(1) << 20, 0);
	if (!error) {
		uint64_t vdims[1] = {rl->num_vertices};
		error = b2_dset_create(&vids, out.file, "vertex_ids", H5T_STD_I64LE, 1, vdims, 0, 0);
	}
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_h5_reserve(&out)); /* a full disk found now, not inside a write */
	/* Starting the write-back of each piece at once lets the disk work while
	 * we write the next, so the commit's fsync finds little left to do (a
	 * hint: without it the data still reaches the disk at the fsync). */
	wb = open(out.tmp_path, O_RDONLY);
	{
		/* this rank's blocks, in order, are consecutive in its store */
		size_t c = 0;
		uint64_t off = 0;
		for (size_t b = 0; b < bl->n && !error; b++) {
			uint64_t row = row_off[bl->id[b]], left = bl->tuples[b];
			while (left > 0 && !error) {
				while (off == st->ch[c].n) {
					c++;
					off = 0;
				}
				uint64_t n = st->ch[c].n - off;
				n = n < left ? n : left;
				const int64_t *t = st->ch[c].a + 2 * off;
				for (uint64_t i = 0; i < n; i++)
					fp += b2_fp_tuple(row + i, t[2 * i], t[2 * i + 1]);
				error = b2_dset_write_rows(edges, H5T_NATIVE_INT64, row, n, t, 0);
				if (wb >= 0)
					sync_file_range(wb, 0, 0, SYNC_FILE_RANGE_WRITE);
				row += n;
				off += n;
				left -= n;
			}
		}
	}
	B2_TRY(snap_agree(error, MPI_COMM_WORLD));
	error = b2_dset_write_rows(vids, H5T_NATIVE_INT64, rl->base, rl->count, rl->ids, b2_nranks > 1);
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&fp, &gfp, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce"));
	*fp_out = gfp;
	B2_TRY(b2_attr_put_i64(out.file, "num_vertices", (int64_t)rl->num_vertices));
	B2_TRY(b2_attr_put_i64(out.file, "num_edges", (int64_t)M));
	B2_TRY(b2_attr_put_i64(out.file, "directed", directed));
	B2_TRY(b2_attr_put_u64(out.file, "fingerprint", gfp));
	B2_TRY(b2_attr_put_str(out.file, "source", o->input));
	{
		/* Graph500's graph_generation for an imported graph: the import,
		 * from start to the last write, on the slowest rank */
		double gt = b2_now() - import_t0;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &gt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
		                 "MPI_Allreduce"));
		B2_TRY(b2_attr_put_f64(out.file, "generation_time", gt));
	}
done:
	if (wb >= 0)
		close(wb);
	if (out.path) {
		/* the last chunk of /edges may still be in HDF5's cache: closing
		 * writes it, and can fail */
		error = b2_h5_close(&out, &edges, error);
		error = b2_h5_close(&out, &vids, error);
		error = b2_h5_commit(&out, error);
	}
	return error;
}

/* Header facts of one rank, gathered to pick the first in the file. */
typedef struct hdr {
	uint64_t has, block, line, nodes, edges;
	uint64_t dhas, dblock, dline, dval;
} hdr;

static int before(uint64_t b1, uint64_t l1, uint64_t b2, uint64_t l2)
{
	return b1 < b2 || (b1 == b2 && l1 < l2);
}

static int run(int argc, char **argv)
{
	int error = 0, fd = -1, P = b2_nranks, me = b2_rank;
	opts o;
	info in;
	snap_src src;
	snap_lr lr;
	snap_store st;
	snap_parser ps;
	snap_blocks bl;
	snap_relabel_out rl;
	snap_err dealer_err = {0};
	uint64_t *cnt = NULL, *gcnt = NULL, *row_off = NULL, *line_off = NULL, K = 0;
	hdr *hd = NULL;
	b2_progress pg;
	double t0 = b2_now(), t_parse = 0, t_relabel = 0, t_write = 0;
	import_t0 = t0;
	double c0 = cpu_now(), c_parse = 0, c_relabel = 0, c_write = 0; /* rank 0's CPU seconds */
	memset(&in, 0, sizeof in);
	memset(&src, 0, sizeof src);
	memset(&lr, 0, sizeof lr);
	memset(&st, 0, sizeof st);
	memset(&bl, 0, sizeof bl);
	memset(&rl, 0, sizeof rl);
	memset(&pg, 0, sizeof pg);
	src.fd = -1;

	error = parse_opts(&o, argc, argv);
	if (error)
		goto done;
	B2_TRY(b2_check_output("-o", o.std.output, &o.input, 1, 0));

	/* 1. rank 0 sniffs the input */
	if (me == 0)
		in.error = sniff(&in, &fd, &src, &lr, &o);
	B2_TRY(b2_mpi_ok(MPI_Bcast(&in, sizeof in, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast"));
	B2_TRY(in.error);
	set_parser(&ps, &o, &in, &st);

	/* 2. parse */
	if (!in.gz) {
		uint64_t lo, hi, start, *starts = NULL;
		if (me != 0) {
			fd = open(o.input, O_RDONLY);
			if (fd < 0)
				error = b2_err(B2_EIO, "cannot open %s: %s", o.input, strerror(errno));
		} else {
			snap_lr_free(&lr);
			snap_src_close(&src);
		}
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		b2_share(&lo, &hi, in.size - in.data_start, P, me);
		lo += in.data_start;
		if (lo <= in.data_start)
			start = in.data_start;
		else
			error = next_line_start(&start, fd, o.input, lo - 1, in.size);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		error = b2_alloc(&starts, ((size_t)P + 1) * sizeof(uint64_t), "range starts");
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		error = b2_mpi_ok(MPI_Allgather(&start, 1, MPI_UINT64_T, starts, 1, MPI_UINT64_T, MPI_COMM_WORLD),
		                  "MPI_Allgather");
		uint64_t end = me + 1 < P ? starts[me + 1] : in.size;
		free(starts);
		B2_TRY(error);
		snap_src_plain(&src, o.input, fd, start, end);
		error = snap_lr_init(&lr, &src, o.block_bytes, ps.comment);
		if (!error) {
			b2_progress_begin(&pg, "reading", "B", (double)(end - start));
			error = parse_stream(&ps, &lr, &bl, (uint64_t)me, &pg, start);
			b2_progress_end(&pg);
		}
		K = (uint64_t)P;
	} else if (me == 0) {
		b2_progress_begin(&pg, P == 1 ? "inflating and reading" : "inflating", "B", (double)in.size);
		error = snap_gz_deal(&ps, &lr, &bl, &pg, P, &K, &dealer_err);
		b2_progress_end(&pg);
	} else {
		error = snap_gz_take(&ps, &bl, o.block_bytes, P);
	}
	if (me == 0) {
		snap_lr_free(&lr);
		snap_src_close(&src);
	}
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_mpi_ok(MPI_Bcast(&K, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast"));

	/* 3. rows and lines of every block */
	error = b2_calloc(&cnt, 2 * K + 1, sizeof(uint64_t), "block counts");
	if (!error)
		error = b2_calloc(&gcnt, 2 * K + 1, sizeof(uint64_t), "block counts");
	if (!error)
		error = b2_alloc(&row_off, (K + 1) * sizeof(uint64_t), "block offsets");
	if (!error)
		error = b2_alloc(&line_off, (K + 1) * sizeof(uint64_t), "block offsets");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	for (size_t b = 0; b < bl.n; b++) {
		cnt[2 * bl.id[b]] = bl.tuples[b];
		cnt[2 * bl.id[b] + 1] = bl.lines[b];
	}
	B2_TRY(b2_mpi_ok(MPI_Allreduce(cnt, gcnt, (int)(2 * K), MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	row_off[0] = 0;
	line_off[0] = in.mm.lines;
	for (uint64_t b = 0; b < K; b++) {
		row_off[b + 1] = row_off[b] + gcnt[2 * b];
		line_off[b + 1] = line_off[b] + gcnt[2 * b + 1];
	}
	uint64_t M = row_off[K], L = line_off[K];

	/* the first bad line in file order wins */
	{
		snap_err *e = me == 0 && dealer_err.code ? &dealer_err : &ps.err;
		/* signed: this MPICH compares MPI_UINT64_T as signed in MIN/MAX */
		int64_t myb = e->code ? (int64_t)e->block : INT64_MAX, b, myl, l;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&myb, &b, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce"));
		if (b != INT64_MAX) {
			myl = myb == b ? (int64_t)e->line : INT64_MAX;
			B2_TRY(b2_mpi_ok(MPI_Allreduce(&myl, &l, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD),
			                 "MPI_Allreduce"));
			if (myb == b && myl == l)
				b2_err(B2_EDATA, "%s: line %llu: %s", o.input,
				       (unsigned long long)(line_off[b] + (uint64_t)l), e->msg);
			error = B2_EDATA;
			goto done;
		}
	}
	if (M == 0) {
		if (L == 0)
			B2_FAIL0(B2_EDATA, "%s: line 1: empty file after decompression: expected a SNAP edge list "
			         "or a Matrix Market file", o.input);
		if (in.mm.is_mm)
			B2_FAIL0(B2_EDATA, "%s: line %llu: no entries: a graph needs at least one (the size line, "
			         "line %llu, announces %llu)", o.input, (unsigned long long)L,
			         (unsigned long long)in.mm.size_line, (unsigned long long)in.mm.nnz);
		B2_FAIL0(B2_EDATA, "%s: line %llu: no edges: the file has only comments and blank lines",
		         o.input, (unsigned long long)L);
	}
	if (in.mm.is_mm && M != in.mm.nnz)
		B2_FAIL0(B2_EDATA, "%s: line %llu: the file has %llu entries, but its size line (line %llu) "
		         "announces %llu", o.input, (unsigned long long)L, (unsigned long long)M,
		         (unsigned long long)in.mm.size_line, (unsigned long long)in.mm.nnz);

	/* header facts: the first of each kind in the file */
	hdr mine = {ps.hdr_has, ps.hdr_block, ps.hdr_line, ps.hdr_nodes, ps.hdr_edges,
	            ps.dir_has, ps.dir_block, ps.dir_line, (uint64_t)ps.dir_val};
	hdr first = {0};
	error = b2_alloc(&hd, (size_t)P * sizeof(hdr), "header facts");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_mpi_ok(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, hd, sizeof mine, MPI_BYTE, MPI_COMM_WORLD),
	                 "MPI_Allgather"));
	for (int r = 0; r < P; r++) {
		if (hd[r].has && (!first.has || before(hd[r].block, hd[r].line, first.block, first.line))) {
			first.has = 1;
			first.block = hd[r].block;
			first.line = hd[r].line;
			first.nodes = hd[r].nodes;
			first.edges = hd[r].edges;
		}
		if (hd[r].dhas && (!first.dhas || before(hd[r].dblock, hd[r].dline, first.dblock, first.dline))) {
			first.dhas = 1;
			first.dblock = hd[r].dblock;
			first.dline = hd[r].dline;
			first.dval = hd[r].dval;
		}
	}
	int directed = o.directed >= 0 ? o.directed
	               : in.mm.is_mm ? !in.mm.symmetric
	               : first.dhas ? (int)first.dval : 1;
	if (o.directed < 0 && !in.mm.is_mm && !first.dhas)
		b2_debug("%s: no 'Directed graph'/'Undirected graph' line: directed = 1 "
		         "(--undirected to change)", o.input);
	t_parse = b2_now() - t0;
	c_parse = cpu_now() - c0;

	/* 4. relabel (SNAP: the ids that occur; Matrix Market: the declared
	 * vertices, as they are), write */
	if (in.mm.is_mm)
		B2_TRY(snap_declared(&rl, &st, in.mm.rows, MPI_COMM_WORLD));
	else
		B2_TRY(snap_relabel(&rl, &st, M, o.batch, o.idmap, o.id_cache, MPI_COMM_WORLD));
	t_relabel = b2_now() - t0 - t_parse;
	c_relabel = cpu_now() - c0 - c_parse;
	if (first.has && first.edges != M)
		b2_warn0("%s: line %llu: the header says %lld edges, the data has %llu tuples (the data is used)",
		         o.input, (unsigned long long)(line_off[first.block] + first.line),
		         (long long)first.edges, (unsigned long long)M);
	if (first.has && first.nodes != rl.num_vertices)
		b2_warn0("%s: line %llu: the header says %lld nodes, the data has %llu distinct vertex ids "
		         "(the data is used)", o.input, (unsigned long long)(line_off[first.block] + first.line),
		         (long long)first.nodes, (unsigned long long)rl.num_vertices);
	uint64_t fp = 0;
	B2_TRY(write_output(&o, &st, &bl, row_off, M, &rl, directed, &fp));
	t_write = b2_now() - t0 - t_parse - t_relabel;
	c_write = cpu_now() - c0 - c_parse - c_relabel;

	/* peak memory: the largest bytes per tuple of any rank holding tuples */
	{
		int64_t rss = (int64_t)peak_rss_bytes(), mx = 0;
		double bpt = st.total ? (double)rss / (double)st.total : 0, mbpt = 0;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&rss, &mx, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce"));
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&bpt, &mbpt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce"));
		double tot = b2_now() - t0;
		b2_debug("input %s: %s%s, %llu bytes, %llu lines; %llu tuples, %llu vertices, directed %d, "
		         "fingerprint %016llx", o.input, in.gz ? "gzip " : "",
		         in.mm.is_mm ? "Matrix Market" : "SNAP text", (unsigned long long)in.size,
		         (unsigned long long)L, (unsigned long long)M, (unsigned long long)rl.num_vertices,
		         directed, (unsigned long long)fp);
		b2_debug("times: parse %.3f s, relabel %.3f s (%s on rank 0), write %.3f s, total %.3f s "
		         "(%.1f MB/s of input)", t_parse, t_relabel,
		         rl.mode == SNAP_MAP_BITMAP ? "bitmap" : rl.mode == SNAP_MAP_HASH ? "hash" : "declared size",
		         t_write, tot, tot > 0 ? (double)in.size / tot / 1e6 : 0.0);
		b2_debug("rank 0 CPU seconds (all its threads): parse %.3f, relabel %.3f, write %.3f",
		         c_parse, c_relabel, c_write);
		b2_debug("relabel on rank 0 (%s): mark %.3f s, numbering %.3f s, map %.3f s",
		         rl.mode == SNAP_MAP_DECLARED ? "Matrix Market: index i is vertex i-1, no exchange"
		         : P == 1 ? "one rank" : rl.presence ? "presence bitmaps" : "ends exchanged with owners",
		         rl.t_mark, rl.t_exchange, rl.t_map);
		b2_debug("peak memory: %.1f MiB on the largest rank; %.1f bytes per tuple per rank at most",
		         (double)mx / 1048576.0, mbpt);
	}
	b2_info("wrote %s: %llu vertices, %llu tuples, directed %d", o.std.output,
	        (unsigned long long)rl.num_vertices, (unsigned long long)M, directed);
done:
	if (me == 0) {
		snap_lr_free(&lr);
		snap_src_close(&src);
	} else {
		snap_lr_free(&lr);
	}
	if (fd >= 0)
		close(fd);
	snap_store_free(&st);
	snap_relabel_free(&rl);
	free(bl.id);
	free(bl.tuples);
	free(bl.lines);
	free(cnt);
	free(gcnt);
	free(row_off);
	free(line_off);
	free(hd);
	return error;
}

int main(int argc, char **argv)
{
	int error = b2_init(&argc, &argv, "snap-import");
	if (error)
		return error;
	return b2_finish(run(argc, argv));
}
