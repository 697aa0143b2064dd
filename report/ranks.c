/* ranks.c — the per-rank records of a BFS file (docs/FORMATS.md): each
 * rank's phase times, the bytes each rank sent per level and exchange, and
 * in predecessor resolution; read when present, shapes and values checked,
 * reduced to the mean and maximum over ranks and to bytes per level. */
#include <hdf5.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "h5util.h"
#include "report.h"

const char *const report_exchange_names[NEXCH] = {"expand", "fold", "visited"};

int report_read_nd(void *out, hid_t f, const char *name, hid_t memtype, int rank,
                   const uint64_t *dims, const char *path)
{
	int error = 0;
	hid_t d = -1, s = -1, t = -1;
	hsize_t got[4] = {0, 0, 0, 0};
	uint64_t cells = 1;
	void *buf = NULL;
	*(void **)out = NULL;
	B2_TRY(b2_dset_open_any(&d, f, name, path));
	s = H5Dget_space(d);
	t = H5Dget_type(d);
	if (s < 0 || t < 0)
		B2_FAIL(B2_EDATA, "%s: cannot read the shape of dataset /%s", path, name);
	if (H5Sget_simple_extent_ndims(s) != rank)
		B2_FAIL(B2_EDATA, "%s: dataset /%s should have %d dimensions, has %d", path, name, rank,
		        H5Sget_simple_extent_ndims(s));
	H5Sget_simple_extent_dims(s, got, NULL);
	for (int i = 0; i < rank; i++)
		if (got[i] != dims[i])
			B2_FAIL(B2_EDATA, "%s: dataset /%s: dimension %d is %llu, expected %llu (the file's "
			        "searches, levels, ranks and phases or exchanges)", path, name, i + 1,
			        (unsigned long long)got[i], (unsigned long long)dims[i]);
	if (H5Tget_class(t) != H5Tget_class(memtype))
		B2_FAIL(B2_EDATA, "%s: dataset /%s has the wrong element type (expected %s)", path, name,
		        H5Tget_class(memtype) == H5T_FLOAT ? "floats" : "integers");
	for (int i = 0; i < rank; i++)
		if (!b2_mul_ok(&cells, cells, dims[i]))
			B2_FAIL(B2_EDATA, "%s: dataset /%s: more values than this report can hold", path, name);
	B2_TRY(b2_alloc_n(&buf, cells ? cells : 1, H5Tget_size(memtype), name));
	if (cells && H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
		B2_FAIL(B2_EDATA, "%s: cannot read dataset /%s", path, name);
	*(void **)out = buf;
	buf = NULL;
done:
	free(buf);
	if (t >= 0) H5Tclose(t);
	if (s >= 0) H5Sclose(s);
	if (d >= 0) H5Dclose(d);
	return error;
}

int report_check_seconds(const double *v, uint64_t n, uint64_t cols, double lo, const char *path,
                         const char *name)
{
	for (uint64_t i = 0; i < n; i++)
		if (!isfinite(v[i]) || v[i] < lo || v[i] > REPORT_MAX_SECONDS) {
			char at[64];
			if (cols > 1)
				snprintf(at, sizeof at, "[%llu][%llu]", (unsigned long long)(i / cols),
				         (unsigned long long)(i % cols));
			else
				snprintf(at, sizeof at, "[%llu]", (unsigned long long)i);
			return b2_err(B2_EDATA, "%s: dataset /%s%s = %g: expected a number of seconds from %g "
			              "to %g", path, name, at, v[i], lo, REPORT_MAX_SECONDS);
		}
	return 0;
}

static int check_bytes(const int64_t *v, uint64_t n, const char *path, const char *name)
{
	for (uint64_t i = 0; i < n; i++)
		if (v[i] < 0)
			return b2_err(B2_EDATA, "%s: dataset /%s element %llu = %lld: a byte count cannot be "
			              "negative", path, name, (unsigned long long)i, (long long)v[i]);
	return 0;
}

int ranks_load(run *r, hid_t f, const char *path)
{
	int error = 0;
	const uint64_t K = (uint64_t)r->K, L = (uint64_t)r->L, P = (uint64_t)r->ranks;
	hid_t lapl = b2_h5_lapl();
	if (H5Lexists(f, "rank_phase_time", lapl) > 0) {
		const uint64_t d[3] = {K, P, NPHASE};
		B2_TRY(report_read_nd(&r->rank_phase, f, "rank_phase_time", H5T_NATIVE_DOUBLE, 3, d, path));
		B2_TRY(report_check_seconds(r->rank_phase, K * P * NPHASE, P * NPHASE, 0, path,
		                            "rank_phase_time"));
	}
	if (H5Lexists(f, "level_bytes", lapl) > 0) {
		const uint64_t d[4] = {K, L, P, NEXCH};
		B2_TRY(report_read_nd(&r->level_bytes, f, "level_bytes", H5T_NATIVE_INT64, 4, d, path));
		B2_TRY(check_bytes(r->level_bytes, K * L * P * NEXCH, path, "level_bytes"));
		if (b2_attr_exists(f, "level_bytes_names")) {
			char **nm = NULL;
			size_t nn = 0;
			B2_TRY(b2_attr_get_strv(&nm, &nn, f, "level_bytes_names", path));
			int same = nn == NEXCH;
			for (size_t i = 0; i < nn; i++) {
				if (same && strcmp(nm[i], report_exchange_names[i]) != 0)
					same = 0;
				free(nm[i]);
			}
			free(nm);
			if (!same)
				B2_FAIL(B2_EDATA, "%s: attribute level_bytes_names should be \"expand\", \"fold\", "
				        "\"visited\" (the order of /level_bytes' last dimension)", path);
		}
	}
	if (H5Lexists(f, "level_phase_time", lapl) > 0) {
		const uint64_t d[4] = {K, L, P, NLPHASE};
		B2_TRY(report_read_nd(&r->level_phase, f, "level_phase_time", H5T_NATIVE_DOUBLE, 4, d, path));
		B2_TRY(report_check_seconds(r->level_phase, K * L * P * NLPHASE, P * NLPHASE, 0, path,
		                            "level_phase_time"));
	}
	if (H5Lexists(f, "pred_bytes", lapl) > 0) {
		const uint64_t d[2] = {K, P};
		B2_TRY(report_read_nd(&r->pred_bytes_kp, f, "pred_bytes", H5T_NATIVE_INT64, 2, d, path));
		B2_TRY(check_bytes(r->pred_bytes_kp, K * P, path, "pred_bytes"));
	}
done:
	return error;
}

/* The P ranks' values of one phase (v[q * stride], q < P): their mean and
 * maximum, added to *mean and *max. */
static void over_ranks(const double *v, int64_t P, int stride, double *mean, double *max)
{
	double mx = 0, sum = 0;
	for (int64_t q = 0; q < P; q++) {
		mx = fmax(mx, v[q * stride]);
		sum += v[q * stride];
	}
	*mean += sum / (double)P;
	*max += mx;
}

/* Over the used searches: per phase the mean and the maximum over ranks
 * and their ratio; bytes per level and exchange summed over ranks, averaged
 * over the searches that have that step. Byte sums are doubles: an int64
 * sum of a file's counts could overflow, a double only loses digits no one
 * reads. */
int ranks_derive(run *r)
{
	int error = 0;
	const int64_t P = r->ranks, L = r->L;
	for (int p = 0; p < NPHASE; p++)
		r->phase_rank_max[p] = r->phase_rank_mean[p] = r->phase_imbalance[p] = NAN;
	for (int x = 0; x < NEXCH; x++)
		r->bytes_total[x] = NAN;
	r->pred_bytes = NAN;
	if (r->nused == 0)
		return 0;
	if (r->rank_phase) {
		for (int p = 0; p < NPHASE; p++) {
			double smax = 0, smean = 0;
			for (int64_t i = 0; i < r->nused; i++)
				over_ranks(r->rank_phase + r->used[i] * P * NPHASE + p, P, NPHASE, &smean, &smax);
			r->phase_rank_max[p] = smax / (double)r->nused;
			r->phase_rank_mean[p] = smean / (double)r->nused;
			r->phase_imbalance[p] = r->phase_rank_mean[p] > 0 ? r->phase_rank_max[p] / r->phase_rank_mean[p]
			                                                  : NAN;
		}
	}
	if (r->level_bytes) {
		B2_TRY(b2_calloc(&r->lbytes_mean, (size_t)(NEXCH * L), sizeof(double), "bytes per level"));
		for (int x = 0; x < NEXCH; x++) {
			double tot = 0;
			for (int64_t l = 0; l < L; l++) {
				double sum = 0;
				int64_t n = 0;
				for (int64_t i = 0; i < r->nused; i++) {
					int64_t k = r->used[i];
					const int64_t *v = r->level_bytes + (k * L + l) * P * NEXCH;
					double s = 0;
					for (int64_t q = 0; q < P; q++)
						s += (double)v[q * NEXCH + x];
					tot += s;
					/* a search has step l when it has frontier l */
					if (r->frontier[k * L + l] > 0) {
						sum += s;
						n++;
					}
				}
				r->lbytes_mean[x * L + l] = n ? sum / (double)n : NAN;
			}
			r->bytes_total[x] = tot / (double)r->nused;
		}
	}
	if (r->level_phase) {
		B2_TRY(b2_calloc(&r->lphase_mean, (size_t)(NLPHASE * L), sizeof(double), "phases per level"));
		B2_TRY(b2_calloc(&r->lphase_max, (size_t)(NLPHASE * L), sizeof(double), "phases per level"));
		for (int p = 0; p < NLPHASE; p++)
			for (int64_t l = 0; l < L; l++) {
				double smean = 0, smax = 0;
				int64_t n = 0;
				for (int64_t i = 0; i < r->nused; i++) {
					const int64_t k = r->used[i];
					if (r->frontier[k * L + l] <= 0)
						continue;
					over_ranks(r->level_phase + (k * L + l) * P * NLPHASE + p, P, NLPHASE, &smean,
					           &smax);
					n++;
				}
				r->lphase_mean[p * L + l] = n ? smean / (double)n : NAN;
				r->lphase_max[p * L + l] = n ? smax / (double)n : NAN;
			}
	}
	if (r->pred_bytes_kp) {
		double tot = 0;
		for (int64_t i = 0; i < r->nused; i++)
			for (int64_t q = 0; q < P; q++)
				tot += (double)r->pred_bytes_kp[r->used[i] * P + q];
		r->pred_bytes = tot / (double)r->nused;
	}
done:
	return error;
}

void ranks_free(run *r)
{
	free(r->rank_phase);
	free(r->level_bytes);
	free(r->pred_bytes_kp);
	free(r->lbytes_mean);
	free(r->level_phase);
	free(r->lphase_mean);
	free(r->lphase_max);
}

void ranks_print_text(FILE *f, const run *r)
{
	if (r->nused == 0)
		return;
	if (r->rank_phase) {
		fprintf(f, "# phases over the %lld ranks (seconds per search, mean over searches: mean over "
		           "ranks, max over ranks, imbalance max/mean):\n", (long long)r->ranks);
		for (int p = 0; p < NPHASE; p++)
			fprintf(f, "#   %-24s %10.4g %10.4g %8.3g\n", report_phase_names[p], r->phase_rank_mean[p],
			        r->phase_rank_max[p], r->phase_imbalance[p]);
	}
	if (r->lbytes_mean) {
		fprintf(f, "# bytes sent per search (summed over ranks and levels):");
		for (int x = 0; x < NEXCH; x++)
			fprintf(f, "%s %s %.6g", x ? "," : "", report_exchange_names[x], r->bytes_total[x]);
		fprintf(f, "\n# bytes per level (summed over ranks, mean over the searches with that step): "
		           "level: expand fold visited\n");
		for (int64_t l = 0; l < r->L; l++) {
			fprintf(f, "#   %4lld", (long long)l);
			for (int x = 0; x < NEXCH; x++)
				fprintf(f, " %12.6g", r->lbytes_mean[x * r->L + l]);
			fputs("\n", f);
		}
	}
	if (r->pred_bytes_kp)
		fprintf(f, "# predecessor resolution: %.6g bytes sent per search (summed over ranks)\n",
		        r->pred_bytes);
	if (r->lphase_mean) {
		fprintf(f, "# phases per level (seconds, mean over the searches with that step: mean over "
		           "ranks / max over ranks): level:");
		for (int p = 0; p < NLPHASE; p++)
			fprintf(f, " %s", report_phase_names[p]);
		fputs("\n", f);
		for (int64_t l = 0; l < r->L; l++) {
			fprintf(f, "#   %4lld", (long long)l);
			for (int p = 0; p < NLPHASE; p++)
				fprintf(f, " %10.4g/%-10.4g", r->lphase_mean[p * r->L + l], r->lphase_max[p * r->L + l]);
			fputs("\n", f);
		}
	}
}
