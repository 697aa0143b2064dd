/* labels.c — a run's short label (graph, grid, backend, and its variant or
 * the options it ran with that differ from bfs-gpu's defaults), so that two
 * variants of one graph and grid read apart in every table, plot and row
 * (the sample, -n and --seed, is not a variant: NBFS and the roots say it);
 * and the marks that make a run's numbers doubtful where runs compare. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "report.h"

/* bfs-gpu's defaults (traverse/main.c --help) */
#define DEF_ALPHA_GPU 10.0
#define DEF_ALPHA_CPU 15.0
#define DEF_BETA 18.0
#define DEF_WARMUP 1
#define DEF_EPT 4

/* ",key=val" onto b (no comma first) */
static void add(char *b, size_t n, const char *key, const char *val)
{
	size_t len = strlen(b);
	snprintf(b + len, n - len, "%s%s=%s", len ? "," : "", key, val);
}

/* The data path of a CUDA run when it is not CUDA IPC read in place (the
 * default on one node): "nccl", "mpi", "ipc", or NULL. */
static const char *transport_tag(const run *r)
{
	if (!r->exchange || strcmp(r->backend, "cuda"))
		return NULL; /* the CPU backend has MPI alone */
	static const char *const names[][2] = {{"nccl", "nccl"}, {"cuda-ipc-pull", NULL},
	                                       {"cuda-ipc", "ipc"}, {"mpi", "mpi"}};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		if (strstr(r->exchange, names[k][0]))
			return names[k][1];
	return NULL;
}

void run_make_label(run *r)
{
	char *t = r->tag;
	size_t n = sizeof r->tag;
	t[0] = 0;
	if (r->variant && r->variant[0]) {
		snprintf(t, n, "%s", r->variant);
	} else {
		int cuda = strcmp(r->backend, "cuda") == 0;
		char v[64];
		if (r->direction && strcmp(r->direction, "auto"))
			add(t, n, "direction", r->direction);
		if (r->bitmap && strcmp(r->bitmap, "auto"))
			add(t, n, "bitmap", r->bitmap);
		if (transport_tag(r))
			add(t, n, "transport", transport_tag(r));
		if (isfinite(r->alpha) && r->alpha != (cuda ? DEF_ALPHA_GPU : DEF_ALPHA_CPU))
			snprintf(v, sizeof v, "%g", r->alpha), add(t, n, "alpha", v);
		if (isfinite(r->beta) && r->beta != DEF_BETA)
			snprintf(v, sizeof v, "%g", r->beta), add(t, n, "beta", v);
		if (r->roots_from && strcmp(r->roots_from, "any"))
			add(t, n, "roots", r->roots_from);
		if (r->warmup >= 0 && r->warmup != DEF_WARMUP)
			snprintf(v, sizeof v, "%lld", (long long)r->warmup), add(t, n, "warmup", v);
		if (cuda && r->ept >= 0 && r->ept != DEF_EPT)
			snprintf(v, sizeof v, "%lld", (long long)r->ept), add(t, n, "ept", v);
		if (r->rules_off && r->rules_off[0])
			add(t, n, "rules-off", r->rules_off);
		if (cuda && r->evict_first && strcmp(r->evict_first, "auto"))
			add(t, n, "evict-first", r->evict_first);
	}
	snprintf(r->label, sizeof r->label, "%s %lldx%lld %s%s%s", r->graph, (long long)r->rows,
	         (long long)r->cols, r->backend, t[0] ? " " : "", t);
}

const char *run_doubt(const run *r)
{
	if (r->noisy && r->few_searches)
		return "NOISY, NBFS<64";
	if (r->noisy)
		return "NOISY";
	if (r->few_searches)
		return "NBFS<64";
	return NULL;
}
