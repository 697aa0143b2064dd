/* runid.c — the identity of a BFS run (FORMATS.md, BFS file `run_id`): a
 * random 128-bit number drawn once when the file is created, the same on
 * every rank, so that a validation file and a report can name the very run
 * they belong to, whatever the files are called. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include "b2.h"

/* 16 random bytes: the kernel's generator; where it cannot serve (very old
 * kernels), the clock, the process and the host mixed, which still differ
 * between any two runs that can meet in one campaign. */
static void random_bytes(uint64_t w[2])
{
	ssize_t got = getrandom(w, 2 * sizeof w[0], GRND_NONBLOCK);
	if (got == (ssize_t)(2 * sizeof w[0]))
		return;
	struct timespec ts;
	char host[256] = "";
	uint64_t h = 0x6a09e667f3bcc909ULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	gethostname(host, sizeof host - 1);
	for (const char *c = host; *c; c++)
		h = b2_mix64(h ^ (unsigned char)*c);
	w[0] = b2_mix64(h ^ ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)ts.tv_nsec);
	w[1] = b2_mix64(w[0] ^ (uint64_t)getpid() ^ ((uint64_t)getppid() << 32));
}

int b2_run_id_new(char id[B2_RUN_ID_SIZE], MPI_Comm comm)
{
	int rank = 0;
	uint64_t w[2] = {0, 0};
	MPI_Comm_rank(comm, &rank);
	if (rank == 0)
		random_bytes(w);
	int error = b2_mpi_ok(MPI_Bcast(w, 2, MPI_UINT64_T, 0, comm), "MPI_Bcast (run id)");
	snprintf(id, B2_RUN_ID_SIZE, "%016llx%016llx", (unsigned long long)w[0],
	         (unsigned long long)w[1]);
	return error;
}
