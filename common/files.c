/* files.c — what every program does with file names: temporaries beside an
 * output (named, registered for removal on a signal or an abort, stale ones
 * of dead processes swept), which files may be read and written (regular
 * files only; an output is never an input, nor another output), and stdio
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

/* ---- signals ----------------------------------------------------------------
 * SIGINT, SIGTERM and SIGHUP remove the registered temporaries and lock
 * files, then end the process as the signal would (handler). SIGXFSZ (a file
 * size limit, ulimit -f) and SIGPIPE (a reader of standard output that quit,
 * a pager) are ignored instead: the write that met them fails with EFBIG or
 * EPIPE, and the program reports it like any failed write (exit 4 naming the
 * file; temporaries and locks removed on the way out, outputs all or none:
 * bfs-report's --append row is not added when its report could not be
 * delivered, and it says so). A failed write to standard output that its
 * program did not report is reported at exit (b2_stdout_close): exit 4. */
void b2_signals_init(void (*handler)(int))
{
	signal(SIGINT, handler);
	signal(SIGTERM, handler);
	signal(SIGHUP, handler);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

int b2_stdout_close(void)
{
	int bad = fflush(stdout) != 0, err = errno;
	if (!bad && ferror(stdout))
		bad = 1, err = EIO;
	if (!bad)
		return 0;
	clearerr(stdout);
	return b2_err(B2_EIO, "cannot write standard output: %s%s", strerror(err),
	              err == EPIPE ? " (its reader quit before the end)" : "");
}

/* ---- temporary names ------------------------------------------------------- */

/* This host's name as it goes into temporaries: no '/' or odd characters,
 * at most 64 bytes. */
static void host_name(char *h, size_t n)
{
	if (n > 65)
		n = 65;
	if (gethostname(h, n) != 0 || !h[0])
		snprintf(h, n, "localhost");
	h[n - 1] = 0;
	for (char *c = h; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
		      *c == '-' || *c == '.' || *c == '_'))
			*c = '_';
}

/* A file's base name as it goes into the names beside it: itself up to
 * B2_SIDE_BASE bytes; a longer one is cut and ends in "~" and a hash of the
 * whole, so that ".BASE.tmp-HOST-PID" stays within a file system's 255
 * bytes per name, and the same target always gives the same name. */
#define B2_SIDE_BASE 160
static void side_base(char *b, const char *base)
{
	size_t n = strlen(base);
	if (n <= B2_SIDE_BASE) {
		memcpy(b, base, n + 1);
		return;
	}
	uint64_t h = 0x6a09e667f3bcc909ULL;
	for (size_t i = 0; i < n; i++)
		h = b2_mix64(h ^ (unsigned char)base[i]);
	memcpy(b, base, B2_SIDE_BASE - 17);
	snprintf(b + B2_SIDE_BASE - 17, 18, "~%016llx", (unsigned long long)h);
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

int b2_side_name(char *out, size_t n, const char *path, const char *tag)
{
	char *d1 = strdup(path), *d2 = strdup(path), base[B2_SIDE_BASE + 1];
	int error = 0;
	if (!d1 || !d2) {
		error = b2_err(B2_EIO, "out of host memory");
		goto done;
	}
	side_base(base, basename(d2));
	if ((size_t)snprintf(out, n, "%s/.%s.%s", dirname(d1), base, tag) >= n)
		B2_FAIL(B2_EIO, "cannot write %s: file name too long", path);
done:
	free(d1);
	free(d2);
	return error;
}

int b2_tmp_name(char *tmp, size_t n, const char *path)
{
	char *d1 = strdup(path), *d2 = strdup(path), host[72], tag[96], base[B2_SIDE_BASE + 1];
	int error = 0;
	if (!d1 || !d2) {
		error = b2_err(B2_EIO, "out of host memory");
		goto done;
	}
	host_name(host, sizeof host);
	snprintf(tag, sizeof tag, "tmp-%s-%ld", host, (long)getpid());
	B2_TRY(b2_side_name(tmp, n, path, tag));
	side_base(base, basename(d2));
	sweep_stale(dirname(d1), base, host);
done:
	free(d1);
	free(d2);
	return error;
}

/* ---- where an output goes ------------------------------------------------------ */

char *b2_output_target(const char *path)
{
	struct stat st;
	char *cur = strdup(path);
	/* SYMLOOP_MAX is often undefined; 40 is Linux's own bound */
	for (int hop = 0; cur && hop < 40; hop++) {
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
			return cur;
		char *r = realpath(cur, NULL);
		if (r) { /* the whole chain resolves: its last name */
			free(cur);
			return r;
		}
		/* a link to a name not there yet: follow it by hand, a relative
		 * target from the link's own directory */
		char link[PATH_MAX];
		ssize_t n = readlink(cur, link, sizeof link - 1);
		if (n < 0) {
			free(cur);
			return strdup(path);
		}
		link[n] = 0;
		char *d = strdup(cur), *next = NULL;
		if (d && link[0] != '/') {
			const char *dir = dirname(d);
			size_t len = strlen(dir) + strlen(link) + 2;
			if ((next = malloc(len)) != NULL)
				snprintf(next, len, "%s/%s", dir, link);
		} else if (d) {
			next = strdup(link);
		}
		free(d);
		free(cur);
		cur = next;
	}
	if (cur) { /* a loop: left to the open, which names it (ELOOP) */
		free(cur);
		cur = strdup(path);
	}
	return cur;
}

int b2_lock_name(char **out, const char *path)
{
	int error = 0;
	char *t = b2_output_target(path);
	size_t n = (t ? strlen(t) : 0) + 32;
	*out = NULL;
	if (!t)
		return b2_err(B2_EIO, "out of host memory");
	B2_TRY(b2_alloc(out, n, "file name"));
	B2_TRY(b2_side_name(*out, n, t, "lock"));
done:
	if (error) {
		free(*out);
		*out = NULL;
	}
	free(t);
	return error;
}

/* ---- what may be read and written --------------------------------------------- */

static const char *kind_name(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	       : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int b2_input_mode_ok(const char *path, unsigned mode)
{
	if (S_ISREG(mode))
		return 0;
	return b2_err(B2_EUSAGE, "cannot read %s: it is %s, not a regular file: inputs must be regular "
	              "files", path, kind_name(mode));
}

int b2_check_input(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
		return 0; /* a missing input is reported where it is read */
	if (b2_rank == 0)
		return b2_input_mode_ok(path, st.st_mode);
	b2_error_seen(B2_EUSAGE);
	return B2_EUSAGE;
}

/* What stands in the way of writing output o, as a message in msg; 0 when
 * nothing does. A file output may replace a regular file only; a directory
 * output (--svg) may be an existing directory or a new one. */
static int output_problem(char *msg, size_t n, const char *what, const char *path, int is_dir)
{
	struct stat st;
	size_t len = strlen(path);
	int error = 0;
	char *d1 = NULL, *d2 = NULL, *target = NULL;
	if (len == 0)
		return snprintf(msg, n, "%s: an empty file name", what), B2_EUSAGE;
	if (!is_dir && path[len - 1] == '/')
		return snprintf(msg, n, "%s %s: not a file name (it ends in '/')", what, path), B2_EUSAGE;
	/* through a symbolic link, the file it names is written: its directory
	 * must take the new name */
	if ((target = b2_output_target(path)) == NULL)
		return snprintf(msg, n, "out of host memory"), B2_EIO;
	if (stat(path, &st) == 0) {
		if (is_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode))
			goto dir; /* the directory it is in must still take new names */
		if (S_ISREG(st.st_mode)) /* a file where a directory output goes */
			error = B2_EIO, snprintf(msg, n, "cannot write %s: %s", path, strerror(ENOTDIR));
		else if (S_ISDIR(st.st_mode))
			error = B2_EUSAGE, snprintf(msg, n, "cannot write %s: %s: outputs are regular files",
			                            path, strerror(EISDIR));
		else
			error = B2_EUSAGE, snprintf(msg, n, "%s %s is %s, not a regular file: refusing to "
			                            "replace it (outputs are regular files)", what, path,
			                            kind_name(st.st_mode));
		goto done;
	} else if (errno != ENOENT) {
		error = B2_EIO;
		snprintf(msg, n, "cannot write %s: %s", path, strerror(errno));
		goto done;
	}
dir:
	d1 = strdup(target);
	d2 = strdup(target);
	if (!d1 || !d2) {
		error = B2_EIO;
		snprintf(msg, n, "out of host memory");
		goto done;
	}
	const char *dir = dirname(d1), *base = basename(d2);
	if (!strcmp(base, ".") || !strcmp(base, "..") || !strcmp(base, "/")) {
		error = is_dir ? 0 : B2_EUSAGE;
		if (error)
			snprintf(msg, n, "%s %s: not a file name", what, path);
	} else if (stat(dir, &st) != 0) {
		error = B2_EIO;
		snprintf(msg, n, "cannot write %s: directory %s %s (%s)", path, dir,
		         errno == ENOENT ? "does not exist" : "cannot be reached", strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		error = B2_EIO;
		snprintf(msg, n, "cannot write %s: %s: %s", path, dir, strerror(ENOTDIR));
	} else if (access(dir, W_OK | X_OK) != 0) {
		error = B2_EIO;
		snprintf(msg, n, "cannot write %s: directory %s is not writable (%s)", path, dir, strerror(errno));
	} else if (strlen(base) > (size_t)NAME_MAX) {
		error = B2_EIO;
		snprintf(msg, n, "cannot write %s: %s", path, strerror(ENAMETOOLONG));
	}
done:
	free(d1);
	free(d2);
	free(target);
	return error;
}

int b2_output_ok(const char *what, const char *path, int is_dir)
{
	char msg[2 * PATH_MAX];
	int error = output_problem(msg, sizeof msg, what, path, is_dir);
	return error ? b2_err(error, "%s", msg) : 0;
}

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

/* Whether resolved path `in` is `dir` or lies below it. */
static int below(const char *in, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(in, dir, n) == 0 && (in[n] == '/' || in[n] == 0 || (n == 1 && dir[0] == '/'));
}

/* One output against the inputs: the same device and inode, or the same
 * resolved path; a directory output must not contain an input. */
static int output_vs_inputs(const b2_output *o, const char *const *inputs, int ninputs)
{
	int error = 0;
	struct stat so, si;
	int have_out = stat(o->path, &so) == 0;
	char *rout = resolve(o->path), *rin = NULL;
	for (int k = 0; k < ninputs && !error; k++) {
		if (stat(inputs[k], &si) != 0)
			continue; /* a missing input is reported where it is read */
		free(rin);
		rin = resolve(inputs[k]);
		if (have_out && so.st_dev == si.st_dev && so.st_ino == si.st_ino)
			error = b2_err0(B2_EUSAGE, "%s %s is the input %s (the same file): refusing to "
			                "overwrite an input", o->what, o->path, inputs[k]);
		else if (rout && rin && strcmp(rout, rin) == 0)
			error = b2_err0(B2_EUSAGE, "%s %s is the input %s: refusing to overwrite an input",
			                o->what, o->path, inputs[k]);
		else if (o->is_dir && rout && rin && below(rin, rout))
			error = b2_err0(B2_EUSAGE, "%s %s contains the input %s: refusing to write over an "
			                "input", o->what, o->path, inputs[k]);
	}
	free(rin);
	free(rout);
	return error;
}

/* Two outputs of one run on one path would share a temporary, and the
 * second rename would undo the first: refused. A directory output holds
 * files of its program's choosing, so no other output may lie in it. */
static int outputs_apart(const b2_output *a, const b2_output *b)
{
	int error = 0;
	struct stat sa, sb;
	char *ra = resolve(a->path), *rb = resolve(b->path);
	if ((stat(a->path, &sa) == 0 && stat(b->path, &sb) == 0 && sa.st_dev == sb.st_dev &&
	     sa.st_ino == sb.st_ino) || (ra && rb && strcmp(ra, rb) == 0))
		error = b2_err0(B2_EUSAGE, "%s %s and %s %s are the same file: two outputs of one run "
		                "cannot share a path", a->what, a->path, b->what, b->path);
	else if (ra && rb && ((a->is_dir && below(rb, ra)) || (b->is_dir && below(ra, rb))))
		error = b2_err0(B2_EUSAGE, "%s %s lies in %s %s, which holds %s's own files: two outputs of "
		                "one run cannot share a path", a->is_dir ? b->what : a->what,
		                a->is_dir ? b->path : a->path, a->is_dir ? a->what : b->what,
		                a->is_dir ? a->path : b->path, b2_prog);
	free(ra);
	free(rb);
	return error;
}

int b2_check_files(const b2_output *outputs, int noutputs, const char *const *inputs, int ninputs)
{
	int error = 0;
	char msg[2 * PATH_MAX];
	for (int k = 0; k < ninputs && !error; k++)
		error = b2_check_input(inputs[k]);
	for (int k = 0; k < noutputs && !error; k++)
		error = output_vs_inputs(&outputs[k], inputs, ninputs);
	for (int k = 0; k < noutputs && !error; k++)
		if ((error = output_problem(msg, sizeof msg, outputs[k].what, outputs[k].path,
		                            outputs[k].is_dir)) != 0)
			b2_err0(error, "%s", msg);
	for (int k = 0; k < noutputs && !error; k++)
		for (int j = k + 1; j < noutputs && !error; j++)
			error = outputs_apart(&outputs[k], &outputs[j]);
	return error;
}

int b2_check_output(const char *what, const char *output, const char *const *inputs, int ninputs,
                    int is_dir)
{
	b2_output o = {what, output, is_dir};
	return b2_check_files(&o, output ? 1 : 0, inputs, ninputs);
}

/* ---- stdio outputs ----------------------------------------------------------- */

int b2_fout_open(b2_fout *o, const char *path)
{
	int error = 0;
	memset(o, 0, sizeof *o);
	B2_TRY(b2_output_ok("output", path, 0));
	/* a symbolic link stays, and the file it names is replaced */
	if ((o->path = b2_output_target(path)) == NULL)
		B2_FAIL(B2_EIO, "out of host memory");
	path = o->path;
	size_t n = strlen(path) + 160;
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
	/* what it replaces stays as a hard link until the caller's run is
	 * complete, so that b2_fout_undo can put it back */
	struct stat st;
	size_t n = strlen(o->path) + 96;
	if (lstat(o->path, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))) {
		char tag[48];
		snprintf(tag, sizeof tag, "old-%ld", (long)getpid());
		B2_TRY(b2_alloc(&o->old, n, "file name"));
		B2_TRY(b2_side_name(o->old, n, o->path, tag));
		unlink(o->old);
		if (link(o->path, o->old) != 0) { /* a file system without hard links: no undo */
			free(o->old);
			o->old = NULL;
		}
	}
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

void b2_fout_undo(b2_fout *o)
{
	if (!o->committed)
		return;
	if (o->old && rename(o->old, o->path) == 0) {
		free(o->old);
		o->old = NULL;
	} else if (!o->old) {
		unlink(o->path);
	}
	o->committed = 0;
}

void b2_fout_discard(b2_fout *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
	if (o->old)
		unlink(o->old);
	free(o->old);
	o->old = NULL;
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
