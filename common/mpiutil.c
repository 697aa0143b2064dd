/* mpiutil.c — process set-up, agreement on exit, time, work shares. */
#include <hdf5.h>
#include <omp.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "b2.h"

int b2_rank = 0, b2_nranks = 1;
const char *b2_prog = "bfs2d";

/* Set by h5util while a temporary output exists, so that a signal removes it. */
extern char b2_tmp_for_signal[4096];
extern int b2_h5_poisoned;

static void on_signal(int sig)
{
	if (b2_tmp_for_signal[0])
		unlink(b2_tmp_for_signal); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

int b2_init(int *argc, char ***argv, const char *prog)
{
	int provided;
	b2_prog = prog;
	/* MPICH runs a singleton when started without mpiexec. */
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		fprintf(stderr, "%s: MPI_Init failed\n", prog);
		return B2_EFAIL;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &b2_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &b2_nranks);
	b2_opts_init(*argv);
	/* errors come back as codes, so every rank can agree before exiting */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	/* ranks sharing a node share its cores: without OMP_NUM_THREADS, each
	 * rank's OpenMP team gets its share (oversubscribed teams spin and run
	 * many times slower) */
	if (!getenv("OMP_NUM_THREADS")) {
		MPI_Comm node;
		int local = 1;
		if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
			MPI_Comm_size(node, &local);
			MPI_Comm_free(&node);
		}
		int cores = omp_get_num_procs() / local;
		omp_set_num_threads(cores > 0 ? cores : 1);
	}
	/* we report HDF5 failures ourselves, in one line */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	return 0;
}

int b2_finish(int error)
{
	if (error == B2_EXIT_HELP)
		error = 0;
	error = b2_agree(error, MPI_COMM_WORLD);
	if (error == B2_EXIT_HELP)
		error = 0;
	fflush(stdout);
	fflush(stderr);
	if (b2_agree(b2_h5_poisoned, MPI_COMM_WORLD)) {
		/* HDF5 would crash finalizing a file whose close failed; the
		 * outputs are already removed, so leave without MPI_Finalize */
		MPI_Barrier(MPI_COMM_WORLD);
		_exit(error ? error : B2_EIO);
	}
	MPI_Finalize();
	return error;
}

double b2_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void b2_share(uint64_t *lo, uint64_t *hi, uint64_t n, int parts, int idx)
{
	uint64_t q = n / (uint64_t)parts, r = n % (uint64_t)parts, i = (uint64_t)idx;
	*lo = i * q + (i < r ? i : r);
	*hi = *lo + q + (i < r ? 1 : 0);
}
