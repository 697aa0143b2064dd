/* predout.c — the predecessor dump of the BFS file (predout.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "b2.h"
#include "predout.h"

/* Measured on R-MAT dumps (README "Predecessor dump size"): scale-offset
 * stores each chunk's values in the bits their range needs (scale + 1 of
 * 64), deflate then takes the runs of -1; the shuffle filter made deflate's
 * output larger and slower, as -1 and small ids share no byte planes. */
#define PRED_FILTERS "scaleoffset+deflate1"

static int encoder_ok(H5Z_filter_t f)
{
	unsigned info = 0;
	return H5Zfilter_avail(f) > 0 && H5Zget_filter_info(f, &info) >= 0 &&
	       (info & H5Z_FILTER_CONFIG_ENCODE_ENABLED);
}

static int create_filtered(hid_t *d, hid_t loc, int64_t K, int64_t N, int64_t width)
{
	int error = 0;
	hsize_t dims[2] = {(hsize_t)K, (hsize_t)N}, chunk[2] = {1, (hsize_t)width};
	hid_t s = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
	*d = -1;
	if (s < 0 || dcpl < 0 || H5Pset_chunk(dcpl, 2, chunk) < 0 ||
	    H5Pset_scaleoffset(dcpl, H5Z_SO_INT, H5Z_SO_INT_MINBITS_DEFAULT) < 0 ||
	    H5Pset_deflate(dcpl, 1) < 0 || H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0)
		error = b2_h5_write_err(loc, "setting up the filters of /pred failed");
	else if ((*d = H5Dcreate2(loc, "/pred", H5T_NATIVE_INT64, s, H5P_DEFAULT, dcpl, H5P_DEFAULT)) < 0)
		error = b2_h5_write_err(loc, "creating dataset /pred failed");
	if (dcpl >= 0) H5Pclose(dcpl);
	if (s >= 0) H5Sclose(s);
	return error;
}

/* Columns [c0, c0+n) of row q from buf. Collective where the file is
 * MPI-IO and several ranks write. */
static int write_cols(hid_t d, int64_t q, int64_t c0, int64_t n, const int64_t *buf, int coll)
{
	int error = 0;
	hid_t fs = H5Dget_space(d), ms = -1, x = H5Pcreate(H5P_DATASET_XFER);
	hsize_t start[2] = {(hsize_t)q, (hsize_t)c0}, cnt[2] = {1, (hsize_t)n};
	if (fs < 0 || x < 0) {
		error = b2_h5_write_err(d, "dataset /pred, row %lld", (long long)q);
		goto done;
	}
	if (n > 0) {
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL);
		ms = H5Screate_simple(2, cnt, NULL);
	} else {
		H5Sselect_none(fs);
		ms = H5Scopy(fs);
		H5Sselect_none(ms);
	}
	if (coll)
		H5Pset_dxpl_mpio(x, H5FD_MPIO_COLLECTIVE);
	if (H5Dwrite(d, H5T_NATIVE_INT64, ms, fs, x, buf) < 0)
		error = b2_h5_write_err(d, "dataset /pred, row %lld", (long long)q);
done:
	if (ms >= 0) H5Sclose(ms);
	if (fs >= 0) H5Sclose(fs);
	if (x >= 0) H5Pclose(x);
	return error;
}

/* b2_h5out's before_publish: /pred of the side file into the closed output. */
static int copy_in(void *arg, const char *tmp_path)
{
	int error = 0;
	b2_predout *po = arg;
	double t0 = b2_now();
	hid_t f = H5Fopen(tmp_path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (f < 0)
		return b2_err(B2_EIO, "cannot write %s: reopening it to add /pred failed",
		              b2_tmp_final(tmp_path));
	if (H5Ocopy(po->side, "/pred", f, "/pred", H5P_DEFAULT, H5P_DEFAULT) < 0)
		error = b2_h5_write_err(f, "copying /pred in from %s failed", po->side_path);
	if (H5Fclose(f) < 0 && !error)
		error = b2_err(B2_EIO, "cannot write %s: closing it after adding /pred failed",
		               b2_tmp_final(tmp_path));
	po->secs += b2_now() - t0;
	return error;
}

/* Collective: the side file's name, known to every rank so that a signal
 * to any of them removes it (as b2_h5_create's temporary). */
static int side_name(b2_predout *po, const b2_h5out *out)
{
	int error = 0;
	char path[4096] = "", target[4096];
	/* the temporary of a target of its own, so that one a SIGKILL left is
	 * swept as the output's are */
	if (b2_rank == 0) {
		if ((size_t)snprintf(target, sizeof target, "%s.pred", out->path) >= sizeof target)
			error = b2_err(B2_EIO, "cannot write %s: file name too long", out->path);
		else
			error = b2_tmp_name(path, sizeof path, target);
	}
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	B2_TRY(b2_mpi_ok(MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast"));
	if (!(po->side_path = strdup(path)))
		error = b2_err(B2_EIO, "out of host memory");
	else
		error = b2_tmp_register(path, out->path, 0);
done:
	return b2_agree(error, MPI_COMM_WORLD);
}

/* Rank 0, gathering: the side file, its /pred, the buffers. */
static int open_side(b2_predout *po, b2_h5out *out)
{
	int error = 0, P = b2_nranks;
	const char *path = po->side_path;
	if ((po->side = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT)) < 0)
		B2_FAIL(B2_EIO, "cannot write %s: cannot create its side file %s for /pred", out->path, path);
	B2_TRY(create_filtered(&po->dset, po->side, po->K, po->N, po->width));
	B2_TRY(b2_alloc(&po->counts, (size_t)P * sizeof *po->counts, "/pred gathering"));
	B2_TRY(b2_alloc(&po->displs, (size_t)P * sizeof *po->displs, "/pred gathering"));
	B2_TRY(b2_alloc(&po->own, (size_t)P * 2 * sizeof *po->own, "/pred gathering"));
	B2_TRY(b2_alloc(&po->buf, (size_t)po->width * sizeof *po->buf, "/pred gathering"));
done:
	return error;
}

int b2_predout_open(b2_predout *po, b2_h5out *out, const b2_graph *g, int64_t nkept, int mode,
                    int64_t chunk)
{
	int error = 0;
	memset(po, 0, sizeof *po);
	po->dset = po->side = -1;
	po->N = g->N;
	po->K = nkept;
	po->v0 = ((int64_t)g->j * g->R + g->i) * g->b;
	po->nown = g->N - po->v0;
	po->nown = po->nown < 0 ? 0 : po->nown > g->b ? g->b : po->nown;
	po->width = g->N < chunk ? g->N : chunk;
	/* auto: one rank compresses as it writes; with several, rank 0 alone
	 * would compress everything while the others wait (many times the
	 * collective write's time, README "Predecessor dump size") */
	po->compress = mode == B2_PRED_ON || (mode == B2_PRED_AUTO && b2_nranks == 1);
	if (po->compress && !(encoder_ok(H5Z_FILTER_SCALEOFFSET) && encoder_ok(H5Z_FILTER_DEFLATE))) {
		if (mode == B2_PRED_ON)
			B2_FAIL0(B2_EUSAGE, "--compress-pred on: this HDF5 cannot write the scale-offset "
			         "and deflate filters");
		b2_warn0("this HDF5 cannot write the scale-offset and deflate filters: /pred is "
		         "written uncompressed (pred_compression \"none\")");
		po->compress = 0;
	}
	if (nkept == 0 || g->N == 0)
		po->compress = 0; /* nothing to compress, and no chunk fits an empty dataset */
	po->gather = po->compress && b2_nranks > 1;
	error = b2_attr_put_str(out->file, "pred_compression", po->compress ? PRED_FILTERS : "none");
	B2_TRY(b2_agree(error, MPI_COMM_WORLD));
	if (!po->compress) {
		uint64_t dims[2] = {(uint64_t)nkept, (uint64_t)g->N};
		error = b2_dset_create(&po->dset, out->file, "/pred", H5T_NATIVE_INT64, 2, dims, 0, 0);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		B2_TRY(b2_h5_reserve(out)); /* a full disk found now, not inside a write */
	} else if (!po->gather) {
		B2_TRY(create_filtered(&po->dset, out->file, po->K, po->N, po->width));
	} else {
		B2_TRY(side_name(po, out));
		if (b2_rank == 0)
			error = open_side(po, out);
		B2_TRY(b2_agree(error, MPI_COMM_WORLD));
		int64_t mine[2] = {po->v0, po->nown};
		B2_TRY(b2_mpi_ok(MPI_Gather(mine, 2, MPI_INT64_T, po->own, 2, MPI_INT64_T, 0,
		                            MPI_COMM_WORLD), "MPI_Gather (/pred shares)"));
		out->before_publish = copy_in;
		out->publish_arg = po;
	}
done:
	return b2_agree(error, MPI_COMM_WORLD);
}

/* Row q gathered to rank 0 a chunk at a time (memory: one chunk), which
 * rank 0 writes to the side file. Every rank takes part in every chunk's
 * gather even after rank 0 failed, so that none waits for another. */
static int gather_row(b2_predout *po, int64_t q, const int64_t *pred)
{
	int error = 0;
	for (int64_t c0 = 0; c0 < po->N; c0 += po->width) {
		int64_t w = po->N - c0 < po->width ? po->N - c0 : po->width;
		int64_t lo = po->v0 > c0 ? po->v0 : c0, hi = po->v0 + po->nown;
		hi = hi < c0 + w ? hi : c0 + w;
		int n = hi > lo ? (int)(hi - lo) : 0;
		if (b2_rank == 0)
			for (int r = 0; r < b2_nranks; r++) {
				int64_t a = po->own[2 * r], b = a + po->own[2 * r + 1];
				a = a > c0 ? a : c0;
				b = b < c0 + w ? b : c0 + w;
				po->counts[r] = b > a ? (int)(b - a) : 0;
				po->displs[r] = b > a ? (int)(a - c0) : 0;
			}
		int rc = b2_mpi_ok(MPI_Gatherv(n ? pred + (lo - po->v0) : pred, n, MPI_INT64_T, po->buf,
		                               po->counts, po->displs, MPI_INT64_T, 0, MPI_COMM_WORLD),
		                   "MPI_Gatherv (/pred)");
		if (rc)
			return rc;
		if (b2_rank == 0 && !error)
			error = write_cols(po->dset, q, c0, w, po->buf, 0);
	}
	return error;
}

int b2_predout_row(b2_predout *po, int64_t q, const int64_t *pred)
{
	int error;
	double t0 = b2_now();
	if (po->gather)
		error = gather_row(po, q, pred);
	else
		error = write_cols(po->dset, q, po->v0, po->nown, pred, b2_nranks > 1);
	error = b2_agree(error, MPI_COMM_WORLD);
	po->secs += b2_now() - t0;
	return error;
}

int b2_predout_close(b2_predout *po, b2_h5out *out, int error)
{
	double t0 = b2_now();
	if (!po->gather) {
		error = b2_h5_close(out, &po->dset, error);
		po->secs += b2_now() - t0;
		return error;
	}
	error = b2_agree(error, MPI_COMM_WORLD);
	if (b2_rank == 0 && !error) {
		/* a chunk flush can fail on a full disk */
		if (H5Dclose(po->dset) < 0)
			error = b2_h5_write_err(po->side, "finishing dataset /pred of %s failed", po->side_path);
		po->dset = -1;
	}
	error = b2_agree(error, MPI_COMM_WORLD);
	if (error)
		out->before_publish = NULL; /* the output is given up */
	po->secs += b2_now() - t0;
	return error;
}

void b2_predout_free(b2_predout *po)
{
	if (po->K > 0)
		b2_debug("predecessor dump: %lld x %lld, %s, written in %.3f s", (long long)po->K,
		         (long long)po->N, po->compress ? PRED_FILTERS : "uncompressed", po->secs);
	if (po->dset >= 0 && po->side >= 0)
		H5Dclose(po->dset);
	if (po->side >= 0)
		H5Fclose(po->side);
	if (po->side_path) {
		unlink(po->side_path);
		b2_tmp_forget(po->side_path);
		free(po->side_path);
	}
	free(po->counts);
	free(po->displs);
	free(po->own);
	free(po->buf);
	memset(po, 0, sizeof *po);
	po->dset = po->side = -1;
}
