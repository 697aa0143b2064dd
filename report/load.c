/* load.c — reading BFS and validation files (docs/FORMATS.md) and checking
 * that a validation file belongs to its BFS file. */
#include <hdf5.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "h5util.h"
#include "report.h"

const char *const report_phase_names[NPHASE] = {
	"expand exchange", "frontier expansion", "fold exchange",
	"frontier update", "termination test", "predecessor resolution"};

const char *const report_prov_names[NPROV] = {
	"created_utc", "created_on", "created_by", "program_version", "git_commit", "mpi_version",
	"hdf5_version", "cuda_driver_version", "cuda_runtime_version", "gpu_names"};

/* The provenance attributes present in f (a list of strings joined by
 * ", "); absent ones stay NULL. */
static int read_prov(char **prov, hid_t f, const char *where)
{
	int error = 0;
	for (int i = 0; i < NPROV; i++) {
		char **v = NULL;
		size_t n = 0, len = 1;
		prov[i] = NULL;
		if (!b2_attr_exists(f, report_prov_names[i]))
			continue;
		B2_TRY(b2_attr_get_strv(&v, &n, f, report_prov_names[i], where));
		for (size_t k = 0; k < n; k++)
			len += strlen(v[k]) + 2;
		error = b2_alloc(&prov[i], len, "provenance");
		if (!error) {
			prov[i][0] = 0;
			for (size_t k = 0; k < n; k++) {
				if (k)
					strcat(prov[i], ", ");
				strcat(prov[i], v[k]);
			}
		}
		for (size_t k = 0; k < n; k++)
			free(v[k]);
		free(v);
		if (error)
			goto done;
	}
done:
	return error;
}

/* Dimensions of a dataset (rank 1 or 2); B2_EDATA naming it if absent. */
static int dset_dims(uint64_t *d0, uint64_t *d1, hid_t f, const char *name, int rank,
                     const char *where)
{
	int error = 0;
	hid_t d = -1, s = -1;
	hsize_t d_[2] = {0, 0};
	B2_TRY(b2_dset_open_any(&d, f, name, where));
	s = H5Dget_space(d);
	if (s < 0)
		B2_FAIL(B2_EDATA, "%s: cannot open dataset %s", where, name);
	if (H5Sget_simple_extent_ndims(s) != rank)
		B2_FAIL(B2_EDATA, "%s: dataset %s should have %d dimension(s)", where, name, rank);
	H5Sget_simple_extent_dims(s, d_, NULL);
	*d0 = d_[0];
	if (d1)
		*d1 = d_[1];
done:
	if (s >= 0) H5Sclose(s);
	if (d >= 0) H5Dclose(d);
	return error;
}

/* Reads a whole dataset of `rows` rows and `cols` columns (0: rank 1) into a
 * new buffer of elements of memtype; the row count must be `rows`. */
static int read_all(void *out, hid_t f, const char *name, hid_t memtype, int64_t rows,
                    uint64_t cols, const char *where)
{
	int error = 0;
	hid_t d = -1;
	uint64_t n = 0;
	void *buf = NULL;
	*(void **)out = NULL;
	B2_TRY(b2_dset_open(&d, f, name, memtype, cols ? 2 : 1, cols, where));
	B2_TRY(b2_dset_rows(&n, d));
	if ((int64_t)n != rows)
		B2_FAIL(B2_EDATA, "%s: dataset %s has %llu rows, expected %lld", where, name,
		        (unsigned long long)n, (long long)rows);
	uint64_t cells = 0;
	if (!b2_mul_ok(&cells, (uint64_t)(rows ? rows : 1), cols ? cols : 1))
		B2_FAIL(B2_EDATA, "%s: dataset %s of %lld x %llu values: more than this report can hold",
		        where, name, (long long)rows, (unsigned long long)cols);
	B2_TRY(b2_alloc_n(&buf, cells, H5Tget_size(memtype), name));
	if (rows > 0)
		B2_TRY(b2_dset_read_rows(d, memtype, 0, (uint64_t)rows, buf, 0));
	*(void **)out = buf;
	buf = NULL;
done:
	free(buf);
	if (d >= 0) H5Dclose(d);
	return error;
}

/* "results/rmat-s16-e16.h5" -> "rmat-s16-e16" */
static char *graph_name(const char *edges_file)
{
	const char *b = strrchr(edges_file, '/');
	b = b ? b + 1 : edges_file;
	char *g = strdup(b);
	if (g) {
		size_t n = strlen(g);
		if (n > 3 && strcmp(g + n - 3, ".h5") == 0)
			g[n - 3] = 0;
	}
	return g;
}

/* Reads the format attribute of any HDF5 file: "" for an HDF5 file without
 * one. Used to tell BFS files from validation files on the command line. */
int report_file_format(char *fmt, size_t n, const char *path)
{
	int error = 0;
	hid_t f = -1;
	B2_TRY(b2_h5_open(&f, path, MPI_COMM_SELF, NULL));
	B2_TRY(b2_h5_format(fmt, n, f, path));
done:
	if (f >= 0) H5Fclose(f);
	return error;
}

/* The run's shape must be one story: num_ranks = grid_rows x grid_cols
 * (bfs-gpu runs on exactly R x C ranks), num_gpus 0 (CPU) or one per rank,
 * the backend saying the same, and the device list ("P x NAME", gpu_names)
 * counting the ranks. Anything else would turn into wrong rates per GPU. */
static int check_ranks(run *r, hid_t f, const char *path)
{
	int error = 0;
	char **names = NULL;
	size_t nnames = 0;
	long long p = 0;
	if (r->ranks < 1 || r->rows > INT64_MAX / r->cols || r->ranks != r->rows * r->cols)
		B2_FAIL(B2_EDATA, "%s: attribute num_ranks is %lld, but the grid %lldx%lld has %lld ranks", path,
		        (long long)r->ranks, (long long)r->rows, (long long)r->cols,
		        r->rows <= INT64_MAX / r->cols ? (long long)(r->rows * r->cols) : -1LL);
	if (r->gpus != 0 && r->gpus != r->ranks)
		B2_FAIL(B2_EDATA, "%s: attribute num_gpus is %lld, expected 0 (CPU backend) or num_ranks = %lld "
		        "(one GPU per rank)", path, (long long)r->gpus, (long long)r->ranks);
	if ((strcmp(r->backend, "cpu") == 0 && r->gpus != 0) || (strcmp(r->backend, "cuda") == 0 && r->gpus == 0))
		B2_FAIL(B2_EDATA, "%s: attribute num_gpus is %lld, which backend '%s' contradicts", path,
		        (long long)r->gpus, r->backend);
	if (r->devices && sscanf(r->devices, "%lld x ", &p) == 1 && p != r->ranks)
		B2_FAIL(B2_EDATA, "%s: attribute devices says %lld devices, but num_ranks is %lld", path, p,
		        (long long)r->ranks);
	if (b2_attr_exists(f, "gpu_names")) {
		B2_TRY(b2_attr_get_strv(&names, &nnames, f, "gpu_names", path));
		if ((int64_t)nnames != r->ranks)
			B2_FAIL(B2_EDATA, "%s: attribute gpu_names has %zu entries, but num_ranks is %lld", path,
			        nnames, (long long)r->ranks);
	}
done:
	for (size_t k = 0; k < nnames; k++)
		free(names[k]);
	free(names);
	return error;
}

/* A time attribute, when present: a finite number of seconds in range
 * (absent: NAN). */
static int opt_seconds(double *v, hid_t f, const char *name, const char *path)
{
	int error = 0, present = 0;
	B2_TRY(b2_attr_opt_f64(v, &present, f, name, path, NAN));
	if (present && (!isfinite(*v) || *v < 0 || *v > REPORT_MAX_SECONDS))
		B2_FAIL(B2_EDATA, "%s: attribute %s = %g: expected a number of seconds from 0 to %g", path,
		        name, *v, REPORT_MAX_SECONDS);
done:
	return error;
}

static int opt_finite(double *v, hid_t f, const char *name, const char *path)
{
	int error = 0, present = 0;
	B2_TRY(b2_attr_opt_f64(v, &present, f, name, path, NAN));
	if (present && !isfinite(*v))
		B2_FAIL(B2_EDATA, "%s: attribute %s = %g: expected a finite number", path, name, *v);
done:
	return error;
}

/* The optional per-level and per-search datasets of newer files: shapes,
 * and values that every statistic can take (NULL when absent). */
static int load_levels(run *r, hid_t f, const char *path)
{
	int error = 0;
	double *lt = NULL;
	const uint64_t l0 = (uint64_t)r->L;
	if (H5Lexists(f, "level_direction", H5P_DEFAULT) > 0)
		B2_TRY(read_all(&r->ldir, f, "level_direction", H5T_NATIVE_SCHAR, r->K, l0, path));
	if (H5Lexists(f, "edges_examined", H5P_DEFAULT) > 0) {
		B2_TRY(read_all(&r->lexam, f, "edges_examined", H5T_NATIVE_INT64, r->K, l0, path));
		for (int64_t k = 0; k < r->K; k++) {
			int64_t sum = 0;
			for (int64_t l = 0; l < r->L; l++) {
				int64_t v = r->lexam[k * r->L + l];
				if (v < 0 || __builtin_add_overflow(sum, v, &sum))
					B2_FAIL(B2_EDATA, "%s: dataset /edges_examined, search %lld, level %lld = %lld: %s",
					        path, (long long)k, (long long)l, (long long)v,
					        v < 0 ? "a count cannot be negative" : "the search's sum overflows 64 bits");
			}
		}
	}
	if (H5Lexists(f, "expansion_time", H5P_DEFAULT) > 0) {
		B2_TRY(read_all(&r->expdir, f, "expansion_time", H5T_NATIVE_DOUBLE, r->K, 2, path));
		B2_TRY(report_check_seconds(r->expdir, (uint64_t)r->K * 2, 2, 0, path, "expansion_time"));
	}
	/* not shown, but a reader of the file takes it as a number too */
	if (H5Lexists(f, "level_time", H5P_DEFAULT) > 0) {
		B2_TRY(read_all(&lt, f, "level_time", H5T_NATIVE_DOUBLE, r->K, l0, path));
		B2_TRY(report_check_seconds(lt, (uint64_t)r->K * l0, l0, 0, path, "level_time"));
	}
done:
	free(lt);
	return error;
}

int run_load_bfs(run *r, const char *path)
{
	int error = 0;
	hid_t f = -1;
	uint64_t k0 = 0, l0 = 0, p0 = 0, p1 = 0;
	int64_t grid_ranks = 0;
	r->bfs_path = path;
	B2_TRY(b2_h5_open(&f, path, MPI_COMM_SELF, "bfs2d-bfs"));
	B2_TRY(b2_attr_get_i64(&r->N, f, "num_vertices", path));
	B2_TRY(b2_attr_get_i64(&r->M, f, "num_input_edges", path));
	B2_TRY(b2_attr_get_i64(&r->rows, f, "grid_rows", path));
	B2_TRY(b2_attr_get_i64(&r->cols, f, "grid_cols", path));
	if (r->N < 1 || r->M < 0 || r->rows < 1 || r->cols < 1 ||
	    __builtin_mul_overflow(r->rows, r->cols, &grid_ranks))
		B2_FAIL(B2_EDATA, "%s: bad attributes: num_vertices %lld, num_input_edges %lld, grid %lldx%lld",
		        path, (long long)r->N, (long long)r->M, (long long)r->rows, (long long)r->cols);
	B2_TRY(b2_attr_get_u64(&r->fp, f, "edges_fingerprint", path));
	B2_TRY(b2_attr_get_str(&r->edges_file, f, "edges_file", path));
	B2_TRY(b2_attr_get_str(&r->backend, f, "backend", path));
	B2_TRY(b2_attr_opt_i64(&r->ranks, NULL, f, "num_ranks", path, grid_ranks));
	B2_TRY(b2_attr_opt_i64(&r->gpus, NULL, f, "num_gpus", path, 0));
	B2_TRY(b2_attr_opt_i64(&r->nroots, NULL, f, "nroots", path, -1));
	B2_TRY(b2_attr_opt_i64(&r->scale, NULL, f, "scale", path, -1));
	B2_TRY(b2_attr_opt_i64(&r->edgefactor, NULL, f, "edgefactor", path, -1));
	if (r->scale < -1 || r->scale > 62 || r->edgefactor < -1)
		B2_FAIL(B2_EDATA, "%s: bad attributes: scale %lld, edgefactor %lld", path,
		        (long long)r->scale, (long long)r->edgefactor);
	B2_TRY(b2_attr_opt_str(&r->partition_file, f, "partition_file", path));
	B2_TRY(b2_attr_opt_str(&r->devices, f, "devices", path));
	B2_TRY(b2_attr_opt_str(&r->exchange, f, "exchange", path));
	B2_TRY(opt_seconds(&r->gen_time, f, "generation_time", path));
	B2_TRY(opt_seconds(&r->load_time, f, "load_time", path));
	B2_TRY(opt_seconds(&r->part_time, f, "partition_time", path));
	r->seed = 0;
	if (b2_attr_exists(f, "seed"))
		B2_TRY(b2_attr_get_u64(&r->seed, f, "seed", path));
	B2_TRY(b2_attr_opt_str(&r->run_id, f, "run_id", path));
	B2_TRY(b2_attr_opt_str(&r->direction, f, "direction", path));
	B2_TRY(b2_attr_opt_str(&r->bitmap, f, "bitmap", path));
	B2_TRY(b2_attr_opt_str(&r->variant, f, "variant", path));
	B2_TRY(b2_attr_opt_str(&r->rules_off, f, "rules_off", path));
	B2_TRY(b2_attr_opt_str(&r->evict_first, f, "evict_first", path));
	B2_TRY(b2_attr_opt_str(&r->grid_searched, f, "grid_searched", path));
	B2_TRY(opt_finite(&r->alpha, f, "alpha", path));
	B2_TRY(opt_finite(&r->beta, f, "beta", path));
	B2_TRY(b2_attr_opt_i64(&r->warmup, NULL, f, "warmup", path, -1));
	B2_TRY(b2_attr_opt_i64(&r->ept, NULL, f, "edges_per_thread", path, -1));
	B2_TRY(b2_attr_opt_i64(&r->threads_per_rank, NULL, f, "threads_per_rank", path, -1));
	B2_TRY(opt_seconds(&r->load_read_time, f, "load_read_time", path));
	B2_TRY(opt_seconds(&r->load_build_time, f, "load_build_time", path));
	B2_TRY(check_ranks(r, f, path));
	B2_TRY(dset_dims(&k0, NULL, f, "roots", 1, path));
	r->K = (int64_t)k0;
	if (r->K == 0)
		B2_FAIL(B2_EDATA, "%s: an empty run: /roots has no searches", path);
	B2_TRY(read_all(&r->roots, f, "roots", H5T_NATIVE_INT64, r->K, 0, path));
	B2_TRY(read_all(&r->time, f, "time", H5T_NATIVE_DOUBLE, r->K, 0, path));
	B2_TRY(read_all(&r->nedge, f, "nedge", H5T_NATIVE_INT64, r->K, 0, path));
	B2_TRY(read_all(&r->visited, f, "visited", H5T_NATIVE_INT64, r->K, 0, path));
	B2_TRY(dset_dims(&p0, &p1, f, "phase_time", 2, path));
	if (p1 != NPHASE)
		B2_FAIL(B2_EDATA, "%s: dataset phase_time should have %d columns, has %llu", path,
		        NPHASE, (unsigned long long)p1);
	B2_TRY(read_all(&r->phase, f, "phase_time", H5T_NATIVE_DOUBLE, r->K, NPHASE, path));
	B2_TRY(report_check_seconds(r->phase, (uint64_t)r->K * NPHASE, NPHASE, 0, path, "phase_time"));
	B2_TRY(dset_dims(&k0, &l0, f, "frontier_size", 2, path));
	if (l0 < 1)
		B2_FAIL(B2_EDATA, "%s: dataset frontier_size has no levels", path);
	r->L = (int64_t)l0;
	B2_TRY(read_all(&r->frontier, f, "frontier_size", H5T_NATIVE_INT64, r->K, l0, path));
	/* a search time below a picosecond would make TEPS infinite */
	B2_TRY(report_check_seconds(r->time, (uint64_t)r->K, 1, REPORT_MIN_SEARCH_SECONDS, path, "time"));
	for (int64_t k = 0; k < r->K; k++) {
		if (r->roots[k] < 0 || r->roots[k] >= r->N)
			B2_FAIL(B2_EDATA, "%s: /roots[%lld] = %lld is not a vertex (N = %lld)", path,
			        (long long)k, (long long)r->roots[k], (long long)r->N);
		if (r->nedge[k] < 1)
			B2_FAIL(B2_EDATA, "%s: /nedge[%lld] = %lld, expected at least 1 (a root has degree >= 1)",
			        path, (long long)k, (long long)r->nedge[k]);
	}
	/* what newer bfs-gpu writes; older files simply lack it */
	B2_TRY(load_levels(r, f, path));
	B2_TRY(ranks_load(r, f, path));
	r->nkept = -1;
	if (H5Lexists(f, "kept", H5P_DEFAULT) > 0) {
		B2_TRY(dset_dims(&k0, NULL, f, "kept", 1, path));
		r->nkept = (int64_t)k0;
	}
	B2_TRY(b2_attr_opt_str(&r->roots_from, f, "roots_from", path));
	B2_TRY(b2_attr_opt_i64(&r->oversubscribed, NULL, f, "oversubscribed", path, -1));
	B2_TRY(b2_attr_opt_i64(&r->ranks_per_node, NULL, f, "ranks_per_node", path, -1));
	B2_TRY(b2_attr_opt_i64(&r->cores_per_node, NULL, f, "cores_per_node", path, -1));
	B2_TRY(read_prov(r->prov, f, path));
	r->graph = graph_name(r->edges_file);
	if (!r->graph)
		B2_FAIL(B2_EIO, "out of memory");
	r->ndev = r->gpus > 0 ? r->gpus : r->ranks;
done:
	if (f >= 0) H5Fclose(f);
	return error;
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

int run_load_valid(run *r, const char *path)
{
	int error = 0;
	hid_t f = -1;
	uint64_t fp = 0, n0 = 0;
	char *bfs_file = NULL;
	int64_t ns = 0, np_ = 0, nf = 0;
	r->valid_path = path;
	B2_TRY(b2_h5_open(&f, path, MPI_COMM_SELF, "bfs2d-validation"));
	B2_TRY(b2_attr_get_str(&bfs_file, f, "bfs_file", path));
	B2_TRY(b2_attr_get_u64(&fp, f, "edges_fingerprint", path));
	B2_TRY(b2_attr_opt_str(&r->v_run_id, f, "bfs_run_id", path));
	/* the run id says which run was validated; files of builds that wrote
	 * none are matched by the BFS file's name as they were */
	if (r->run_id || r->v_run_id) {
		if (!r->run_id || !r->v_run_id || strcmp(r->run_id, r->v_run_id) != 0)
			B2_FAIL(B2_EDATA, "%s validates run %s, but %s is run %s: not its validation file "
			        "(give each BFS file followed by its own validation file)", path,
			        r->v_run_id ? r->v_run_id : "(none recorded)", r->bfs_path,
			        r->run_id ? r->run_id : "(none recorded)");
	} else if (strcmp(base_name(bfs_file), base_name(r->bfs_path)) != 0)
		B2_FAIL(B2_EDATA, "%s validates '%s', not %s: give each BFS file followed by its own validation file",
		        path, bfs_file, r->bfs_path);
	if (fp != r->fp)
		B2_FAIL(B2_EDATA, "%s: edges_fingerprint %016llx differs from %s's %016llx: they are not of the same graph",
		        path, (unsigned long long)fp, r->bfs_path, (unsigned long long)r->fp);
	B2_TRY(dset_dims(&n0, NULL, f, "search", 1, path));
	r->Kp = (int64_t)n0;
	B2_TRY(read_all(&r->v_search, f, "search", H5T_NATIVE_INT64, r->Kp, 0, path));
	B2_TRY(read_all(&r->v_root, f, "root", H5T_NATIVE_INT64, r->Kp, 0, path));
	B2_TRY(read_all(&r->v_passed, f, "passed", H5T_NATIVE_INT64, r->Kp, 0, path));
	B2_TRY(read_all(&r->v_rule, f, "rule", H5T_NATIVE_INT64, r->Kp, 0, path));
	B2_TRY(read_all(&r->v_example, f, "example_vertex", H5T_NATIVE_INT64, r->Kp, 0, path));
	B2_TRY(read_all(&r->v_nedge, f, "nedge", H5T_NATIVE_INT64, r->Kp, 0, path));
	B2_TRY(read_all(&r->v_time, f, "time", H5T_NATIVE_DOUBLE, r->Kp, 0, path));
	B2_TRY(b2_attr_opt_i64(&ns, NULL, f, "num_searches", path, r->Kp));
	B2_TRY(b2_attr_opt_i64(&np_, NULL, f, "num_passed", path, -1));
	B2_TRY(b2_attr_opt_i64(&nf, NULL, f, "num_failed", path, -1));
	if (b2_attr_exists(f, "rule_names"))
		B2_TRY(b2_attr_get_strv(&r->rule_names, &r->nrules, f, "rule_names", path));
	B2_TRY(read_prov(r->vprov, f, path));
	if (ns != r->Kp)
		B2_FAIL(B2_EDATA, "%s: num_searches is %lld but /search has %lld rows", path,
		        (long long)ns, (long long)r->Kp);
	B2_TRY(report_check_seconds(r->v_time, (uint64_t)r->Kp, 1, 0, path, "time"));
	/* bfs-validate of a BFS file that kept no predecessors (--keep-pred
	 * none) validates nothing and says so with zero rows */
	if (r->Kp == 0 && r->nkept != 0)
		B2_FAIL(B2_EDATA, "%s: an empty validation: no searches were validated, but %s kept "
		        "predecessors to validate", path, r->bfs_path);
	B2_TRY(b2_calloc(&r->v_row, (size_t)r->K, sizeof *r->v_row, "validation rows"));
	for (int64_t k = 0; k < r->K; k++)
		r->v_row[k] = -1;
	int64_t cnt = 0;
	for (int64_t q = 0; q < r->Kp; q++) {
		int64_t s = r->v_search[q];
		if (s < 0 || s >= r->K)
			B2_FAIL(B2_EDATA, "%s: /search[%lld] = %lld, but %s has %lld searches", path,
			        (long long)q, (long long)s, r->bfs_path, (long long)r->K);
		if (r->v_row[s] >= 0)
			B2_FAIL(B2_EDATA, "%s: search %lld is validated twice (/search rows %lld and %lld)",
			        path, (long long)s, (long long)r->v_row[s], (long long)q);
		if (r->v_root[q] != r->roots[s])
			B2_FAIL(B2_EDATA, "%s: /root[%lld] = %lld but search %lld of %s has root %lld: not its validation file",
			        path, (long long)q, (long long)r->v_root[q], (long long)s, r->bfs_path,
			        (long long)r->roots[s]);
		if (r->v_passed[q] != 0 && r->v_passed[q] != 1)
			B2_FAIL(B2_EDATA, "%s: /passed[%lld] = %lld, expected 0 or 1", path, (long long)q,
			        (long long)r->v_passed[q]);
		r->v_row[s] = q;
		cnt += r->v_passed[q];
	}
	if ((np_ >= 0 && np_ != cnt) || (nf >= 0 && nf != r->Kp - cnt))
		B2_FAIL(B2_EDATA, "%s: num_passed/num_failed (%lld/%lld) disagree with /passed (%lld of %lld)",
		        path, (long long)np_, (long long)nf, (long long)cnt, (long long)r->Kp);
done:
	free(bfs_file);
	if (f >= 0) H5Fclose(f);
	return error;
}

const char *run_rule_name(const run *r, int64_t rule)
{
	if (r->rule_names && rule >= 0 && (uint64_t)rule < r->nrules)
		return r->rule_names[rule];
	return "?";
}

int run_oversubscribed(const run *r) { return r->oversubscribed > 0; }

/* The used search of median time (the lower of two middle ones), whose
 * phases phases.svg shows. */
static int median_search(run *r)
{
	int error = 0;
	int64_t *ix = NULL;
	r->median_search = -1;
	if (r->nused == 0)
		return 0;
	B2_TRY(b2_alloc(&ix, (size_t)r->nused * sizeof *ix, "search order"));
	memcpy(ix, r->used, (size_t)r->nused * sizeof *ix);
	/* insertion sort by time, then index: K is small (<= 4096) */
	for (int64_t a = 1; a < r->nused; a++)
		for (int64_t b = a; b > 0 && r->time[ix[b - 1]] > r->time[ix[b]]; b--) {
			int64_t t = ix[b];
			ix[b] = ix[b - 1];
			ix[b - 1] = t;
		}
	r->median_search = ix[(r->nused - 1) / 2];
done:
	free(ix);
	return error;
}

/* Every statistic the report prints is a finite number, or none at all
 * (NaN: one search has no spread): what the inputs' checks guarantee,
 * checked again where the arithmetic meets it. */
static int check_finite(const run *r)
{
	if (r->nused == 0)
		return 0;
	const double v[] = {r->time_st.min, r->time_st.max, r->time_st.mean, r->nedge_st.mean,
	                    r->spe_st.min, r->spe_st.max, r->spe_st.mean, r->teps_min, r->teps_max,
	                    r->hmean_teps, r->phase_mean[0], r->phase_mean[1], r->phase_mean[2],
	                    r->phase_mean[3], r->phase_mean[4], r->phase_mean[5]};
	const double maybe[] = {r->hstd_teps, r->spe_cv, r->time_max_over_min};
	int bad = 0;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		bad |= !isfinite(v[i]) || v[i] < 0 || (i >= 4 && i <= 9 && !(v[i] > 0));
	for (size_t i = 0; i < sizeof maybe / sizeof maybe[0]; i++)
		bad |= isinf(maybe[i]);
	if (bad)
		return b2_err(B2_EDATA, "%s: datasets /time and /nedge: the searches' statistics are not finite "
		              "numbers (harmonic mean %g TEPS, its standard error %g): times or edge counts "
		              "out of range", r->bfs_path, r->hmean_teps, r->hstd_teps);
	return 0;
}

int run_derive(run *r, const report_opts *o)
{
	int error = 0;
	B2_TRY(b2_calloc(&r->status, (size_t)r->K, sizeof *r->status, "search status"));
	B2_TRY(b2_calloc(&r->used, (size_t)r->K, sizeof *r->used, "search list"));
	r->npassed = r->nfailed = r->nunvalidated = r->nused = 0;
	/* a run that kept no predecessors cannot be validated: its searches
	 * count, marked, as with --unvalidated */
	r->no_pred = r->nkept == 0;
	for (int64_t k = 0; k < r->K; k++) {
		int64_t q = r->v_row ? r->v_row[k] : -1;
		r->status[k] = q < 0 ? ST_UNVALIDATED : r->v_passed[q] ? ST_PASSED : ST_FAILED;
		if (r->status[k] == ST_PASSED) r->npassed++;
		if (r->status[k] == ST_FAILED) r->nfailed++;
		if (r->status[k] == ST_UNVALIDATED) r->nunvalidated++;
		if (r->status[k] == ST_PASSED || (r->status[k] == ST_UNVALIDATED && (o->unvalidated || r->no_pred)))
			r->used[r->nused++] = k;
	}
	B2_TRY(b2_calloc(&r->u_time, (size_t)r->K, sizeof(double), "times"));
	B2_TRY(b2_calloc(&r->u_nedge, (size_t)r->K, sizeof(double), "nedge"));
	B2_TRY(b2_calloc(&r->u_teps, (size_t)r->K, sizeof(double), "TEPS"));
	B2_TRY(b2_calloc(&r->frontier_mean, (size_t)r->L, sizeof(double), "frontier sizes"));
	for (int64_t i = 0; i < r->nused; i++) {
		int64_t k = r->used[i], q = r->v_row ? r->v_row[k] : -1;
		/* nedge as the validator recomputed it from the edge file, when it did */
		int64_t ne = q >= 0 ? r->v_nedge[q] : r->nedge[k];
		if (q >= 0 && r->v_nedge[q] != r->nedge[k])
			b2_warn("%s: search %lld: nedge %lld differs from %lld recomputed by %s; using the latter",
			        r->bfs_path, (long long)k, (long long)r->nedge[k], (long long)r->v_nedge[q],
			        r->valid_path);
		if (ne < 1)
			B2_FAIL(B2_EDATA, "%s: search %lld: nedge %lld, expected at least 1",
			        r->valid_path, (long long)k, (long long)ne);
		r->u_time[i] = r->time[k];
		r->u_nedge[i] = (double)ne;
		r->u_teps[i] = (double)ne / r->time[k];
		for (int p = 0; p < NPHASE; p++)
			r->phase_mean[p] += r->phase[k * NPHASE + p] / (double)r->nused;
		if (r->expdir)
			for (int d = 0; d < 2; d++)
				r->exp_mean[d] += r->expdir[k * 2 + d] / (double)r->nused;
		for (int64_t l = 0; l < r->L; l++)
			r->frontier_mean[l] += (double)r->frontier[k * r->L + l] / (double)r->nused;
	}
	r->has_expdir = r->expdir != NULL && r->nused > 0;
	/* how much of the component the searches looked at: a top-down search
	 * examines every edge of it twice (2 nedge) */
	r->examined_ratio = NAN;
	if (r->lexam && r->nused > 0) {
		double sum = 0;
		for (int64_t i = 0; i < r->nused; i++) {
			int64_t k = r->used[i], ex = 0;
			for (int64_t l = 0; l < r->L; l++)
				ex += r->lexam[k * r->L + l]; /* no overflow: load_levels checked the sums */
			sum += (double)ex / (2.0 * r->u_nedge[i]);
		}
		r->examined_ratio = sum / (double)r->nused;
	}
	if (r->ldir && r->nused > 0) {
		B2_TRY(b2_calloc(&r->dir_bu, (size_t)r->L, sizeof(double), "level directions"));
		for (int64_t l = 0; l < r->L; l++) {
			int64_t n = 0, bu = 0;
			for (int64_t i = 0; i < r->nused; i++) {
				signed char d = r->ldir[r->used[i] * r->L + l];
				n += d >= 0;
				bu += d == 1;
			}
			r->dir_bu[l] = n ? (double)bu / (double)n : -1;
		}
	}
	/* searches that reached a tiny component (Graph500 roots are any vertex
	 * of positive degree; on real graphs some land in tiny components) */
	r->nsmall = 0;
	{
		double big = 0;
		for (int64_t i = 0; i < r->nused; i++)
			big = r->u_nedge[i] > big ? r->u_nedge[i] : big;
		for (int64_t i = 0; i < r->nused; i++)
			r->nsmall += r->u_nedge[i] < 0.01 * big;
	}
	if (r->nused > 0) {
		double *spe = NULL;
		B2_TRY(get_stats(&r->time_st, r->u_time, r->nused));
		B2_TRY(get_stats(&r->nedge_st, r->u_nedge, r->nused));
		B2_TRY(b2_alloc(&spe, (size_t)r->nused * sizeof *spe, "seconds per edge"));
		for (int64_t i = 0; i < r->nused; i++)
			spe[i] = r->u_time[i] / r->u_nedge[i];
		error = get_stats(&r->spe_st, spe, r->nused);
		free(spe);
		if (error)
			goto done;
		/* TEPS statistics as the Graph500 reference derives them: from the
		 * statistics of seconds per edge, inverted (so the mean becomes the
		 * harmonic mean of TEPS, and the quartiles swap) */
		r->teps_min = 1.0 / r->spe_st.max;
		r->teps_q1 = 1.0 / r->spe_st.q3;
		r->teps_median = 1.0 / r->spe_st.median;
		r->teps_q3 = 1.0 / r->spe_st.q1;
		r->teps_max = 1.0 / r->spe_st.min;
		r->hmean_teps = 1.0 / r->spe_st.mean;
		r->hstd_teps = r->nused > 1 ? r->spe_st.std / (r->spe_st.mean * r->spe_st.mean *
		                                               sqrt((double)(r->nused - 1)))
		                            : NAN;
	}
	/* Graph500's construction_time: building the search structure from the
	 * edge list, partition2d's work and the part of bfs-gpu's load that
	 * builds (CSR copy, device arrays), when the file records it */
	r->construction_time = r->part_time;
	if (isfinite(r->part_time) && isfinite(r->load_build_time))
		r->construction_time = r->part_time + r->load_build_time;
	/* noise: the spread of the work rate (seconds per edge, so that roots in
	 * components of other sizes compare), and Graph500's count of searches */
	r->time_max_over_min = r->spe_cv = NAN;
	r->noisy = 0;
	if (r->nused > 0) {
		r->time_max_over_min = r->time_st.max / r->time_st.min;
		if (r->nused > 1)
			r->spe_cv = r->spe_st.std / r->spe_st.mean;
		r->noisy = isfinite(r->spe_cv) && r->spe_cv > REPORT_NOISY_CV;
	}
	r->few_searches = r->nused < REPORT_GRAPH500_NBFS;
	if (r->Kp > 0) {
		B2_TRY(get_stats(&r->valid_st, r->v_time, r->Kp));
		r->has_valid_st = 1;
	}
	B2_TRY(median_search(r));
	B2_TRY(ranks_derive(r));
	B2_TRY(check_finite(r));
	run_make_label(r);
	if (r->scale >= 0 && r->edgefactor >= 0) {
		r->scale_shown = r->scale;
		r->ef_shown = r->edgefactor;
	} else {
		/* an imported graph: the nearest Kronecker shape, as the paper's table */
		r->approx_scale = 1;
		r->scale_shown = (int64_t)llround(log2((double)r->N));
		r->ef_shown = (int64_t)llround((double)r->M / (double)r->N);
	}
done:
	return error;
}

void run_free(run *r)
{
	free(r->edges_file); free(r->partition_file); free(r->backend); free(r->devices); free(r->exchange);
	free(r->graph);
	free(r->roots); free(r->nedge); free(r->visited); free(r->frontier);
	free(r->time); free(r->phase);
	free(r->v_search); free(r->v_root); free(r->v_passed); free(r->v_rule);
	free(r->v_example); free(r->v_nedge); free(r->v_time);
	for (size_t i = 0; i < r->nrules; i++)
		free(r->rule_names[i]);
	free(r->rule_names);
	free(r->status); free(r->v_row); free(r->used);
	free(r->u_time); free(r->u_nedge); free(r->u_teps); free(r->frontier_mean);
	free(r->ldir); free(r->lexam); free(r->expdir); free(r->dir_bu); free(r->roots_from);
	free(r->run_id); free(r->v_run_id); free(r->direction); free(r->bitmap); free(r->variant); free(r->rules_off);
	free(r->evict_first);
	free(r->grid_searched);
	ranks_free(r);
	for (int i = 0; i < NPROV; i++) {
		free(r->prov[i]);
		free(r->vprov[i]);
	}
}
