/* h5input.c — opening an HDF5 input, and what it may hold. Every rank
 * checks that it can open the file; HDF5's signature is looked for where
 * HDF5 looks (after a user block too). Its datasets are read only from the
 * file itself: an external link, external raw-data files or a virtual
 * dataset would make bfs2d open another file, which may be a FIFO (a read
 * that waits forever) or a device; they are refused, naming the object. A
 * dataset stored with a filter this HDF5 lacks is named as such. Its
 * attributes are read checked: an integer never clamped, a string bounded,
 * a run id well formed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "h5util.h"

/* The external link last refused, for the message of the refused open. */
static char elink_target[1024];

static herr_t deny_elink(const char *parent_file, const char *parent_group, const char *child_file,
                         const char *child_obj, unsigned *acc_flags, hid_t fapl, void *op_data)
{
	(void)parent_file, (void)parent_group, (void)acc_flags, (void)fapl, (void)op_data;
	snprintf(elink_target, sizeof elink_target, "%s:%s", child_file ? child_file : "?",
	         child_obj ? child_obj : "?");
	return -1; /* before the target file is opened */
}

hid_t b2_h5_lapl(void)
{
	static hid_t lapl = -1;
	if (lapl < 0) {
		/* a dataset-access list is a link-access list too: one serves
		 * H5Lexists and H5Dopen2 */
		lapl = H5Pcreate(H5P_DATASET_ACCESS);
		if (lapl >= 0 && H5Pset_elink_cb(lapl, deny_elink, NULL) < 0) {
			H5Pclose(lapl);
			lapl = -1;
		}
	}
	return lapl >= 0 ? lapl : H5P_DEFAULT;
}

/* The dataset's storage: in this file, through filters this HDF5 has. */
static int check_storage(hid_t dset, const char *name, const char *where)
{
	int error = 0;
	hid_t dcpl = H5Dget_create_plist(dset);
	if (dcpl < 0)
		B2_FAIL0(B2_EDATA, "%s: cannot read how dataset %s is stored", where, name);
	if (H5Pget_layout(dcpl) == H5D_VIRTUAL)
		B2_FAIL0(B2_EDATA, "%s: dataset %s is a virtual dataset (its data lies in other files): "
		         "bfs2d reads only data stored in the file itself", where, name);
	if (H5Pget_external_count(dcpl) > 0) {
		char ext[256] = "?";
		off_t off;
		hsize_t size;
		H5Pget_external(dcpl, 0, sizeof ext, ext, &off, &size);
		B2_FAIL0(B2_EDATA, "%s: dataset %s keeps its data in external files (%s, ...): bfs2d "
		         "reads only data stored in the file itself", where, name, ext);
	}
	int nf = H5Pget_nfilters(dcpl);
	for (int i = 0; i < nf; i++) {
		unsigned flags = 0, cfg = 0;
		size_t ncd = 0;
		char fname[128] = "";
		H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, NULL, sizeof fname, fname, &cfg);
		if (id < 0)
			B2_FAIL0(B2_EDATA, "%s: cannot read the filters of dataset %s", where, name);
		if (H5Zfilter_avail(id) <= 0)
			B2_FAIL0(B2_EDATA, "%s: dataset %s is stored with HDF5 filter %d%s%s%s, which this build "
			         "of HDF5 lacks: rewrite it without that filter (or with deflate)", where, name,
			         (int)id, fname[0] ? " (" : "", fname, fname[0] ? ")" : "");
	}
done:
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return error;
}

int b2_dset_open_any(hid_t *dset, hid_t loc, const char *name, const char *where)
{
	int error = 0;
	hid_t lapl = b2_h5_lapl();
	*dset = -1;
	elink_target[0] = 0;
	htri_t has = H5Lexists(loc, name, lapl);
	if (has > 0)
		*dset = H5Dopen2(loc, name, lapl);
	if (*dset < 0 && elink_target[0])
		B2_FAIL0(B2_EDATA, "%s: dataset %s is reached through an external link (to %s): bfs2d "
		         "reads only objects stored in the file itself", where, name, elink_target);
	if (has <= 0)
		B2_FAIL0(B2_EDATA, "%s: dataset %s is missing", where, name);
	if (*dset < 0)
		B2_FAIL0(B2_EDATA, "%s: cannot open dataset %s", where, name);
	B2_TRY(check_storage(*dset, name, where));
done:
	if (error && *dset >= 0) {
		H5Dclose(*dset);
		*dset = -1;
	}
	return error;
}

/* ---- attributes ------------------------------------------------------- */

int b2_attr_exists(hid_t obj, const char *name) { return H5Aexists(obj, name) > 0; }

/* Reads n values of attribute a (stored type t) as memtype. HDF5 clamps an
 * integer that memtype cannot hold (a uint64 above INT64_MAX read as int64,
 * a negative one as uint64): those are read with the stored sign and
 * refused, naming the value, never clamped. */
static int int_read(void *out, size_t n, hid_t a, hid_t t, hid_t memtype, const char *name,
                    const char *where)
{
	int want_u = H5Tequal(memtype, H5T_NATIVE_UINT64) > 0, want_i = H5Tequal(memtype, H5T_NATIVE_INT64) > 0;
	int stored_u = H5Tget_class(t) == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_NONE;
	if (!(want_u || want_i) || H5Tget_class(t) != H5T_INTEGER || stored_u == want_u) {
		if (H5Aread(a, memtype, out) < 0)
			return b2_err0(B2_EDATA, "%s: cannot read attribute '%s'", where, name);
		return 0;
	}
	/* both 64-bit: the other sign's read fills the same buffer */
	if (H5Aread(a, stored_u ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64, out) < 0)
		return b2_err0(B2_EDATA, "%s: cannot read attribute '%s'", where, name);
	for (size_t i = 0; i < n; i++) {
		uint64_t u = ((const uint64_t *)out)[i];
		int64_t v = ((const int64_t *)out)[i];
		if (stored_u && u > (uint64_t)INT64_MAX)
			return b2_err0(B2_EDATA, "%s: attribute '%s' is %llu, beyond the largest value %s "
			               "takes (%lld)", where, name, (unsigned long long)u, b2_prog,
			               (long long)INT64_MAX);
		if (!stored_u && v < 0)
			return b2_err0(B2_EDATA, "%s: attribute '%s' is %lld, expected a value >= 0", where,
			               name, (long long)v);
	}
	return 0;
}

static int attr_get(void *out, size_t n, hid_t obj, const char *name, hid_t memtype,
                    H5T_class_t cls, const char *where)
{
	int error = 0;
	hid_t a = -1, s = -1, t = -1;
	if (H5Aexists(obj, name) <= 0)
		B2_FAIL0(B2_EDATA, "%s: attribute '%s' is missing", where, name);
	a = H5Aopen(obj, name, H5P_DEFAULT);
	s = a >= 0 ? H5Aget_space(a) : -1;
	t = a >= 0 ? H5Aget_type(a) : -1;
	if (a < 0 || s < 0 || t < 0)
		B2_FAIL0(B2_EDATA, "%s: cannot read attribute '%s'", where, name);
	hssize_t np = H5Sget_simple_extent_npoints(s);
	if (H5Tget_class(t) != cls || np != (hssize_t)n)
		B2_FAIL0(B2_EDATA, "%s: attribute '%s' has the wrong type or size (expected %zu %s)",
		         where, name, n, cls == H5T_FLOAT ? "float" : "integer");
	B2_TRY(int_read(out, n, a, t, memtype, name, where));
done:
	if (t >= 0) H5Tclose(t);
	if (s >= 0) H5Sclose(s);
	if (a >= 0) H5Aclose(a);
	return error;
}

int b2_attr_get_i64(int64_t *out, hid_t obj, const char *name, const char *where)
{
	return attr_get(out, 1, obj, name, H5T_NATIVE_INT64, H5T_INTEGER, where);
}
int b2_attr_get_u64(uint64_t *out, hid_t obj, const char *name, const char *where)
{
	return attr_get(out, 1, obj, name, H5T_NATIVE_UINT64, H5T_INTEGER, where);
}
int b2_attr_get_f64(double *out, hid_t obj, const char *name, const char *where)
{
	return attr_get(out, 1, obj, name, H5T_NATIVE_DOUBLE, H5T_FLOAT, where);
}
int b2_attr_get_i64v(int64_t *out, size_t n, hid_t obj, const char *name, const char *where)
{
	return attr_get(out, n, obj, name, H5T_NATIVE_INT64, H5T_INTEGER, where);
}
int b2_attr_get_f64v(double *out, size_t n, hid_t obj, const char *name, const char *where)
{
	return attr_get(out, n, obj, name, H5T_NATIVE_DOUBLE, H5T_FLOAT, where);
}

/* A memory string type of `size` bytes (or H5T_VARIABLE) in the character set
 * of the stored type: HDF5 converts no string between ASCII and UTF-8, and
 * h5py stores str values as UTF-8 variable-length strings. */
static hid_t str_memtype(hid_t stored, size_t size)
{
	hid_t mt = H5Tcopy(H5T_C_S1);
	H5T_cset_t cset = H5Tget_cset(stored);
	if (mt < 0)
		return mt;
	if (H5Tset_size(mt, size) < 0 || (cset >= 0 && H5Tset_cset(mt, cset) < 0) ||
	    (size != H5T_VARIABLE && H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0)) {
		H5Tclose(mt);
		return -1;
	}
	return mt;
}

int b2_attr_get_strv(char ***out, size_t *n, hid_t obj, const char *name, const char *where)
{
	int error = 0;
	hid_t a = -1, s = -1, t = -1, mt = -1;
	char *buf = NULL, **vbuf = NULL, **list = NULL;
	hssize_t np = 0;
	int vl = 0;
	*out = NULL;
	*n = 0;
	if (H5Aexists(obj, name) <= 0)
		B2_FAIL0(B2_EDATA, "%s: attribute '%s' is missing", where, name);
	a = H5Aopen(obj, name, H5P_DEFAULT);
	s = a >= 0 ? H5Aget_space(a) : -1;
	t = a >= 0 ? H5Aget_type(a) : -1;
	if (s < 0 || t < 0 || H5Tget_class(t) != H5T_STRING)
		B2_FAIL0(B2_EDATA, "%s: attribute '%s' is not a string or a list of strings", where, name);
	np = H5Sget_simple_extent_npoints(s);
	if (np <= 0 || np > 1000000)
		B2_FAIL0(B2_EDATA, "%s: attribute '%s' has %lld strings", where, name, (long long)np);
	vl = H5Tis_variable_str(t) > 0;
	size_t sz = vl ? 0 : H5Tget_size(t);
	if (!vl && (sz == 0 || sz > (size_t)16 << 20)) /* before the buffer is made */
		B2_FAIL0(B2_EDATA, "%s: attribute '%s' has strings of %zu bytes, more than a bfs2d "
		         "string attribute holds (%d)", where, name, sz, B2_ATTR_STR_MAX);
	mt = str_memtype(t, vl ? H5T_VARIABLE : sz + 1);
	if (mt < 0)
		B2_FAIL0(B2_EDATA, "%s: cannot read attribute '%s'", where, name);
	B2_TRY(b2_calloc(&list, (size_t)np, sizeof *list, name));
	if (vl) {
		B2_TRY(b2_calloc(&vbuf, (size_t)np, sizeof *vbuf, name));
		if (H5Aread(a, mt, vbuf) < 0) {
			free(vbuf); /* nothing to reclaim */
			vbuf = NULL;
			B2_FAIL0(B2_EDATA, "%s: cannot read attribute '%s'", where, name);
		}
		for (hssize_t i = 0; i < np && !error; i++)
			if ((list[i] = strdup(vbuf[i] ? vbuf[i] : "")) == NULL)
				error = b2_err(B2_EIO, "out of host memory for attribute '%s'", name);
		H5Dvlen_reclaim(mt, s, H5P_DEFAULT, vbuf);
		if (error)
			goto done;
	} else {
		/* one byte more than stored per string, NUL-terminated: a NULLPAD
		 * string that fills its size (as h5py writes them) keeps its last
		 * character */
		B2_TRY(b2_calloc(&buf, (size_t)np, sz + 1, name));
		if (H5Aread(a, mt, buf) < 0)
			B2_FAIL0(B2_EDATA, "%s: cannot read attribute '%s'", where, name);
		for (hssize_t i = 0; i < np; i++)
			if ((list[i] = strdup(buf + (size_t)i * (sz + 1))) == NULL)
				B2_FAIL(B2_EIO, "out of host memory for attribute '%s'", name);
	}
	for (hssize_t i = 0; i < np; i++)
		B2_TRY(b2_input_str_ok(list[i], name, where));
	*out = list;
	*n = (size_t)np;
	list = NULL;
done:
	if (list) {
		for (hssize_t i = 0; i < np; i++)
			free(list[i]);
		free(list);
	}
	free(buf);
	free(vbuf);
	if (mt >= 0) H5Tclose(mt);
	if (t >= 0) H5Tclose(t);
	if (s >= 0) H5Sclose(s);
	if (a >= 0) H5Aclose(a);
	return error;
}

int b2_attr_get_str(char **out, hid_t obj, const char *name, const char *where)
{
	int error = 0;
	char **list = NULL;
	size_t n = 0;
	*out = NULL;
	B2_TRY(b2_attr_get_strv(&list, &n, obj, name, where));
	if (n != 1)
		B2_FAIL0(B2_EDATA, "%s: attribute '%s' has %zu strings, expected one", where, name, n);
	*out = list[0];
	list[0] = NULL;
done:
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return error;
}

int b2_attr_opt_i64(int64_t *out, int *present, hid_t obj, const char *name, const char *where,
                    int64_t dflt)
{
	int has = b2_attr_exists(obj, name);
	*out = dflt;
	if (present)
		*present = has;
	return has ? b2_attr_get_i64(out, obj, name, where) : 0;
}

int b2_attr_opt_f64(double *out, int *present, hid_t obj, const char *name, const char *where,
                    double dflt)
{
	int has = b2_attr_exists(obj, name);
	*out = dflt;
	if (present)
		*present = has;
	return has ? b2_attr_get_f64(out, obj, name, where) : 0;
}

int b2_attr_opt_str(char **out, hid_t obj, const char *name, const char *where)
{
	*out = NULL;
	return b2_attr_exists(obj, name) ? b2_attr_get_str(out, obj, name, where) : 0;
}

int b2_attr_copy(hid_t dst, hid_t src, const char *name, const char *where)
{
	int error = 0;
	hid_t a = -1, t = -1;
	H5T_class_t cls;
	if (!b2_attr_exists(src, name))
		return 0;
	a = H5Aopen(src, name, H5P_DEFAULT);
	t = a >= 0 ? H5Aget_type(a) : -1;
	if (t < 0)
		B2_FAIL0(B2_EDATA, "%s: cannot read attribute '%s'", where, name);
	cls = H5Tget_class(t);
	if (cls == H5T_INTEGER && H5Tget_sign(t) == H5T_SGN_NONE) {
		uint64_t x;
		B2_TRY(b2_attr_get_u64(&x, src, name, where));
		B2_TRY(b2_attr_put_u64(dst, name, x));
	} else if (cls == H5T_INTEGER) {
		int64_t x;
		B2_TRY(b2_attr_get_i64(&x, src, name, where));
		B2_TRY(b2_attr_put_i64(dst, name, x));
	} else if (cls == H5T_FLOAT) {
		double x;
		B2_TRY(b2_attr_get_f64(&x, src, name, where));
		B2_TRY(b2_attr_put_f64(dst, name, x));
	} else {
		B2_FAIL0(B2_EDATA, "%s: attribute '%s' is not a number", where, name);
	}
done:
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return error;
}

/* ---- strings ------------------------------------------------------------ */

/* Whether an attribute named name holds a run id: run_id, bfs_run_id, ... */
static int is_run_id_name(const char *name)
{
	size_t n = strlen(name);
	return n >= 6 && strcmp(name + n - 6, "run_id") == 0;
}

int b2_input_str_ok(const char *s, const char *name, const char *where)
{
	size_t n = strlen(s);
	if (n > B2_ATTR_STR_MAX)
		return b2_err0(B2_EDATA, "%s: attribute '%s' holds %zu bytes, more than a bfs2d string "
		               "attribute holds (%d)", where, name, n, B2_ATTR_STR_MAX);
	if (!is_run_id_name(name))
		return 0;
	int ok = n == B2_RUN_ID_SIZE - 1;
	for (size_t i = 0; ok && i < n; i++)
		ok = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
	if (!ok)
		return b2_err0(B2_EDATA, "%s: attribute '%s' is '%s', expected a run id: %d lowercase "
		               "hex digits", where, name, b2_text(n > 80 ? "(too long to show)" : s),
		               B2_RUN_ID_SIZE - 1);
	return 0;
}

/* ---- opening ------------------------------------------------------------ */

int b2_h5_format(char *out, size_t outsz, hid_t file, const char *where)
{
	out[0] = 0;
	if (H5Aexists(file, "format") <= 0)
		return 0;
	char *s = NULL;
	int error = b2_attr_get_str(&s, file, "format", where);
	if (!error)
		snprintf(out, outsz, "%s", s);
	free(s);
	return error;
}

/* The newest format_version of each bfs2d format that this build reads
 * (docs/FORMATS.md); writers pass the same number to b2_h5_create. */
static const struct {
	const char *format;
	int64_t version;
} known_formats[] = {
	{"bfs2d-edges", 1}, {"bfs2d-partition", 1}, {"bfs2d-bfs", 1}, {"bfs2d-validation", 1},
};

int64_t b2_format_version(const char *format)
{
	for (size_t k = 0; k < sizeof known_formats / sizeof *known_formats; k++)
		if (!strcmp(format, known_formats[k].format))
			return known_formats[k].version;
	return 0;
}

/* A file of a known format whose format_version is newer than this build
 * reads is refused: its layout may mean something else. Files without the
 * attribute (written by other tools) are taken as version 1. */
static int check_version(hid_t file, const char *path, const char *fmt)
{
	int64_t known = b2_format_version(fmt), v = 1;
	int error = 0;
	if (known == 0)
		return 0;
	B2_TRY(b2_attr_opt_i64(&v, NULL, file, "format_version", path, 1));
	if (v < 1)
		B2_FAIL0(B2_EDATA, "%s: attribute format_version is %lld, expected a version >= 1",
		         path, (long long)v);
	if (v > known)
		B2_FAIL0(B2_EDATA, "%s: %s format_version %lld is newer than this %s reads (%lld at most): "
		         "it needs a newer bfs2d", path, fmt, (long long)v, b2_prog, (long long)known);
done:
	return error;
}

/* Whether fd holds an HDF5 signature where HDF5 looks for one: at offset 0,
 * or after a user block, at 512, 1024, 2048 ... bytes. */
static int has_signature(int fd, off_t size)
{
	char sig[8];
	for (off_t at = 0; at + 8 <= size; at = at ? 2 * at : 512)
		if (pread(fd, sig, 8, at) == 8 && memcmp(sig, "\211HDF\r\n\032\n", 8) == 0)
			return 1;
	return 0;
}

/* What stands in the way of reading path as HDF5 on this rank: 0 nothing,
 * B2_EIO it cannot be opened (*err the errno), B2_EUSAGE not a regular file
 * (*mode), B2_EDATA no HDF5 signature. A FIFO or a device is refused before
 * it is opened: opening one can wait for a writer, or act on the device. */
static int open_problem(const char *path, int *err, unsigned *mode)
{
	struct stat st;
	int fd, why = 0;
	*err = 0;
	if (stat(path, &st) != 0)
		return *err = errno, B2_EIO;
	if (!S_ISREG(st.st_mode))
		return *mode = st.st_mode, B2_EUSAGE;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0)
		return *err = errno, B2_EIO;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		why = B2_EUSAGE, *mode = st.st_mode;
	else if (!has_signature(fd, st.st_size))
		why = B2_EDATA;
	close(fd);
	return why;
}

/* Every rank looks at the file itself: a file missing or unreadable on one
 * rank's node is named with that rank and the reason. Rank 0 speaks for
 * the ranks that see what it sees; another rank only for what differs. */
static int check_openable(const char *path, MPI_Comm comm, const char *expect)
{
	int err = 0, rank = 0, why0;
	unsigned mode = 0;
	MPI_Comm_rank(comm, &rank);
	int why = open_problem(path, &err, &mode);
	why0 = why;
	MPI_Bcast(&why0, 1, MPI_INT, 0, comm);
	if (why && (rank == 0 || why != why0)) {
		if (why == B2_EIO)
			b2_err(B2_EIO, "cannot open %s: %s", path, strerror(err));
		else if (why == B2_EUSAGE)
			b2_input_mode_ok(path, mode);
		else
			b2_err(B2_EDATA, "%s: not an HDF5 file (expected a bfs2d %s file)", path,
			       expect ? expect : "HDF5");
	} else if (why) {
		b2_error_seen(why);
	}
	return b2_agree(why, comm);
}

int b2_h5_open(hid_t *file, const char *path, MPI_Comm comm, const char *expect)
{
	int error = 0, rank = 0;
	hid_t fapl = -1;
	*file = -1;
	MPI_Comm_rank(comm, &rank);
	B2_TRY(check_openable(path, comm, expect));
	fapl = b2_h5_fapl(comm);
	if (fapl < 0)
		B2_FAIL(B2_EIO, "cannot set up HDF5 file access for %s", path);
	*file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
	int bad = *file < 0, bad0 = bad;
	MPI_Bcast(&bad0, 1, MPI_INT, 0, comm);
	if (bad && (rank == 0 || !bad0)) {
		char why[256];
		b2_h5_reason(why, sizeof why, NULL);
		b2_err(B2_EDATA, "%s: cannot be read as HDF5 (truncated or corrupt?): %s", path, why);
	}
	error = b2_agree(bad ? B2_EDATA : 0, comm);
	if (error)
		goto done;
	char fmt[128];
	B2_TRY(b2_h5_format(fmt, sizeof fmt, *file, path));
	if (expect && strcmp(fmt, expect) != 0)
		B2_FAIL0(B2_EDATA, "%s: not a %s file (its format attribute is '%s')", path, expect,
		         fmt[0] ? fmt : "(none)");
	B2_TRY(check_version(*file, path, fmt));
done:
	if (fapl >= 0)
		H5Pclose(fapl);
	if (error && *file >= 0) {
		H5Fclose(*file);
		*file = -1;
	}
	return error;
}
