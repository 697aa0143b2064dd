/* snap_owner.h — the original ids one rank owns while relabelling
 * (snap_relabel.c): a range [lo, hi) whose present ids are marked in a
 * bitmap with per-word counts of the ones before, or, for sparse ids, in a
 * hash set; then numbered in increasing order, each id mapped to base +
 * its number. */
#ifndef SNAP_OWNER_H
#define SNAP_OWNER_H

#include <stdint.h>
#include "snap_import.h"

#define SNAP_ID_EMPTY UINT64_MAX /* ids are at most 2^62 */

typedef struct snap_owner {
	uint64_t lo, hi; /* owned range [lo, hi) */
	int mode;
	uint64_t (*bw)[2], nwords; /* bitmap mode: per word {bits, ones before it} */
	uint64_t *hkey, *hval, hcap, hcount; /* hash mode */
	uint64_t ndist, base;
} snap_owner;

/* Without a call: the build does not assume the popcnt instruction. */
static inline uint64_t pop64(uint64_t x)
{
	x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
	x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
	x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
	return (x * UINT64_C(0x0101010101010101)) >> 56;
}

static inline uint64_t snap_owner_slot(const snap_owner *o, uint64_t x)
{
	uint64_t m = o->hcap - 1, h = b2_mix64(x) & m;
	while (o->hkey[h] != SNAP_ID_EMPTY && o->hkey[h] != x)
		h = (h + 1) & m;
	return h;
}

static inline uint64_t snap_owner_map(const snap_owner *o, uint64_t x)
{
	if (o->mode == SNAP_MAP_BITMAP) {
		uint64_t d = x - o->lo, w = d >> 6;
		return o->base + o->bw[w][1] + pop64(o->bw[w][0] & ((UINT64_C(1) << (d & 63)) - 1));
	}
	return o->base + o->hval[snap_owner_slot(o, x)];
}

/* mode SNAP_MAP_AUTO picks the bitmap where it is small enough for the
 * range (or for expect_ends) */
int snap_owner_setup(snap_owner *o, int mode, uint64_t lo, uint64_t hi, uint64_t expect_ends);
/* the ids x[0 .. n) are present (each within the range) */
int snap_owner_mark(snap_owner *o, const uint64_t *x, uint64_t n);
/* Numbers the distinct ids; fills ids[] (increasing) for /vertex_ids. */
int snap_owner_finish(snap_owner *o, int64_t **ids);
/* bitmap mode: every x[i] to its new id (with popcnt where the CPU has it) */
void snap_owner_map_bitmap(uint64_t *x, uint64_t n, const snap_owner *o);
void snap_owner_free(snap_owner *o);

#endif
