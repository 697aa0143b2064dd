/* h5util.h — parallel HDF5 helpers shared by every stage.
 *
 * Outputs are atomic (after Redis): b2_h5_create makes a temporary file
 * beside the target (".NAME.tmp-HOST-PID", known to every rank), b2_h5_commit
 * flushes and closes it on all ranks, fsyncs and renames it only if every
 * rank succeeded. On failure the file is given up unclosed and removed. A
 * signal on any rank removes the temporary; one left by a SIGKILL is removed
 * by the next run for the same target on the same host. */
#ifndef B2_H5UTIL_H
#define B2_H5UTIL_H

#include <hdf5.h>
#include "b2.h"

typedef struct b2_h5out {
	hid_t file;
	char *path;     /* final name */
	char *tmp_path; /* name while being written */
	MPI_Comm comm;
	/* Optional, on rank 0 of comm: called by b2_h5_commit once the file is
	 * closed, before it is published, with the temporary's name; for what
	 * one rank adds through the POSIX driver (a filtered dataset, which
	 * parallel HDF5 cannot write). Its error gives the file up. */
	int (*before_publish)(void *arg, const char *tmp_path);
	void *publish_arg;
} b2_h5out;

/* Collective over comm. With one rank in comm the file is written through the
 * POSIX driver (so deflate works); with several, through MPI-IO. Writes the
 * root attributes format, format_version and created_by. Fails with B2_EIO
 * and a message naming the directory when it cannot be written. */
int b2_h5_create(b2_h5out *out, const char *path, MPI_Comm comm,
                 const char *format, int format_version);
/* Collective. Agrees on `error` across out->comm; if all are 0, flushes,
 * closes, fsyncs and renames (each checked, a failure named with its
 * reason); else, or when one of those fails, gives the file up: it is not
 * closed (b2_h5_poisoned) and its temporary is removed. Returns the agreed
 * code. A no-op when create failed (it cleaned up itself). */
int b2_h5_commit(b2_h5out *out, int error);
/* Collective: reserves disk blocks for the whole file as allocated so far
 * (datasets made with early allocation included: b2_dset_create without
 * deflate), so that writes inside it cannot find the disk full later, in
 * the middle of a collective write whose failure on one rank would leave
 * the others inside it. A full disk fails here, B2_EIO naming the file. A
 * no-op where the file system cannot reserve. b2_h5_commit reserves before
 * its flush; call it after creating the big datasets. */
int b2_h5_reserve(b2_h5out *out);
/* Collective: closes a dataset or group of the output, checked (a chunk
 * flush can fail on a full disk). Agrees on `error` first; when it is not 0
 * the object is only forgotten (the file is given up). Sets *obj = -1 and
 * returns the agreed code, or B2_EIO naming the file, object and reason. */
int b2_h5_close(b2_h5out *out, hid_t *obj, int error);

/* Prints "cannot write FILE: WHAT: REASON" for a failed HDF5 write to obj
 * (FILE: the output's name, not its temporary's; REASON from HDF5's error
 * stack) and returns B2_EIO. */
int b2_h5_write_err(hid_t obj, const char *fmt, ...) B2_PRINTF(2, 3);
/* The reason under the newest HDF5 failure (an errno, what MPI-IO said;
 * for an output path, a full disk); "HDF5 gave no reason" when none. */
void b2_h5_reason(char *buf, size_t n, const char *path);
/* A file-access list for comm: MPI-IO with several ranks (collective
 * metadata), POSIX with one. */
hid_t b2_h5_fapl(MPI_Comm comm);
/* Fails with B2_EIO naming path, the need and what is free when the
 * directory of path has fewer than `bytes` bytes free (checked before
 * writing, so a full disk is reported before anything is written). */
int b2_check_space(const char *path, uint64_t bytes);
/* Set when an output was given up or its close failed: HDF5 then cannot end
 * cleanly, and b2_finish exits without MPI_Finalize. */
extern int b2_h5_poisoned;

/* Collective over comm. Opens read-only; B2_EIO if the file cannot be opened
 * on some rank (missing, no permission: that rank and the reason named),
 * B2_EUSAGE if it is not a regular file, B2_EDATA if it is not HDF5 (no
 * signature at 0 or after a user block of 512 * 2^k bytes) / truncated, if its
 * `format` attribute is not expect_format (the message names what was found;
 * expect_format NULL: any format), or if its `format_version` is newer than
 * b2_format_version(format) (both numbers named). */
int b2_h5_open(hid_t *file, const char *path, MPI_Comm comm, const char *expect_format);
/* Reads `format` of an open file (fixed- or variable-length string); ""
 * when absent. Messages name `where`, the file's name. */
int b2_h5_format(char *out, size_t outsz, hid_t file, const char *where);
/* The newest format_version of a bfs2d format this build reads; 0 for a
 * format it does not know. */
int64_t b2_format_version(const char *format);

/* A string read from an input's attribute (every b2_attr_get_str*): at most
 * B2_ATTR_STR_MAX bytes (an output copying it must be able to store it), and
 * an attribute whose name ends in run_id holds 32 lowercase hex digits;
 * else B2_EDATA naming `where` and the attribute. */
#define B2_ATTR_STR_MAX 16384
int b2_input_str_ok(const char *s, const char *name, const char *where);

/* Attributes on any object (file root included). Writes are collective and
 * must get the same value on every rank. Reads of a missing or mistyped
 * attribute fail with B2_EDATA naming `where` (usually the file's name). */
int b2_attr_put_str(hid_t obj, const char *name, const char *val);
int b2_attr_put_i64(hid_t obj, const char *name, int64_t val);
int b2_attr_put_u64(hid_t obj, const char *name, uint64_t val);
int b2_attr_put_f64(hid_t obj, const char *name, double val);
int b2_attr_put_i64v(hid_t obj, const char *name, const int64_t *val, size_t n);
int b2_attr_put_f64v(hid_t obj, const char *name, const double *val, size_t n);
/* A list of strings, stored as one fixed-length string array. */
int b2_attr_put_strv(hid_t obj, const char *name, const char *const *val, size_t n);
int b2_attr_exists(hid_t obj, const char *name);
int b2_attr_get_i64(int64_t *out, hid_t obj, const char *name, const char *where);
int b2_attr_get_u64(uint64_t *out, hid_t obj, const char *name, const char *where);
int b2_attr_get_f64(double *out, hid_t obj, const char *name, const char *where);
/* Reads exactly n values. */
int b2_attr_get_i64v(int64_t *out, size_t n, hid_t obj, const char *name, const char *where);
int b2_attr_get_f64v(double *out, size_t n, hid_t obj, const char *name, const char *where);
/* String readers take fixed- and variable-length strings, ASCII or UTF-8
 * (h5py writes a str as a variable-length UTF-8 string).
 * *out is malloc'd, NUL-terminated; caller frees. */
int b2_attr_get_str(char **out, hid_t obj, const char *name, const char *where);
/* A list of strings (a scalar string is a list of one): *out is an array of
 * *n malloc'd strings; the caller frees each and the array. */
int b2_attr_get_strv(char ***out, size_t *n, hid_t obj, const char *name, const char *where);
/* Optional attributes: when absent, *out = dflt (NULL for strings) and
 * *present (if not NULL) = 0; when present, read as the getters above. */
int b2_attr_opt_i64(int64_t *out, int *present, hid_t obj, const char *name, const char *where,
                    int64_t dflt);
int b2_attr_opt_f64(double *out, int *present, hid_t obj, const char *name, const char *where,
                    double dflt);
int b2_attr_opt_str(char **out, hid_t obj, const char *name, const char *where);
/* Copies scalar numeric attribute `name` from src to dst when src has it,
 * keeping its kind (signed, unsigned, floating). */
int b2_attr_copy(hid_t dst, hid_t src, const char *name, const char *where);

/* Creates a dataset of rank 1 or 2 (dims[1] columns). chunk_rows 0: contiguous
 * layout. deflate > 0 requires a file with one writer (b2_h5_create with a
 * one-rank comm): parallel filtered writes are not in Debian's HDF5. */
int b2_dset_create(hid_t *dset, hid_t loc, const char *name, hid_t type,
                   int rank, const uint64_t *dims, uint64_t chunk_rows, int deflate);
/* Inputs (h5input.c). A dataset-access (and link-access) property list that
 * refuses to follow external links: an input's objects are read from the
 * file itself, never from a file a link names (it may be a FIFO). */
hid_t b2_h5_lapl(void);
/* Opens dataset `name` of an input; B2_EDATA naming `where` and the dataset
 * when it is missing, reached through an external link, virtual, stored in
 * external files, or stored with a filter this HDF5 lacks (named). */
int b2_dset_open_any(hid_t *dset, hid_t loc, const char *name, const char *where);
/* Opens a dataset (b2_dset_open_any) and checks its rank, type class/size and column count
 * (cols 0: rank 1). Fails with B2_EDATA naming `where` and the dataset. */
int b2_dset_open(hid_t *dset, hid_t loc, const char *name, hid_t type, int rank,
                 uint64_t cols, const char *where);
/* Number of rows (dims[0]). */
int b2_dset_rows(uint64_t *rows, hid_t dset);
/* Rows [row0, row0+nrows) of a rank-1 or rank-2 dataset (all columns).
 * Collective when `collective` (every rank must call; nrows may be 0),
 * independent otherwise. */
int b2_dset_write_rows(hid_t dset, hid_t memtype, uint64_t row0, uint64_t nrows,
                       const void *buf, int collective);
int b2_dset_read_rows(hid_t dset, hid_t memtype, uint64_t row0, uint64_t nrows,
                      void *buf, int collective);

/* Convenience: write a whole small rank-1/2 dataset from rank 0's buffer with
 * identical content on all ranks (collective over MPI_COMM_WORLD: all ranks
 * call, rank 0 writes; its failure is agreed). */
int b2_dset_put_small(hid_t loc, const char *name, hid_t type, int rank,
                      const uint64_t *dims, const void *buf);

/* ---- provenance (provenance.c), FORMATS.md "Every file" ------------------ */
/* Collective over comm: the root attributes created_utc, created_on (the
 * distinct host names of comm's ranks), program_version (with the git commit
 * built in), git_commit, mpi_version and hdf5_version. b2_h5_create calls it. */
int b2_provenance_write(hid_t file, MPI_Comm comm);
/* The same facts as "PREFIXname value" lines, for text outputs (this host). */
void b2_provenance_text(char *buf, size_t n, const char *prefix);
void b2_mpi_version_string(char *buf, size_t n);
void b2_hdf5_version_string(char *buf, size_t n);

#endif
