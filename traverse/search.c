/* search.c — the level loop of the paper's Algorithm 3 on one rank:
 *   expand exchange (grid column) -> frontier expansion -> fold exchange
 *   (grid row) -> frontier update -> termination (allreduce),
 * then the deferred predecessor resolution (one exchange along the grid row).
 * The backend does the local work; this file only moves messages and times
 * the phases. With CUDA, what the host sees per level is messages and
 * counts, nothing else. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "search.h"

const char *const b2_phase_names[B2_NPHASES] = {
	"expand_exchange", "frontier_expansion", "fold_exchange",
	"frontier_update", "termination", "pred_resolution",
};

int b2_search_init(b2_search *s, const b2_backend *be, void *bk, const b2_graph *g,
                   int bitmap_mode, int ipc, int gpus_shared)
{
	int error = 0;
	memset(s, 0, sizeof *s);
	s->be = be;
	s->bk = bk;
	s->R = g->R; s->C = g->C; s->i = g->i; s->j = g->j;
	s->N = g->N; s->b = g->b;
	s->bitmap_mode = bitmap_mode;
	s->row = s->col = MPI_COMM_NULL;
	B2_TRY(b2_mpi_ok(MPI_Comm_split(MPI_COMM_WORLD, g->i, g->j, &s->row), "MPI_Comm_split"));
	B2_TRY(b2_mpi_ok(MPI_Comm_split(MPI_COMM_WORLD, g->j, g->i, &s->col), "MPI_Comm_split"));
	int n = g->R > g->C ? g->R : g->C;
	B2_TRY(b2_calloc(&s->out, (size_t)n, sizeof *s->out, "messages"));
	B2_TRY(b2_calloc(&s->use_bitmap, (size_t)g->C, sizeof *s->use_bitmap, "messages"));
	B2_TRY(b2_calloc(&s->cnt, (size_t)g->C, sizeof *s->cnt, "counters"));
	s->cap_levels = 64;
	B2_TRY(b2_calloc(&s->fsize, (size_t)s->cap_levels, 8, "frontier sizes"));
	B2_TRY(b2_xchg_init(&s->expand, s->col, b2_msg_words(g->b), be, bk, B2_DIR_EXPAND,
	                    ipc != B2_IPC_OFF));
	B2_TRY(b2_xchg_init(&s->fold, s->row, b2_msg_words(g->b), be, bk, B2_DIR_FOLD,
	                    ipc != B2_IPC_OFF));
	/* pull mode: every exchange device-direct, and decided by all ranks
	 * together (their level loops must match) */
	int pull = ipc == B2_IPC_AUTO && !gpus_shared && be->pull_level &&
	           bitmap_mode != B2_BITMAP_OFF && g->R * g->C > 1 &&
	           g->R <= B2_PULL_MAX && g->C <= B2_PULL_MAX &&
	           (g->R == 1 || s->expand.peer) && (g->C == 1 || s->fold.peer);
	s->pull = !b2_agree(!pull, MPI_COMM_WORLD);
	if (s->pull) {
		B2_TRY(b2_calloc(&s->allfront, (size_t)g->R * (size_t)g->C, 8, "frontier sizes"));
		B2_TRY(b2_calloc(&s->ncol, (size_t)g->R, 8, "frontier sizes"));
		if (getenv("B2_TRACE_LEVELS"))
			B2_TRY(b2_calloc(&s->trace, B2_TRACE_LEVELS, sizeof(double), "level trace"));
	}
done:
	return b2_agree(error, MPI_COMM_WORLD);
}

static int want_bitmap(const b2_search *s, int64_t count)
{
	if (s->bitmap_mode == B2_BITMAP_ON)
		return 1;
	if (s->bitmap_mode == B2_BITMAP_OFF)
		return 0;
	/* section 5: when the list, in bits, exceeds the receiver's range */
	return 32 * count > s->b;
}

static void die(int error)
{
	if (error)
		MPI_Abort(MPI_COMM_WORLD, error);
}

static void note_level(b2_search *s, int64_t global)
{
	if (s->nlevels == s->cap_levels) {
		int64_t *f = realloc(s->fsize, (size_t)s->cap_levels * 2 * 8);
		if (!f)
			die(b2_err(B2_EIO, "out of host memory for frontier sizes"));
		s->fsize = f;
		s->cap_levels *= 2;
	}
	s->fsize[s->nlevels++] = global;
}

/* The levels with messages (MPI, or copies GPU to GPU), each phase timed on
 * the host; nfront starts as 1 on the root's owner. */
static void run_messages(b2_search *s, int mine)
{
	const b2_backend *be = s->be;
	void *bk = s->bk;
	int64_t nfront = mine, global = 1;
	double t[6];
	for (int lvl = 1;; lvl++) {
		t[0] = b2_now();
		if (s->R > 1) {
			b2_msg m;
			int bm = want_bitmap(s, nfront);
			die(be->front_msg(bk, bm, &m));
			for (int p = 0; p < s->R; p++)
				s->out[p] = m;
			s->bitmap_msgs += bm;
			s->list_msgs += !bm;
			die(b2_xchg_round(&s->expand, s->out, s->b));
		}
		die(be->stage_in(bk, B2_DIR_EXPAND, s->expand.in, s->R, s->i));
		t[1] = b2_now();
		die(be->expand(bk, lvl, s->cnt));
		t[2] = b2_now();
		if (s->C > 1) {
			for (int c = 0; c < s->C; c++) {
				s->use_bitmap[c] = want_bitmap(s, s->cnt[c]);
				if (c != s->j) {
					s->bitmap_msgs += s->use_bitmap[c];
					s->list_msgs += !s->use_bitmap[c];
				}
			}
			die(be->fold_msgs(bk, s->use_bitmap, s->out));
			die(b2_xchg_round(&s->fold, s->out, s->b));
		}
		die(be->stage_in(bk, B2_DIR_FOLD, s->fold.in, s->C, s->j));
		t[3] = b2_now();
		die(be->update(bk, lvl, &nfront));
		t[4] = b2_now();
		die(b2_mpi_ok(MPI_Allreduce(&nfront, &global, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		              "MPI_Allreduce"));
		t[5] = b2_now();
		for (int p = 0; p < 5; p++)
			s->phase[p] += t[p + 1] - t[p];
		if (global == 0)
			break;
		note_level(s, global);
	}
}

/* Pull mode: the backend runs each level on the device; the host's only
 * part is one allgather of the ranks' new frontier sizes, which ends the
 * level for everyone and gives the termination test and the column peers'
 * sizes for the next expansion. Every peer bitmap read counts as a bitmap
 * message. */
static void run_pull(b2_search *s, int64_t root_block)
{
	const int R = s->R, C = s->C;
	int lvl;
	/* every rank's begin is done before a peer reads its frontier bitmap */
	die(b2_mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"));
	memset(s->ncol, 0, (size_t)R * 8);
	if (root_block / R == s->j)
		s->ncol[root_block % R] = 1;
	s->pull_wall = 0;
	for (lvl = 1;; lvl++) {
		int64_t nfront = 0, global = 0;
		double t0 = b2_now();
		die(s->be->pull_level(s->bk, lvl, s->ncol, &nfront));
		for (int p = 0; p < R; p++)
			s->bitmap_msgs += p != s->i && s->ncol[p] > 0;
		s->bitmap_msgs += C - 1;
		die(b2_mpi_ok(MPI_Allgather(&nfront, 1, MPI_INT64_T, s->allfront, 1, MPI_INT64_T,
		                            MPI_COMM_WORLD),
		              "MPI_Allgather (frontier sizes)"));
		double dt = b2_now() - t0;
		s->pull_wall += dt;
		if (s->trace && lvl <= B2_TRACE_LEVELS)
			s->trace[lvl - 1] = dt;
		for (int p = 0; p < R * C; p++)
			global += s->allfront[p];
		for (int p = 0; p < R; p++)
			s->ncol[p] = s->allfront[p * C + s->j];
		if (global == 0)
			break;
		note_level(s, global);
	}
	s->pull_levels = lvl;
}

/* After the timed part: the device phases of pull mode; what the device did
 * not spend in a phase (waiting for the level's end, the allgather) is the
 * termination's part. B2_TRACE_LEVELS (environment) prints them per level
 * on rank 0. */
static void pull_phases(b2_search *s)
{
	double span = 0, lv[5 * B2_TRACE_LEVELS];
	int n = (int)s->pull_levels;
	die(s->be->pull_phases(s->bk, n, s->phase, &span, s->trace && n <= B2_TRACE_LEVELS ? lv : NULL));
	s->phase[4] = s->pull_wall > span ? s->pull_wall - span : 0;
	if (!s->trace || n > B2_TRACE_LEVELS || b2_rank != 0)
		return;
	for (int l = 0; l < n; l++)
		fprintf(stderr, "level %2d  frontier %10lld  xexp %7.1f  exp %7.1f  xfold %7.1f  upd %7.1f  device %7.1f  host %7.1f us\n",
		        l + 1, (long long)(l + 1 < s->nlevels ? s->fsize[l + 1] : 0), lv[5 * l] * 1e6,
		        lv[5 * l + 1] * 1e6, lv[5 * l + 2] * 1e6, lv[5 * l + 3] * 1e6, lv[5 * l + 4] * 1e6,
		        s->trace[l] * 1e6);
}

int b2_search_run(b2_search *s, int64_t root)
{
	const b2_backend *be = s->be;
	void *bk = s->bk;
	int64_t blk = root / s->b;
	int mine = blk % s->R == s->i && blk / s->R == s->j;

	memset(s->phase, 0, sizeof s->phase);
	MPI_Barrier(MPI_COMM_WORLD);
	double t0 = b2_now();
	die(be->begin(bk, mine ? root - blk * s->b : -1));
	s->fsize[0] = 1;
	s->nlevels = 1;
	if (s->pull)
		run_pull(s, blk);
	else
		run_messages(s, mine);
	/* deferred predecessors: owners learn the local column their sender saw
	 * (in peer mode the backend reads them from the row peers itself) */
	double tr = b2_now();
	uint32_t *send = NULL, *recv = NULL;
	if (s->C > 1 && !s->fold.peer) {
		die(be->resolve_bufs(bk, &send, &recv));
		die(b2_mpi_ok(MPI_Alltoall(send, (int)s->b, MPI_UINT32_T, recv, (int)s->b,
		                           MPI_UINT32_T, s->row),
		              "MPI_Alltoall (predecessors)"));
	}
	die(be->resolve(bk, recv));
	double t1 = b2_now();
	s->phase[5] = t1 - tr;
	double mytime = t1 - t0;
	die(b2_mpi_ok(MPI_Allreduce(&mytime, &s->time, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
	              "MPI_Allreduce"));
	if (s->pull)
		pull_phases(s);
	return 0;
}

void b2_search_free(b2_search *s)
{
	int peer = s->expand.peer || s->fold.peer;
	if (s->expand.peer)
		s->be->peer_open(s->bk, B2_DIR_EXPAND, 0, 0, NULL);
	if (s->fold.peer)
		s->be->peer_open(s->bk, B2_DIR_FOLD, 0, 0, NULL);
	/* no rank frees memory that a peer still maps */
	if (peer)
		MPI_Barrier(MPI_COMM_WORLD);
	b2_xchg_free(&s->expand);
	b2_xchg_free(&s->fold);
	if (s->row != MPI_COMM_NULL)
		MPI_Comm_free(&s->row);
	if (s->col != MPI_COMM_NULL)
		MPI_Comm_free(&s->col);
	free(s->out);
	free(s->use_bitmap);
	free(s->cnt);
	free(s->fsize);
	free(s->allfront);
	free(s->ncol);
	free(s->trace);
	memset(s, 0, sizeof *s);
}
