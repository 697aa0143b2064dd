/* files.c — what every program does with file names: temporaries beside an
 * output (named, registered for removal on a signal or an abort, stale ones
 * of dead processes swept), the refusal to write over an input, and stdio
 * outputs that are complete or absent. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "b2.h"

/* ---- the registry ----------------------------------------------------------
 * Read by signal handlers and b2_abort, so it is static storage written in an
 * order that keeps every state the handler may see consistent: a slot's names
 * are complete before `used` is set, and `used` is cleared before they change. */
#define B2_NTMP 32
static struct {
	volatile sig_atomic_t used; /* 0 free, 1 file, 2 directory */
	char tmp[PATH_MAX];
	char path[PATH_MAX];
} reg[B2_NTMP];

int b2_tmp_register(const char *tmp, const char *path, int is_dir)
{
	if (strlen(tmp) >= PATH_MAX || strlen(path) >= PATH_MAX)
		return b2_err(B2_EIO, "%s: file name too long", path);
	for (int i = 0; i < B2_NTMP; i++)
		if (!reg[i].used) {
			memcpy(reg[i].tmp, tmp, strlen(tmp) + 1);
			memcpy(reg[i].path, path, strlen(path) + 1);
			reg[i].used = is_dir ? 2 : 1;
			return 0;
		}
	return b2_err(B2_EFAIL, "internal: more than %d temporary outputs at once (%s)", B2_NTMP, path);
}

void b2_tmp_forget(const char *tmp)
{
	for (int i = 0; i < B2_NTMP; i++)
		if (reg[i].used && strcmp(reg[i].tmp, tmp) == 0)
			reg[i].used = 0;
}

const char *b2_tmp_final(const char *tmp)
{
	for (int i = 0; i < B2_NTMP; i++)
		if (reg[i].used && strcmp(reg[i].tmp, tmp) == 0)
			return reg[i].path;
	return tmp;
}

/* Async-signal-safe: unlink and rmdir only. Files first, so that a directory
 * this process created is empty when its turn comes. */
void b2_tmp_remove_all(void)
{
	for (int i = 0; i < B2_NTMP; i++)
		if (reg[i].used == 1)
			unlink(reg[i].tmp);
	for (int i = 0; i < B2_NTMP; i++)
		if (reg[i].used == 2)
			rmdir(reg[i].tmp);
}

/* ---- temporary names ------------------------------------------------------- */

/* This host's name as it goes into temporaries: no '/' or odd characters. */
static void host_name(char *h, size_t n)
{
	if (gethostname(h, n) != 0 || !h[0])
		snprintf(h, n, "localhost");
	h[n - 1] = 0;
	for (char *c = h; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '-' || *c == '.' || *c == '_'))
			*c = '_';
}

/* Removes DIR/.BASE.tmp-HOST-PID of this host whose process is gone (killed
 * by SIGKILL: no handler ran). Another host's PIDs mean nothing here, and a
 * live process's temporary is its own business. */
static void sweep_stale(const char *dir, const char *base, const char *host)
{
	char pre[PATH_MAX];
	int np = snprintf(pre, sizeof pre, ".%s.tmp-%s-", base, host);
	DIR *d = opendir(dir);
	struct dirent *e;
	if (np <= 0 || (size_t)np >= sizeof pre || !d) {
		if (d)
			closedir(d);
		return;
	}
	while ((e = readdir(d)) != NULL) {
		const char *p = e->d_name + np;
		char *end;
		if (strncmp(e->d_name, pre, (size_t)np) != 0 || *p < '1' || *p > '9')
			continue;
		errno = 0;
		long pid = strtol(p, &end, 10);
		if (*end || errno || pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char full[PATH_MAX];
		if (snprintf(full, sizeof full, "%s/%s", dir, e->d_name) < (int)sizeof full) {
			unlink(full);
			b2_debug("removed %s, the temporary of a process that no longer runs", full);
		}
	}
	closedir(d);
}

int b2_tmp_name(char *tmp, size_t n, const char *path)
{
	char *d1 = strdup(path), *d2 = strdup(path), host[72];
	int error = 0;
	if (!d1 || !d2) {
		error = b2_err(B2_EIO, "out of host memory");
		goto done;
	}
	const char *dir = dirname(d1), *base = basename(d2);
	host_name(host, sizeof host);
	if ((size_t)snprintf(tmp, n, "%s/.%s.tmp-%s-%ld", dir, base, host, (long)getpid()) >= n)
		B2_FAIL(B2_EIO, "%s: file name too long", path);
	sweep_stale(dir, base, host);
done:
	free(d1);
	free(d2);
	return error;
}

/* ---- inputs are never outputs ----------------------------------------------- */

/* The absolute name of path with symlinks resolved; of its directory when
 * path itself does not exist. NULL when neither resolves. Caller frees. */
static char *resolve(const char *path)
{
	char *r = realpath(path, NULL);
	if (r || errno != ENOENT)
		return r;
	char *d1 = strdup(path), *d2 = strdup(path), *rd = NULL;
	if (d1 && d2 && (rd = realpath(dirname(d1), NULL)) != NULL) {
		const char *base = basename(d2);
		size_t n = strlen(rd) + strlen(base) + 2;
		r = malloc(n);
		if (r)
			snprintf(r, n, "%s%s%s", rd, strcmp(rd, "/") ? "/" : "", base);
	}
	free(rd);
	free(d1);
	free(d2);
	return r;
}

int b2_check_output(const char *what, const char *output, const char *const *inputs, int ninputs,
                    int is_dir)
{
	int error = 0;
	struct stat so, si;
	int have_out = stat(output, &so) == 0;
	char *rout = resolve(output), *rin = NULL;
	size_t nout = rout ? strlen(rout) : 0;
	for (int k = 0; k < ninputs && !error; k++) {
		if (stat(inputs[k], &si) != 0)
			continue; /* a missing input is reported where it is read */
		free(rin);
		rin = resolve(inputs[k]);
		if (have_out && so.st_dev == si.st_dev && so.st_ino == si.st_ino)
			error = b2_err0(B2_EUSAGE, "%s %s is the input %s (the same file): refusing to "
			                "overwrite an input", what, output, inputs[k]);
		else if (rout && rin && strcmp(rout, rin) == 0)
			error = b2_err0(B2_EUSAGE, "%s %s is the input %s: refusing to overwrite an input",
			                what, output, inputs[k]);
		else if (is_dir && rout && rin && strncmp(rin, rout, nout) == 0 &&
		         (rin[nout] == '/' || nout == 1))
			error = b2_err0(B2_EUSAGE, "%s %s contains the input %s: refusing to write over an "
			                "input", what, output, inputs[k]);
	}
	free(rin);
	free(rout);
	return error;
}

/* ---- stdio outputs ----------------------------------------------------------- */

int b2_fout_open(b2_fout *o, const char *path)
{
	int error = 0;
	memset(o, 0, sizeof *o);
	size_t n = strlen(path) + 160;
	B2_TRY(b2_alloc(&o->path, strlen(path) + 1, "file name"));
	memcpy(o->path, path, strlen(path) + 1);
	B2_TRY(b2_alloc(&o->tmp, n, "file name"));
	B2_TRY(b2_tmp_name(o->tmp, n, path));
	B2_TRY(b2_tmp_register(o->tmp, path, 0));
	o->registered = 1;
	if ((o->f = fopen(o->tmp, "w")) == NULL)
		B2_FAIL(B2_EIO, "cannot write %s: %s", path, strerror(errno));
done:
	if (error)
		b2_fout_discard(o);
	return error;
}

int b2_fout_close(b2_fout *o)
{
	int error = 0, bad = 0, err = 0;
	if (!o->f)
		return 0;
	/* stdio keeps the first failure in ferror only; the calls below fail
	 * again on what is still buffered and give the reason */
	if (fflush(o->f) != 0)
		bad = 1, err = errno;
	if (!bad && ferror(o->f))
		bad = 1, err = EIO;
	if (!bad && fsync(fileno(o->f)) != 0)
		bad = 1, err = errno;
	if (fclose(o->f) != 0 && !bad)
		bad = 1, err = errno;
	o->f = NULL;
	if (bad)
		error = b2_err(B2_EIO, "cannot write %s: %s", o->path, strerror(err));
	return error;
}

int b2_fout_commit(b2_fout *o)
{
	int error = 0;
	B2_TRY(b2_fout_close(o));
	if (rename(o->tmp, o->path) != 0)
		B2_FAIL(B2_EIO, "cannot write %s: renaming %s to it: %s", o->path, o->tmp, strerror(errno));
	b2_fsync_dir(o->path);
	b2_tmp_forget(o->tmp);
	o->registered = 0;
	o->committed = 1;
done:
	if (error)
		b2_fout_discard(o);
	return error;
}

void b2_fout_discard(b2_fout *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp && o->registered) {
		unlink(o->tmp);
		b2_tmp_forget(o->tmp);
	}
	o->registered = o->committed = 0;
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
}

void b2_fsync_dir(const char *path)
{
	char *d = strdup(path);
	if (!d)
		return;
	int fd = open(dirname(d), O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		fsync(fd); /* the rename is durable; some file systems refuse: no matter */
		close(fd);
	}
	free(d);
}
