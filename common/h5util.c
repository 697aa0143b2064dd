/* h5util.c — parallel HDF5 helpers: atomic outputs, checked opens,
 * attributes, row-slab datasets. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include "h5util.h"

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

int b2_h5_poisoned;

/* The reason under the newest HDF5 failure, for messages: the errno that a
 * POSIX write reported, or what MPI-IO said; "" when the stack has none. */
typedef struct reason_buf {
	char *s;
	size_t n;
} reason_buf;

static herr_t reason_cb(unsigned k, const H5E_error2_t *e, void *data)
{
	reason_buf *r = data;
	const char *d = e->desc, *p;
	(void)k;
	if (!d || r->s[0])
		return 0;
	if ((p = strstr(d, "error message = '")) != NULL) {
		p += strlen("error message = '");
		const char *q = strchr(p, '\'');
		snprintf(r->s, r->n, "%.*s", q ? (int)(q - p) : (int)strlen(p), p);
	} else if ((p = strstr(d, "errno = ")) != NULL) {
		int en = atoi(p + strlen("errno = "));
		if (en > 0)
			snprintf(r->s, r->n, "%s", strerror(en));
	} else if ((p = strstr(d, "I/O error ")) != NULL) {
		/* MPI-IO: "... Other I/O error No space left on device'" */
		p += strlen("I/O error ");
		size_t len = strcspn(p, "'\n");
		while (len > 0 && p[len - 1] == ' ')
			len--;
		if (len > 0)
			snprintf(r->s, r->n, "%.*s", (int)len, p);
	}
	return 0;
}

void b2_h5_reason(char *buf, size_t n, const char *path)
{
	reason_buf r = {buf, n};
	buf[0] = 0;
	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, reason_cb, &r);
	if (!buf[0] && path) {
		/* MPI-IO often keeps the cause to itself; a full disk is common */
		char *d = xstrdup(path);
		struct statvfs st;
		if (d && statvfs(dirname(d), &st) == 0 && st.f_bavail == 0)
			snprintf(buf, n, "%s", strerror(ENOSPC));
		free(d);
	}
	if (!buf[0])
		snprintf(buf, n, "HDF5 gave no reason");
}

/* The output file an object belongs to (the target, not the temporary). */
static void obj_file(char *buf, size_t n, hid_t obj)
{
	buf[0] = 0;
	if (H5Fget_name(obj, buf, n) <= 0)
		snprintf(buf, n, "the output");
	else
		snprintf(buf, n, "%s", b2_tmp_final(buf));
}

int b2_h5_write_err(hid_t obj, const char *fmt, ...)
{
	char f[4096], why[256], what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	obj_file(f, sizeof f, obj);
	b2_h5_reason(why, sizeof why, f);
	return b2_err(B2_EIO, "cannot write %s: %s: %s", f, what, why);
}

int b2_check_space(const char *path, uint64_t bytes)
{
	char *d = xstrdup(path);
	struct statvfs st;
	int error = 0;
	if (!d)
		return b2_err(B2_EIO, "out of host memory");
	const char *dir = dirname(d);
	if (statvfs(dir, &st) == 0 && (uint64_t)st.f_bavail * st.f_frsize < bytes)
		error = b2_err(B2_EIO, "cannot write %s: it needs %.1f MiB and %s has %.1f MiB free", path,
		               (double)bytes / 1048576.0, dir, (double)st.f_bavail * (double)st.f_frsize / 1048576.0);
	free(d);
	return error;
}

static int comm_size(MPI_Comm comm)
{
	int n = 1;
	MPI_Comm_size(comm, &n);
	return n;
}

static int comm_rank(MPI_Comm comm)
{
	int r = 0;
	MPI_Comm_rank(comm, &r);
	return r;
}

hid_t b2_h5_fapl(MPI_Comm comm)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (fapl < 0)
		return fapl;
	if (comm_size(comm) > 1 && H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) {
		H5Pclose(fapl);
		return -1;
	}
	/* attributes and metadata read once by rank 0 and broadcast */
	if (comm_size(comm) > 1) {
		H5Pset_all_coll_metadata_ops(fapl, 1);
		H5Pset_coll_metadata_write(fapl, 1);
	}
	return fapl;
}

/* An output that failed is given up, not closed: closing collectively after
 * a failure can wait forever inside HDF5 (ranks take different paths through
 * its flush), and the file is removed anyway. HDF5 then must not be
 * finalized: b2_finish leaves without MPI_Finalize. Every rank removes the
 * temporary (one of them succeeds), so no rank depends on another. */
static void give_up(b2_h5out *out)
{
	if (out->file >= 0)
		b2_h5_poisoned = 1;
	out->file = -1;
	if (out->tmp_path) {
		unlink(out->tmp_path);
		b2_tmp_forget(out->tmp_path);
	}
	free(out->path);
	free(out->tmp_path);
	out->path = out->tmp_path = NULL;
}

int b2_h5_create(b2_h5out *out, const char *path, MPI_Comm comm, const char *format, int version)
{
	int error = 0;
	hid_t fapl = -1;
	char tmp[4096] = "", target[4096] = "";
	memset(out, 0, sizeof *out);
	out->file = -1;
	out->comm = comm;
	if (comm_rank(comm) == 0) {
		error = b2_output_ok("-o", path, 0);
		char *t = error ? NULL : b2_output_target(path);
		if (!error && (!t || strlen(t) >= sizeof target))
			error = b2_err(B2_EIO, "cannot write %s: %s", path, t ? strerror(ENAMETOOLONG) : "out of host memory");
		if (!error) /* through a symbolic link: the file it names */
			snprintf(target, sizeof target, "%s", t);
		free(t);
		if (!error)
			error = b2_tmp_name(tmp, sizeof tmp, target);
	}
	/* every rank knows the temporary, so that any of them removes it */
	B2_TRY(b2_mpi_ok(MPI_Bcast(&error, 1, MPI_INT, 0, comm), "MPI_Bcast"));
	B2_TRY(error);
	B2_TRY(b2_mpi_ok(MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, comm), "MPI_Bcast"));
	B2_TRY(b2_mpi_ok(MPI_Bcast(target, sizeof target, MPI_CHAR, 0, comm), "MPI_Bcast"));
	path = target;
	out->path = xstrdup(path);
	out->tmp_path = xstrdup(tmp);
	if (!out->path || !out->tmp_path)
		B2_FAIL(B2_EIO, "out of host memory");
	error = b2_tmp_register(tmp, path, 0);
	/* also: no rank creates the file before every rank can remove it */
	B2_TRY(b2_agree(error, comm));
	fapl = b2_h5_fapl(comm);
	if (fapl < 0)
		B2_FAIL(B2_EIO, "cannot set up HDF5 file access for %s", path);
	out->file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	{
		char why[256] = "it failed on another rank";
		if (out->file < 0)
			b2_h5_reason(why, sizeof why, path);
		if (b2_agree(out->file < 0 ? B2_EIO : 0, comm))
			B2_FAIL0(B2_EIO, "cannot create %s (temporary %s): %s", path, tmp, why);
	}
	char created_by[64];
	snprintf(created_by, sizeof created_by, "%s %s", b2_prog, BFS2D_VERSION);
	B2_TRY(b2_attr_put_str(out->file, "format", format));
	B2_TRY(b2_attr_put_i64(out->file, "format_version", version));
	B2_TRY(b2_attr_put_str(out->file, "created_by", created_by));
	B2_TRY(b2_provenance_write(out->file, comm));
done:
	if (fapl >= 0)
		H5Pclose(fapl);
	error = b2_agree(error, comm);
	if (error)
		give_up(out);
	return error;
}

int b2_h5_close(b2_h5out *out, hid_t *obj, int error)
{
	error = b2_agree(error, out->comm);
	if (*obj < 0)
		return error;
	if (error) {
		*obj = -1; /* given up with the file (b2_h5_commit) */
		return error;
	}
	char name[256] = "?", why[256];
	H5Iget_name(*obj, name, sizeof name);
	herr_t rc = H5Iget_type(*obj) == H5I_GROUP ? H5Gclose(*obj) : H5Dclose(*obj);
	*obj = -1;
	if (rc < 0) {
		b2_h5_reason(why, sizeof why, out->path);
		error = b2_err(B2_EIO, "cannot write %s: finishing %s failed: %s", out->path, name, why);
	}
	return error;
}

int b2_h5_reserve(b2_h5out *out)
{
	int error = 0;
	hsize_t size = 0;
	if (comm_rank(out->comm) == 0 && H5Fget_filesize(out->file, &size) >= 0 && size > 0) {
		int fd = open(out->tmp_path, O_WRONLY);
		/* KEEP_SIZE: blocks, not length; HDF5 sets the length itself */
		if (fd < 0 || fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)size) != 0) {
			int en = errno;
			if (fd < 0 || (en != EOPNOTSUPP && en != ENOSYS && en != EINVAL)) /* else: cannot */
				error = b2_err(B2_EIO, "cannot write %s: reserving its %.1f MiB: %s", out->path,
				               (double)size / 1048576.0, strerror(en));
		}
		if (fd >= 0)
			close(fd);
	}
	return b2_agree(error, out->comm);
}

static int fsync_path(const char *p)
{
	int fd = open(p, O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

int b2_h5_commit(b2_h5out *out, int error)
{
	char why[256];
	if (!out->path) /* never created, or given up already: on every rank alike */
		return error;
	error = b2_agree(error, out->comm);
	/* the metadata still to write goes into reserved space: a flush that
	 * fails on one rank leaves the others inside it (seen on a full disk) */
	if (!error)
		error = b2_h5_reserve(out);
	if (!error) {
		/* a flush first: a failure shows up here, while the file can still
		 * be given up rather than closed */
		if (H5Fflush(out->file, H5F_SCOPE_GLOBAL) < 0) {
			b2_h5_reason(why, sizeof why, out->path);
			error = b2_err(B2_EIO, "cannot write %s: %s", out->path, why);
		}
		error = b2_agree(error, out->comm);
	}
	if (!error) {
		if (H5Fclose(out->file) < 0) {
			b2_h5_reason(why, sizeof why, out->path);
			error = b2_err(B2_EIO, "cannot write %s: closing it failed: %s", out->path, why);
			/* HDF5 1.10 leaves a file whose close failed half torn down, and
			 * would crash closing it again when MPI_Finalize ends the library */
			b2_h5_poisoned = 1;
		}
		out->file = -1;
		error = b2_agree(error, out->comm);
	}
	if (!error && comm_rank(out->comm) == 0 && out->before_publish)
		error = out->before_publish(out->publish_arg, out->tmp_path);
	if (!error && comm_rank(out->comm) == 0) {
		struct stat st;
		/* blocks reserved past what HDF5 kept (it may free space at close) */
		if (stat(out->tmp_path, &st) == 0)
			(void)!truncate(out->tmp_path, st.st_size);
		if (fsync_path(out->tmp_path) != 0)
			error = b2_err(B2_EIO, "cannot write %s: fsync: %s", out->path, strerror(errno));
		else if (rename(out->tmp_path, out->path) != 0)
			error = b2_err(B2_EIO, "cannot write %s: renaming %s to it: %s", out->path,
			               out->tmp_path, strerror(errno));
		else
			b2_fsync_dir(out->path);
	}
	error = b2_agree(error, out->comm);
	if (error) {
		give_up(out);
		return error;
	}
	b2_tmp_forget(out->tmp_path);
	free(out->path);
	free(out->tmp_path);
	out->path = out->tmp_path = NULL;
	return error;
}

/* ---- attributes --------------------------------------------------------- */

static int attr_put(hid_t obj, const char *name, hid_t type, hid_t space, const void *val)
{
	int error = 0;
	if (H5Aexists(obj, name) > 0)
		H5Adelete(obj, name);
	hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0 || H5Awrite(a, type, val) < 0)
		error = b2_err(B2_EIO, "cannot write attribute %s", name);
	if (a >= 0)
		H5Aclose(a);
	return error;
}

/* n values as a 1-D attribute, or one value as a scalar */
static int attr_put_vec(hid_t obj, const char *name, hid_t type, const void *val, size_t n,
                        int scalar)
{
	hsize_t d = n;
	hid_t s = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &d, NULL);
	if (s < 0)
		return b2_err(B2_EIO, "cannot write attribute %s", name);
	int error = attr_put(obj, name, type, s, val);
	H5Sclose(s);
	return error;
}

int b2_attr_put_i64(hid_t obj, const char *name, int64_t v) { return attr_put_vec(obj, name, H5T_NATIVE_INT64, &v, 1, 1); }
int b2_attr_put_u64(hid_t obj, const char *name, uint64_t v) { return attr_put_vec(obj, name, H5T_NATIVE_UINT64, &v, 1, 1); }
int b2_attr_put_f64(hid_t obj, const char *name, double v) { return attr_put_vec(obj, name, H5T_NATIVE_DOUBLE, &v, 1, 1); }

int b2_attr_put_i64v(hid_t obj, const char *name, const int64_t *v, size_t n)
{
	return attr_put_vec(obj, name, H5T_NATIVE_INT64, v, n, 0);
}

int b2_attr_put_f64v(hid_t obj, const char *name, const double *v, size_t n)
{
	return attr_put_vec(obj, name, H5T_NATIVE_DOUBLE, v, n, 0);
}

int b2_attr_put_str(hid_t obj, const char *name, const char *val)
{
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, strlen(val) + 1);
	H5Tset_strpad(t, H5T_STR_NULLTERM);
	hid_t s = H5Screate(H5S_SCALAR);
	int error = attr_put(obj, name, t, s, val);
	H5Sclose(s);
	H5Tclose(t);
	return error;
}

int b2_attr_put_strv(hid_t obj, const char *name, const char *const *val, size_t n)
{
	int error = 0;
	size_t w = 1;
	char *buf = NULL;
	for (size_t i = 0; i < n; i++)
		if (strlen(val[i]) + 1 > w)
			w = strlen(val[i]) + 1;
	B2_TRY(b2_calloc(&buf, n, w, "string attribute"));
	for (size_t i = 0; i < n; i++)
		memcpy(buf + i * w, val[i], strlen(val[i]));
	hid_t t = H5Tcopy(H5T_C_S1);
	H5Tset_size(t, w);
	H5Tset_strpad(t, H5T_STR_NULLTERM);
	hsize_t d = n;
	hid_t s = H5Screate_simple(1, &d, NULL);
	error = attr_put(obj, name, t, s, buf);
	H5Sclose(s);
	H5Tclose(t);
done:
	free(buf);
	return error;
}

/* ---- datasets ----------------------------------------------------------- */

int b2_dset_create(hid_t *dset, hid_t loc, const char *name, hid_t type, int rank,
                   const uint64_t *dims, uint64_t chunk_rows, int deflate)
{
	int error = 0;
	hsize_t d[2] = {dims[0], rank > 1 ? dims[1] : 1}, c[2];
	hid_t s = H5Screate_simple(rank, d, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	*dset = -1;
	if (chunk_rows > 0 && d[0] > 0) {
		c[0] = chunk_rows < d[0] ? chunk_rows : d[0];
		c[1] = d[1];
		H5Pset_chunk(dcpl, rank, c);
		if (deflate > 0) {
			H5Pset_shuffle(dcpl);
			H5Pset_deflate(dcpl, (unsigned)deflate);
		}
	}
	/* no fill: every element is written, and a fill pass would cost a write */
	H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
	if (deflate <= 0)
		H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
	*dset = H5Dcreate2(loc, name, type, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (*dset < 0)
		error = b2_h5_write_err(loc, "creating dataset %s failed", name);
	H5Pclose(dcpl);
	H5Sclose(s);
	return error;
}

int b2_dset_open(hid_t *dset, hid_t loc, const char *name, hid_t type, int rank, uint64_t cols,
                 const char *where)
{
	int error = 0;
	hid_t s = -1, t = -1;
	hsize_t d[2] = {0, 0};
	B2_TRY(b2_dset_open_any(dset, loc, name, where));
	s = H5Dget_space(*dset);
	t = H5Dget_type(*dset);
	if (s < 0 || t < 0 || H5Sget_simple_extent_ndims(s) != rank)
		B2_FAIL0(B2_EDATA, "%s: dataset %s should have %d dimension(s)", where, name, rank);
	H5Sget_simple_extent_dims(s, d, NULL);
	if (rank == 2 && d[1] != cols)
		B2_FAIL0(B2_EDATA, "%s: dataset %s should have %llu columns, has %llu", where, name,
		         (unsigned long long)cols, (unsigned long long)d[1]);
	if (H5Tget_class(t) != H5Tget_class(type) || H5Tget_size(t) != H5Tget_size(type))
		B2_FAIL0(B2_EDATA, "%s: dataset %s has the wrong element type (expected %zu-byte %s)",
		         where, name, H5Tget_size(type),
		         H5Tget_class(type) == H5T_FLOAT ? "floats" : "integers");
done:
	if (s >= 0) H5Sclose(s);
	if (t >= 0) H5Tclose(t);
	if (error && *dset >= 0) {
		H5Dclose(*dset);
		*dset = -1;
	}
	return error;
}

/* The file and the path of an open object, for messages ("?" if unknown). */
static void obj_where(hid_t obj, char *file, size_t fn, char *name, size_t nn)
{
	if (H5Fget_name(obj, file, fn) <= 0)
		snprintf(file, fn, "?");
	if (H5Iget_name(obj, name, nn) <= 0)
		snprintf(name, nn, "?");
}

int b2_dset_rows(uint64_t *rows, hid_t dset)
{
	hsize_t d[2] = {0, 0};
	hid_t s = H5Dget_space(dset);
	if (s < 0) {
		char file[4096], name[256];
		obj_where(dset, file, sizeof file, name, sizeof name);
		return b2_err(B2_EDATA, "%s: cannot read the shape of dataset %s", file, name);
	}
	H5Sget_simple_extent_dims(s, d, NULL);
	H5Sclose(s);
	*rows = d[0];
	return 0;
}

/* Collective transfer only means something on a file opened through MPI-IO. */
static int file_is_mpio(hid_t obj)
{
	hid_t f = H5Iget_file_id(obj), fapl = f >= 0 ? H5Fget_access_plist(f) : -1;
	int mpio = fapl >= 0 && H5Pget_driver(fapl) == H5FD_MPIO;
	if (fapl >= 0)
		H5Pclose(fapl);
	if (f >= 0)
		H5Fclose(f);
	return mpio;
}

static int rows_io(hid_t dset, hid_t memtype, uint64_t row0, uint64_t nrows, void *buf,
                   int collective, int write)
{
	int error = 0;
	hsize_t d[2] = {0, 1}, start[2] = {row0, 0}, cnt[2];
	hid_t fs = H5Dget_space(dset), ms = -1, dxpl = H5Pcreate(H5P_DATASET_XFER);
	int rank = H5Sget_simple_extent_ndims(fs);
	H5Sget_simple_extent_dims(fs, d, NULL);
	if (rank == 1)
		d[1] = 1;
	cnt[0] = nrows;
	cnt[1] = d[1];
	if (row0 + nrows > d[0])
		B2_FAIL(B2_EFAIL, "internal: rows %llu..%llu outside a dataset of %llu rows",
		        (unsigned long long)row0, (unsigned long long)(row0 + nrows), (unsigned long long)d[0]);
	if (d[0] == 0) /* an empty dataset: nothing to move, on any rank */
		goto done;
	if (nrows == 0) {
		H5Sselect_none(fs);
		ms = H5Scopy(fs);
		H5Sselect_none(ms);
	} else {
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
		ms = H5Screate_simple(rank, cnt, NULL);
	}
	if (collective && file_is_mpio(dset))
		H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
	herr_t rc = write ? H5Dwrite(dset, memtype, ms, fs, dxpl, buf)
	                  : H5Dread(dset, memtype, ms, fs, dxpl, buf);
	if (rc < 0 && write) {
		char name[256] = "?";
		H5Iget_name(dset, name, sizeof name);
		error = b2_h5_write_err(dset, "dataset %s, rows %llu..%llu", name, (unsigned long long)row0,
		                        (unsigned long long)(row0 + nrows));
	} else if (rc < 0) {
		char file[4096], name[256];
		obj_where(dset, file, sizeof file, name, sizeof name);
		error = b2_err(B2_EDATA, "%s: cannot read rows %llu..%llu of %s (truncated file?)", file,
		               (unsigned long long)row0, (unsigned long long)(row0 + nrows), name);
	}
done:
	if (ms >= 0) H5Sclose(ms);
	H5Sclose(fs);
	H5Pclose(dxpl);
	return error;
}

int b2_dset_write_rows(hid_t dset, hid_t memtype, uint64_t row0, uint64_t nrows, const void *buf,
                       int collective)
{
	return rows_io(dset, memtype, row0, nrows, (void *)buf, collective, 1);
}

int b2_dset_read_rows(hid_t dset, hid_t memtype, uint64_t row0, uint64_t nrows, void *buf,
                      int collective)
{
	return rows_io(dset, memtype, row0, nrows, buf, collective, 0);
}

int b2_dset_put_small(hid_t loc, const char *name, hid_t type, int rank, const uint64_t *dims,
                      const void *buf)
{
	int error = 0;
	hid_t d = -1;
	B2_TRY(b2_dset_create(&d, loc, name, type, rank, dims, 0, 0));
	/* independent: a collective write that fails on rank 0 would leave the
	 * others inside it */
	if (b2_rank == 0)
		error = b2_dset_write_rows(d, type, 0, dims[0], buf, 0);
done:
	/* the others learn of rank 0's failure before their next collective
	 * call, which it would not join */
	error = b2_agree(error, MPI_COMM_WORLD);
	if (d >= 0 && !error && H5Dclose(d) < 0) /* on error, given up with the file */
		error = b2_h5_write_err(loc, "finishing dataset %s failed", name);
	return b2_agree(error, MPI_COMM_WORLD);
}
