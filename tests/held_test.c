/* held_test.c — b2_err_held (common/error.c), driven by tests/test_held.sh.
 *
 *   held-test RANKS [agree|stuck|alloc]
 *
 * Each rank in RANKS (comma-separated; "all": every rank) holds the message
 * "no space under rank R's temporaries" with code B2_EIO. agree (default):
 * every rank then calls b2_finish, an agreement, which must print the
 * message once. stuck: rank 0 waits in a barrier the holders never enter,
 * so a holder's agreement times out and b2_abort must print it. alloc: the
 * ranks in RANKS ask b2_alloc_n for more memory than there is instead. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "b2.h"

static int named(const char *list, int r)
{
	if (strcmp(list, "all") == 0)
		return 1;
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
		if (atoi(t) == r)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int error = b2_init(&argc, &argv, "held-test");
	if (error)
		return b2_finish(error);
	if (argc < 2)
		return b2_finish(b2_err0(B2_EUSAGE, "usage: held-test RANKS [agree|stuck|alloc]"));
	const int stuck = argc > 2 && strcmp(argv[2], "stuck") == 0;
	const int alloc = argc > 2 && strcmp(argv[2], "alloc") == 0;
	void *p = NULL;
	if (named(argv[1], b2_rank) && alloc)
		error = b2_alloc_n(&p, UINT64_MAX / 4, 4, "a test's buffer");
	else if (named(argv[1], b2_rank))
		error = b2_err_held(B2_EIO, "no space under rank %d's temporaries", b2_rank);
	free(p);
	if (stuck && b2_rank == 0 && !error)
		MPI_Barrier(MPI_COMM_WORLD); /* the holders never come: they abort */
	return b2_finish(error);
}
