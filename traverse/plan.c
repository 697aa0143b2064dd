/* plan.c — the level plan (plan.h): every decision about what a level
 * does, from numbers all ranks share. */
#include <string.h>
#include "plan.h"

const char *const b2_rule_names[B2_NRULES] = {
	"row-carries", "front-lists", "row-as-column", "compact", "bottom-up-turns",
};

int b2_rule_bit(const char *name)
{
	for (int r = 0; r < B2_NRULES; r++)
		if (strcmp(name, b2_rule_names[r]) == 0)
			return 1 << r;
	return 0;
}

static int rule(const b2_plan_grid *g, int bit)
{
	return !(g->rules_off & bit);
}

/* ROW_CARRIES_EVERY_LEVEL's grids: a row of two that may run bottom-up
 * levels (they are what needs the row's visited state) with bitmaps (they
 * keep the carried part small). */
static int row_may_carry(const b2_plan_grid *g)
{
	return g->C == 2 && g->direction != B2_DIRECTION_TOP_DOWN && g->bitmap_mode != B2_BITMAP_OFF &&
	       rule(g, B2_RULE_ROW_CARRIES);
}

int b2_plan_as_column(int R, int C, int rules_off)
{
	return R == 1 && C > 1 && !(rules_off & B2_RULE_ROW_AS_COLUMN);
}

void b2_plan_backend(const b2_plan_grid *g, b2_bkopts *o)
{
	const int bitmaps = g->bitmap_mode != B2_BITMAP_OFF;
	o->bottom_up = g->direction != B2_DIRECTION_TOP_DOWN;
	/* the direction rule needs the new frontier's degree sum */
	o->frontier_degree = g->direction == B2_DIRECTION_AUTO;
	/* the own frontier as a bitmap: the expand messages, and what a
	 * carrying fold sends */
	o->pack_front = bitmaps && (g->R > 1 || row_may_carry(g));
	o->pack_fold = bitmaps && g->C > 1;
	/* lists longer than b/32 entries go as bitmaps (auto), all go as
	 * bitmaps (on) */
	o->fold_cap = g->bitmap_mode == B2_BITMAP_ON ? 0
	            : g->bitmap_mode == B2_BITMAP_AUTO ? g->b / 32 : g->b;
}

b2_run_plan b2_plan_run(const b2_plan_grid *g, const b2_plan_caps *caps)
{
	b2_run_plan r = {.fold_exchange = g->C > 1, .device_levels = caps->device_levels};
	r.front_lists = caps->device_levels && g->R > 1 && g->bitmap_mode != B2_BITMAP_ON &&
	                rule(g, B2_RULE_FRONT_LISTS);
	r.expand_lists = !caps->device_levels ? B2_LISTS_NONE
	               : caps->expand_lists   ? B2_LISTS_ANY
	               : r.front_lists        ? B2_LISTS_SHORT : B2_LISTS_NONE;
	r.turns = caps->device_levels && caps->fold_in_place && g->C > 1 &&
	          g->direction != B2_DIRECTION_TOP_DOWN && rule(g, B2_RULE_TURNS);
	/* device levels carry on bottom-up levels only: their fold messages
	 * are bitmaps already, and top-down levels are mostly followed by
	 * top-down ones; a row of two in turns needs no carrying */
	if (row_may_carry(g) && caps->fold_carries && !r.turns)
		r.carry = caps->device_levels ? B2_CARRY_BOTTOM_UP : B2_CARRY_EVERY;
	r.row_reads_visited = g->direction != B2_DIRECTION_TOP_DOWN && g->C > 1 &&
	                      r.carry != B2_CARRY_EVERY;
	r.row_peer = r.carry ? 1 - g->j : -1; /* row_may_carry: C == 2 */
	r.compact = !caps->device_levels && g->R > 1 && g->bitmap_mode == B2_BITMAP_AUTO &&
	            caps->compact && rule(g, B2_RULE_COMPACT);
	if (g->C == 1)
		r.preds = B2_PREDS_NONE;
	else if (caps->fold_in_place)
		r.preds = B2_PREDS_IN_PLACE;
	else if (r.carry == B2_CARRY_EVERY)
		r.preds = B2_PREDS_ANSWERS;
	else
		r.preds = B2_PREDS_EXCHANGE;
	return r;
}

int b2_plan_root_carry(const b2_plan_grid *g, const b2_run_plan *run, int64_t root)
{
	const int64_t blk = root / g->b;
	if (run->carry != B2_CARRY_EVERY || blk % g->R != g->i || blk / g->R == g->j)
		return -1;
	return (int)(blk / g->R);
}

int b2_plan_form(const b2_plan_grid *g, int64_t n)
{
	if (g->bitmap_mode == B2_BITMAP_ON)
		return B2_FORM_BITMAP;
	if (g->bitmap_mode == B2_BITMAP_OFF)
		return B2_FORM_LIST;
	/* section 5: a bitmap when the list, in bits, exceeds the block */
	return 32 * n > g->b ? B2_FORM_BITMAP : B2_FORM_LIST;
}

int b2_plan_expand_form(const b2_plan_grid *g, const b2_run_plan *run, int64_t n, int64_t unseen)
{
	const int form = b2_plan_form(g, n);
	const int64_t words = form == B2_FORM_LIST ? n : b2_bmp_words(g->b) + 1;
	return run->compact && b2_bmp_words(unseen) + 1 < words ? B2_FORM_COMPACT : form;
}

/* Beamer's rule (as gapbs applies it), from the global frontier size nf
 * and its degree sum deg: go bottom-up when the frontier's edges exceed
 * 1/alpha of the unexplored ones; go back top-down when the frontier
 * shrinks below N/beta. The first level after leaving bottom-up is
 * top-down regardless, so that the decision does not flap. After a
 * bottom-up step no degree sum is known: the rule does not test it there,
 * and the unexplored count is not lowered by it (gapbs counts 1). */
static int direction(const b2_plan_grid *g, b2_plan_state *st, int lvl, int64_t nf, int64_t deg)
{
	if (g->direction != B2_DIRECTION_AUTO)
		return g->direction == B2_DIRECTION_BOTTOM_UP ? B2_BOTTOM_UP : B2_TOP_DOWN;
	if (lvl == 1) {
		st->dir = B2_TOP_DOWN;
		st->fresh = 0;
		st->to_check = g->total_degree;
	} else if (st->dir == B2_BOTTOM_UP) {
		if (nf < st->prev_front && (double)nf * g->beta <= (double)g->N) {
			st->dir = B2_TOP_DOWN;
			st->fresh = 1;
		}
	} else if (!st->fresh && (double)deg * g->alpha > (double)st->to_check) {
		st->dir = B2_BOTTOM_UP;
	} else {
		st->fresh = 0;
	}
	if (st->dir == B2_TOP_DOWN)
		st->to_check -= deg;
	st->prev_front = nf;
	return st->dir;
}

/* A list of n words (known to both sides) goes where it is smaller than
 * the bitmap (B2_LISTS_ANY), or where the update wrote it (SHORT). */
static int as_list(const b2_plan_grid *g, int lists, int64_t n)
{
	const int64_t most = lists == B2_LISTS_SHORT ? b2_front_list_cap(g->b) : b2_bmp_words(g->b);
	return lists && n >= 0 && n < most;
}

/* The frontier size of rank p's last level (device levels). */
static int64_t front_of(const b2_plan_counts *c, int p)
{
	return c->lvl == 1 ? p == c->root_rank : c->per_rank[3 * p];
}

static void plan_device_expand(const b2_plan_grid *g, const b2_run_plan *run,
                                 const b2_plan_counts *c, b2_level_plan *p)
{
	for (int q = 0; q < g->R; q++) {
		const int64_t n = front_of(c, q * g->C + g->j);
		const int list = as_list(g, run->expand_lists, n);
		p->expand_in[q] = (b2_msg_plan){q == g->i ? B2_FORM_NONE : list ? B2_FORM_LIST : B2_FORM_BITMAP, n};
		if (q == g->i && g->R > 1)
			p->expand_out = (b2_msg_plan){list ? B2_FORM_LIST : B2_FORM_BITMAP, n};
	}
}

void b2_plan_level(const b2_plan_grid *g, const b2_run_plan *run, b2_plan_state *st,
                   const b2_plan_counts *c, b2_level_plan *p)
{
	if (c->lvl == 1) {
		st->prev_dir = B2_TOP_DOWN;
		/* carrying every level, only the root is missing: begin's */
		st->row_current = run->carry == B2_CARRY_EVERY;
		st->unseen = g->compact_bits;
	}
	const int64_t deg = c->lvl > 1 && st->prev_dir == B2_BOTTOM_UP ? 0 : c->degree;
	const int dir = direction(g, st, c->lvl, c->front, deg);
	const int carrying = run->carry == B2_CARRY_EVERY || (run->carry && dir == B2_BOTTOM_UP);
	const int turns = run->turns && dir == B2_BOTTOM_UP;
	p->step = (b2_step){c->lvl, dir, carrying, turns};
	p->visited_exchange = dir == B2_BOTTOM_UP && g->C > 1 && !st->row_current;
	p->expand_out = (b2_msg_plan){B2_FORM_NONE, 0};
	if (run->device_levels)
		plan_device_expand(g, run, c, p);
	else if (g->R > 1) {
		p->expand_out = (b2_msg_plan){b2_plan_expand_form(g, run, c->own_front, st->unseen),
		                              c->own_front};
		/* a frontier's vertices have edges and were in no earlier one */
		st->unseen -= c->own_front;
	}
	st->prev_dir = dir;
	/* in turns on a row of two, each block's last scanner is the other
	 * rank, who saw the first one's finds: both know every find */
	st->row_current = carrying || (turns && g->C == 2);
}
