/* b2.h — the one header every bfs2d program includes.
 *
 * Conventions (after libgit2): functions return int, 0 on success or one of
 * docs/DESIGN.md's exit codes (B2_E*); out-parameters come first; a function that
 * fails has already printed one clear message (b2_err), so callers only pass
 * the code up.  Inside a function: `int error = 0; ... B2_TRY(f()); ... done:
 * free(...); return error;` — a single exit that releases everything. */
#ifndef B2_H
#define B2_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>

#define BFS2D_VERSION "0.1.0"
/* The git commit this build was made from (`git describe --always --dirty`,
 * "unknown" outside a checkout), and "0.1.0 (git COMMIT)" (provenance.c). */
const char *b2_git_commit(void);
void b2_version_string(char *buf, size_t n);
/* A new run id (runid.c): 32 hex digits of a random 128-bit number drawn on
 * rank 0 of comm, the same on every rank (collective). */
#define B2_RUN_ID_SIZE 33
int b2_run_id_new(char id[B2_RUN_ID_SIZE], MPI_Comm comm);

/* Exit codes, docs/DESIGN.md "Programs' behaviour". */
enum {
	B2_OK = 0,
	B2_EFAIL = 1,  /* validation failed, runtime error */
	B2_EUSAGE = 2, /* bad command line */
	B2_EDATA = 3,  /* bad input data */
	B2_EIO = 4,    /* cannot read/write, out of host or device memory */
	B2_EXIT_HELP = 255 /* internal: --help/--version printed, exit 0 */
};

#define B2_TRY(x) do { if ((error = (x)) != 0) goto done; } while (0)
#define B2_FAIL(code, ...) do { error = b2_err((code), __VA_ARGS__); goto done; } while (0)
#define B2_FAIL0(code, ...) do { error = b2_err0((code), __VA_ARGS__); goto done; } while (0)

#if defined(__GNUC__)
#define B2_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define B2_PRINTF(a, b)
#endif

/* ---- process set-up (mpiutil.c) ---------------------------------------- */
/* MPI_Init (works without mpiexec), logging, HDF5 error silencing, signal
 * clean-up of temporary outputs. */
int b2_init(int *argc, char ***argv, const char *prog);
/* Agrees on the exit code across MPI_COMM_WORLD (the largest wins),
 * finalizes MPI and returns the code for main() to return. */
int b2_finish(int error);
extern int b2_rank, b2_nranks;
extern const char *b2_prog;

/* ---- errors (error.c) --------------------------------------------------- */
/* Prints "prog: message" (with "[rank r]" when several ranks run) to stderr
 * and returns code. b2_err0 prints on rank 0 only: for errors every rank
 * detects alike (bad arguments, bad attributes). */
int b2_err(int code, const char *fmt, ...) B2_PRINTF(2, 3);
int b2_err0(int code, const char *fmt, ...) B2_PRINTF(2, 3);
/* As b2_err, for an error that every rank may meet alike (a full disk
 * under each rank's temporary files): the message waits for the next
 * b2_agree, which prints it once, from the lowest rank that held one, with
 * how many others did; b2_abort prints it where no agreement comes. */
int b2_err_held(int code, const char *fmt, ...) B2_PRINTF(2, 3);
/* Messages (b2_err, b2_warn, b2_info) are one line: control characters in
 * msg (from file names, input strings) replaced by \n, \t, \xHH, in place. */
void b2_msg_clean(char *msg);
/* Collective over comm: every rank gets the largest code of any rank.
 * A rank that brings an error (code != 0) waits for the others at most
 * B2_ERROR_WAIT seconds (environment, default 10): when they do not come
 * (they wait in another collective), it ends the whole job, b2_abort(code). */
int b2_agree(int code, MPI_Comm comm);
/* Ends the whole job at once, from any rank, with exit code `code`: removes
 * the temporaries this process knows of, prints nothing more (but a held
 * message, b2_err_held) and calls
 * MPI_Abort (mpiexec then exits with `code`). For errors found where peers
 * may wait in a collective that they cannot leave (inside a BFS level). */
void b2_abort(int code);
/* Internal (error.c, mpiutil.c): this rank has reported an error: it leaves
 * within B2_ERROR_WAIT seconds and 5 more, whatever it waits for (then it
 * removes its temporaries and exits with the code; mpiexec ends the rest). */
void b2_error_seen(int code);
double b2_error_wait(void);
/* Internal (error.c): prints the held message (b2_err_held), if any, now
 * (1: it did); the line it prints as, prefix and newline included ("" when
 * none), for a signal handler's write(2). */
int b2_print_held(void);
const char *b2_held_line(void);
/* Checks an MPI return value; on failure prints what and the MPI error. */
int b2_mpi_ok(int mpierr, const char *what);
/* malloc with a clear B2_EIO message naming what the memory was for. */
int b2_alloc(void *out_ptr, size_t bytes, const char *what);
int b2_calloc(void *out_ptr, size_t n, size_t size, const char *what);
/* n elements of `size` bytes (n from input data: the product is checked;
 * when it passes what memory can hold, B2_EIO naming the true need). */
int b2_alloc_n(void *out_ptr, uint64_t n, uint64_t size, const char *what);
/* *r = a * b; 0 when that overflows 64 bits (sizes derived from input). */
static inline int b2_mul_ok(uint64_t *r, uint64_t a, uint64_t b)
{
	return !__builtin_mul_overflow(a, b, r);
}

/* ---- files (files.c) ------------------------------------------------------
 * Temporaries are named DIR/.BASE.tmp-HOST-PID beside their target. Every
 * rank registers the temporaries it knows of; a signal, b2_abort or the
 * error deadline removes them. */
int b2_tmp_register(const char *tmp, const char *path, int is_dir);
void b2_tmp_forget(const char *tmp);
/* The target a registered temporary stands for (tmp itself if none). */
const char *b2_tmp_final(const char *tmp);
/* Signal set-up (b2_init): handler for SIGINT, SIGTERM, SIGHUP; SIGPIPE and
 * SIGXFSZ ignored, so that the write meeting them fails (EPIPE, EFBIG) and
 * is reported as any failed write. */
void b2_signals_init(void (*handler)(int));
/* Flushes standard output (b2_finish): B2_EIO with "cannot write standard
 * output: REASON" when any write to it failed (a reader that quit). */
int b2_stdout_close(void);
/* Async-signal-safe: unlinks the registered files, removes the directories. */
void b2_tmp_remove_all(void);
/* The temporary name for path, made by this process; also removes
 * temporaries of the same target left by dead processes of this host. */
int b2_tmp_name(char *tmp, size_t n, const char *path);
/* DIR/.BASE.TAG, a name beside path for this program's own use (BASE cut
 * and hashed when long, so that the name stays within 255 bytes with up to
 * 40 more appended). */
int b2_side_name(char *out, size_t n, const char *path, const char *tag);

/* The file an output named path is written as: path itself, or where a
 * symbolic link (chain) leads, also when that file does not exist yet
 * (a relative target from the link's directory), so that the link stays
 * and its temporary and lock lie beside the file replaced. Caller frees;
 * NULL when out of memory. b2_fout_open and b2_h5_create write there. */
char *b2_output_target(const char *path);
/* The lock file of output path (bfs-report --append): DIR/.BASE.lock beside
 * b2_output_target(path), BASE cut and hashed as in b2_side_name when long,
 * so that a table name of up to 255 bytes has a lock, and every link to one
 * table gives the same lock. Caller frees *out. */
int b2_lock_name(char **out, const char *path);

/* Inputs and outputs are regular files (docs/DESIGN.md "Outputs"). An
 * input that exists and is not one (a FIFO, a device, a directory) is
 * refused with B2_EIO and one message, "cannot read X: it is a FIFO, not a
 * regular file", never opened; a missing one is left to its reader.
 * b2_input_mode_ok gives that message for a stat's mode (calling rank);
 * b2_check_input stats path on every rank, rank 0 prints. */
int b2_input_mode_ok(const char *path, unsigned mode);
int b2_check_input(const char *path);
/* An output: `what` names its option ("-o", "--svg", "--append"); is_dir
 * for a directory that the program fills (bfs-report --svg). */
typedef struct b2_output {
	const char *what, *path;
	int is_dir;
} b2_output;
/* Whether one output can be written (calling rank prints): B2_EUSAGE for a
 * name ending in '/' or an existing non-regular file (a device, a FIFO, a
 * socket, or a symlink to one: never replaced), B2_EIO for an existing
 * directory (or file, when is_dir), a directory that is missing or not
 * writable, a name over NAME_MAX. */
int b2_output_ok(const char *what, const char *path, int is_dir);
/* Every check on a program's files, right after option parsing, before any
 * work (every rank calls it; rank 0 prints): the inputs are regular files
 * (b2_check_input), each output can be written (b2_output_ok), no output is
 * an input (the same device and inode, or the same resolved path; a
 * directory output must not contain one), and no two outputs share a path
 * or lie one in the other's directory (B2_EUSAGE, naming both). */
int b2_check_files(const b2_output *outputs, int noutputs, const char *const *inputs, int ninputs);
/* b2_check_files for one output (none when output is NULL). */
int b2_check_output(const char *what, const char *output, const char *const *inputs, int ninputs,
                    int is_dir);
/* A text output written under a registered temporary: open, write to f,
 * close (flush, fsync: every failure found and named with its reason),
 * commit (close if open, rename; path stays set, committed = 1; the file
 * it replaced is kept as a hard link beside it, old), undo (after a commit,
 * when a later output of the same run failed: puts back what was there,
 * or removes the new file), or discard (removes the temporary if not
 * committed, and the kept old file; frees; also after commit). A zeroed
 * b2_fout is a valid "nothing" for discard. */
typedef struct b2_fout {
	FILE *f;
	char *path, *tmp, *old;
	int registered, committed;
} b2_fout;
int b2_fout_open(b2_fout *o, const char *path);
int b2_fout_close(b2_fout *o);
int b2_fout_commit(b2_fout *o);
void b2_fout_undo(b2_fout *o);
void b2_fout_discard(b2_fout *o);
/* fsync of path's directory, so that a rename into it is durable. */
void b2_fsync_dir(const char *path);

/* ---- strings from inputs into outputs (escape.c) ------------------------
 * Every string that comes from an input (file names, attributes, host
 * names, the commit) goes into an output through the function of that
 * output's kind (docs/FORMATS.md "Strings from inputs"). Text: control
 * characters, a backslash and bytes that are not UTF-8 escaped (\n, \t,
 * \xHH), so a string is one line. CSV: the text form, quoted ("") when it
 * holds a comma, a quote or an outer space. XML/HTML/SVG (text and
 * attribute values): the text form with & < > " ' as entities. JSON: a
 * quoted JSON string, every character exact, bytes not UTF-8 as U+FFFD. */
void b2_fput_text(FILE *f, const char *s);
void b2_fput_csv(FILE *f, const char *s);
void b2_fput_xml(FILE *f, const char *s);
/* XML character data of a text output (whose input strings went through
 * b2_text): as b2_fput_xml, its newlines kept (an HTML <pre>). */
void b2_fput_xml_lines(FILE *f, const char *s);
void b2_fput_json(FILE *f, const char *s);
/* The text form as a string for printf's %s (one of 16 buffers in turn:
 * valid until 16 more calls; NULL is ""). */
const char *b2_text(const char *s);

/* ---- sorting (sort.c) ---------------------------------------------------- */
/* LSD radix sort of a[0..n) on its low `bits` (at most 64) bits, ping-ponging
 * with tmp[n]; returns the sorted array (a or tmp). Not reentrant: its
 * counting tables are static. */
uint64_t *b2_radix_sort(uint64_t *a, uint64_t *tmp, uint64_t n, int bits);
/* The same, advancing progress pr (may be NULL) from base to base + share*n
 * pass by pass (b2_progress is declared below). */
struct b2_progress;
uint64_t *b2_radix_sort_progress(uint64_t *a, uint64_t *tmp, uint64_t n, int bits,
                                 struct b2_progress *pr, double base, double share);
/* The same with a buffer of its own: *keys ends up sorted, possibly in the
 * other allocation (the one not holding the result is freed). */
int b2_radix_sort_alloc(uint64_t **keys, uint64_t n, int bits, const char *what);

/* ---- logging and progress (log.c) --------------------------------------- */
/* verbosity: -1 quiet, 0 normal, >=1 verbose. */
void b2_log_set_verbosity(int verbosity);
int b2_log_verbosity(void);
void b2_info(const char *fmt, ...) B2_PRINTF(1, 2);  /* rank 0, not when quiet */
void b2_debug(const char *fmt, ...) B2_PRINTF(1, 2); /* rank 0, verbose only */
void b2_warn(const char *fmt, ...) B2_PRINTF(1, 2);  /* any rank */
void b2_warn0(const char *fmt, ...) B2_PRINTF(1, 2); /* rank 0 */

/* Throttled progress with rate and ETA on rank 0's stderr. Shown when stderr
 * is a terminal, with -v, or when asked for: --progress (every program),
 * B2_PROGRESS=1 in the environment, or a launcher that says the job has a
 * terminal (Slurm's srun --pty sets SLURM_PTY_PORT). mpiexec pipes rank 0's
 * stderr, so isatty alone cannot tell; B2_PROGRESS=0 silences it. Units name
 * what is counted. */
typedef struct b2_progress {
	const char *what, *unit;
	double total, t0, last;
	int active;
} b2_progress;
void b2_progress_begin(b2_progress *p, const char *what, const char *unit, double total);
void b2_progress_step(b2_progress *p, double done);
void b2_progress_end(b2_progress *p);
/* --progress: show progress, as a live line, even when stderr is a pipe. */
void b2_log_force_progress(int on);

/* ---- options (opts.c) ---------------------------------------------------- */
/* Options every program has: -h/--help, -V/--version, -v/--verbose,
 * -q/--quiet, --progress, -o/--output FILE. Append B2_STD_LONGOPTS to a long-option table
 * and B2_STD_SHORTOPTS to the short-option string. */
#define B2_STD_SHORTOPTS "hVvqo:"
#define B2_STD_LONGOPTS \
	{"help", no_argument, 0, 'h'}, {"version", no_argument, 0, 'V'}, \
	{"verbose", no_argument, 0, 'v'}, {"quiet", no_argument, 0, 'q'}, \
	{"output", required_argument, 0, 'o'}, {"progress", no_argument, 0, B2_OPT_PROGRESS}
#define B2_OPT_PROGRESS 0x7001 /* getopt value of --progress: no short option */
typedef struct b2_stdopts {
	const char *output;
	int verbosity;
} b2_stdopts;
/* Handles a standard option c (from getopt_long): the caller's `default:`.
 * Returns 0 when handled, B2_EXIT_HELP after printing help or version,
 * B2_EUSAGE for '?' (getopt already complained), for a second -o/--output,
 * and, with a message, for a c that the caller declared but did not handle. */
int b2_std_option(b2_stdopts *std, int c, const char *optarg_, const char *help);
/* Called by b2_init: getopt's own messages (unknown option, missing
 * argument) name the program as b2_prog, on rank 0 only. */
void b2_opts_init(char **argv);
/* "prog: message\nTry 'prog --help' for more information." on rank 0; returns B2_EUSAGE. */
int b2_usage_err(const char *fmt, ...) B2_PRINTF(1, 2);
int b2_parse_u64(uint64_t *out, const char *s, const char *what, uint64_t min, uint64_t max);
int b2_parse_i64(int64_t *out, const char *s, const char *what, int64_t min, int64_t max);
int b2_parse_double(double *out, const char *s, const char *what, double min, double max);
/* "RxC" with R, C >= 1. */
int b2_parse_grid(int *rows, int *cols, const char *s);
/* One of a fixed set of words: names is NULL-terminated; *out = values[i]
 * (or i when values is NULL) for the name s matches; else B2_EUSAGE with
 * "WHAT: expected a, b or c, got 'S'". */
int b2_parse_choice(int *out, const char *s, const char *what, const char *const *names,
                    const int *values);
/* Comma-separated list of doubles; returns the count in *n (at most max). */
int b2_parse_doubles(double *out, int *n, int max, const char *s, const char *what);

/* ---- MPI and time (mpiutil.c) ------------------------------------------- */
/* How loaded the job's nodes are (collective over MPI_COMM_WORLD): the most
 * ranks on one node, the most threads of one rank (threads: this rank's,
 * e.g. omp_get_max_threads() where it runs OpenMP teams, else 1), the
 * fewest cores of a node (online processors), and whether some node runs
 * more threads (ranks x threads, summed over its ranks) than it has cores. */
typedef struct b2_node_load {
	int64_t ranks_per_node, threads_per_rank, cores_per_node;
	int oversubscribed;
} b2_node_load;
int b2_node_load_get(b2_node_load *nl, int threads);
/* One warning on rank 0 when nl is oversubscribed: "R ranks [x T threads]
 * on a node with C cores: WHAT is oversubscribed, so its times say little". */
void b2_node_load_warn(const b2_node_load *nl, const char *what);
double b2_now(void); /* seconds, monotonic */
/* Contiguous share [lo, hi) of n items for part idx of parts. */
void b2_share(uint64_t *lo, uint64_t *hi, uint64_t n, int parts, int idx);

/* ---- counter-based random numbers --------------------------------------- */
/* SplitMix64's output function: the value at position i of the stream with
 * key k is b2_rng_at(k, i), computable directly, so ranks can split work by
 * position without changing results. */
static inline uint64_t b2_mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static inline uint64_t b2_rng_at(uint64_t key, uint64_t i)
{
	return b2_mix64(key + (i + 1) * 0x9e3779b97f4a7c15ULL);
}
/* A key for an independent stream `stream` under user seed `seed`. */
static inline uint64_t b2_rng_key(uint64_t seed, uint64_t stream)
{
	return b2_mix64(b2_mix64(seed ^ 0x6a09e667f3bcc909ULL) + b2_mix64(stream + 0xbb67ae8584caa73bULL));
}
/* Uniform double in [0,1) from 53 random bits. */
static inline double b2_u01(uint64_t x) { return (double)(x >> 11) * 0x1.0p-53; }

/* ---- edge-file fingerprint ---------------------------------------------- */
/* Order-aware, rank-count-independent: the sum (mod 2^64) over rows r of
 * b2_fp_tuple(r, u, v). Each rank adds its rows; MPI_SUM of uint64 combines. */
static inline uint64_t b2_fp_tuple(uint64_t row, int64_t u, int64_t v)
{
	return b2_mix64(b2_mix64(row + 0x3c6ef372fe94f82bULL) ^ b2_mix64((uint64_t)u + 0xa54ff53a5f1d36f1ULL)
	                ^ ((uint64_t)v * 0x9e3779b97f4a7c15ULL));
}

#endif
