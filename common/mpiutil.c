/* mpiutil.c — process set-up, agreement on exit, time, work shares. */
#include <fcntl.h>
#include <hdf5.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "b2.h"
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

int b2_rank = 0, b2_nranks = 1;
const char *b2_prog = "bfs2d";

extern int b2_h5_poisoned;

/* Removes every temporary this rank knows of (all ranks know the output's),
 * then dies of the signal as if unhandled. */
static void on_signal(int sig)
{
	b2_tmp_remove_all(); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---- after an error: leave within the deadline -------------------------- */

static double error_wait = 10;
static volatile sig_atomic_t deadline_code;
static atomic_int deadline_armed;

double b2_error_wait(void)
{
	return error_wait;
}

/* The watchdog: this rank is still alive B2_ERROR_WAIT + 5 s after its
 * error, so it is stuck where b2_agree's deadline does not reach (a
 * collective inside HDF5 or MPI-IO whose peers went elsewhere). A thread,
 * not a signal handler: MPI_Abort is no call for a handler, and a thread may
 * make it (MPICH takes no lock below MPI_THREAD_MULTIPLE; this is the one
 * MPI call made off the main thread). */
static void *watchdog(void *arg)
{
	struct timespec *at = arg;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, at, NULL) != 0)
		;
	b2_abort(deadline_code);
	return NULL;
}

/* Where no thread can start: the alarm exits without MPI (mpiexec ends the
 * other ranks, though its exit code may then tell the signal it used). */
static void on_deadline(int sig)
{
	(void)sig;
	const char *h = b2_held_line();
	if (h[0])
		(void)!write(2, h, strlen(h));
	b2_tmp_remove_all();
	_exit(deadline_code);
}

void b2_error_seen(int code)
{
	static struct timespec at;
	pthread_t t;
	pthread_attr_t attr;
	if (code == 0)
		return;
	if (code == B2_EXIT_HELP)
		code = 0;
	if (code > deadline_code)
		deadline_code = code;
	if (atomic_exchange(&deadline_armed, 1))
		return;
	/* b2_agree ends the job after error_wait; this is the net under it */
	double d = error_wait + 5;
	clock_gettime(CLOCK_MONOTONIC, &at);
	at.tv_sec += (time_t)d;
	at.tv_nsec += (long)((d - (double)(time_t)d) * 1e9);
	if (at.tv_nsec >= 1000000000L)
		at.tv_sec++, at.tv_nsec -= 1000000000L;
	int ok = pthread_attr_init(&attr) == 0;
	if (ok && pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
	    pthread_create(&t, &attr, watchdog, &at) == 0) {
		pthread_attr_destroy(&attr);
		return;
	}
	if (ok)
		pthread_attr_destroy(&attr);
	struct itimerval it = {{0, 0}, {(time_t)d, (suseconds_t)((d - (double)(time_t)d) * 1e6)}};
	signal(SIGALRM, on_deadline);
	setitimer(ITIMER_REAL, &it, NULL);
}

void b2_abort(int code)
{
	int inited = 0, fin = 1;
	if (code == B2_EXIT_HELP)
		code = 0;
	/* a message printed only now must reach mpiexec before MPI_Abort
	 * tears the job down (its forwarding of stderr was seen to lose it) */
	if (b2_print_held() && b2_nranks > 1)
		nanosleep(&(struct timespec){0, 500000000L}, NULL);
	b2_tmp_remove_all();
	MPI_Initialized(&inited);
	if (inited)
		MPI_Finalized(&fin);
	if (inited && !fin && b2_nranks > 1) {
		/* the error is told already; MPICH's "application called
		 * MPI_Abort" line would only repeat it */
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, 2);
		MPI_Abort(MPI_COMM_WORLD, code);
	}
	_exit(code);
}

int b2_init(int *argc, char ***argv, const char *prog)
{
	int provided;
	b2_prog = prog;
	/* before MPI_Init: its shared-memory files meet a file size limit too */
	b2_signals_init(on_signal);
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
	const char *w = getenv("B2_ERROR_WAIT");
	if (w && *w) {
		char *end;
		double v = strtod(w, &end);
		if (*end || !(v >= 0.1 && v <= 86400)) {
			if (b2_rank == 0)
				fprintf(stderr, "%s: B2_ERROR_WAIT: expected seconds from 0.1 to 86400, got '%s'\n", prog, w);
			MPI_Finalize(); /* every rank sees the same environment */
			return B2_EUSAGE;
		}
		error_wait = v;
	}
	/* we report HDF5 failures ourselves, in one line */
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	return 0;
}

int b2_finish(int error)
{
	if (error == B2_EXIT_HELP)
		error = 0;
	if (!error)
		error = b2_stdout_close();
	else
		fflush(stdout);
	b2_error_seen(error);
	error = b2_agree(error, MPI_COMM_WORLD);
	if (error == B2_EXIT_HELP)
		error = 0;
	fflush(stderr);
	if (error)
		b2_tmp_remove_all(); /* whatever path led here */
	if (b2_h5_poisoned) {
		/* an output was given up without closing it (closing collectively
		 * after a failure can wait forever inside HDF5), and HDF5 would
		 * close it in MPI_Finalize: leave without. Its temporary is gone.
		 * Not by _exit: a rank that exits before MPI_Finalize makes mpiexec
		 * kill the others, and its exit code then ORs in their signal. After
		 * MPI_Abort it is the abort's code. */
#if defined(__SANITIZE_ADDRESS__)
		__lsan_do_leak_check();
#endif
		b2_abort(error ? error : B2_EIO);
	}
	MPI_Finalize();
	return error;
}

int b2_node_load_get(b2_node_load *nl, int threads)
{
	int error = 0, nlocal = 1;
	MPI_Comm node = MPI_COMM_NULL;
	int64_t t = threads > 0 ? threads : 1, node_threads = t;
	memset(nl, 0, sizeof *nl);
	B2_TRY(b2_mpi_ok(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, b2_rank,
	                                     MPI_INFO_NULL, &node), "MPI_Comm_split_type"));
	MPI_Comm_size(node, &nlocal);
	B2_TRY(b2_mpi_ok(MPI_Allreduce(&t, &node_threads, 1, MPI_INT64_T, MPI_SUM, node), "MPI_Allreduce"));
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	if (cores < 1)
		cores = 1;
	/* the most ranks, threads, the fewest cores, and whether any node is over */
	int64_t v[4] = {nlocal, t, -(int64_t)cores, node_threads > cores};
	B2_TRY(b2_mpi_ok(MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD),
	                 "MPI_Allreduce"));
	nl->ranks_per_node = v[0];
	nl->threads_per_rank = v[1];
	nl->cores_per_node = -v[2];
	nl->oversubscribed = v[3] > 0;
done:
	if (node != MPI_COMM_NULL)
		MPI_Comm_free(&node);
	return error;
}

void b2_node_load_warn(const b2_node_load *nl, const char *what)
{
	if (!nl->oversubscribed)
		return;
	if (nl->threads_per_rank > 1)
		b2_warn0("%lld ranks x %lld threads on a node with %lld cores: %s is oversubscribed, so its "
		         "times say little (set OMP_NUM_THREADS, or run fewer ranks per node)",
		         (long long)nl->ranks_per_node, (long long)nl->threads_per_rank,
		         (long long)nl->cores_per_node, what);
	else
		b2_warn0("%lld ranks on a node with %lld cores: %s is oversubscribed, so its times say "
		         "little (run fewer ranks per node)", (long long)nl->ranks_per_node,
		         (long long)nl->cores_per_node, what);
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
