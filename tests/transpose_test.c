/* transpose_test.c — unit tests of a local block's rows (traverse/
 * transpose.c): the hub classes' bounds and the rows with the hubs first,
 * each expectation worked out by hand. Prints "ok NAME" or "FAIL NAME:
 * why" per assertion. */
#include <stdio.h>
#include <stdlib.h>
#include "../traverse/transpose.h"
#include "unit.h"

static void test_classes(void)
{
	uint64_t lo[B2_HUB_CLASSES], hi[B2_HUB_CLASSES];
	/* 20 entries over 8 columns: mean 2.5, bounds 640, 80, 10, 3 (2.5 up) */
	b2_hub_classes(20, 8, lo, hi);
	EQ("classes mean 2.5: class 0 from 640", lo[0], 640);
	EQ("classes mean 2.5: class 0 unbounded", hi[0], UINT64_MAX);
	EQ("classes mean 2.5: class 1 [80, 640)", lo[1] * 1000 + hi[1], 80 * 1000 + 640);
	EQ("classes mean 2.5: class 2 [10, 80)", lo[2] * 1000 + hi[2], 10 * 1000 + 80);
	EQ("classes mean 2.5: class 3 [3, 10)", lo[3] * 1000 + hi[3], 3 * 1000 + 10);
	EQ("classes mean 2.5: class 4 [0, 3)", lo[4] * 1000 + hi[4], 0 * 1000 + 3);
	/* a sparse block: every bound at least 1, so empty columns come last */
	b2_hub_classes(1, 1000, lo, hi);
	EQ("classes mean 0.001: class 3 from 1", lo[3], 1);
	EQ("classes mean 0.001: class 0 from 1", lo[0], 1);
	EQ("classes mean 0.001: class 4 [0, 1)", lo[4] * 1000 + hi[4], 1);
	b2_hub_classes(0, 0, lo, hi);
	EQ("classes of an empty block: class 4 [0, 1)", lo[4] * 1000 + hi[4], 1);
}

/* A CSC of 6 columns over 4 rows, 18 entries: mean 3, bounds 768, 96, 12
 * and 3. Columns 1, 2 and 4 (3, 4 and 5 entries) are class 3, columns 0,
 * 3 and 5 (2 each) class 4; a row takes its class-3 columns, ascending,
 * then its class-4 ones:
 *   col 0: rows 0 1        col 1: rows 1 2 3    col 2: rows 0 1 2 3
 *   col 3: rows 0 3        col 4: rows 0 1 1 2 3 (a repeated entry, kept)
 *   col 5: rows 2 3 */
static void test_rows(void)
{
	const uint64_t ptr[7] = {0, 2, 5, 9, 11, 16, 18};
	const uint32_t idx[18] = {0, 1, 1, 2, 3, 0, 1, 2, 3, 0, 3, 0, 1, 1, 2, 3, 2, 3};
	uint64_t *rp = NULL, *tp = NULL;
	uint32_t *ri = NULL, *ti = NULL;
	if (b2_rows_hubs_first(ptr, idx, 18, 6, 4, &rp, &ri, "test rows") ||
	    b2_transpose(ptr, idx, 18, 6, 4, &tp, &ti, "test rows")) {
		printf("FAIL rows: out of memory\n");
		unit_failed = 1;
		return;
	}
	/* rows: 0 {0 2 3 4}, 1 {0 1 2 4 4}, 2 {1 2 4 5}, 3 {1 2 3 4 5}; hubs
	 * first: 0 [2 4 | 0 3], 1 [1 2 4 4 | 0], 2 [1 2 4 | 5], 3 [1 2 4 | 3 5] */
	const uint64_t want_ptr[5] = {0, 4, 9, 13, 18};
	const uint32_t want_hubs[18] = {2, 4, 0, 3, 1, 2, 4, 4, 0, 1, 2, 4, 5, 1, 2, 4, 3, 5};
	const uint32_t want_asc[18] = {0, 2, 3, 4, 0, 1, 2, 4, 4, 1, 2, 4, 5, 1, 2, 3, 4, 5};
	char name[64];
	for (int r = 0; r <= 4; r++) {
		snprintf(name, sizeof name, "hubs first: row pointer %d", r);
		EQ(name, rp[r], want_ptr[r]);
		snprintf(name, sizeof name, "transpose: row pointer %d", r);
		EQ(name, tp[r], want_ptr[r]);
	}
	for (int e = 0; e < 18; e++) {
		snprintf(name, sizeof name, "hubs first: entry %d", e);
		EQ(name, ri[e], want_hubs[e]);
		snprintf(name, sizeof name, "transpose: entry %d (ascending)", e);
		EQ(name, ti[e], want_asc[e]);
	}
	free(rp);
	free(ri);
	free(tp);
	free(ti);
}

int main(void)
{
	test_classes();
	test_rows();
	return unit_failed;
}
