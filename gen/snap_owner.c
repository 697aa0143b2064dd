/* snap_owner.c — the ids of a rank's range (snap_owner.h): marked, numbered
 * in increasing order, mapped. */
#include <stdlib.h>
#include <string.h>
#include "snap_owner.h"

static int hash_init(snap_owner *o, uint64_t cap)
{
	int error = 0;
	o->hcap = cap;
	o->hcount = 0;
	B2_TRY(b2_alloc(&o->hkey, cap * sizeof(uint64_t), "id hash set"));
	memset(o->hkey, 0xff, cap * sizeof(uint64_t));
done:
	return error;
}

static int hash_insert(snap_owner *o, uint64_t x)
{
	int error = 0;
	uint64_t h = snap_owner_slot(o, x);
	if (o->hkey[h] == x)
		return 0;
	o->hkey[h] = x;
	o->hcount++;
	if (2 * o->hcount > o->hcap) { /* grow: keep the load at most 1/2 */
		uint64_t *old = o->hkey, oldcap = o->hcap;
		o->hkey = NULL;
		B2_TRY(hash_init(o, 2 * oldcap));
		for (uint64_t i = 0; i < oldcap; i++)
			if (old[i] != SNAP_ID_EMPTY) {
				o->hkey[snap_owner_slot(o, old[i])] = old[i];
				o->hcount++;
			}
		free(old);
	}
done:
	return error;
}

int snap_owner_setup(snap_owner *o, int mode, uint64_t lo, uint64_t hi, uint64_t expect_ends)
{
	int error = 0;
	uint64_t range = hi - lo;
	o->lo = lo;
	o->hi = hi;
	if (mode == SNAP_MAP_AUTO) {
		/* a bitmap plus prefix counts costs range/4 bytes */
		uint64_t bytes = range / 4, allow = 2 * expect_ends;
		mode = bytes <= (UINT64_C(1) << 27) || bytes <= allow ? SNAP_MAP_BITMAP : SNAP_MAP_HASH;
	}
	o->mode = mode;
	if (mode == SNAP_MAP_BITMAP) {
		if (range > (UINT64_C(1) << 40))
			B2_FAIL(B2_EUSAGE, "--id-map bitmap: the ids of this rank span %llu values, too many for a bitmap",
			        (unsigned long long)range);
		o->nwords = (range + 63) / 64;
		B2_TRY(b2_calloc(&o->bw, o->nwords ? o->nwords : 1, 2 * sizeof(uint64_t), "id bitmap"));
	} else {
		/* grows by doubling: the number of distinct ids is not known */
		B2_TRY(hash_init(o, UINT64_C(1) << 16));
	}
done:
	return error;
}

/* The loops that count bits for every end take a third less time with the
 * popcnt instruction, so they come twice: compiled for it, chosen when the
 * CPU has it, and without it. POPC(x, hw) inlines into either. */
#define POPC(x, hw) ((hw) ? (uint64_t)__builtin_popcountll(x) : pop64(x))
#define B2_INLINE static inline __attribute__((always_inline))
#define WITH_POPCNT __attribute__((target("popcnt")))

static int have_popcnt(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("popcnt");
}

int snap_owner_mark(snap_owner *o, const uint64_t *x, uint64_t n)
{
	int error = 0;
	if (o->mode == SNAP_MAP_BITMAP) {
		uint64_t (*bw)[2] = o->bw, lo = o->lo, range = o->hi - o->lo;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t d = x[i] - lo;
			if (d >= range)
				B2_FAIL(B2_EFAIL, "internal: id %llu sent to the owner of [%llu, %llu)",
				        (unsigned long long)x[i], (unsigned long long)o->lo, (unsigned long long)o->hi);
			bw[d >> 6][0] |= UINT64_C(1) << (d & 63);
		}
	} else {
		for (uint64_t i = 0; i < n; i++) {
			if (x[i] < o->lo || x[i] >= o->hi)
				B2_FAIL(B2_EFAIL, "internal: id %llu sent to the owner of [%llu, %llu)",
				        (unsigned long long)x[i], (unsigned long long)o->lo, (unsigned long long)o->hi);
			B2_TRY(hash_insert(o, x[i]));
		}
	}
done:
	return error;
}

int snap_owner_finish(snap_owner *o, int64_t **ids)
{
	int error = 0;
	*ids = NULL;
	if (o->mode == SNAP_MAP_BITMAP) {
		uint64_t s = 0;
		for (uint64_t w = 0; w < o->nwords; w++) {
			o->bw[w][1] = s;
			s += pop64(o->bw[w][0]);
		}
		o->ndist = s;
		B2_TRY(b2_alloc(ids, (s ? s : 1) * sizeof(int64_t), "vertex ids"));
		uint64_t k = 0;
		for (uint64_t w = 0; w < o->nwords; w++)
			for (uint64_t b = o->bw[w][0]; b; b &= b - 1)
				(*ids)[k++] = (int64_t)(o->lo + 64 * w + (uint64_t)__builtin_ctzll(b));
	} else {
		uint64_t *keys = NULL;
		o->ndist = o->hcount;
		B2_TRY(b2_alloc(&keys, (o->hcount ? o->hcount : 1) * sizeof(uint64_t), "vertex ids"));
		*ids = (int64_t *)keys;
		uint64_t k = 0;
		for (uint64_t i = 0; i < o->hcap; i++)
			if (o->hkey[i] != SNAP_ID_EMPTY)
				keys[k++] = o->hkey[i];
		B2_TRY(b2_radix_sort_alloc(&keys, k, 64, "vertex ids"));
		*ids = (int64_t *)keys;
		B2_TRY(b2_alloc(&o->hval, o->hcap * sizeof(uint64_t), "id numbering"));
		for (uint64_t i = 0; i < k; i++)
			o->hval[snap_owner_slot(o, keys[i])] = i;
	}
done:
	return error;
}

/* P = 1, bitmap: every end of x to its new id */
B2_INLINE void bitmap_map_body(uint64_t *restrict x, uint64_t n, const snap_owner *o, int hw)
{
	const uint64_t(*restrict bw)[2] = o->bw;
	const uint64_t lo = o->lo, base = o->base;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t d = x[i] - lo, w = d >> 6;
		x[i] = base + bw[w][1] + POPC(bw[w][0] & ((UINT64_C(1) << (d & 63)) - 1), hw);
	}
}
WITH_POPCNT static void bitmap_map_hw(uint64_t *x, uint64_t n, const snap_owner *o)
{
	bitmap_map_body(x, n, o, 1);
}
static void bitmap_map_sw(uint64_t *x, uint64_t n, const snap_owner *o)
{
	bitmap_map_body(x, n, o, 0);
}

void snap_owner_map_bitmap(uint64_t *x, uint64_t n, const snap_owner *o)
{
	(have_popcnt() ? bitmap_map_hw : bitmap_map_sw)(x, n, o);
}

void snap_owner_free(snap_owner *o)
{
	free(o->bw);
	free(o->hkey);
	free(o->hval);
	memset(o, 0, sizeof *o);
}