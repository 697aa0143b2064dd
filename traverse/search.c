/* search.c — the level loop of the paper's Algorithm 3 on one rank, with
 * Beamer's direction optimization. A level is:
 *   1. the level plan (plan.h): direction, what the fold carries, each
 *      exchange's message forms, from counts every rank shares,
 *   2. the exchanges before the local step: the expand exchange along the
 *      grid column and, bottom-up, the rows' visited state along the row,
 *   3. the local step, top-down or bottom-up (the backend),
 *   4. the fold exchange along the grid row,
 *   5. the frontier update, then the termination test (one collective that
 *      also carries the next plan's counts).
 * Then the deferred predecessor resolution, as the run's plan says. How
 * messages move is the transports' business (transport.h); what a level
 * does is the plan's: this loop tests neither the grid's shape nor the
 * transport. */
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

const char *const b2_exchange_names[B2_NXCHG] = {
	[B2_XB_EXPAND] = "expand", [B2_XB_FOLD] = "fold", [B2_XB_VISITED] = "visited",
};

int b2_search_grid(b2_plan_grid *grid, const b2_graph *g, int bitmap_mode, int direction,
                   double alpha, double beta)
{
	*grid = (b2_plan_grid){.R = g->R, .C = g->C, .i = g->i, .j = g->j, .N = g->N, .b = g->b,
	                       .bitmap_mode = bitmap_mode, .direction = direction,
	                       .alpha = alpha, .beta = beta};
	for (int64_t x = 0; x < g->b; x++) {
		grid->total_degree += g->tdeg[x];
		grid->compact_bits += g->tdeg[x] > 0;
	}
	return b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, &grid->total_degree, 1, MPI_INT64_T, MPI_SUM,
	                               MPI_COMM_WORLD), "MPI_Allreduce (degrees)");
}

/* COMPACT: every column peer's mask of its vertices with a tuple degree,
 * gathered along the grid column, to the backend. */
static int compact_masks(b2_search *s, const b2_graph *g)
{
	int error = 0;
	const int64_t bw = b2_bmp_words(g->b);
	uint32_t *masks = NULL;
	B2_TRY(b2_calloc(&masks, (size_t)(g->R + 1) * (size_t)bw, 4, "compact bitmap masks"));
	uint32_t *own = masks + (size_t)g->R * (size_t)bw;
	for (int64_t x = 0; x < g->b; x++)
		if (g->tdeg[x] > 0)
			own[x >> 5] |= 1u << (x & 31);
	B2_TRY(s->expand.ops->allgather(&s->expand, own, masks, bw));
	B2_TRY(s->be->compact_masks(s->bk, masks));
done:
	free(masks);
	return error;
}

int b2_search_init(b2_search *s, const b2_backend *be, void *bk, const b2_graph *g,
                   const b2_search_opts *o)
{
	int error = 0;
	memset(s, 0, sizeof *s);
	s->be = be;
	s->bk = bk;
	s->grid = o->grid;
	s->trace = o->trace;
	s->row = s->col = MPI_COMM_NULL;
	B2_TRY(b2_mpi_ok(MPI_Comm_split(MPI_COMM_WORLD, g->i, g->j, &s->row), "MPI_Comm_split"));
	B2_TRY(b2_mpi_ok(MPI_Comm_split(MPI_COMM_WORLD, g->j, g->i, &s->col), "MPI_Comm_split"));
	const size_t n = (size_t)(g->R > g->C ? g->R : g->C);
	B2_TRY(b2_calloc(&s->out, n, sizeof *s->out, "messages"));
	B2_TRY(b2_calloc(&s->in, n, sizeof *s->in, "messages"));
	B2_TRY(b2_calloc(&s->use_bitmap, (size_t)g->C, sizeof *s->use_bitmap, "messages"));
	B2_TRY(b2_calloc(&s->cnt, (size_t)g->C, sizeof *s->cnt, "counters"));
	B2_TRY(b2_calloc(&s->plan.expand_in, (size_t)g->R, sizeof *s->plan.expand_in, "level plan"));
	s->cap_levels = 64;
	B2_TRY(b2_calloc(&s->fsize, (size_t)s->cap_levels, 8, "frontier sizes"));
	B2_TRY(b2_calloc(&s->ldir, (size_t)s->cap_levels, 1, "level directions"));
	B2_TRY(b2_calloc(&s->lexam, (size_t)s->cap_levels, 8, "edges examined"));
	B2_TRY(b2_calloc(&s->ltime, (size_t)s->cap_levels, 8, "level times"));
	B2_TRY(b2_calloc(&s->lphase, (size_t)s->cap_levels * B2_NLPHASES, 8, "level times"));
	B2_TRY(b2_calloc(&s->lfold, (size_t)s->cap_levels * 2, 8, "level times"));
	B2_TRY(b2_calloc(&s->lbytes, (size_t)s->cap_levels * B2_NXCHG, 8, "level bytes"));
	B2_TRY(b2_calloc(&s->stats, 3 * (size_t)g->R * (size_t)g->C, 8, "level counts"));
	b2_transport_opts to = {.kind = o->transport, .bitmaps = s->grid.bitmap_mode != B2_BITMAP_OFF,
	                        .gpus_shared = o->gpus_shared, .test_shared = o->test_shared};
	b2_plan_caps caps;
	B2_TRY(b2_links_open(&s->expand, &s->fold, s->col, s->row, be, bk, g->b, &to, &caps));
	/* compact bitmaps where the expand's messages pass through the host */
	caps.compact = be->compact_masks && b2_link_mem(&s->expand) == B2_MEM_HOST;
	s->run = b2_plan_run(&s->grid, &caps);
	const b2_bkrun run = {.mem = {b2_link_mem(&s->expand), b2_link_mem(&s->fold)},
	                      .device_levels = s->run.device_levels, .carry = s->run.carry,
	                      .preds = s->run.preds, .row_reads_visited = s->run.row_reads_visited,
	                      .row_peer = s->run.row_peer,
	                      .front_lists = s->run.front_lists,
	                      .lists_in_place = s->expand.ops && s->expand.ops->in_place_lists};
	B2_TRY(be->configure(bk, &run));
	if (s->run.compact)
		B2_TRY(compact_masks(s, g));
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

static int grow(void *pp, int64_t n, size_t size)
{
	void *q = realloc(*(void **)pp, (size_t)n * size);
	if (!q)
		return b2_err(B2_EIO, "out of host memory for the level records (%zu bytes)",
		              (size_t)n * size);
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
		check(grow(&s->lphase, cap * B2_NLPHASES, 8));
		check(grow(&s->lfold, cap * 2, 8));
		check(grow(&s->lbytes, cap * B2_NXCHG, 8));
		s->cap_levels = cap;
	}
	s->fsize[s->nlevels++] = global;
}

static void count_msg(b2_search *s, int form)
{
	s->bitmap_msgs += form == B2_FORM_BITMAP;
	s->list_msgs += form == B2_FORM_LIST;
}

/* The bytes of a message (plan.h's forms): a list of n words, or a bitmap
 * of the block with its count word. */
static int64_t msg_bytes(const b2_search *s, int bitmap, int64_t n)
{
	return 4 * (bitmap ? b2_bmp_words(s->grid.b) + 1 : n);
}

/* This rank's bytes in exchange x of level lvl. */
static int64_t *level_bytes(b2_search *s, int lvl, int x)
{
	return &s->lbytes[B2_NXCHG * (lvl - 1) + x];
}

/* 2a. The expand exchange: the frontier of every grid-column peer, in the
 * forms the plan gave. With device levels the sizes are the plan's and the
 * transport moves the messages on the device, or nothing at all (the
 * backend reads them in place). */
static void expand_exchange(b2_search *s, int lvl)
{
	const b2_backend *be = s->be;
	const b2_level_plan *p = &s->plan;
	const int R = s->grid.R, me = s->grid.i;
	int64_t *bytes = level_bytes(s, lvl, B2_XB_EXPAND);
	b2_msg m;
	if (s->run.device_levels) {
		for (int q = 0; q < R; q++) {
			s->in[q] = (b2_msg){NULL, p->expand_in[q].count, p->expand_in[q].form != B2_FORM_LIST, 0};
			if (p->expand_in[q].count > 0)
				count_msg(s, p->expand_in[q].form);
		}
		check(be->stage_in(s->bk, B2_DIR_EXPAND, s->in, R, me));
	}
	if (p->expand_out.form != B2_FORM_NONE) {
		const int form = p->expand_out.form;
		check(be->front_msg(s->bk, form == B2_FORM_LIST      ? B2_MSG_LIST
		                          : form == B2_FORM_COMPACT ? B2_MSG_COMPACT : B2_MSG_BITMAP, &m));
		for (int q = 0; q < R; q++)
			s->out[q] = m;
		/* device levels: the column peers read a frontier only when it
		 * is not empty */
		if (s->run.device_levels && p->expand_out.count > 0)
			*bytes = (R - 1) * msg_bytes(s, form == B2_FORM_BITMAP, p->expand_out.count);
		if (s->run.device_levels) {
			check(s->expand.ops->round(&s->expand, s->out, s->in));
			return;
		}
		/* the backend sends a plain bitmap where it cannot pack */
		*bytes = (R - 1) * (m.bitmap == B2_MSG_COMPACT ? 4 * m.words : msg_bytes(s, m.bitmap, m.count));
		count_msg(s, m.bitmap == B2_MSG_LIST ? B2_FORM_LIST : B2_FORM_BITMAP);
		check(b2_link_round(&s->expand, s->out));
	}
	if (!s->run.device_levels)
		check(be->stage_in(s->bk, B2_DIR_EXPAND, s->expand.in, R, me));
}

/* 4. The fold exchange: discoveries to their owners along the grid row.
 * With device levels: in the plan's forms, moved on the device or read in
 * place by the update (the row peers were signalled by the step). Message
 * levels: lists or bitmaps by their sizes, each with the sender's
 * discoveries of its own block where the fold carries the visited state. */
static void fold_exchange(b2_search *s, int lvl)
{
	const b2_backend *be = s->be;
	const b2_level_plan *p = &s->plan;
	const int C = s->grid.C, me = s->grid.j;
	int64_t *bytes = level_bytes(s, lvl, B2_XB_FOLD);
	s->fold.carrying = p->step.carrying;
	s->lfold[2 * (lvl - 1)] = s->lfold[2 * (lvl - 1) + 1] = 0;
	if (!s->run.fold_exchange) {
		if (!s->run.device_levels)
			check(be->stage_in(s->bk, B2_DIR_FOLD, s->fold.in, C, me));
		return;
	}
	if (s->run.device_levels) {
		/* bitmaps: a fold's sizes are known only after the step (plan.h) */
		for (int c = 0; c < C; c++) {
			s->use_bitmap[c] = 1;
			s->in[c] = (b2_msg){NULL, -1, 1, 0};
			if (c != me) {
				count_msg(s, B2_FORM_BITMAP);
				/* a carrying fold's bitmap is the sender's discovery set,
				 * one block per rank of the row (transport.h) */
				*bytes += msg_bytes(s, 1, -1) * (p->step.carrying == B2_CARRYING_ALL ? C : 1);
			}
		}
		check(be->stage_in(s->bk, B2_DIR_FOLD, s->in, C, me));
		check(be->fold_msgs(s->bk, s->use_bitmap, s->out));
		check(s->fold.ops->round(&s->fold, s->out, s->in));
		return;
	}
	for (int c = 0; c < C; c++) {
		const int form = b2_plan_form(&s->grid, s->cnt[c]);
		s->use_bitmap[c] = form == B2_FORM_BITMAP;
		if (c != me)
			count_msg(s, form);
	}
	/* the own block's discoveries travel only when carried */
	if (!b2_plan_fold_carries(p))
		s->use_bitmap[me] = -1;
	double t0 = b2_now();
	check(be->fold_msgs(s->bk, s->use_bitmap, s->out));
	double t1 = b2_now();
	check(b2_link_round(&s->fold, s->out));
	for (int c = 0; c < C; c++)
		if (c != me)
			*bytes += msg_bytes(s, s->out[c].bitmap, s->out[c].count) +
			          (b2_plan_fold_carries(p) ? msg_bytes(s, s->out[me].bitmap, s->out[me].count) : 0);
	s->lfold[2 * (lvl - 1)] = t1 - t0;
	s->lfold[2 * (lvl - 1) + 1] = b2_now() - t1;
	check(be->stage_in(s->bk, B2_DIR_FOLD, s->fold.in, C, me));
	for (int c = 0; b2_plan_fold_carries(p) && c < C; c++)
		if (c != me && s->fold.carried[c].count)
			check(be->carry_in(s->bk, &s->fold.carried[c], c));
}

/* 5b. Termination: the level's frontier size, degree sum and edges
 * examined, summed over all ranks (device levels gather them per rank: the
 * next plan needs the column peers' frontier sizes and the row peers'
 * degree sums). */
static void terminate(b2_search *s, b2_level_stats *st)
{
	int64_t mine[3] = {st->front, st->degree, st->examined}, sum[3] = {0, 0, 0};
	if (!s->run.device_levels) {
		check(b2_mpi_ok(MPI_Allreduce(mine, sum, 3, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD),
		                "MPI_Allreduce (termination)"));
	} else {
		const int P = s->grid.R * s->grid.C;
		check(b2_mpi_ok(MPI_Allgather(mine, 3, MPI_INT64_T, s->stats, 3, MPI_INT64_T,
		                              MPI_COMM_WORLD), "MPI_Allgather (termination)"));
		for (int p = 0; p < P; p++)
			for (int x = 0; x < 3; x++)
				sum[x] += s->stats[3 * p + x];
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
		busy[l] = s->lphase[B2_NLPHASES * l] + s->lphase[B2_NLPHASES * l + 1] +
		          s->lphase[B2_NLPHASES * l + 2] + s->lphase[B2_NLPHASES * l + 3];
	check(s->be->device->level_phases(s->bk, n, busy, lv));
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
		        s->lphase[B2_NLPHASES * l + 4] * 1e6, s->ltime[l] * 1e6);
	/* the level's records: the backend's split, the host's termination */
	for (int l = 0; l < n; l++)
		for (int p = 0; p < 4; p++)
			s->lphase[B2_NLPHASES * l + p] = lv[4 * l + p];
	free(lv);
	free(busy);
}

/* The deferred predecessors, as the run's plan says: owners learn the
 * local column their sender saw (an exchange along the row, or in place). */
static void predecessors(b2_search *s, double *t_local)
{
	const b2_backend *be = s->be;
	const double sent = s->fold.bytes_sent;
	*t_local = b2_now();
	memset(s->fold.pred_time, 0, sizeof s->fold.pred_time);
	switch (s->run.preds) {
	case B2_PREDS_NONE:
		check(be->pred_resolve(s->bk, NULL));
		break;
	default:
		check(s->fold.ops->preds(&s->fold, s->run.preds == B2_PREDS_ANSWERS));
	}
	/* the transports that move data count it; read in place, nothing moves */
	s->pred_bytes = (int64_t)(s->fold.bytes_sent - sent);
}

static void trace_message_levels(const b2_search *s)
{
	for (int64_t l = 0; l < s->nlevels; l++) {
		const double *ph = s->lphase + B2_NLPHASES * l;
		fprintf(stderr, "level %2lld  %s  frontier %10lld  examined %12lld  xexp %7.1f  exp %7.1f  xfold %7.1f (msgs %6.1f round %6.1f)  upd %7.1f  term %7.1f  host %8.1f us\n",
		        (long long)l + 1, s->ldir[l] == B2_BOTTOM_UP ? "BU" : "TD",
		        (long long)s->fsize[l], (long long)s->lexam[l], ph[0] * 1e6, ph[1] * 1e6,
		        ph[2] * 1e6, s->lfold[2 * l] * 1e6, s->lfold[2 * l + 1] * 1e6, ph[3] * 1e6,
		        ph[4] * 1e6, s->ltime[l] * 1e6);
	}
}

int b2_search_run(b2_search *s, int64_t root)
{
	const b2_backend *be = s->be;
	void *bk = s->bk;
	const b2_plan_grid *g = &s->grid;
	const int64_t blk = root / g->b;
	const int root_rank = (int)(blk % g->R) * g->C + (int)(blk / g->R);
	const int mine = root_rank == g->i * g->C + g->j;
	double t[6];

	memset(s->phase, 0, sizeof s->phase);
	memset(s->expansion_by_dir, 0, sizeof s->expansion_by_dir);
	check(b2_mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"));
	double t0 = b2_now();
	check(be->begin(bk, mine ? root - blk * g->b : -1));
	/* every rank's begin is done before a peer reads its state (else it
	 * reads the previous search's) */
	check(b2_mpi_ok(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"));
	s->nlevels = 0;
	const int carried_from = b2_plan_root_carry(g, &s->run, root);
	if (carried_from >= 0) {
		uint32_t k = (uint32_t)(root - blk * g->b);
		check(be->carry_in(bk, &(b2_msg){&k, 1, 0, 0}, carried_from));
	}
	note_level(s, 1);
	b2_level_stats st = {mine, 0, 0}, global = {1, 0, 0};
	for (int lvl = 1;; lvl++) {
		t[0] = b2_now();
		const b2_plan_counts counts = {.lvl = lvl, .own_front = st.front, .front = global.front,
		                               .degree = global.degree, .per_rank = s->stats,
		                               .root_rank = root_rank};
		b2_plan_level(g, &s->run, &s->state, &counts, &s->plan);
		const b2_step *step = &s->plan.step;
		memset(level_bytes(s, lvl, 0), 0, B2_NXCHG * sizeof *s->lbytes);
		expand_exchange(s, lvl);
		if (s->plan.visited_exchange) {
			check(s->fold.ops->visited(&s->fold));
			*level_bytes(s, lvl, B2_XB_VISITED) = (g->C - 1) * 4 * b2_bmp_words(g->b);
		}
		t[1] = b2_now();
		int64_t examined = 0;
		check(be->expand(bk, step, s->cnt, &examined));
		t[2] = b2_now();
		fold_exchange(s, lvl);
		t[3] = b2_now();
		st = (b2_level_stats){0, 0, examined};
		check(be->update(bk, lvl, &st));
		t[4] = b2_now();
		global = st;
		terminate(s, &global);
		t[5] = b2_now();
		for (int p = 0; p < B2_NLPHASES; p++) {
			s->phase[p] += t[p + 1] - t[p];
			s->lphase[B2_NLPHASES * (lvl - 1) + p] = t[p + 1] - t[p];
		}
		s->expansion_by_dir[step->dir == B2_BOTTOM_UP] += t[2] - t[1];
		/* the step from frontier lvl-1, recorded in its slot */
		s->ldir[lvl - 1] = (signed char)step->dir;
		s->lexam[lvl - 1] = global.examined;
		s->ltime[lvl - 1] = t[5] - t[0];
		if (global.front == 0)
			break;
		note_level(s, global.front);
	}
	double tr = b2_now(), tl;
	s->fold.carrying = B2_CARRYING_NONE; /* the levels are over: plain messages */
	predecessors(s, &tl);
	double t1 = b2_now();
	s->phase[B2_PH_PRED] = t1 - tr;
	double mytime = t1 - t0;
	check(b2_mpi_ok(MPI_Allreduce(&mytime, &s->time, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD),
	                "MPI_Allreduce (search time)"));
	if (s->run.device_levels)
		device_phases(s);
	else if (s->trace && b2_rank == 0)
		trace_message_levels(s);
	if (s->trace && b2_rank == 0 && s->run.preds != B2_PREDS_NONE && s->run.preds != B2_PREDS_IN_PLACE) {
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
	free(s->in);
	free(s->plan.expand_in);
	free(s->use_bitmap);
	free(s->cnt);
	free(s->fsize);
	free(s->ldir);
	free(s->lexam);
	free(s->ltime);
	free(s->lphase);
	free(s->lfold);
	free(s->lbytes);
	free(s->stats);
	memset(s, 0, sizeof *s);
}
