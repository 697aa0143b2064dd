/* report.h — bfs-report: Graph500 statistics, comparison and scaling tables,
 * JSON/CSV and SVG plots from BFS and validation files (docs/FORMATS.md;
 * its own tables and JSON: docs/REPORT-FORMATS.md). */
#ifndef B2_REPORT_H
#define B2_REPORT_H

#include <stdio.h>
#include <hdf5.h>
#include "b2.h"

#define NPHASE 6 /* columns of /phase_time, FORMATS.md order */
/* Provenance attributes (FORMATS.md "Every file"), in the order printed. */
#define NPROV 10
extern const char *const report_prov_names[NPROV];
extern const char *const report_phase_names[NPHASE];
#define NEXCH 3 /* exchanges of /level_bytes: expand, fold, visited */
#define NLPHASE 5 /* phases of /level_phase_time: the first five of /phase_time */
extern const char *const report_exchange_names[NEXCH];
/* Every time read from an input lies in [0, this] seconds (a search time
 * in [REPORT_MIN_SEARCH_SECONDS, this]): so every statistic derived from
 * them is a finite number. */
#define REPORT_MAX_SECONDS 1e9
#define REPORT_MIN_SEARCH_SECONDS 1e-12

/* Status of one search. */
enum { ST_UNVALIDATED = 0, ST_PASSED = 1, ST_FAILED = 2 };

/* The order statistics, mean and sample standard deviation of Graph500's
 * get_statistics: quartiles are the mean of the two middle elements of each
 * half as the reference takes them, stddev divides by n-1. */
typedef struct stats {
	double min, q1, median, q3, max, mean, std;
} stats;

#define REPORT_NOPT 16 /* options compared with a --baseline run */

typedef struct run {
	int index; /* 1-based, in command-line order */
	const char *bfs_path, *valid_path;
	/* BFS file */
	char *edges_file, *partition_file, *backend, *devices, *graph;
	char *exchange;            /* the transports of the exchanges (bfs-gpu --transport) */
	int64_t K, N, M, rows, cols, ranks, gpus, nroots, L;
	int64_t scale, edgefactor; /* from the file, or -1 when absent */
	uint64_t fp, seed;
	double gen_time, load_time, part_time; /* NAN when absent */
	/* optional in older BFS files (NULL / 0 when absent) */
	signed char *ldir;         /* [K][L] /level_direction */
	int64_t *lexam;            /* [K][L] /edges_examined */
	double *expdir;            /* [K][2] /expansion_time */
	char *roots_from;
	/* identity and options (NULL / NAN / -1 when an older file lacks them) */
	char *run_id, *v_run_id;   /* the BFS file's run_id; the validation file's bfs_run_id */
	char *direction, *bitmap;
	double alpha, beta;
	int64_t warmup, ept;
	double load_read_time, load_build_time;
	double construction_time;  /* Graph500's: partition_time + load_build_time (when recorded) */
	int64_t oversubscribed, ranks_per_node, cores_per_node; /* -1: not recorded */
	char *variant;             /* bfs-gpu --variant ("" none; NULL not recorded) */
	char *rules_off;           /* bfs-gpu --rule-off, names joined by '+' ("" none; NULL not recorded) */
	char *evict_first;         /* bfs-gpu --evict-first (NULL not recorded) */
	char *grid_searched;       /* the grid the search ran as, "RxC" (NULL not recorded) */
	int64_t threads_per_rank;  /* -1: not recorded */
	int64_t nkept;             /* rows of /kept; -1 when absent */
	int no_pred;               /* /kept is empty: nothing could be validated */
	char tag[256];             /* the variant, or the options that differ from bfs-gpu's defaults */
	char label[512];           /* graph grid backend [tag]: run_make_label */
	/* per-rank records (ranks.c), NULL when the file has none */
	double *rank_phase;        /* [K][P][6] /rank_phase_time */
	int64_t *level_bytes;      /* [K][L][P][3] /level_bytes */
	int64_t *pred_bytes_kp;    /* [K][P] /pred_bytes */
	double *level_phase;       /* [K][L][P][5] /level_phase_time */
	double *lphase_mean, *lphase_max; /* [5][L]: per phase and level, the mean and the
	                              max over ranks, averaged over the searches with that step */
	double phase_rank_max[NPHASE], phase_rank_mean[NPHASE], phase_imbalance[NPHASE];
	double *lbytes_mean;       /* [3][L]: per exchange and level */
	double bytes_total[NEXCH]; /* per search, summed over levels and ranks */
	double pred_bytes;         /* per search, summed over ranks */
	int64_t median_search;     /* the used search of median time (the lower one), -1 */
	/* provenance of the BFS and validation files (NULL when absent) */
	char *prov[NPROV], *vprov[NPROV];
	int64_t *roots, *nedge, *visited, *frontier; /* frontier [K][L] */
	double *time, *phase;                        /* phase [K][NPHASE] */
	/* validation file (Kp rows), when given */
	int64_t Kp;
	int64_t *v_search, *v_root, *v_passed, *v_rule, *v_example, *v_nedge;
	double *v_time;
	char **rule_names;
	size_t nrules;
	/* derived */
	int *status;     /* [K] ST_* */
	int64_t *v_row;  /* [K] row in the validation file or -1 */
	int64_t npassed, nfailed, nunvalidated;
	int64_t nused;   /* searches in the statistics: passed (+ unvalidated with --unvalidated) */
	int64_t *used;   /* [nused] their indices */
	double *u_time, *u_nedge, *u_teps; /* [nused] */
	stats time_st, nedge_st, spe_st, valid_st; /* spe: seconds per edge */
	double teps_min, teps_q1, teps_median, teps_q3, teps_max, hmean_teps, hstd_teps;
	int has_valid_st;
	double phase_mean[NPHASE]; /* over the used searches */
	double exp_mean[2];        /* expansion top-down, bottom-up (has_expdir) */
	int has_expdir;
	double examined_ratio;     /* mean of sum(edges_examined) / (2 nedge); NAN when absent */
	int64_t nsmall;            /* used searches with nedge < 1 % of the largest */
	double *dir_bu;            /* [L] share of used searches whose step l went bottom-up; NULL */
	double *frontier_mean;     /* [L] over the used searches */
	int64_t ndev;              /* GPUs (cuda) or ranks (cpu): the scaling unit */
	int64_t scale_shown, ef_shown;
	int approx_scale; /* SCALE/edgefactor derived from N and M (imported graphs) */
	double speedup;   /* over the first run of the same graph */
	int speedup_base; /* that run's index */
	double baseline_speedup; /* over --baseline's run of the same graph and grid, NAN if none */
	/* the baseline run matched (baseline.c): its rate, standard error, commit, and the verdict */
	double baseline_hmean, baseline_hstd;
	int baseline_run;          /* its run number in the baseline report, 0 if none */
	char baseline_commit[64];
	const char *baseline_verdict; /* "faster", "slower", "within noise", or NULL */
	/* the recorded options that differ between the run and its baseline */
	struct optdiff { char opt[32], run[128], base[128]; } bdiff[REPORT_NOPT];
	int nbdiff;
	/* noise (run_derive): spread of the searches' seconds per edge */
	double time_max_over_min, spe_cv;
	int noisy;                 /* spe_cv > REPORT_NOISY_CV */
	int few_searches;          /* NBFS < 64, Graph500's count */
} run;

/* A run is flagged NOISY when the coefficient of variation (sample standard
 * deviation over mean) of its searches' seconds per edge exceeds this
 * (docs/DESIGN.md, "Reports"). */
#define REPORT_NOISY_CV 0.25
/* The mark of a run whose BFS file kept no predecessors. */
#define REPORT_NO_PRED "no predecessors kept; rerun bfs-gpu with --keep-pred all (or N) and " \
	"bfs-validate to validate"
/* Graph500 runs 64 searches; fewer make no Graph500 result. */
#define REPORT_GRAPH500_NBFS 64

typedef struct report_opts {
	int unvalidated;
	int per_search;
	const char *append, *baseline;
	int append_again; /* --append-again: add runs whose id the table already has */
} report_opts;

/* load.c */
int run_load_bfs(run *r, const char *path);
int run_load_valid(run *r, const char *path);
int run_derive(run *r, const report_opts *o);
/* r->tag and r->label (labels.c). */
void run_make_label(run *r);
/* Whether the run's marks (noisy, few searches) make its numbers doubtful:
 * the short mark ("NOISY", "NBFS<64", "NOISY, NBFS<64") or NULL. */
const char *run_doubt(const run *r);
/* ranks.c */
int ranks_load(run *r, hid_t f, const char *path);
int ranks_derive(run *r);
void ranks_free(run *r);
/* Text: the phases over ranks, bytes per exchange and level, predecessor bytes. */
void ranks_print_text(FILE *f, const run *r);
/* A whole dataset of `rank` dimensions, which must be dims. */
int report_read_nd(void *out, hid_t f, const char *name, hid_t memtype, int rank,
                   const uint64_t *dims, const char *path);
/* Each of v[n] finite and in [lo, REPORT_MAX_SECONDS], else B2_EDATA
 * naming the file, dataset and element (cols: values per search). */
int report_check_seconds(const double *v, uint64_t n, uint64_t cols, double lo, const char *path,
                         const char *name);
/* The `format` attribute of any HDF5 file ("" when it has none). */
int report_file_format(char *fmt, size_t n, const char *path);
/* The name of validation rule `rule` ("?" when the file has no rule_names). */
const char *run_rule_name(const run *r, int64_t rule);
void run_free(run *r);

/* stats.c */
int get_stats(stats *s, const double *x, int64_t n);

/* output.c */
const char *status_name(int s); /* passed, FAILED, unvalidated */
void grid_str(char *buf, size_t n, const run *r); /* "RxC" */
int print_text(FILE *f, run *runs, int nruns, const report_opts *o);
int print_json(FILE *f, run *runs, int nruns);
int print_csv(FILE *f, run *runs, int nruns);
/* CSV rows without the header line (for --append). */
int print_csv_rows(FILE *f, run *runs, int nruns);
/* The CSV header line, with its newline. */
const char *csv_header(void);
/* --append FILE (csv.c): takes FILE's lock (*lockfd, *lockpath, for the
 * caller to release with unlock_table once the table is committed or given
 * up), stages in out (b2_fout, for the caller to commit) FILE's rows and one
 * more per run, the header first when FILE is new; a FILE with another
 * header is refused (B2_EDATA), and so is a run whose id FILE already has
 * (B2_EUSAGE) unless again. */
int append_csv(b2_fout *out, int *lockfd, char **lockpath, const char *path, run *runs, int nruns,
               int again);
void unlock_table(int *lockfd, char **lockpath);
/* --baseline FILE (a JSON report): baseline_speedup of every run. */
int apply_baseline(const char *path, run *runs, int nruns);
/* faster / slower / within noise (baseline.c; docs/DESIGN.md "Reports"). */
const char *baseline_verdict(double hmean, double hstd, double base, double base_std);
/* "a b c" of the provenance of r's BFS file, for text. */
int run_oversubscribed(const run *r);

/* Scaling groups (output.c), shared with the SVG plots. */
typedef struct group {
	int n;
	int *members; /* run indices (0-based), sorted by devices */
	char label[1024];
} group;
int find_groups(group **out, int *ngroups, run *runs, int nruns, int weak);
void free_groups(group *g, int n);

/* svg.c: the plots, report.json, report.csv and index.html (the text report
 * included) into DIR (which exists), each staged in out[k] (b2_fout) for the
 * caller to commit; on failure the ones staged are left for it to discard. */
#define REPORT_NSVG 8
extern const char *const report_svg_names[REPORT_NSVG]; /* the files, in out[]'s order */
int write_svgs(b2_fout out[REPORT_NSVG], const char *dir, run *runs, int nruns,
               const report_opts *o);

#endif
