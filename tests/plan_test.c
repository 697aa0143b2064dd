/* plan_test.c — unit tests of the level plan (traverse/plan.c), each
 * expectation worked out by hand from the rules in plan.h and the paper's
 * section 5. Prints "ok NAME" or "FAIL NAME: why" per assertion. */
#include <stdio.h>
#include <string.h>
#include "plan.h"
#include "unit.h"

static b2_plan_grid grid(int R, int C, int i, int j, int bitmap, int direction)
{
	return (b2_plan_grid){.R = R, .C = C, .i = i, .j = j, .N = 1000, .b = 320,
	                      .bitmap_mode = bitmap, .direction = direction, .alpha = 10,
	                      .beta = 18, .total_degree = 10000};
}

/* the transports' capabilities of the common cases */
static const b2_plan_caps MPI_CAPS = {.fold_carries = 1};
static const b2_plan_caps CPU_CAPS = {.fold_carries = 1};
static const b2_plan_caps PULL_CAPS = {.device_levels = 1, .fold_carries = 1, .fold_in_place = 1};
static const b2_plan_caps NCCL_NET_CAPS = {.device_levels = 1, .fold_carries = 1, .expand_lists = 1};

static void test_form(void)
{
	b2_plan_grid g = grid(1, 2, 0, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	/* b = 320: a list of 10 words is 320 bits, not more than the bitmap */
	EQ("form auto, 10 of 320: list", b2_plan_form(&g, 10), B2_FORM_LIST);
	EQ("form auto, 11 of 320: bitmap", b2_plan_form(&g, 11), B2_FORM_BITMAP);
	EQ("form auto, 0: list", b2_plan_form(&g, 0), B2_FORM_LIST);
	g.bitmap_mode = B2_BITMAP_ON;
	EQ("form on, 0: bitmap", b2_plan_form(&g, 0), B2_FORM_BITMAP);
	g.bitmap_mode = B2_BITMAP_OFF;
	EQ("form off, 300: list", b2_plan_form(&g, 300), B2_FORM_LIST);
}

static void test_backend(void)
{
	static const struct {
		const char *name;
		int R, C, bitmap, direction;
		int bottom_up, degree, front, fold;
		int64_t cap;
	} t[] = {
		{"1x1 auto", 1, 1, B2_BITMAP_AUTO, B2_DIRECTION_AUTO, 1, 1, 0, 0, 10},
		{"2x1 auto", 2, 1, B2_BITMAP_AUTO, B2_DIRECTION_AUTO, 1, 1, 1, 0, 10},
		{"1x2 auto (a row that may carry)", 1, 2, B2_BITMAP_AUTO, B2_DIRECTION_AUTO, 1, 1, 1, 1, 10},
		{"1x2 top-down", 1, 2, B2_BITMAP_AUTO, B2_DIRECTION_TOP_DOWN, 0, 0, 0, 1, 10},
		{"1x3 bottom-up", 1, 3, B2_BITMAP_AUTO, B2_DIRECTION_BOTTOM_UP, 1, 0, 0, 1, 10},
		{"2x2 bitmap off", 2, 2, B2_BITMAP_OFF, B2_DIRECTION_AUTO, 1, 1, 0, 0, 320},
		{"4x4 bitmap on", 4, 4, B2_BITMAP_ON, B2_DIRECTION_AUTO, 1, 1, 1, 1, 0},
		{"2x2 auto (a row of two, R > 1)", 2, 2, B2_BITMAP_AUTO, B2_DIRECTION_AUTO, 1, 1, 1, 1, 10},
	};
	for (size_t x = 0; x < sizeof t / sizeof t[0]; x++) {
		b2_plan_grid g = grid(t[x].R, t[x].C, 0, 0, t[x].bitmap, t[x].direction);
		b2_bkopts o;
		char name[128];
		memset(&o, 0, sizeof o);
		b2_plan_backend(&g, &o);
		snprintf(name, sizeof name, "backend %s: bottom_up", t[x].name);
		EQ(name, o.bottom_up, t[x].bottom_up);
		snprintf(name, sizeof name, "backend %s: frontier_degree", t[x].name);
		EQ(name, o.frontier_degree, t[x].degree);
		snprintf(name, sizeof name, "backend %s: pack_front", t[x].name);
		EQ(name, o.pack_front, t[x].front);
		snprintf(name, sizeof name, "backend %s: pack_fold", t[x].name);
		EQ(name, o.pack_fold, t[x].fold);
		snprintf(name, sizeof name, "backend %s: fold_cap", t[x].name);
		EQ(name, o.fold_cap, t[x].cap);
	}
}

static void test_run(void)
{
	static const struct {
		const char *name;
		int R, C, direction;
		const b2_plan_caps *caps;
		int carry, preds, dl, row_reads_visited, row_peer;
	} t[] = {
		{"1x2 mpi", 1, 2, B2_DIRECTION_AUTO, &MPI_CAPS, B2_CARRY_EVERY, B2_PREDS_ANSWERS, 0, 0, 1},
		{"1x2 cpu", 1, 2, B2_DIRECTION_AUTO, &CPU_CAPS, B2_CARRY_EVERY, B2_PREDS_ANSWERS, 0, 0, 1},
		{"2x2 mpi", 2, 2, B2_DIRECTION_AUTO, &MPI_CAPS, B2_CARRY_EVERY, B2_PREDS_ANSWERS, 0, 0, 1},
		{"1x2 mpi top-down", 1, 2, B2_DIRECTION_TOP_DOWN, &MPI_CAPS, B2_CARRY_NONE, B2_PREDS_EXCHANGE, 0, 0, -1},
		{"1x3 mpi", 1, 3, B2_DIRECTION_AUTO, &MPI_CAPS, B2_CARRY_NONE, B2_PREDS_EXCHANGE, 0, 1, -1},
		{"2x1 mpi", 2, 1, B2_DIRECTION_AUTO, &MPI_CAPS, B2_CARRY_NONE, B2_PREDS_NONE, 0, 0, -1},
		{"1x2 pull (in turns: no carrying)", 1, 2, B2_DIRECTION_AUTO, &PULL_CAPS, B2_CARRY_NONE, B2_PREDS_IN_PLACE, 1, 1, -1},
		{"4x4 pull", 4, 4, B2_DIRECTION_AUTO, &PULL_CAPS, B2_CARRY_NONE, B2_PREDS_IN_PLACE, 1, 1, -1},
		{"1x2 nccl", 1, 2, B2_DIRECTION_AUTO, &NCCL_NET_CAPS, B2_CARRY_BOTTOM_UP, B2_PREDS_EXCHANGE, 1, 1, 1},
	};
	for (size_t x = 0; x < sizeof t / sizeof t[0]; x++) {
		b2_plan_grid g = grid(t[x].R, t[x].C, 0, 0, B2_BITMAP_AUTO, t[x].direction);
		b2_run_plan r = b2_plan_run(&g, t[x].caps);
		char name[128];
		snprintf(name, sizeof name, "run %s: carry", t[x].name);
		EQ(name, r.carry, t[x].carry);
		snprintf(name, sizeof name, "run %s: predecessors", t[x].name);
		EQ(name, r.preds, t[x].preds);
		snprintf(name, sizeof name, "run %s: device levels", t[x].name);
		EQ(name, r.device_levels, t[x].dl);
		snprintf(name, sizeof name, "run %s: the row peers read the visited block", t[x].name);
		EQ(name, r.row_reads_visited, t[x].row_reads_visited);
		snprintf(name, sizeof name, "run %s: the carrying row peer", t[x].name);
		EQ(name, r.row_peer, t[x].row_peer);
	}
	/* the root carried before the first level, on 2x2 (b = 320; P(i,j)
	 * owns block 2j + i): vertex 700 is block 2, P(0,1)'s, whose row peer
	 * P(0,0) takes it from column 1; vertex 330 is block 1, row 1's */
	b2_plan_grid g22 = grid(2, 2, 0, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	b2_run_plan r22 = b2_plan_run(&g22, &MPI_CAPS);
	EQ("root carry 2x2 mpi: P(0,0) takes root 700 of P(0,1)", b2_plan_root_carry(&g22, &r22, 700), 1);
	EQ("root carry 2x2 mpi: P(0,0) owns root 5 itself", b2_plan_root_carry(&g22, &r22, 5), -1);
	EQ("root carry 2x2 mpi: root 330 is row 1's", b2_plan_root_carry(&g22, &r22, 330), -1);
	g22.j = 1;
	EQ("root carry 2x2 mpi: P(0,1) takes root 5 of P(0,0)", b2_plan_root_carry(&g22, &r22, 5), 0);
	b2_run_plan rpull = b2_plan_run(&g22, &PULL_CAPS);
	EQ("root carry 2x2 pull: folds carry bottom-up only, nothing before", b2_plan_root_carry(&g22, &rpull, 5), -1);
	b2_plan_grid g = grid(1, 2, 0, 0, B2_BITMAP_OFF, B2_DIRECTION_AUTO);
	EQ("run 1x2 mpi --bitmap off: no carrying", b2_plan_run(&g, &MPI_CAPS).carry, B2_CARRY_NONE);
}

/* Plans levels 1.. of one search with the given frontiers and degree sums
 * (message levels), returning the directions. */
static void directions(const b2_plan_grid *g, const b2_run_plan *r, int n, const int64_t *front,
                       const int64_t *deg, int *dir, int *carrying, int *visited)
{
	b2_plan_state st;
	b2_msg_plan ein[4];
	b2_level_plan p = {.expand_in = ein};
	static const int64_t none[3 * 16];
	memset(&st, 0, sizeof st);
	for (int l = 0; l < n; l++) {
		b2_plan_counts c = {.lvl = l + 1, .own_front = front[l], .front = front[l],
		                    .degree = deg[l], .per_rank = none};
		b2_plan_level(g, r, &st, &c, &p);
		dir[l] = p.step.dir;
		carrying[l] = p.step.carrying;
		visited[l] = p.visited_exchange;
	}
}

static void test_direction(void)
{
	/* N = 1000, 10000 degrees, alpha 10, beta 18. Level 1: top-down, all
	 * 10000 unexplored. Level 2: 2000 * 10 > 10000: bottom-up. Level 3:
	 * 300 is not below 5: stays. Level 4: 40 < 300 and 40 * 18 <= 1000:
	 * top-down, fresh. Level 5: fresh: top-down, 10000 - 5000 left. Level
	 * 6: 400 * 10 <= 5000: top-down. */
	const int64_t front[6] = {1, 5, 300, 40, 10, 3}, deg[6] = {0, 2000, 0, 0, 5000, 400};
	const int want[6] = {B2_TOP_DOWN, B2_BOTTOM_UP, B2_BOTTOM_UP, B2_TOP_DOWN, B2_TOP_DOWN,
	                     B2_TOP_DOWN};
	int dir[6], car[6], vis[6];
	char name[128];
	b2_plan_grid g = grid(1, 3, 0, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	b2_run_plan r = b2_plan_run(&g, &MPI_CAPS);
	directions(&g, &r, 6, front, deg, dir, car, vis);
	for (int l = 0; l < 6; l++) {
		snprintf(name, sizeof name, "direction auto, level %d", l + 1);
		EQ(name, dir[l], want[l]);
		/* 1x3 does not carry: every bottom-up level exchanges the row's state */
		snprintf(name, sizeof name, "1x3 mpi level %d: carries nothing", l + 1);
		EQ(name, car[l], B2_CARRYING_NONE);
		snprintf(name, sizeof name, "1x3 mpi level %d: visited exchange", l + 1);
		EQ(name, vis[l], want[l] == B2_BOTTOM_UP);
	}
	/* a bottom-up step leaves no degree sum: a stale one must not count */
	const int64_t deg2[6] = {0, 2000, 0, 99999, 5000, 400};
	directions(&g, &r, 6, front, deg2, dir, car, vis);
	EQ("direction auto ignores the degree after a bottom-up step", dir[5], B2_TOP_DOWN);

	g.direction = B2_DIRECTION_TOP_DOWN;
	directions(&g, &r, 6, front, deg, dir, car, vis);
	EQ("direction top-down, level 2", dir[1], B2_TOP_DOWN);
	g.direction = B2_DIRECTION_BOTTOM_UP;
	directions(&g, &r, 6, front, deg, dir, car, vis);
	EQ("direction bottom-up, level 1", dir[0], B2_BOTTOM_UP);
	EQ("direction bottom-up, level 6", dir[5], B2_BOTTOM_UP);

	/* 1x2 mpi: every fold carries, the row's state always current */
	g = grid(1, 2, 0, 1, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	r = b2_plan_run(&g, &MPI_CAPS);
	directions(&g, &r, 6, front, deg, dir, car, vis);
	for (int l = 0; l < 6; l++) {
		snprintf(name, sizeof name, "1x2 mpi level %d: carries all", l + 1);
		EQ(name, car[l], B2_CARRYING_ALL);
		snprintf(name, sizeof name, "1x2 mpi level %d: no visited exchange", l + 1);
		EQ(name, vis[l], 0);
	}
	/* 1x2 pull without turns: bottom-up levels carry the whole set; the
	 * first bottom-up level after a top-down one exchanges, the next does
	 * not */
	g.rules_off = B2_RULE_TURNS;
	r = b2_plan_run(&g, &PULL_CAPS);
	directions(&g, &r, 6, front, deg, dir, car, vis);
	EQ("1x2 pull turns off level 1 (top-down): carries nothing", car[0], B2_CARRYING_NONE);
	EQ("1x2 pull turns off level 2 (bottom-up): carries all", car[1], B2_CARRYING_ALL);
	EQ("1x2 pull turns off level 2: visited exchange", vis[1], 1);
	EQ("1x2 pull turns off level 3 (bottom-up again): no visited exchange", vis[2], 0);
	EQ("1x2 pull turns off level 4 (top-down): carries nothing", car[3], B2_CARRYING_NONE);
	/* 2x2 pull without turns: the whole set */
	g = grid(2, 2, 0, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	g.rules_off = B2_RULE_TURNS;
	r = b2_plan_run(&g, &PULL_CAPS);
	directions(&g, &r, 6, front, deg, dir, car, vis);
	EQ("2x2 pull turns off level 2 (bottom-up): carries all", car[1], B2_CARRYING_ALL);
}

/* BOTTOM_UP_TURNS: bottom-up steps in turns along the row where the row
 * peers' discoveries are read in place (pull) */
static void test_turns(void)
{
	/* levels 2 and 3 bottom-up, then top-down (test_direction's) */
	const int64_t front[6] = {1, 5, 300, 40, 10, 3}, deg[6] = {0, 2000, 0, 0, 5000, 400};
	int dir[6], car[6], vis[6];
	b2_plan_state st;
	b2_msg_plan ein[4];
	b2_level_plan p = {.expand_in = ein};
	b2_plan_grid g = grid(1, 2, 0, 1, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	EQ("turns: rule name", b2_rule_bit("bottom-up-turns"), B2_RULE_TURNS);
	EQ("1x2 pull: in turns", b2_plan_run(&g, &PULL_CAPS).turns, 1);
	EQ("1x2 mpi: not in turns (message levels)", b2_plan_run(&g, &MPI_CAPS).turns, 0);
	EQ("1x2 nccl: not in turns (no in-place reads)", b2_plan_run(&g, &NCCL_NET_CAPS).turns, 0);
	g.direction = B2_DIRECTION_TOP_DOWN;
	EQ("1x2 pull top-down: not in turns", b2_plan_run(&g, &PULL_CAPS).turns, 0);
	g = grid(2, 1, 1, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	EQ("2x1 pull: not in turns (a row of one)", b2_plan_run(&g, &PULL_CAPS).turns, 0);
	/* only bottom-up steps go in turns; a row of two then knows the
	 * row's visited state, a longer row exchanges it before each one */
	static const int want_vis[2][6] = {{0, 1, 0, 0, 0, 0}, {0, 1, 1, 0, 0, 0}};
	for (int C = 2; C <= 3; C++) {
		char name[128];
		g = grid(2, C, 1, C - 1, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
		b2_run_plan r = b2_plan_run(&g, &PULL_CAPS);
		EQ("2xC pull: in turns", r.turns, 1);
		EQ("2xC pull in turns: no carrying", r.carry, B2_CARRY_NONE);
		memset(&st, 0, sizeof st);
		for (int l = 0; l < 6; l++) {
			static const int64_t none[3 * 6];
			b2_plan_counts c = {.lvl = l + 1, .own_front = front[l], .front = front[l],
			                    .degree = deg[l], .per_rank = none};
			b2_plan_level(&g, &r, &st, &c, &p);
			dir[l] = p.step.dir;
			car[l] = p.step.carrying;
			vis[l] = p.visited_exchange;
			snprintf(name, sizeof name, "2x%d pull level %d: in turns when bottom-up", C, l + 1);
			EQ(name, p.step.turns, dir[l] == B2_BOTTOM_UP);
			snprintf(name, sizeof name, "2x%d pull level %d: carries nothing", C, l + 1);
			EQ(name, car[l], B2_CARRYING_NONE);
			snprintf(name, sizeof name, "2x%d pull level %d: visited exchange", C, l + 1);
			EQ(name, vis[l], want_vis[C - 2][l]);
		}
		g.rules_off = B2_RULE_TURNS;
		EQ("2xC pull turns off: not in turns", b2_plan_run(&g, &PULL_CAPS).turns, 0);
	}
}

/* Plans level 3 after a bottom-up level 2 (frontier 400, then 300 and no
 * degree sum: bottom-up again), the counts' per-rank stats as given. */
static void after_bottom_up(const b2_plan_grid *g, const b2_run_plan *r, b2_plan_state *st,
                            const int64_t *stats, b2_level_plan *p)
{
	const b2_plan_counts c = {.lvl = 3, .front = 300, .degree = 0, .per_rank = stats};
	memset(st, 0, sizeof *st);
	st->dir = st->prev_dir = B2_BOTTOM_UP;
	st->prev_front = 400;
	b2_plan_level(g, r, st, &c, p);
}

static void test_device_messages(void)
{
	b2_msg_plan ein[4];
	b2_level_plan p = {.expand_in = ein};
	b2_plan_state st;
	/* 2x2, rank (0, 1) = MPI rank 1; root on rank 3 = (1, 1), its column
	 * peer: a list of 1 vertex from grid row 1 (under the front-list cap,
	 * 10 / 2 words), nothing from itself */
	b2_plan_grid g = grid(2, 2, 0, 1, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	b2_run_plan r = b2_plan_run(&g, &PULL_CAPS);
	b2_plan_counts c = {.lvl = 1, .own_front = 0, .front = 1, .root_rank = 3};
	memset(&st, 0, sizeof st);
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("2x2 pull level 1: from row 1, a list", ein[1].form, B2_FORM_LIST);
	EQ("2x2 pull level 1: from row 1, 1 vertex", ein[1].count, 1);
	EQ("2x2 pull level 1: from itself, nothing", ein[0].form, B2_FORM_NONE);
	EQ("2x2 pull level 1: own frontier, a bitmap of 0", p.expand_out.count, 0);
	/* later levels: the column peers' sizes from the termination test
	 * (rank p's frontier at [3p]) */
	const int64_t stats[12] = {0, 0, 0, 7, 0, 0, 0, 0, 0, 12, 0, 0};
	c = (b2_plan_counts){.lvl = 2, .front = 19, .degree = 50, .per_rank = stats};
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("2x2 pull level 2: own frontier (rank 1) 7", p.expand_out.count, 7);
	EQ("2x2 pull level 2: from row 1 (rank 3) 12", ein[1].count, 12);

	/* over NCCL's network, 1x2, rank j = 0: the fold's sizes are known
	 * only after the step, so its messages are bitmaps of unknown size,
	 * none from itself */
	g = grid(1, 2, 0, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	r = b2_plan_run(&g, &NCCL_NET_CAPS);
	memset(&st, 0, sizeof st);
	c = (b2_plan_counts){.lvl = 1, .front = 1, .root_rank = 1};
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("1x2 nccl net level 1: no expand", p.expand_out.form, B2_FORM_NONE);
	const int64_t stats2[6] = {2, 3, 0, 5, 20, 0};
	after_bottom_up(&g, &r, &st, stats2, &p);
	EQ("1x2 nccl net level after bottom-up: bottom-up", p.step.dir, B2_BOTTOM_UP);
	EQ("1x2 nccl net level after bottom-up: the whole set carried", p.step.carrying, B2_CARRYING_ALL);
	/* expand lists: 2x1 over the network, a frontier of 3 < 10 words */
	g = grid(2, 1, 1, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	r = b2_plan_run(&g, &NCCL_NET_CAPS);
	memset(&st, 0, sizeof st);
	const int64_t stats3[6] = {3, 0, 0, 30, 0, 0};
	c = (b2_plan_counts){.lvl = 2, .front = 33, .degree = 1, .per_rank = stats3};
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("2x1 nccl net: from row 0, a list", ein[0].form, B2_FORM_LIST);
	EQ("2x1 nccl net: from row 0, 3 entries", ein[0].count, 3);
	EQ("2x1 nccl net: own frontier of 30, a bitmap", p.expand_out.form, B2_FORM_BITMAP);

	/* 1x4 pull (searched as a row), rank j = 2: a bottom-up step scans
	 * every row, so the peers' finds fold in as bitmaps; no carrying on a
	 * row of four */
	g = grid(1, 4, 0, 2, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	r = b2_plan_run(&g, &PULL_CAPS);
	const int64_t stats4[12] = {0};
	after_bottom_up(&g, &r, &st, stats4, &p);
	EQ("1x4 pull bottom-up: bottom-up", p.step.dir, B2_BOTTOM_UP);
	EQ("1x4 pull bottom-up: carries nothing", p.step.carrying, B2_CARRYING_NONE);
	/* a top-down step finds any row: bitmaps */
	g = grid(1, 4, 0, 2, B2_BITMAP_AUTO, B2_DIRECTION_TOP_DOWN);
	r = b2_plan_run(&g, &PULL_CAPS);
	memset(&st, 0, sizeof st);
	c = (b2_plan_counts){.lvl = 2, .front = 7, .degree = 9, .per_rank = stats4};
	b2_plan_level(&g, &r, &st, &c, &p);
}

static void test_message_levels(void)
{
	b2_msg_plan ein[4];
	b2_level_plan p = {.expand_in = ein};
	b2_plan_state st;
	memset(&st, 0, sizeof st);
	b2_plan_grid g = grid(4, 4, 2, 3, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	b2_run_plan r = b2_plan_run(&g, &MPI_CAPS);
	b2_plan_counts c = {.lvl = 1, .own_front = 11, .front = 1};
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("4x4 mpi: own frontier of 11 of 320, a bitmap", p.expand_out.form, B2_FORM_BITMAP);
	c.own_front = 10;
	memset(&st, 0, sizeof st);
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("4x4 mpi: own frontier of 10 of 320, a list", p.expand_out.form, B2_FORM_LIST);
	g = grid(1, 4, 0, 3, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	memset(&st, 0, sizeof st);
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("1x4 mpi: no expand exchange", p.expand_out.form, B2_FORM_NONE);
}

/* grid(R, C, 0, j, auto, auto) with the rules `off` turned off */
static b2_plan_grid without(int R, int C, int j, int off)
{
	b2_plan_grid g = grid(R, C, 0, j, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	g.rules_off = off;
	return g;
}

static b2_bkopts backend_of(const b2_plan_grid *g)
{
	b2_bkopts o;
	memset(&o, 0, sizeof o);
	b2_plan_backend(g, &o);
	return o;
}

/* --rule-off: each special rule gone, the general path in its place */
static void test_rules_off(void)
{
	char name[128];
	EQ("rule names: row-carries", b2_rule_bit("row-carries"), B2_RULE_ROW_CARRIES);
	EQ("rule names: front-lists", b2_rule_bit("front-lists"), B2_RULE_FRONT_LISTS);
	EQ("rule names: none of that name", b2_rule_bit("front_lists"), 0);
	EQ("rule names: own-rows is gone", b2_rule_bit("own-rows"), 0);
	for (int x = 0; x < B2_NRULES; x++) {
		snprintf(name, sizeof name, "rule names: %s round trip", b2_rule_names[x]);
		EQ(name, b2_rule_bit(b2_rule_names[x]), 1 << x);
	}
	b2_bkopts o;
	/* 1x2 without ROW_CARRIES_EVERY_LEVEL: no carrying; the row peers read
	 * the visited block; no own frontier bitmap (R = 1: no expand) */
	b2_plan_grid g = without(1, 2, 0, B2_RULE_ROW_CARRIES);
	o = backend_of(&g);
	EQ("1x2 row-carries off: backend, own frontier not packed", o.pack_front, 0);
	b2_run_plan r = b2_plan_run(&g, &MPI_CAPS);
	EQ("1x2 row-carries off: mpi carries nothing", r.carry, B2_CARRY_NONE);
	EQ("1x2 row-carries off: mpi predecessors by exchange", r.preds, B2_PREDS_EXCHANGE);
	EQ("1x2 row-carries off: mpi row reads visited", r.row_reads_visited, 1);
	EQ("1x2 row-carries off: no carrying row peer", r.row_peer, -1);
	r = b2_plan_run(&g, &PULL_CAPS);
	EQ("1x2 row-carries off: pull carries nothing", r.carry, B2_CARRY_NONE);
	EQ("1x2 row-carries off: pull predecessors in place", r.preds, B2_PREDS_IN_PLACE);
	/* 2x2 pull, the same */
	g = without(2, 2, 0, B2_RULE_ROW_CARRIES);
	r = b2_plan_run(&g, &PULL_CAPS);
	EQ("2x2 row-carries off: pull carries nothing", r.carry, B2_CARRY_NONE);
	EQ("2x2 row-carries off: pull row reads visited", r.row_reads_visited, 1);
	const int64_t front[3] = {1, 5, 300}, deg[3] = {0, 2000, 0};
	int dir[3], car[3], vis[3];
	directions(&g, &r, 3, front, deg, dir, car, vis);
	EQ("2x2 row-carries off: level 2 bottom-up", dir[1], B2_BOTTOM_UP);
	EQ("2x2 row-carries off: level 2 carries nothing", car[1], B2_CARRYING_NONE);
	EQ("2x2 row-carries off: level 3 (bottom-up again, after turns) no visited exchange", vis[2], 0);
	g.rules_off = B2_RULE_ROW_CARRIES | B2_RULE_TURNS;
	r = b2_plan_run(&g, &PULL_CAPS);
	directions(&g, &r, 3, front, deg, dir, car, vis);
	EQ("2x2 row-carries and turns off: level 3 (bottom-up again) visited exchange", vis[2], 1);
}

/* FRONT_LISTS: b = 2048 (64 bitmap words): a frontier of fewer than
 * 64 / 2 = 32 vertices goes as the list its owner's update wrote */
static void test_front_lists(void)
{
	b2_msg_plan ein[4];
	b2_level_plan p = {.expand_in = ein};
	b2_plan_state st;
	b2_plan_grid g = grid(2, 2, 1, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	g.b = 2048;
	g.N = 4 * 2048;
	EQ("front list cap of b = 2048", b2_front_list_cap(g.b), 32);
	b2_run_plan r = b2_plan_run(&g, &PULL_CAPS);
	EQ("2x2 pull: the updates write lists", r.front_lists, 1);
	EQ("2x2 pull: the expand moves the short ones", r.expand_lists, B2_LISTS_SHORT);
	/* rank (1, 0) = 2; its column peer (0, 0) = rank 0 */
	const int64_t below[12] = {31, 0, 0, 0, 0, 0, 32, 0, 0, 0, 0, 0};
	b2_plan_counts c = {.lvl = 2, .front = 63, .degree = 1, .per_rank = below};
	memset(&st, 0, sizeof st);
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("2x2 pull lists: 31 from row 0, a list", ein[0].form, B2_FORM_LIST);
	EQ("2x2 pull lists: 31 from row 0, 31 entries", ein[0].count, 31);
	EQ("2x2 pull lists: own frontier of 32, a bitmap", p.expand_out.form, B2_FORM_BITMAP);
	const int64_t at[12] = {32, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0};
	c.per_rank = at;
	c.front = 34;
	memset(&st, 0, sizeof st);
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("2x2 pull lists: 32 from row 0, a bitmap", ein[0].form, B2_FORM_BITMAP);
	EQ("2x2 pull lists: own frontier of 2, a list", p.expand_out.form, B2_FORM_LIST);
	/* level 1: the root's rank's list of one */
	c = (b2_plan_counts){.lvl = 1, .front = 1, .root_rank = 0};
	memset(&st, 0, sizeof st);
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("2x2 pull lists level 1: the root from row 0, a list of 1", ein[0].form, B2_FORM_LIST);
	/* over a network every list smaller than the bitmap: 60 words */
	r = b2_plan_run(&g, &NCCL_NET_CAPS);
	EQ("2x2 nccl net: the updates write lists", r.front_lists, 1);
	EQ("2x2 nccl net: the expand moves any list", r.expand_lists, B2_LISTS_ANY);
	const int64_t sixty[12] = {60, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0};
	c = (b2_plan_counts){.lvl = 2, .front = 124, .degree = 1, .per_rank = sixty};
	memset(&st, 0, sizeof st);
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("2x2 nccl net: 60 from row 0, a list", ein[0].form, B2_FORM_LIST);
	EQ("2x2 nccl net: own frontier of 64, a bitmap", p.expand_out.form, B2_FORM_BITMAP);
	/* off: bitmaps (a network's lists stay); --bitmap on; one row: no lists */
	g.rules_off = B2_RULE_FRONT_LISTS;
	r = b2_plan_run(&g, &PULL_CAPS);
	EQ("2x2 pull front-lists off: no update lists", r.front_lists, 0);
	EQ("2x2 pull front-lists off: bitmaps", r.expand_lists, B2_LISTS_NONE);
	r = b2_plan_run(&g, &NCCL_NET_CAPS);
	EQ("2x2 nccl net front-lists off: no update lists", r.front_lists, 0);
	EQ("2x2 nccl net front-lists off: unpacked lists", r.expand_lists, B2_LISTS_ANY);
	g.rules_off = 0;
	g.bitmap_mode = B2_BITMAP_ON;
	EQ("2x2 pull --bitmap on: none", b2_plan_run(&g, &PULL_CAPS).expand_lists, B2_LISTS_NONE);
	g = grid(1, 4, 0, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	EQ("1x4 pull: no expand, no lists", b2_plan_run(&g, &PULL_CAPS).expand_lists, B2_LISTS_NONE);
	EQ("1x4 pull: no update lists", b2_plan_run(&g, &PULL_CAPS).front_lists, 0);
	EQ("1x4 mpi: no lists", b2_plan_run(&g, &MPI_CAPS).expand_lists, B2_LISTS_NONE);
	g = grid(2, 2, 1, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	EQ("2x2 mpi: no update lists", b2_plan_run(&g, &MPI_CAPS).front_lists, 0);
}

/* ROW_AS_COLUMN: only a grid of one row of several ranks, and only while
 * the rule is on */
static void test_as_column(void)
{
	EQ("as column: 1x2", b2_plan_as_column(1, 2, 0), 1);
	EQ("as column: 1x4", b2_plan_as_column(1, 4, 0), 1);
	EQ("as column: 1x1 stays", b2_plan_as_column(1, 1, 0), 0);
	EQ("as column: 2x1 stays", b2_plan_as_column(2, 1, 0), 0);
	EQ("as column: 2x2 stays", b2_plan_as_column(2, 2, 0), 0);
	EQ("as column: 1x4 with row-as-column off stays", b2_plan_as_column(1, 4, B2_RULE_ROW_AS_COLUMN), 0);
	EQ("as column: 1x4 with the other rules off", b2_plan_as_column(1, 4, ~B2_RULE_ROW_AS_COLUMN), 1);
	EQ("rule names: row-as-column", b2_rule_bit("row-as-column"), B2_RULE_ROW_AS_COLUMN);
}

/* The bottom-up step's L2 hint, on an H100/H200's 50 MiB L2: a 4x1 column
 * frontier at 2^26 vertices a GPU (2^28 columns, 32 MiB) takes it; 2x2's
 * (16 MiB) and 1x1's (8 MiB) do not; nor an unknown L2. */
static void test_bottom_up_evict_first(void)
{
	const int64_t l2 = 50 << 20;
	EQ("4x1 s28 frontier, 32 MiB", b2_bottom_up_evict_first(b2_bmp_words((int64_t)1 << 28) * 4, l2), 1);
	EQ("2x2 s28 frontier, 16 MiB", b2_bottom_up_evict_first(b2_bmp_words((int64_t)1 << 27) * 4, l2), 0);
	EQ("1x1 s26 frontier, 8 MiB", b2_bottom_up_evict_first(b2_bmp_words((int64_t)1 << 26) * 4, l2), 0);
	EQ("half the L2 exactly", b2_bottom_up_evict_first(l2 / 2, l2), 0);
	EQ("a byte over half", b2_bottom_up_evict_first(l2 / 2 + 1, l2), 1);
	EQ("L2 size unknown", b2_bottom_up_evict_first(l2, 0), 0);
}

/* COMPACT: b = 320 (a bitmap of 10 words and its count), 96 vertices
 * with a tuple degree (a first compact bitmap of 3 words and its count),
 * fewer as frontiers pass */
static void test_compact(void)
{
	const b2_plan_caps caps = {.fold_carries = 1, .compact = 1};
	b2_plan_grid g = grid(4, 1, 1, 0, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	g.compact_bits = 96;
	b2_run_plan r = b2_plan_run(&g, &caps);
	EQ("compact: 4x1 mpi, bitmap auto", r.compact, 1);
	EQ("compact: 11 vertices (bitmap 11 words, compact 4)", b2_plan_expand_form(&g, &r, 11, g.compact_bits), B2_FORM_COMPACT);
	EQ("compact: 5 vertices (list 5 words, compact 4)", b2_plan_expand_form(&g, &r, 5, g.compact_bits), B2_FORM_COMPACT);
	EQ("compact: 4 vertices (list 4 words, compact 4)", b2_plan_expand_form(&g, &r, 4, g.compact_bits), B2_FORM_LIST);
	EQ("compact: 0 vertices", b2_plan_expand_form(&g, &r, 0, g.compact_bits), B2_FORM_LIST);
	EQ("compact: the fold's form is b2_plan_form's", b2_plan_form(&g, 11), B2_FORM_BITMAP);
	g.compact_bits = 320;
	EQ("compact: every vertex with edges (compact 11 words, bitmap 11)", b2_plan_expand_form(&g, &r, 11, g.compact_bits),
	   B2_FORM_BITMAP);
	g.compact_bits = 96;
	b2_msg_plan ein[4];
	b2_level_plan p = {.expand_in = ein};
	b2_plan_state st;
	memset(&st, 0, sizeof st);
	b2_plan_counts c = {.lvl = 1, .own_front = 11, .front = 1};
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("compact: the level plan's expand", p.expand_out.form, B2_FORM_COMPACT);
	EQ("compact: 85 vertices left unseen after the root's level", st.unseen, 85);
	c = (b2_plan_counts){.lvl = 2, .own_front = 60, .front = 11};
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("compact: level 2, 60 of 85 unseen (compact 4 words)", p.expand_out.form, B2_FORM_COMPACT);
	EQ("compact: 25 unseen after level 2", st.unseen, 25);
	c = (b2_plan_counts){.lvl = 3, .own_front = 3, .front = 60};
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("compact: level 3, 3 of 25 unseen (compact 2 words, list 3)", p.expand_out.form, B2_FORM_COMPACT);
	EQ("compact: with all 96 bits, 3 vertices a list", b2_plan_expand_form(&g, &r, 3, 96), B2_FORM_LIST);
	c = (b2_plan_counts){.lvl = 1, .own_front = 1, .front = 1};
	b2_plan_level(&g, &r, &st, &c, &p);
	EQ("compact: a new search begins with every bit", st.unseen, 95);
	g.bitmap_mode = B2_BITMAP_ON;
	EQ("compact: not under --bitmap on", b2_plan_run(&g, &caps).compact, 0);
	g.bitmap_mode = B2_BITMAP_OFF;
	EQ("compact: not under --bitmap off", b2_plan_run(&g, &caps).compact, 0);
	g.bitmap_mode = B2_BITMAP_AUTO;
	g.rules_off = B2_RULE_COMPACT;
	r = b2_plan_run(&g, &caps);
	EQ("compact: not with the rule off", r.compact, 0);
	EQ("compact: rule off, 11 vertices a bitmap", b2_plan_expand_form(&g, &r, 11, g.compact_bits), B2_FORM_BITMAP);
	g.rules_off = 0;
	EQ("compact: not where the backend cannot", b2_plan_run(&g, &MPI_CAPS).compact, 0);
	const b2_plan_caps pull = {.device_levels = 1, .fold_carries = 1, .fold_in_place = 1, .compact = 1};
	EQ("compact: not on device levels", b2_plan_run(&g, &pull).compact, 0);
	g = grid(1, 4, 0, 2, B2_BITMAP_AUTO, B2_DIRECTION_AUTO);
	g.compact_bits = 96;
	EQ("compact: no expand on a grid of one row", b2_plan_run(&g, &caps).compact, 0);
	EQ("rule names: compact", b2_rule_bit("compact"), B2_RULE_COMPACT);
}

int main(void)
{
	test_form();
	test_backend();
	test_run();
	test_direction();
	test_device_messages();
	test_message_levels();
	test_rules_off();
	test_turns();
	test_front_lists();
	test_bottom_up_evict_first();
	test_as_column();
	test_compact();
	return unit_failed;
}
