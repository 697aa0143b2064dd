/* provenance.c — when, where and by what build an output was made
 * (FORMATS.md "Every file"). b2_h5_create writes these attributes into every
 * HDF5 output; text outputs (edge-export, bfs-report) print the same words. */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "h5util.h"

/* The Makefile passes `git describe --always --dirty` of the checkout that
 * was built; a build outside a git checkout says "unknown". */
#ifndef B2_GIT_COMMIT
#define B2_GIT_COMMIT "unknown"
#endif

const char *b2_git_commit(void) { return B2_GIT_COMMIT; }

void b2_version_string(char *buf, size_t n)
{
	snprintf(buf, n, "%s (git %s)", BFS2D_VERSION, B2_GIT_COMMIT);
}

/* "2024-05-01T12:34:56Z" */
static void utc_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	if (gmtime_r(&t, &tm) == NULL || strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, n, "unknown");
}

void b2_mpi_version_string(char *buf, size_t n)
{
	char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	int len = 0;
	if (MPI_Get_library_version(v, &len) != MPI_SUCCESS)
		snprintf(v, sizeof v, "unknown");
	/* MPICH's string runs over several lines; its first line names it */
	v[strcspn(v, "\r\n")] = 0;
	for (char *c = v; *c; c++) /* "MPICH Version:\t4.0.2": one line, spaces */
		if (*c == '\t')
			*c = ' ';
	snprintf(buf, n, "%s", v);
}

void b2_hdf5_version_string(char *buf, size_t n)
{
	unsigned maj = 0, min = 0, rel = 0;
	H5get_libversion(&maj, &min, &rel);
	snprintf(buf, n, "%u.%u.%u", maj, min, rel);
}

#define HOSTLEN 64
/* The distinct host names of comm's ranks, in rank order, comma-separated. */
static int hosts_of(char *buf, size_t n, MPI_Comm comm)
{
	int error = 0, size = 1;
	char mine[HOSTLEN] = "", *all = NULL;
	if (gethostname(mine, sizeof mine - 1) != 0)
		snprintf(mine, sizeof mine, "unknown");
	MPI_Comm_size(comm, &size);
	B2_TRY(b2_alloc(&all, (size_t)size * HOSTLEN, "host names"));
	B2_TRY(b2_mpi_ok(MPI_Allgather(mine, HOSTLEN, MPI_CHAR, all, HOSTLEN, MPI_CHAR, comm),
	                 "MPI_Allgather of host names"));
	buf[0] = 0;
	for (int r = 0; r < size; r++) {
		const char *h = all + (size_t)r * HOSTLEN;
		int seen = 0;
		for (int q = 0; q < r && !seen; q++)
			seen = strcmp(h, all + (size_t)q * HOSTLEN) == 0;
		if (seen)
			continue;
		size_t len = strlen(buf);
		if (len + strlen(h) + 2 >= n) { /* many nodes: say so rather than cut a name */
			snprintf(buf + (len < n - 6 ? len : n - 6), 6, ",...");
			break;
		}
		snprintf(buf + len, n - len, "%s%s", len ? "," : "", h);
	}
done:
	free(all);
	return error;
}

int b2_provenance_write(hid_t file, MPI_Comm comm)
{
	int error = 0;
	/* one set of values for every rank (attribute writes are collective) */
	struct { char utc[32], version[96], mpi[256], hdf5[32], hosts[1024]; } p;
	memset(&p, 0, sizeof p);
	utc_now(p.utc, sizeof p.utc);
	b2_version_string(p.version, sizeof p.version);
	b2_mpi_version_string(p.mpi, sizeof p.mpi);
	b2_hdf5_version_string(p.hdf5, sizeof p.hdf5);
	B2_TRY(hosts_of(p.hosts, sizeof p.hosts, comm));
	B2_TRY(b2_mpi_ok(MPI_Bcast(&p, (int)sizeof p, MPI_BYTE, 0, comm), "MPI_Bcast of provenance"));
	B2_TRY(b2_attr_put_str(file, "created_utc", p.utc));
	B2_TRY(b2_attr_put_str(file, "created_on", p.hosts));
	B2_TRY(b2_attr_put_str(file, "program_version", p.version));
	B2_TRY(b2_attr_put_str(file, "git_commit", B2_GIT_COMMIT));
	B2_TRY(b2_attr_put_str(file, "mpi_version", p.mpi));
	B2_TRY(b2_attr_put_str(file, "hdf5_version", p.hdf5));
done:
	return error;
}

void b2_provenance_text(char *buf, size_t n, const char *prefix)
{
	char utc[32], version[96], mpi[256], hdf5[32], host[HOSTLEN] = "";
	utc_now(utc, sizeof utc);
	b2_version_string(version, sizeof version);
	b2_mpi_version_string(mpi, sizeof mpi);
	b2_hdf5_version_string(hdf5, sizeof hdf5);
	if (gethostname(host, sizeof host - 1) != 0)
		snprintf(host, sizeof host, "unknown");
	snprintf(buf, n,
	         "%screated_utc %s\n%screated_on %s\n%sprogram_version %s %s\n%sgit_commit %s\n"
	         "%smpi_version %s\n%shdf5_version %s\n",
	         prefix, utc, prefix, b2_text(host), prefix, b2_prog, b2_text(version), prefix,
	         b2_text(B2_GIT_COMMIT), prefix, b2_text(mpi), prefix, hdf5);
}
