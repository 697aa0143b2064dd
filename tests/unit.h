/* unit.h — the assertion of the C unit tests: EQ prints "ok NAME", or
 * "FAIL NAME: got G, expected W" and marks the run failed (return
 * unit_failed from main). Values compare as 64-bit integers. */
#ifndef B2_TESTS_UNIT_H
#define B2_TESTS_UNIT_H

#include <stdio.h>

static int unit_failed;

#define EQ(name, got, want)                                                              \
	do {                                                                                 \
		long long g_ = (long long)(got), w_ = (long long)(want);                         \
		if (g_ == w_)                                                                    \
			printf("ok %s\n", name);                                                     \
		else {                                                                           \
			printf("FAIL %s: got %lld, expected %lld\n", name, g_, w_);                  \
			unit_failed = 1;                                                             \
		}                                                                                \
	} while (0)

#endif
