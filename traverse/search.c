/* search.c — the level loop of the paper's Algorithm 3 on one rank, with
 * Beamer's direction optimization. A level is:
 *   1. the direction decision (the same on every rank: from global counts),
 *   2. the exchanges before the local step: the expand exchange along the
 *      grid column and, bottom-up, the rows' visited state along the row,
 *   3. the local step, top-down or bottom-up (the backend),
 *   4. the fold exchange along the grid row,
 *   5. the frontier update, then the termination test (one collective that
 *      also carries the next decision's counts).
 * Then the deferred predecessor resolution (requests and answers along the
 * row; on a 1x2 grid whose folds carried the visited state, the CUDA
 * backend takes them all from the levels: backend.h pred_local). How
 * messages move is the transports' business (transport.h), not the loop's;
 * it asks them only whether levels run on the device (bitmaps whose sizes
 * the termination test gives, one host wait per level). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"
#include "search.h"

const char *const b2_phase_names[B2_NPHASES] = {
	[B2_PH_EXPAND_XCHG] = "expand_exchange", [B2_PH_EXPANSION] = "frontier_expansion",
	[B2_PH_FOLD_XCHG] = "fold_exchange",     [B2_PH_UPDATE] = "frontier_update",
	[B2_PH_TERMINATION] = "termination",     [B2_PH_PRED] = "pred_resolution",
};

int b2_search_init(b2_search *s, const b2_backend *be, void *bk, const b2_graph *g,
                   const b2_search_opts *o)
{
	int error = 0;
	memset(s, 0, sizeof *s);
	s->be = be;
	s->bk = bk;
	s->R = g->R; s->C = g->C; s->i = g->i; s->j = g->j;
	s->N = g->N; s->b = g->b;
	s->bitmap_mode = o->bitmap_mode;
	s->direction = o->direction;
	s->alpha = o->alpha;
	s->beta = o->beta;
	s->row = s->col = MPI_COMM_NULL;
	B2_TRY(b2_mpi_ok(MPI_Comm_split(MPI_COMM_WORLD, g->i, g->j, &s->row), "MPI_Comm_split"));
	B2_TRY(b2_mpi_ok(MPI_Comm_split(MPI_COMM_WORLD, g->j, g->i, &s->col), "MPI_Comm_split"));
	int n = g->R > g->C ? g->R : g->C;
	B2_TRY(b2_calloc(&s->out, (size_t)n, sizeof *s->out, "messages"));
	B2_TRY(b2_calloc(&s->use_bitmap, (size_t)g->C, sizeof *s->use_bitmap, "messages"));
	B2_TRY(b2_calloc(&s->cnt, (size_t)g->C, sizeof *s->cnt, "counters"));
	s->cap_levels = 64;
	B2_TRY(b2_calloc(&s->fsize, (size_t)s->cap_levels, 8, "frontier sizes"));
	B2_TRY(b2_calloc(&s->ldir, (size_t)s->cap_levels, 1, "level directions"));
	B2_TRY(b2_calloc(&s->lexam, (size_t)s->cap_levels, 8, "edges examined"));
	B2_TRY(b2_calloc(&s->ltime, (size_t)s->cap_levels, 8, "level times"));
	B2_TRY(b2_calloc(&s->lphase, (size_t)s->cap_levels * 5, 8, "level times"));
	B2_TRY(b2_calloc(&s->lfold, (size_t)s->cap_levels * 2, 8, "level times"));
	s->tdeg = g->tdeg;
	for (int64_t x = 0; x < g->b; x++)
		s->total_degree += g->tdeg[x];
	B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &s->total_degree, 1, MPI_INT64_T, MPI_SUM,
	                               MPI_COMM_WORLD), "MPI_Allreduce (degrees)"));
	b2_transport_opts to = {.kind = o->transport, .bitmaps = o->bitmap_mode != B2_BITMAP_OFF,
	                        .gpus_shared = o->gpus_shared,
	                        .bottom_up = o->direction != B2_DIRECTION_TOP_DOWN};
	B2_TRY(b2_links_open(&s->expand, &s->fold, s->col, s->row, be, bk, g->b, &to,
	                     &s->device_levels));
	B2_TRY(b2_calloc(&s->stats, 3 * (size_t)g->R * (size_t)g->C, 8, "level counts"));
	B2_TRY(b2_calloc(&s->ncol, (size_t)g->R, 8, "frontier sizes"));
	B2_TRY(b2_calloc(&s->nrow, (size_t)g->C, 8, "message sizes"));
	for (int c = 0; c < g->C; c++)
		s->nrow[c] = -1;
	s->trace = getenv("B2_TRACE_LEVELS") != NULL;
done:
	/* every rank alike, so the collective clean-up is safe */
	if ((error = b2_agree(error, MPI_COMM_WORLD)) != 0)
		b2_search_free(s);
	return error;
}

/* Inside a search the peers may wait for this rank mid-level (in an
 * exchange, or spinning on a device flag): an error ends the job at once
 * with its exit code, the outputs' temporaries removed (b2_abort). */
static void check(int error)
{
	if (error)
		b2_abort(error);
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

static int grow(void *pp, int64_t n, size_t size)
{
	void *q = realloc(*(void **)pp, (size_t)n * size);
	if (!q)
		return b2_err(B2_EIO, "out of host memory for the level records");
	*(void **)pp = q;
	return 0;
}

/* Frontier size of the level just found (global), with room for the
 * records of the step that will expand it. */
static void note_level(b2_search *s, int64_t global)
{
	if (s->nlevels + 1 >= s->cap_levels) {
		int64_t cap = s->cap_levels * 2;
		check(grow(&s->fsize, cap, 8));
		check(grow(&s->ldir, cap, 1));
		check(grow(&s->lexam, cap, 8));
		check(grow(&s->ltime, cap, 8));
		check(grow(&s->lphase, cap * 5, 8));
		check(grow(&s->lfold, cap * 2, 8));
		s->cap_levels = cap;
	}
	s->fsize[s->nlevels++] = global;
}

/* 1. Beamer's rule (as gapbs applies it), from the global frontier size nf
 * and the frontier's degree sum deg: go bottom-up when the frontier's
 * edges exceed 1/alpha of the unexplored ones; go back top-down when the
 * frontier shrinks below N/beta. The first level after leaving bottom-up
 * is top-down regardless, so that the decision does not flap. After a
 * bottom-up step deg is 0: the rule does not test it there, and the
 * unexplored count is not lowered by it (gapbs counts 1), so no backend
 * sums the degrees of a frontier that bottom-up found. */
static int decide(b2_search *s, int lvl, int64_t nf, int64_t deg)
{
	if (s->direction != B2_DIRECTION_AUTO)
		return s->direction == B2_DIRECTION_BOTTOM_UP ? B2_BOTTOM_UP : B2_TOP_DOWN;
	if (lvl == 1) {
		s->dir = B2_TOP_DOWN;
		s->fresh = 0;
		s->to_check = s->total_degree;
	} else if (s->dir == B2_BOTTOM_UP) {
		if (nf < s->prev_front && (double)nf * s->beta <= (double)s->N) {
			s->dir = B2_TOP_DOWN;
			s->fresh = 1;
		}
	} else if (!s->fresh && (double)deg * s->alpha > (double)s->to_check) {
		s->dir = B2_BOTTOM_UP;
	} else {
		s->fresh = 0;
	}
	if (s->dir == B2_TOP_DOWN)
		s->to_check -= deg;
	s->prev_front = nf;
	return s->dir;
}

/* 2a. The expand exchange: the frontier of every grid-column peer. With
 * device levels the sizes are known from the last termination test, and
 * the transport moves the bitmaps on the device, or nothing at all (the
 * backend reads them in place). */
static void expand_exchange(b2_search *s, int64_t nfront)
{
	const b2_backend *be = s->be;
	b2_msg m;
	if (s->device_levels) {
		/* bitmaps, or lists of the known sizes where the link says
		 * (b2_link_list) */
		b2_msg in[B2_PULL_MAX];
		for (int p = 0; p < s->R; p++) {
			const int list = p != s->i && b2_link_list(&s->expand, s->ncol[p]);
			in[p] = (b2_msg){NULL, s->ncol[p], !list};
			s->bitmap_msgs += p != s->i && s->ncol[p] > 0 && !list;
			s->list_msgs += p != s->i && s->ncol[p] > 0 && list;
		}
		check(be->stage_in(s->bk, B2_DIR_EXPAND, in, s->R, s->i));
		if (s->R > 1) {
			check(be->front_msg(s->bk, !b2_link_list(&s->expand, s->ncol[s->i]), B2_MEM_DEVICE, &m));
			for (int p = 0; p < s->R; p++)
				s->out[p] = m;
			check(s->expand.ops->round(&s->expand, s->out, s->ncol));
		}
		return;
	}
	if (s->R > 1) {
		int bm = want_bitmap(s, nfront);
		check(be->front_msg(s->bk, bm, s->expand.ops->mem, &m));
		for (int p = 0; p < s->R; p++)
			s->out[p] = m;
		s->bitmap_msgs += bm;
		s->list_msgs += !bm;
		check(b2_link_round(&s->expand, s->out));
	}
	check(be->stage_in(s->bk, B2_DIR_EXPAND, s->expand.in, s->R, s->i));
}

/* Message levels on a row that carries the visited state carry it with
 * every fold; device levels on bottom-up levels (transport.h: or every
 * level, B2_CARRY_EVERY=1 on 1x2). */
static int every_fold_carries(const b2_search *s)
{
	return s->fold.carry == B2_CARRY_EVERY;
}

/* Device levels over a link that wants lists (transport.h b2_link_list):
 * a bound, known on every rank, on what row peer c's step sends, in words
 * with the count word; -1: none. On a grid of one row a top-down step
 * discovers at most as many vertices as its frontier has edges: the
 * root's degree at the first level, else the frontier's degree sum where
 * the step before was top-down and summed it (the termination's stats). */
static int64_t fold_bound(const b2_search *s, int lvl, int dir, int c)
{
	if (!s->fold.lists || s->fold.carrying || s->R != 1 || dir != B2_TOP_DOWN)
		return -1;
	if (lvl == 1)
		return (c == s->root_col ? s->root_degree : 0) + 1;
	if (s->direction != B2_DIRECTION_AUTO || s->ldir[lvl - 2] != B2_TOP_DOWN)
		return -1;
	return s->stats[3 * c + 1] + 1;
}

/* 4. The fold exchange: discoveries to their owners along the grid row.
 * With device levels: bitmaps, moved on the device or read in place by
 * the update (the row peers were signalled by the step); a bottom-up
 * level's carries the visited state where the link can (transport.h).
 * Message levels: lists or bitmaps, each with the sender's discoveries of
 * its own block where the link carries the visited state (every level). */
static int level_carrying(const b2_search *s, int dir)
{
	int c = every_fold_carries(s) || (s->fold.carry && dir == B2_BOTTOM_UP);
	/* a bottom-up step of device levels on one row finds only own rows */
	if (c && s->device_levels && s->R == 1 && dir == B2_BOTTOM_UP)
		c = B2_CARRYING_OWN;
	return c;
}

static void fold_exchange(b2_search *s, int lvl, int dir, int carrying)
{
	const b2_backend *be = s->be;
	s->fold.carrying = carrying;
	s->lfold[2 * (lvl - 1)] = s->lfold[2 * (lvl - 1) + 1] = 0;
	if (s->device_levels) {
		if (s->C > 1) {
			/* a list (a count, then the entries) where the link wants
			 * lists and both sides know a bound smaller than the bitmap */
			const int64_t mine = fold_bound(s, lvl, dir, s->j);
			const int list_out = b2_link_list(&s->fold, mine);
			b2_msg in[B2_PULL_MAX];
			int any = list_out;
			for (int c = 0; c < s->C; c++) {
				const int64_t theirs = fold_bound(s, lvl, dir, c);
				const int list_in = c != s->j && b2_link_list(&s->fold, theirs);
				s->use_bitmap[c] = !list_out;
				s->nrow[c] = list_in ? theirs : -1;
				in[c] = (b2_msg){NULL, list_in ? theirs : -1, !list_in};
				any |= list_in;
				if (c != s->j) {
					s->bitmap_msgs += s->use_bitmap[c];
					s->list_msgs += !s->use_bitmap[c];
				}
			}
			check(be->stage_in(s->bk, B2_DIR_FOLD, in, s->C, s->j));
			check(be->fold_msgs(s->bk, any ? s->use_bitmap : NULL, B2_MEM_DEVICE, s->out));
			for (int c = 0; c < s->C; c++)
				if (c != s->j && !s->use_bitmap[c])
					s->out[c] = (b2_msg){s->out[c].data, mine, 0};
			check(s->fold.ops->round(&s->fold, s->out, s->nrow));
		}
		return;
	}
	if (s->C > 1) {
		for (int c = 0; c < s->C; c++) {
			s->use_bitmap[c] = want_bitmap(s, s->cnt[c]);
			if (c != s->j) {
				s->bitmap_msgs += s->use_bitmap[c];
				s->list_msgs += !s->use_bitmap[c];
			}
		}
		/* the own block's discoveries travel only when carried */
		if (!s->fold.carrying)
			s->use_bitmap[s->j] = -1;
		double t0 = b2_now();
		check(be->fold_msgs(s->bk, s->use_bitmap, s->fold.ops->mem, s->out));
		double t1 = b2_now();
		check(b2_link_round(&s->fold, s->out));
		s->lfold[2 * (lvl - 1)] = t1 - t0;
		s->lfold[2 * (lvl - 1) + 1] = b2_now() - t1;
	}
	check(be->stage_in(s->bk, B2_DIR_FOLD, s->fold.in, s->C, s->j));
	for (int c = 0; s->fold.carrying && c < s->C; c++)
		if (c != s->j && s->fold.carried[c].count)
			check(be->carry_in(s->bk, &s->fold.carried[c], c, lvl));
}

/* 5b. Termination: the level's frontier size, degree sum and edges
 * examined, summed over all ranks (device levels gather them per rank: the
 * next expansion needs the column peers' frontier sizes). */
static void terminate(b2_search *s, b2_level_stats *st)
{
	int64_t mine[3] = {st->front, st->degree, st->examined}, sum[3] = {0, 0, 0};
	if (!s->device_levels) {
		check(b2_mpi_ok(MPI_Allreduce(mine, sum, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		                "MPI_Allreduce (termination)"));
	} else {
		const int P = s->R * s->C;
		check(b2_mpi_ok(MPI_Allgather(mine, 3, MPI_INT64_T, s->stats, 3, MPI_INT64_T,
		                              MPI_COMM_WORLD), "MPI_Allgather (termination)"));
		for (int p = 0; p < P; p++)
			for (int x = 0; x < 3; x++)
				sum[x] += s->stats[3 * p + x];
		for (int p = 0; p < s->R; p++)
			s->ncol[p] = s->stats[3 * (p * s->C + s->j)];
	}
	*st = (b2_level_stats){sum[0], sum[1], sum[2]};
}

/* After the timed part, device levels: the backend splits each level's
 * busy time (from its start to the update's return, on the host: the
 * device's work and the launches) into the first four phases; the
 * termination keeps what the host measured after it (the allgather, the
 * decision). */
static void device_phases(b2_search *s)
{
	double *lv = NULL, *busy = NULL;
	int n = (int)s->nlevels;
	int traced = s->trace && n <= B2_TRACE_LEVELS && b2_rank == 0;
	check(b2_alloc(&lv, (size_t)n * 4 * sizeof *lv, "level phases"));
	check(b2_alloc(&busy, (size_t)n * sizeof *busy, "level phases"));
	for (int l = 0; l < n; l++)
		busy[l] = s->lphase[5 * l] + s->lphase[5 * l + 1] + s->lphase[5 * l + 2] +
		          s->lphase[5 * l + 3];
	check(s->be->level_phases(s->bk, n, busy, lv));
	for (int p = 0; p < 4; p++)
		s->phase[p] = 0;
	s->expansion_by_dir[0] = s->expansion_by_dir[1] = 0;
	for (int l = 0; l < n; l++) {
		for (int p = 0; p < 4; p++)
			s->phase[p] += lv[4 * l + p];
		s->expansion_by_dir[s->ldir[l] == B2_BOTTOM_UP] += lv[4 * l + 1];
	}
	for (int l = 0; traced && l < n; l++)
		fprintf(stderr, "level %2d  %s  frontier %10lld  xexp %7.1f  exp %7.1f  xfold %7.1f  upd %7.1f  term %7.1f  host %7.1f us\n",
		        l + 1, s->ldir[l] == B2_BOTTOM_UP ? "BU" : "TD", (long long)s->fsize[l],
		        lv[4 * l] * 1e6, lv[4 * l + 1] * 1e6, lv[4 * l + 2] * 1e6, lv[4 * l + 3] * 1e6,
		        s->lphase[5 * l + 4] * 1e6, s->ltime[l] * 1e6);
	free(lv);
	free(busy);
}

int b2_search_run(b2_search *s, int64_t root)
{
	const b2_backend *be = s->be;
	void *bk = s->bk;
	int64_t blk = root / s->b;
	int mine = blk % s->R == s->i && blk / s->R == s->j;
	double t[6];

	memset(s->phase, 0, sizeof s->phase);
	memset(s->expansion_by_dir, 0, sizeof s->expansion_by_dir);
	check(b2_mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"));
	double t0 = b2_now();
	check(be->begin(bk, mine ? root - blk * s->b : -1));
	/* every rank's begin is done before a peer reads its state in place
	 * (else it reads the previous search's): the frontier with device
	 * levels, the visited block a bottom-up level reads. With device
	 * levels the collective also gives every rank the root's degree */
	s->root_col = (int)(blk / s->R);
	if (s->device_levels) {
		int64_t d = mine ? s->tdeg[root - blk * s->b] : 0;
		check(b2_mpi_ok(MPI_Allreduce(&d, &s->root_degree, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		                "MPI_Allreduce (the root's degree)"));
	} else if (s->fold.ops && s->fold.ops->in_place && s->direction != B2_DIRECTION_TOP_DOWN) {
		check(b2_mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"));
	}
	memset(s->ncol, 0, (size_t)s->R * 8);
	if (blk / s->R == s->j)
		s->ncol[blk % s->R] = 1;
	s->nlevels = 0;
	/* begin: the row's visited state is not current, except where every
	 * fold carries it (B2_CARRY_EVERY, transport.h): there only the root
	 * is missing, in the row peers of its owner */
	s->fold.carrying = every_fold_carries(s);
	if (s->fold.carrying && blk % s->R == s->i && blk / s->R != s->j) {
		uint32_t k = (uint32_t)(root - blk * s->b);
		check(be->carry_in(bk, &(b2_msg){&k, 1, 0}, (int)(blk / s->R), 0));
	}
	note_level(s, 1);
	b2_level_stats st = {mine, 0, 0}, global = {1, 0, 0};
	for (int lvl = 1;; lvl++) {
		t[0] = b2_now();
		int dir = decide(s, lvl, global.front, global.degree);
		expand_exchange(s, st.front);
		if (dir == B2_BOTTOM_UP)
			check(b2_link_visited(&s->fold));
		t[1] = b2_now();
		int64_t examined = 0;
		const b2_step step = {lvl, dir, level_carrying(s, dir)};
		check(be->expand(bk, &step, s->cnt, &examined));
		t[2] = b2_now();
		fold_exchange(s, lvl, dir, step.carrying);
		t[3] = b2_now();
		st = (b2_level_stats){0, 0, examined};
		check(be->update(bk, lvl, &st));
		t[4] = b2_now();
		global = st;
		terminate(s, &global);
		if (dir == B2_BOTTOM_UP)
			global.degree = 0;
		t[5] = b2_now();
		for (int p = 0; p < 5; p++) {
			s->phase[p] += t[p + 1] - t[p];
			s->lphase[5 * (lvl - 1) + p] = t[p + 1] - t[p];
		}
		s->expansion_by_dir[dir == B2_BOTTOM_UP] += t[2] - t[1];
		/* the step from frontier lvl-1, recorded in its slot */
		s->ldir[lvl - 1] = (signed char)dir;
		s->lexam[lvl - 1] = global.examined;
		s->ltime[lvl - 1] = t[5] - t[0];
		if (global.front == 0)
			break;
		note_level(s, global.front);
	}
	/* deferred predecessors: owners learn the local column their sender
	 * saw, or (1x2, every fold carried, a backend that can) find a
	 * neighbour a level up, with no exchange */
	double tr = b2_now();
	const int carried_all = every_fold_carries(s);
	const int local = carried_all && s->R == 1 && s->C == 2 && be->pred_local;
	double tl = tr;
	if (local) { /* all with no exchange (backend.h) */
		check(be->pred_local(bk));
		tl = b2_now();
		check(be->pred_resolve(bk, NULL));
		memset(s->fold.pred_time, 0, sizeof s->fold.pred_time);
		s->fold.pred_time[4] = b2_now() - tl;
	} else {
		check(b2_link_preds(&s->fold, carried_all));
	}
	double t1 = b2_now();
	s->phase[B2_PH_PRED] = t1 - tr;
	double mytime = t1 - t0;
	check(b2_mpi_ok(MPI_Allreduce(&mytime, &s->time, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
	                "MPI_Allreduce (search time)"));
	if (s->device_levels)
		device_phases(s);
	else if (s->trace && b2_rank == 0)
		for (int64_t l = 0; l < s->nlevels; l++) {
			const double *ph = s->lphase + 5 * l;
			fprintf(stderr, "level %2lld  %s  frontier %10lld  examined %12lld  xexp %7.1f  exp %7.1f  xfold %7.1f (msgs %6.1f round %6.1f)  upd %7.1f  term %7.1f  host %8.1f us\n",
			        (long long)l + 1, s->ldir[l] == B2_BOTTOM_UP ? "BU" : "TD",
			        (long long)s->fsize[l], (long long)s->lexam[l], ph[0] * 1e6, ph[1] * 1e6,
			        ph[2] * 1e6, s->lfold[2 * l] * 1e6, s->lfold[2 * l + 1] * 1e6, ph[3] * 1e6,
			        ph[4] * 1e6, s->ltime[l] * 1e6);
		}
	if (s->trace && b2_rank == 0 && s->fold.n > 1 && !s->fold.ops->in_place) {
		const double *pt = s->fold.pred_time;
		fprintf(stderr, "pred  local %7.1f  requests %7.1f  round %7.1f  answers %7.1f  round %7.1f  resolve %7.1f us\n",
		        (tl - tr) * 1e6, pt[0] * 1e6, pt[1] * 1e6, pt[2] * 1e6, pt[3] * 1e6, pt[4] * 1e6);
	}
	return 0;
}

void b2_search_free(b2_search *s)
{
	b2_links_close(&s->expand, &s->fold);
	if (s->row != MPI_COMM_NULL)
		MPI_Comm_free(&s->row);
	if (s->col != MPI_COMM_NULL)
		MPI_Comm_free(&s->col);
	free(s->out);
	free(s->use_bitmap);
	free(s->cnt);
	free(s->fsize);
	free(s->ldir);
	free(s->lexam);
	free(s->ltime);
	free(s->lphase);
	free(s->lfold);
	free(s->stats);
	free(s->ncol);
	free(s->nrow);
	memset(s, 0, sizeof *s);
}
