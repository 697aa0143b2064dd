/* main.c — bfs-gpu: distributed 2D BFS (Bisson, Bernaschi, Mastrostefano)
 * on R x C ranks, one GPU each, or on CPUs (--backend cpu).
 *
 *   bfs-gpu part.h5 [-n NROOTS] [--seed S] [--backend auto|cuda|cpu]
 *           [--bitmap auto|on|off] [--edges-per-thread K]
 *           [--keep-pred all|none|K] [--compress-pred auto|on|off] [--warmup W]
 *           [--transport auto|pull|ipc|nccl|mpi]
 *           [--direction auto|top-down|bottom-up] [--alpha A] [--beta B]
 *           [--roots any|largest-component] [--trace] [--test-shared-gpus]
 *           [--rule-off RULE]... [--evict-first auto|on|off] [--variant NAME]
 *           -o bfs.h5
 *
 * Reads the rank's own CSC block and the degrees of its own vertices from
 * the partition file, draws the roots (FORMATS.md "BFS file"), runs warm-up
 * searches, then the timed searches, and writes the BFS file. */
#include <errno.h>
#include <getopt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "b2.h"
#include "h5util.h"
#include "backend.h"
#include "search.h"
#include "partfile.h"
#include "transpose.h"
#include "records.h"
#include "predout.h"

static const char help[] =
	"Usage: bfs-gpu PARTITION.h5 [options] -o BFS.h5\n"
	"Distributed 2D breadth-first search (Bisson et al.) on exactly R x C MPI ranks\n"
	"(the grid of the partition file), one GPU per rank, chosen by node-local rank.\n"
	"\n"
	"  -n, --nroots N           searches from up to N distinct random roots of degree\n"
	"                           >= 1 (default 64; 1..4096)\n"
	"      --seed S             seed of the root generator (default 1)\n"
	"      --backend B          auto (cuda when every rank sees a GPU), cuda or cpu\n"
	"      --bitmap M           bitmap-compressed messages: auto (when smaller than the\n"
	"                           list, per message), on (always) or off (never)\n"
	"      --edges-per-thread K CUDA expansion: K consecutive frontier edges per thread\n"
	"                           (1, 2, 4 or 8; default 4)\n"
	"      --keep-pred P        predecessor arrays written: all (default), none, or\n"
	"                           the first K searches\n"
	"      --compress-pred Z    the predecessor arrays compressed (scale-offset and\n"
	"                           deflate, about 4x smaller at scale 18): auto (default:\n"
	"                           on with one rank; off with several, where rank 0\n"
	"                           alone would compress them), on or off\n"
	"      --pred-chunk C       for testing: C vertices a chunk of compressed\n"
	"                           predecessors (1..1048576, default 1048576)\n"
	"      --evict-first E      CUDA bottom-up step: the neighbour lists' loads as L2's\n"
	"                           first to evict, so that the column frontier read at\n"
	"                           random stays cached: auto (default: where the\n"
	"                           frontier's bitmap is over half the L2), on or off\n"
	"      --warmup W           untimed searches before the timed ones (default 1)\n"
	"      --transport T        how the exchanges move data (CUDA backend):\n"
	"                           auto (default): per exchange, pull where all its\n"
	"                           ranks share a node, else nccl when NCCL is found,\n"
	"                           else mpi; pull: CUDA IPC, the GPUs read each\n"
	"                           other's bitmaps in place, one host wait a level\n"
	"                           (on 1x1: the same levels, nothing to read);\n"
	"                           ipc: CUDA IPC copies, sizes by MPI; nccl: NCCL on\n"
	"                           the GPU's stream; mpi: MPI through pinned host\n"
	"                           buffers (the CPU backend's only transport). A named\n"
	"                           transport that cannot serve the run is an error.\n"
	"      --ipc M              old name: auto = --transport auto, push = ipc,\n"
	"                           off = mpi\n"
	"      --direction D        auto (default: Beamer's rule per level), top-down, or\n"
	"                           bottom-up (every level; a testing mode)\n"
	"      --alpha A            go bottom-up when the frontier's edges exceed 1/A of\n"
	"                           the unexplored edges (default 10 on GPUs, 15 on CPUs)\n"
	"      --beta B             go back top-down when the frontier shrinks below N/B\n"
	"                           vertices (default 18)\n"
	"      --trace              per-level phase times of every search on stderr (rank 0)\n"
	"      --test-shared-gpus   for testing: --transport pull or nccl although ranks\n"
	"                           share a GPU (a one-GPU host then checks two-rank device\n"
	"                           levels; NCCL joins the ranks by its socket transport,\n"
	"                           each rank a host of its own). Slow: never for timing\n"
	"      --rule-off RULE      for measuring: the level plan without one of its special\n"
	"                           rules (traverse/plan.h; repeatable, or all): row-carries,\n"
	"                           front-lists, row-as-column (a 1xC grid searched as\n"
	"                           Cx1), compact (MPI's expand bitmaps of the vertices\n"
	"                           with edges not yet in a frontier only), bottom-up-turns\n"
	"                           (pull: a bottom-up step in C turns along the grid\n"
	"                           row). The levels stay the same; recorded as rules_off\n"
	"      --variant NAME       a name for this variant of the run, recorded in the file\n"
	"                           and shown in every report (letters, digits, . _ + -;\n"
	"                           at most 64)\n"
	"      --roots R            any (default): roots anywhere; largest-component: only\n"
	"                           in the largest connected component (found first by\n"
	"                           untimed searches), so that no search measures a tiny\n"
	"                           component of a real graph\n"
	"  -o, --output FILE        the BFS file (required)\n"
	"  -v, --verbose            per-search times on stderr; -q, --quiet\n"
	"      --progress           progress on stderr even under mpiexec (its stderr is a\n"
	"                           pipe, not a terminal; B2_PROGRESS=1 does the same)\n"
	"  -h, --help; -V, --version (with the git commit built in)\n"
	"\n"
	"Example:\n"
	"  mpiexec -n 4 bfs-gpu data/g.g2x2.h5 -n 64 --backend auto -o results/g.bfs.h5\n"
	"\n"
	"Exit codes: 0 ok, 1 runtime error, 2 usage (also: --backend cuda in a build\n"
	"without CUDA; a rank count other than R x C), 3 bad partition file,\n"
	"4 I/O or resource error (no GPU for --backend cuda, device memory short).\n";

typedef struct opts {
	const char *part, *output;
	int64_t nroots, ept, keep, warmup; /* keep: -1 all */
	uint64_t seed;
	const char *backend;
	int bitmap, transport, direction;
	double alpha, beta;
	const char *bitmap_s, *direction_s;
	int roots_lc; /* --roots largest-component */
	int trace, test_shared; /* --trace, --test-shared-gpus */
	const char *variant;    /* --variant, "" when none */
	int compress_pred;      /* B2_PRED_* */
	int64_t pred_chunk;     /* --pred-chunk */
	int rules_off;          /* --rule-off: B2_RULE_ bits */
	int evict_first;        /* --evict-first: B2_EVICT_FIRST_ */
	const char *evict_first_s;
} opts;

/* --variant: a name that file names and make take as it is. */
static int check_variant(const char *v)
{
	size_t n = strlen(v);
	if (n == 0 || n > 64 || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                                  "0123456789._+-") != n)
		return b2_usage_err("--variant: expected 1 to 64 letters, digits, '.', '_', '+' or '-', "
		                    "got '%s'", b2_text(v));
	return 0;
}

/* The names of the rules in `bits` (plan.h), joined by sep, into b. */
static void rule_names(char *b, size_t n, int bits, const char *sep)
{
	b[0] = 0;
	for (int r = 0; r < B2_NRULES; r++)
		if (bits & 1 << r)
			snprintf(b + strlen(b), n - strlen(b), "%s%s", b[0] ? sep : "", b2_rule_names[r]);
}

static int parse(opts *o, int argc, char **argv)
{
	int error = 0, c;
	b2_stdopts std = {0};
	static const struct option lo[] = {
		{"nroots", required_argument, 0, 'n'}, {"seed", required_argument, 0, 1},
		{"backend", required_argument, 0, 2}, {"bitmap", required_argument, 0, 3},
		{"edges-per-thread", required_argument, 0, 4}, {"keep-pred", required_argument, 0, 5},
		{"warmup", required_argument, 0, 6}, {"ipc", required_argument, 0, 7},
		{"transport", required_argument, 0, 12},
		{"direction", required_argument, 0, 8}, {"alpha", required_argument, 0, 9},
		{"beta", required_argument, 0, 10}, {"roots", required_argument, 0, 11},
		{"trace", no_argument, 0, 13}, {"test-shared-gpus", no_argument, 0, 14},
		{"variant", required_argument, 0, 15}, {"compress-pred", required_argument, 0, 16},
		{"pred-chunk", required_argument, 0, 17}, {"rule-off", required_argument, 0, 18},
		{"evict-first", required_argument, 0, 19}, B2_STD_LONGOPTS, {0, 0, 0, 0}};
	o->nroots = 64; o->seed = 1; o->backend = "auto"; o->bitmap = B2_BITMAP_AUTO;
	o->bitmap_s = "auto"; o->ept = 4; o->keep = -1; o->warmup = 1; o->transport = B2_TP_AUTO;
	o->direction = B2_DIRECTION_AUTO; o->direction_s = "auto"; o->alpha = 0; o->beta = 18; /* alpha 0: the backend's */
	o->roots_lc = 0;
	o->trace = o->test_shared = 0;
	o->rules_off = 0;
	o->evict_first = B2_EVICT_FIRST_AUTO;
	o->evict_first_s = "auto";
	o->variant = "";
	o->compress_pred = B2_PRED_AUTO;
	o->pred_chunk = B2_PRED_CHUNK;
	while ((c = getopt_long(argc, argv, "n:" B2_STD_SHORTOPTS, lo, NULL)) != -1) {
		switch (c) {
		case 'n': B2_TRY(b2_parse_i64(&o->nroots, optarg, "--nroots", 1, 4096)); break;
		case 1: B2_TRY(b2_parse_u64(&o->seed, optarg, "--seed", 0, UINT64_MAX)); break;
		case 2:
			if (strcmp(optarg, "auto") && strcmp(optarg, "cuda") && strcmp(optarg, "cpu"))
				return b2_usage_err("--backend: expected auto, cuda or cpu, got '%s'", optarg);
			o->backend = optarg;
			break;
		case 3:
			B2_TRY(b2_parse_choice(&o->bitmap, optarg, "--bitmap", (const char *[]){"auto", "on", "off", NULL},
			                       (const int[]){B2_BITMAP_AUTO, B2_BITMAP_ON, B2_BITMAP_OFF}));
			o->bitmap_s = optarg;
			break;
		case 4:
			B2_TRY(b2_parse_i64(&o->ept, optarg, "--edges-per-thread", 1, 8));
			if (o->ept & (o->ept - 1))
				return b2_usage_err("--edges-per-thread: expected 1, 2, 4 or 8, got '%s'", optarg);
			break;
		case 5:
			if (!strcmp(optarg, "all")) o->keep = -1;
			else if (!strcmp(optarg, "none")) o->keep = 0;
			else B2_TRY(b2_parse_i64(&o->keep, optarg, "--keep-pred (all, none or a count)", 0, 4096));
			break;
		case 6: B2_TRY(b2_parse_i64(&o->warmup, optarg, "--warmup", 0, 100)); break;
		case 7:
			B2_TRY(b2_parse_choice(&o->transport, optarg, "--ipc", (const char *[]){"auto", "push", "off", NULL},
			                       (const int[]){B2_TP_AUTO, B2_TP_IPC, B2_TP_MPI}));
			break;
		case 12:
			B2_TRY(b2_parse_choice(&o->transport, optarg, "--transport",
			                       (const char *[]){"auto", "pull", "ipc", "nccl", "mpi", NULL},
			                       (const int[]){B2_TP_AUTO, B2_TP_PULL, B2_TP_IPC, B2_TP_NCCL,
			                                     B2_TP_MPI}));
			break;
		case 8:
			B2_TRY(b2_parse_choice(&o->direction, optarg, "--direction",
			                       (const char *[]){"auto", "top-down", "bottom-up", NULL},
			                       (const int[]){B2_DIRECTION_AUTO, B2_DIRECTION_TOP_DOWN,
			                                     B2_DIRECTION_BOTTOM_UP}));
			o->direction_s = optarg;
			break;
		case 9: B2_TRY(b2_parse_double(&o->alpha, optarg, "--alpha", 1e-3, 1e9)); break;
		case 10: B2_TRY(b2_parse_double(&o->beta, optarg, "--beta", 1e-3, 1e9)); break;
		case 11:
			B2_TRY(b2_parse_choice(&o->roots_lc, optarg, "--roots",
			                       (const char *[]){"any", "largest-component", NULL}, NULL));
			break;
		case 13: o->trace = 1; break;
		case 14: o->test_shared = 1; break;
		case 15: B2_TRY(check_variant(optarg)); o->variant = optarg; break;
		case 16:
			B2_TRY(b2_parse_choice(&o->compress_pred, optarg, "--compress-pred",
			                       (const char *[]){"auto", "on", "off", NULL},
			                       (const int[]){B2_PRED_AUTO, B2_PRED_ON, B2_PRED_OFF}));
			break;
		case 17: B2_TRY(b2_parse_i64(&o->pred_chunk, optarg, "--pred-chunk", 1, B2_PRED_CHUNK)); break;
		case 18: {
			const int bit = strcmp(optarg, "all") ? b2_rule_bit(optarg) : (1 << B2_NRULES) - 1;
			if (!bit) {
				char names[160];
				rule_names(names, sizeof names, (1 << B2_NRULES) - 1, ", ");
				return b2_usage_err("--rule-off: expected %s or all, got '%s'", names, b2_text(optarg));
			}
			o->rules_off |= bit;
			break;
		}
		case 19:
			B2_TRY(b2_parse_choice(&o->evict_first, optarg, "--evict-first",
			                       (const char *[]){"auto", "on", "off", NULL},
			                       (const int[]){B2_EVICT_FIRST_AUTO, B2_EVICT_FIRST_ON,
			                                     B2_EVICT_FIRST_OFF}));
			o->evict_first_s = optarg;
			break;
		default:
			B2_TRY(b2_std_option(&std, c, optarg, help));
		}
	}
	if (optind != argc - 1)
		return b2_usage_err(optind >= argc ? "missing the partition file" : "too many arguments");
	o->part = argv[optind];
	if (!std.output)
		return b2_usage_err("missing -o OUTPUT");
	o->output = std.output;
done:
	return error;
}


/* FORMATS.md "BFS file", roots: candidates x_k = b2_rng_at(key, k) mod N,
 * key = b2_rng_key(seed, B2_ROOT_STREAM), k = 0, 1, ...; a candidate is taken
 * when its tuple_degree is > 0 and it was not taken before. */
#define B2_ROOT_STREAM 4
#define B2_ROOT_BATCH 4096
static int draw_roots(int64_t *roots, int64_t *nroots, int64_t want, uint64_t seed,
                      const b2_graph *g, const unsigned char *allow)
{
	int error = 0;
	unsigned char *flag = NULL, *all = NULL;
	int64_t b = g->b, v0 = ((int64_t)g->j * g->R + g->i) * b, npos = 0, have = 0;
	for (int64_t x = 0; x < b; x++)
		npos += g->tdeg[x] > 0 && (!allow || allow[x]);
	B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &npos, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	if (want > npos)
		want = npos;
	B2_TRY(b2_alloc(&flag, B2_ROOT_BATCH, "roots"));
	B2_TRY(b2_alloc(&all, B2_ROOT_BATCH, "roots"));
	uint64_t key = b2_rng_key(seed, B2_ROOT_STREAM);
	for (uint64_t k0 = 0; have < want; k0 += B2_ROOT_BATCH) {
		for (int q = 0; q < B2_ROOT_BATCH; q++) {
			int64_t x = (int64_t)(b2_rng_at(key, k0 + (uint64_t)q) % (uint64_t)g->N);
			flag[q] = x >= v0 && x < v0 + b && g->tdeg[x - v0] > 0 && (!allow || allow[x - v0]);
		}
		B2_TRY(b2_mpi_ok(MPI_Allreduce(flag, all, B2_ROOT_BATCH, MPI_UNSIGNED_CHAR, MPI_MAX,
		                               MPI_COMM_WORLD), "MPI_Allreduce"));
		for (int q = 0; q < B2_ROOT_BATCH && have < want; q++) {
			if (!all[q])
				continue;
			int64_t x = (int64_t)(b2_rng_at(key, k0 + (uint64_t)q) % (uint64_t)g->N), dup = 0;
			for (int64_t r = 0; r < have && !dup; r++)
				dup = roots[r] == x;
			if (!dup)
				roots[have++] = x;
		}
	}
	*nroots = have;
done:
	free(flag);
	free(all);
	return error;
}

/* Facts about the run beyond the searches (FORMATS.md "BFS file"): how the
 * roots were chosen, how full the nodes were, what made the file. */
typedef struct runfacts {
	int64_t comp_vertices, comp_searches;  /* --roots largest-component */
	int64_t ranks_per_node, cores_per_node; /* the most ranks, the fewest cores of a node */
	int64_t threads;                        /* threads per rank (the CPU backend's OpenMP) */
	int oversubscribed;
} runfacts;

/* --roots largest-component. The partition file has degrees, not
 * components, so the searches find them: a search from the unlabelled
 * vertex of positive degree with the smallest id labels its component, until
 * the largest component found has at least as many vertices as remain
 * unlabelled (none left can be larger). With a giant component that takes
 * one or two searches. Ties go to the component of the smaller vertex id,
 * so the result does not depend on the grid. Nothing here is timed or
 * recorded but the component's size. *allow marks its owned vertices. */
static int largest_component(unsigned char **allow, runfacts *rf, b2_search *s,
                             const b2_backend *be, void *bk, const b2_graph *g)
{
	int error = 0;
	int64_t b = g->b, v0 = ((int64_t)g->j * g->R + g->i) * b, left = 0, best = 0, best_root = -1;
	int64_t *comp = NULL, *pred = NULL;
	unsigned char *mask = NULL;
	*allow = NULL;
	error = b2_calloc(&mask, (size_t)b + 1, 1, "component labels");
	if (!error) error = b2_alloc(&comp, (size_t)b * 8 + 8, "component labels");
	if (!error) error = b2_alloc(&pred, (size_t)b * 8 + 8, "component labels");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	for (int64_t x = 0; x < b; x++) {
		comp[x] = -1;
		left += g->tdeg[x] > 0;
	}
	B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &left, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	while (left > best) {
		int64_t next = INT64_MAX, reached = 0;
		for (int64_t x = 0; x < b && next == INT64_MAX; x++)
			if (g->tdeg[x] > 0 && comp[x] < 0)
				next = v0 + x;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &next, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD),
		                 "MPI_Allreduce"));
		if (next == INT64_MAX)
			break;
		B2_TRY(b2_search_run(s, next));
		B2_TRY(b2_agree(be->pred(bk, pred), MPI_COMM_WORLD));
		for (int64_t l = 0; l < s->nlevels; l++)
			reached += s->fsize[l];
		/* every reached vertex has a non-loop tuple, so positive degree */
		for (int64_t x = 0; x < b; x++)
			if (pred[x] != -1 && comp[x] < 0)
				comp[x] = next;
		left -= reached;
		rf->comp_searches++;
		if (reached > best) {
			best = reached;
			best_root = next;
		}
	}
	for (int64_t x = 0; x < b; x++)
		mask[x] = best_root >= 0 && comp[x] == best_root;
	rf->comp_vertices = best;
	b2_debug("largest component: %lld vertices, found with %lld search(es)", (long long)best,
	         (long long)rf->comp_searches);
	*allow = mask;
	mask = NULL;
done:
	free(mask);
	free(comp);
	free(pred);
	return error;
}

/* Ranks per node against the node's cores (cpu backend: ranks x threads)
 * or GPUs (cuda): more than either makes the timings meaningless, so the run says so
 * (once, on rank 0; pick_backend has warned of shared GPUs already) and the
 * BFS file records it for the report. */
static int node_facts(runfacts *rf, const b2_backend *be, int gpus_shared)
{
	int error = 0;
	b2_node_load nl;
	const int cpu = be == &b2_cpu_backend;
	B2_TRY(b2_node_load_get(&nl, cpu ? omp_get_max_threads() : 1));
	rf->ranks_per_node = nl.ranks_per_node;
	rf->cores_per_node = nl.cores_per_node;
	rf->threads = nl.threads_per_rank;
	rf->oversubscribed = cpu ? nl.oversubscribed : gpus_shared;
	if (cpu)
		b2_node_load_warn(&nl, "the CPU backend (the report marks this run)");
done:
	return error;
}

#ifdef B2_HAVE_CUDA
void b2_cuda_versions(int *driver, int *runtime); /* traverse/cuda/backend.cu */
#endif

/* "12.4" from CUDA's 1000 * major + 10 * minor; "none" for 0. */
static void cuda_version_str(char *buf, size_t n, int v)
{
	if (v > 0)
		snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
	else
		snprintf(buf, n, "none");
}

/* The run's facts and bfs-gpu's part of the provenance (the common part is
 * b2_h5_create's): CUDA driver and runtime, and each rank's device name. */
static int write_run_facts(hid_t f, const opts *o, const runfacts *rf, const char *devname, int cuda)
{
	int error = 0, drv = 0, rt = 0;
	char vs[32], *all = NULL;
	const char **names = NULL;
#ifdef B2_HAVE_CUDA
	b2_cuda_versions(&drv, &rt);
#endif
	/* rank 0's view, so that every rank writes the same */
	int dv[2] = {drv, rt};
	B2_TRY(b2_mpi_ok(MPI_Bcast(dv, 2, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast"));
	cuda_version_str(vs, sizeof vs, dv[0]);
	B2_TRY(b2_attr_put_str(f, "cuda_driver_version", vs));
	cuda_version_str(vs, sizeof vs, dv[1]);
	B2_TRY(b2_attr_put_str(f, "cuda_runtime_version", vs));
	if (cuda) {
		error = b2_alloc(&all, (size_t)b2_nranks * 256, "device names");
		if (!error) error = b2_alloc(&names, (size_t)b2_nranks * sizeof *names, "device names");
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		char mine[256];
		snprintf(mine, sizeof mine, "%s", devname);
		B2_TRY(b2_mpi_ok(MPI_Allgather(mine, 256, MPI_CHAR, all, 256, MPI_CHAR, MPI_COMM_WORLD),
		                 "MPI_Allgather of device names"));
		for (int r = 0; r < b2_nranks; r++)
			names[r] = all + (size_t)r * 256;
		B2_TRY(b2_attr_put_strv(f, "gpu_names", names, (size_t)b2_nranks));
	}
	B2_TRY(b2_attr_put_str(f, "roots_from", o->roots_lc ? "largest-component" : "any"));
	if (o->roots_lc) {
		B2_TRY(b2_attr_put_i64(f, "component_vertices", rf->comp_vertices));
		B2_TRY(b2_attr_put_i64(f, "component_searches", rf->comp_searches));
	}
	B2_TRY(b2_attr_put_i64(f, "ranks_per_node", rf->ranks_per_node));
	B2_TRY(b2_attr_put_i64(f, "cores_per_node", rf->cores_per_node));
	B2_TRY(b2_attr_put_i64(f, "oversubscribed", rf->oversubscribed));
	B2_TRY(b2_attr_put_i64(f, "threads_per_rank", rf->threads));
	B2_TRY(b2_attr_put_str(f, "variant", o->variant));
	char rules[160];
	rule_names(rules, sizeof rules, o->rules_off, "+");
	B2_TRY(b2_attr_put_str(f, "rules_off", rules));
	B2_TRY(b2_attr_put_str(f, "evict_first", o->evict_first_s));
done:
	free(all);
	free(names);
	return error;
}

static int pick_backend(const b2_backend **be, int *device, int *shared, char *devname,
                        size_t dn, const char *want)
{
	*be = &b2_cpu_backend;
	*device = -1;
	*shared = 0;
	snprintf(devname, dn, "CPU (OpenMP)");
#ifndef B2_HAVE_CUDA
	if (!strcmp(want, "cuda"))
		return b2_err0(B2_EUSAGE, "--backend cuda: this bfs-gpu was built without CUDA (no nvcc at build time); use --backend cpu");
	return 0;
#else
	int error = 0, ndev = 0, local = 0, nlocal = 1, minv = 0;
	MPI_Comm node = MPI_COMM_NULL;
	if (!strcmp(want, "cpu"))
		return 0;
	/* one GPU per rank, chosen by the rank's place on its node */
	B2_TRY(b2_mpi_ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, b2_rank,
	                                     MPI_INFO_NULL, &node), "MPI_Comm_split_type"));
	B2_TRY(b2_mpi_ok(MPI_Comm_rank(node, &local), "MPI_Comm_rank"));
	B2_TRY(b2_mpi_ok(MPI_Comm_size(node, &nlocal), "MPI_Comm_size"));
	ndev = b2_cuda_device_count();
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&ndev, &minv, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
	                 "MPI_Allreduce (GPU counts)"));
	if (minv == 0) {
		if (!strcmp(want, "cuda")) {
			/* one message for the job, not one per rank */
			int without = ndev == 0, nwithout = 0;
			MPI_Allreduce(&without, &nwithout, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
			B2_FAIL0(B2_EIO, "--backend cuda: %d of %d rank(s) see no CUDA device (--backend auto "
			         "or cpu runs on the CPUs)", nwithout, b2_nranks);
		}
		goto done; /* auto: the CPU backend */
	}
	*shared = b2_agree(nlocal > ndev, MPI_COMM_WORLD);
	if (nlocal > ndev && local == 0)
		b2_warn("%d ranks on this node share %d GPU(s): allowed for testing, but the GPUs are oversubscribed",
		        nlocal, ndev);
	*be = &b2_cuda_backend;
	*device = local % ndev;
	B2_TRY(b2_cuda_device_name(*device, devname, dn));
done:
	if (node != MPI_COMM_NULL)
		MPI_Comm_free(&node);
	return b2_agree(error, MPI_COMM_WORLD);
#endif
}

int main(int argc, char **argv)
{
	int error = b2_init(&argc, &argv, "bfs-gpu");
	opts o;
	pinfo pi = {0};
	b2_graph g = {0};
	const b2_backend *be = NULL;
	void *bk = NULL;
	b2_search s;
	int have_search = 0, device = -1, shared = 0;
	char devname[256];
	int64_t *roots = NULL, nroots = 0, *kept = NULL, nkept = 0, *pred = NULL;
	b2_records rec = {0};
	runfacts rf = {0};
	unsigned char *allow = NULL; /* --roots largest-component */
	b2_h5out out = {.file = -1};
	int out_open = 0;
	b2_predout po = {.dset = -1, .side = -1};
	if (error)
		return error;
	B2_TRY(parse(&o, argc, argv));
	B2_TRY(b2_check_output("-o", o.output, &o.part, 1, 0));
	double tl0 = b2_now();
	B2_TRY(b2_read_partition(&g, &pi, o.part));
	double read_time = b2_now() - tl0; /* the rest of the load builds the search structure */
	if (b2_plan_as_column(g.R, g.C, o.rules_off))
		b2_graph_as_column(&g);
	b2_debug("read %s in %.3f s", o.part, b2_now() - tl0);
	B2_TRY(pick_backend(&be, &device, &shared, devname, sizeof devname, o.backend));
	B2_TRY(node_facts(&rf, be, shared));
	/* Beamer's alpha weighs a top-down step's edges against a bottom-up
	 * step's: measured best at 10 on the GPU (one H200, scales 21-26) and
	 * 15 (gapbs's value) on the CPU backend (docs/PERFORMANCE.md) */
	if (o.alpha == 0)
		o.alpha = be == &b2_cpu_backend ? 15 : 10;
	b2_search_opts so = {.transport = o.transport, .gpus_shared = shared,
	                     .test_shared = o.test_shared, .trace = o.trace};
	B2_TRY(b2_search_grid(&so.grid, &g, o.bitmap, o.direction, o.alpha, o.beta));
	so.grid.rules_off = o.rules_off;
	b2_bkopts bo = {.edges_per_thread = (int)o.ept, .device = device, .trace = o.trace,
	                .evict_first = o.evict_first};
	b2_plan_backend(&so.grid, &bo);
	/* --test-shared-gpus with NCCL: each rank a host of its own to NCCL
	 * (its documented variable, read when the communicators are made) */
	if (o.test_shared && shared && o.transport == B2_TP_NCCL && !getenv("NCCL_HOSTID")) {
		char host[32];
		snprintf(host, sizeof host, "bfs2d-rank-%d", b2_rank);
		if (setenv("NCCL_HOSTID", host, 1) != 0)
			B2_FAIL(B2_EIO, "cannot set NCCL_HOSTID: %s", strerror(errno));
	}
	error = be->create(&bk, &g, &bo);
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_search_init(&s, be, bk, &g, &so));
	have_search = 1;
	/* the CUDA backend keeps its own copy of the graph; the CPU backend
	 * borrows a CSC but makes its own from a block given row-major */
	if (be != &b2_cpu_backend || g.rowmajor) {
		free(g.row_idx);
		g.row_idx = NULL;
	}
	B2_TRY(b2_mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"));
	double load_time = b2_now() - tl0;
	B2_TRY(b2_mpi_ok(MPI_Bcast(&load_time, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast"));
	B2_TRY(b2_mpi_ok(MPI_Bcast(&read_time, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast"));

	B2_TRY(b2_alloc(&roots, (size_t)o.nroots * 8, "roots"));
	if (o.roots_lc)
		B2_TRY(largest_component(&allow, &rf, &s, be, bk, &g));
	B2_TRY(draw_roots(roots, &nroots, o.nroots, o.seed, &g, allow));
	if (nroots == 0)
		b2_warn0("%s: no vertex has an edge; no search to run", o.part);
	nkept = o.keep < 0 || o.keep > nroots ? nroots : o.keep;
	error = b2_records_init(&rec, nroots, b2_nranks);
	if (!error) error = b2_calloc(&kept, (size_t)nkept + 1, 8, "results");
	if (!error) error = b2_calloc(&pred, (size_t)g.b, 8, "predecessors");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));

	b2_debug("loaded in %.3f s, roots drawn at %.3f s", load_time, b2_now() - tl0);
	B2_TRY(b2_h5_create(&out, o.output, MPI_COMM_WORLD, "bfs2d-bfs", 1));
	out_open = 1;
	{
		char run_id[B2_RUN_ID_SIZE];
		B2_TRY(b2_run_id_new(run_id, MPI_COMM_WORLD));
		B2_TRY(b2_attr_put_str(out.file, "run_id", run_id));
	}
	B2_TRY(b2_predout_open(&po, &out, &g, nkept, o.compress_pred, o.pred_chunk));
	for (int64_t w = 0; w < (nroots ? o.warmup : 0); w++)
		B2_TRY(b2_search_run(&s, roots[0]));
	b2_progress prog;
	b2_progress_begin(&prog, "searching", "searches", (double)nroots);
	for (int64_t q = 0; q < nroots; q++) {
		B2_TRY(b2_search_run(&s, roots[q]));
		/* outside the timed region: statistics and output */
		int64_t ds = 0;
		error = be->degree_sum(bk, &ds);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &ds, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		                 "MPI_Allreduce (nedge)"));
		B2_TRY(b2_records_add(&rec, roots[q], ds / 2, &s));
		if (q < nkept) {
			kept[q] = q;
			error = be->pred(bk, pred);
			B2_TRY(b2_agree(error, MPI_COMM_WORLD));
			B2_TRY(b2_predout_row(&po, q, pred));
		}
		if (b2_log_verbosity() > 0)
			b2_info("search %lld: root %lld, %lld levels, %lld visited, nedge %lld, %.6f s, %.3f GTEPS",
			        (long long)q, (long long)roots[q], (long long)s.nlevels,
			        (long long)rec.visited[q], (long long)rec.nedge[q], s.time,
			        rec.nedge[q] / s.time * 1e-9);
		b2_progress_step(&prog, (double)(q + 1));
	}
	b2_progress_end(&prog);
	b2_debug("searches done at %.3f s", b2_now() - tl0);

	char exchange[160], nccl_version[32] = "";
	int nccl = 0;
	B2_TRY(b2_links_describe(&s.expand, &s.fold, exchange, sizeof exchange, &nccl));
	if (nccl) {
		int v = b2_nccl_version();
		snprintf(nccl_version, sizeof nccl_version, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	}
	{
		hid_t f = out.file;
		uint64_t dk[1] = {(uint64_t)nkept};
		B2_TRY(b2_records_write(&rec, f));
		B2_TRY(b2_put_small(f, "/kept", H5T_NATIVE_INT64, 1, dk, kept));
		/* device names: "P x NAME" when all ranks agree */
		char all[256] = "", devs[512];
		int same = 1;
		if (b2_rank == 0)
			memcpy(all, devname, sizeof all);
		B2_TRY(b2_mpi_ok(MPI_Bcast(all, sizeof all, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast"));
		int mine = strncmp(all, devname, sizeof all) == 0;
		B2_TRY(b2_mpi_ok(MPI_Allreduce(&mine, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD),
		                 "MPI_Allreduce (device names)"));
		snprintf(devs, sizeof devs, same ? "%d x %s" : "%d x %s (and others)", b2_nranks, all);
		B2_TRY(b2_attr_put_str(f, "partition_file", o.part));
		B2_TRY(b2_attr_put_str(f, "edges_file", pi.edges_file));
		B2_TRY(b2_attr_put_u64(f, "edges_fingerprint", pi.fingerprint));
		B2_TRY(b2_attr_put_i64(f, "num_vertices", pi.N));
		B2_TRY(b2_attr_put_i64(f, "num_input_edges", pi.M));
		B2_TRY(b2_attr_put_i64(f, "grid_rows", pi.R));
		B2_TRY(b2_attr_put_i64(f, "grid_cols", pi.C));
		char searched[48];
		snprintf(searched, sizeof searched, "%dx%d", g.R, g.C);
		B2_TRY(b2_attr_put_str(f, "grid_searched", searched));
		B2_TRY(b2_attr_put_i64(f, "num_ranks", b2_nranks));
		B2_TRY(b2_attr_put_str(f, "backend", be->name));
		B2_TRY(b2_attr_put_str(f, "devices", devs));
		B2_TRY(b2_attr_put_i64(f, "num_gpus", be == &b2_cpu_backend ? 0 : b2_nranks));
		B2_TRY(b2_attr_put_u64(f, "seed", o.seed));
		B2_TRY(b2_attr_put_i64(f, "nroots", o.nroots));
		B2_TRY(b2_attr_put_str(f, "bitmap", o.bitmap_s));
		B2_TRY(b2_attr_put_i64(f, "edges_per_thread", o.ept));
		B2_TRY(b2_attr_put_str(f, "direction", o.direction_s));
		B2_TRY(b2_attr_put_f64(f, "alpha", o.alpha));
		B2_TRY(b2_attr_put_f64(f, "beta", o.beta));
		B2_TRY(b2_attr_put_strv(f, "phase_names", b2_phase_names, B2_NPHASES));
		B2_TRY(b2_attr_put_i64(f, "warmup", o.warmup));
		int64_t msgs[2] = {s.bitmap_msgs, s.list_msgs};
		B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, msgs, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		                 "MPI_Allreduce (message counts)"));
		B2_TRY(b2_attr_put_i64(f, "bitmap_messages", msgs[0]));
		B2_TRY(b2_attr_put_str(f, "exchange", exchange));
		if (nccl)
			B2_TRY(b2_attr_put_str(f, "nccl_version", nccl_version));
		B2_TRY(b2_attr_put_i64(f, "list_messages", msgs[1]));
		if (pi.has_scale) B2_TRY(b2_attr_put_i64(f, "scale", pi.scale));
		if (pi.has_ef) B2_TRY(b2_attr_put_i64(f, "edgefactor", pi.ef));
		if (pi.has_gt) B2_TRY(b2_attr_put_f64(f, "generation_time", pi.gen_time));
		if (pi.has_pt) B2_TRY(b2_attr_put_f64(f, "partition_time", pi.part_time));
		B2_TRY(b2_attr_put_f64(f, "load_time", load_time));
		B2_TRY(b2_attr_put_f64(f, "load_read_time", read_time));
		B2_TRY(b2_attr_put_f64(f, "load_build_time", load_time - read_time));
		B2_TRY(write_run_facts(f, &o, &rf, devname, be != &b2_cpu_backend));
	}
	if (nroots > 0) {
		double inv = 0;
		for (int64_t q = 0; q < nroots; q++)
			inv += rec.time[q] / (double)rec.nedge[q];
		b2_info("%lld searches on %s (%s, %s): harmonic mean %.4g TEPS", (long long)nroots,
		        be->name, o.part, devname, (double)nroots / inv);
	}
	b2_debug("output written at %.3f s", b2_now() - tl0);
done:
	if (out_open) {
		error = b2_predout_close(&po, &out, error);
		error = b2_h5_commit(&out, error);
	}
	b2_predout_free(&po);
	if (have_search)
		b2_search_free(&s);
	if (bk)
		be->destroy(bk);
	free(g.col_ptr); free(g.row_idx); free(g.tdeg);
	free(pi.edges_file);
	free(roots); free(kept);
	free(pred);
	free(allow);
	b2_records_free(&rec);
	return b2_finish(error);
}
