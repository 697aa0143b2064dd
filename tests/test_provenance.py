"""Issue 15 across the programs: provenance in every output, --version with
the commit, construction_time and graph_generation as Graph500 means them,
bfs-gpu --roots (any unchanged, largest-component against a serial
reference), the oversubscription mark, progress under a pipe, --help."""
import calendar, json, os, re, socket, subprocess, sys, time
import numpy as np
import h5py
import b2ref
from b2ref import Report, TMP, SNAP_DIR, need_input

R = Report()
P = lambda n: os.path.join(TMP, n)
run = lambda np_, *a, **kw: b2ref.run(np_, *a, check=False, **kw)
PROGRAMS = ["rmat-gen", "snap-import", "edge-export", "partition2d", "bfs-gpu", "bfs-validate", "bfs-report"]

# ---- --version prints the commit, the same for all -----------------------------
commits = set()
for prog in PROGRAMS:
    p = run(1, prog, "--version")
    m = re.match(r"%s \(bfs2d\) \S+ \(git (\S+)\)$" % prog, p.stdout.strip())
    R.check("version_names_commit_" + prog, p.returncode == 0 and m is not None, p.stdout)
    if m:
        commits.add(m.group(1))
R.eq("one_commit_for_all_programs", len(commits), 1)
commit = commits.pop() if commits else "?"

# ---- --help: every option's default and an example ---------------------------
for prog in PROGRAMS:
    p = run(1, prog, "--help")
    R.check("help_has_defaults_and_example_" + prog, p.returncode == 0 and "default" in p.stdout
            and "Example" in p.stdout and "--progress" in p.stdout, p.stdout[-300:])
R.check("report_help_lists_verbose", "-v, --verbose" in run(1, "bfs-report", "--help").stdout)
R.check("import_help_names_gapbs_el", ".el" in run(1, "snap-import", "--help").stdout)

# ---- a small chain: an imported graph and an R-MAT graph -----------------------
grqc = os.path.join(SNAP_DIR, "ca-GrQc.txt")
if not need_input(R, grqc):
    sys.exit(1)
t_start = time.time()
run(1, "snap-import", grqc, "-o", P("g.h5"), "-q")
run(1, "rmat-gen", "-s", 10, "-e", 8, "-o", P("r.h5"), "-q")
run(1, "partition2d", "--grid", "1x2", P("g.h5"), "-o", P("g.p.h5"), "-q")
run(1, "partition2d", "--grid", "2x2", P("r.h5"), "-o", P("r.p.h5"), "-q")
run(2, "bfs-gpu", P("g.p.h5"), "-n", 12, "-o", P("g.any.h5"), "-q")
run(2, "bfs-gpu", P("g.p.h5"), "-n", 12, "--roots", "largest-component", "-o", P("g.lc.h5"), "-q")
pov = run(4, "bfs-gpu", P("r.p.h5"), "-n", 4, "-o", P("r.bfs.h5"))
run(2, "bfs-validate", P("g.h5"), P("g.any.h5"), "-o", P("g.any.v.h5"), "-q")
run(1, "bfs-validate", P("g.h5"), P("g.lc.h5"), "-o", P("g.lc.v.h5"), "-q")
run(1, "bfs-validate", P("r.h5"), P("r.bfs.h5"), "-o", P("r.v.h5"), "-q")

host = socket.gethostname()
for name in ["g.h5", "r.h5", "g.p.h5", "r.p.h5", "g.any.h5", "r.bfs.h5", "g.any.v.h5"]:
    try:
        with h5py.File(P(name), "r") as f:
            a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}
    except OSError as e:
        R.check("provenance_" + name, False, str(e))
        continue
    utc = a.get("created_utc", "")
    ok = re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", utc) is not None
    if ok:
        t = calendar.timegm(time.strptime(utc, "%Y-%m-%dT%H:%M:%SZ"))
        ok = t_start - 5 <= t <= time.time() + 5
    R.check("provenance_time_" + name, ok, utc)
    R.eq("provenance_host_" + name, a.get("created_on"), host)
    R.eq("provenance_commit_" + name, a.get("git_commit"), commit)
    R.check("provenance_version_" + name, a.get("program_version", "").endswith("(git %s)" % commit), str(a.get("program_version")))
    R.check("provenance_mpi_" + name, a.get("mpi_version", "").startswith("MPI") or "MPI" in a.get("mpi_version", ""), str(a.get("mpi_version")))
    R.check("provenance_hdf5_" + name, re.match(r"\d+\.\d+\.\d+$", a.get("hdf5_version", "")) is not None, str(a.get("hdf5_version")))
with h5py.File(P("g.any.h5"), "r") as f:
    R.check("bfs_file_cuda_versions", all(k in f.attrs for k in ("cuda_driver_version", "cuda_runtime_version")))
    backend = f.attrs["backend"].decode()
    R.check("bfs_file_gpu_names_for_cuda", ("gpu_names" in f.attrs) == (backend == "cuda"))

# ---- the report: provenance printed and in JSON; Graph500 times -----------------
p = run(1, "bfs-report", P("g.any.h5"), P("g.any.v.h5"), "--format", "json")
js = json.loads(p.stdout) if p.returncode == 0 else {"runs": [{}]}
r0 = js["runs"][0]
with h5py.File(P("g.p.h5"), "r") as f:
    ptime = float(f.attrs["partition_time"])
# Graph500's construction_time: partition2d's time and bfs-gpu's build at load
with h5py.File(P("g.any.h5"), "r") as f:
    btime = float(f.attrs["load_build_time"])
    R.check("load_split_recorded", btime >= 0 and float(f.attrs["load_read_time"]) >= 0 and
            abs(btime + float(f.attrs["load_read_time"]) - float(f.attrs["load_time"])) <= 1e-9 * float(f.attrs["load_time"]) + 1e-12)
ptime_partition, ptime = ptime, ptime + btime
with h5py.File(P("g.h5"), "r") as f:
    gtime = float(f.attrs["generation_time"])
R.check("construction_time_is_partition_plus_build", abs(r0.get("construction_time") - ptime) <= 1e-12 * ptime
        and r0.get("partition_time") == ptime_partition and r0.get("load_build_time") == btime, "%r %r" % (r0.get("construction_time"), ptime))
R.check("graph_generation_is_import_time", gtime > 0 and r0.get("graph_generation") == gtime, "%r %r" % (r0.get("graph_generation"), gtime))
prov = r0.get("provenance", {})
R.check("json_provenance_of_both_files", prov.get("bfs_file", {}).get("git_commit") == commit and
        prov.get("validation_file", {}).get("created_by", "").startswith("bfs-validate") and
        prov.get("bfs_file", {}).get("created_on") == host, str(prov)[:300])
R.eq("json_report_provenance", js.get("report_provenance", {}).get("git_commit"), commit)
txt = run(1, "bfs-report", P("g.any.h5"), P("g.any.v.h5")).stdout
blk = {l.split(":")[0]: l.split(":", 1)[1].strip() for l in txt.splitlines() if re.match(r"^(construction_time|graph_generation):", l)}
R.check("text_construction_time", abs(float(blk.get("construction_time", "nan")) - ptime) <= 1e-5 * ptime, str(blk))
R.check("text_provenance_lines", ("#   git_commit            " + commit) in txt and "#   created_on            " + host in txt, txt[:500])

# ---- roots ---------------------------------------------------------------------
with h5py.File(P("g.p.h5"), "r") as f:
    tdeg = f["tuple_degree"][...]
E = b2ref.load_edges(P("g.h5"))[0] if hasattr(b2ref, "load_edges") else h5py.File(P("g.h5"), "r")["edges"][...]
N = len(tdeg)
def candidates(seed=1):
    key = b2ref.rng_key(seed, 4)
    k = 0
    while True:
        yield b2ref.rng_at(key, k) % N
        k += 1
def draw(n, allow):
    out = []
    want = min(n, int(sum(1 for x in range(N) if tdeg[x] > 0 and allow[x])))
    for x in candidates():
        if len(out) == want:
            break
        if tdeg[x] > 0 and allow[x] and x not in out:
            out.append(int(x))
    return out
# components of the undirected graph, serially
parent = list(range(N))
def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x
for u, v in E:
    a, b = find(int(u)), find(int(v))
    if a != b:
        parent[max(a, b)] = min(a, b)
comp = np.array([find(x) for x in range(N)])
cnt = {}
for x in range(N):
    if tdeg[x] > 0:
        cnt[comp[x]] = cnt.get(comp[x], 0) + 1
best = max(cnt.values())
best_c = min(c for c, n_ in cnt.items() if n_ == best)
with h5py.File(P("g.any.h5"), "r") as f:
    R.eq("roots_any_as_formats_md", [int(x) for x in f["roots"][...]], draw(12, np.ones(N, bool)))
    R.eq("roots_any_attribute", f.attrs["roots_from"].decode(), "any")
with h5py.File(P("g.lc.h5"), "r") as f:
    R.eq("roots_largest_component", [int(x) for x in f["roots"][...]], draw(12, comp == best_c))
    R.check("roots_largest_component_visited", np.all(f["visited"][...] == best), str(f["visited"][...]))
    R.eq("component_vertices_attribute", int(f.attrs["component_vertices"]), best)
    R.eq("roots_from_attribute", f.attrs["roots_from"].decode(), "largest-component")
with h5py.File(P("g.any.h5"), "r") as f:
    small = int(np.sum(f["nedge"][...] < 0.01 * f["nedge"][...].max()))
R.eq("json_small_component_count", r0.get("small_component_searches"), small)
R.check("text_small_component_warning", (small > 0) == ("WARNING: %d of 12 searches reached a component" % small in txt), txt[:800])
p = run(1, "bfs-report", P("g.lc.h5"), P("g.lc.v.h5"))
R.check("no_warning_with_largest_component", p.returncode == 0 and "WARNING" not in p.stdout and "roots: largest-component" in p.stdout)
p = run(1, "bfs-gpu", P("g.p.h5"), "--roots", "big", "-o", P("x.h5"))
R.check("roots_bad_value_exit_2", p.returncode == 2 and "--roots" in p.stderr, p.stderr)

# ---- oversubscription: 4 ranks, as many cores as the machine has ----------------
over = 4 > (os.cpu_count() or 1)
with h5py.File(P("r.bfs.h5"), "r") as f:
    R.eq("oversubscribed_attribute", int(f.attrs["oversubscribed"]), int(over))
    R.eq("ranks_per_node_attribute", int(f.attrs["ranks_per_node"]), 4)
R.eq("oversubscribed_warned_once", pov.stderr.count("oversubscribed"), int(over))
p = run(1, "bfs-report", P("r.bfs.h5"), P("r.v.h5"), P("g.any.h5"), P("g.any.v.h5"))
cmp_rows = [l for l in p.stdout.splitlines() if re.match(r"^\s+1\s+r\s", l)]
R.check("report_marks_oversubscribed", over == ("OVERSUBSCRIBED" in "".join(cmp_rows)) and
        over == ("# OVERSUBSCRIBED: 4 ranks" in p.stdout), p.stdout[-600:])

# ---- --backend cuda without a usable GPU: one message -----------------------------
p = run(2, "bfs-gpu", P("g.p.h5"), "--backend", "cuda", "-n", 2, "-o", P("cuda.h5"))
if p.returncode != 0:
    R.eq("backend_cuda_error_once", len([l for l in p.stderr.splitlines() if "--backend cuda" in l]), 1)
else:
    R.check("backend_cuda_error_once", True)

# ---- progress: a pipe is silent; --progress and B2_PROGRESS=1 are not -------------
env = dict(os.environ)
env.pop("B2_PROGRESS", None)
p = run(1, "rmat-gen", "-s", 10, "-o", P("p1.h5"), env=env)
R.check("progress_silent_in_a_pipe", "generating" not in p.stderr, p.stderr)
p = run(1, "rmat-gen", "-s", 10, "-o", P("p2.h5"), "--progress", env=env)
R.check("progress_flag", "generating" in p.stderr and "done in" in p.stderr, p.stderr)
p = run(1, "rmat-gen", "-s", 10, "-o", P("p3.h5"), env=dict(env, B2_PROGRESS="1"))
R.check("progress_environment", "generating" in p.stderr and "done in" in p.stderr, p.stderr)
p = run(2, "rmat-gen", "-s", 10, "-o", P("p4.h5"), "--progress", env=env)
R.eq("progress_under_mpiexec_rank0_once", p.stderr.count("generating done in"), 1)
p = run(1, "partition2d", "--grid", "1x1", P("r.h5"), "-o", P("p5.h5"), "--progress", env=env)
R.check("partition_progress_covers_the_sort", "sorting" in p.stderr and "done in" in p.stderr, p.stderr)
# rmat-gen's summary rate is tuples over the total time, as the progress line's
p = run(1, "rmat-gen", "-s", 12, "-o", P("p6.h5"))
m = re.search(r"time: total ([0-9.]+) s \(([0-9.]+) M tuples/s\)", p.stdout)
# Both numbers are printed rounded (%.3f s, %.1f M/s): the rate must lie within
# what the rounded total allows (a total of 0.003 s is 0.0025 to 0.0035 s).
def rate_fits(total, rate, tuples=16 * 4096):
    lo = tuples / (total + 0.0005) / 1e6 - 0.05
    hi = tuples / (total - 0.0005) / 1e6 + 0.05 if total > 0.0005 else float("inf")
    return lo <= rate <= hi
R.check("rmat_summary_rate_is_tuples_over_total",
        m is not None and rate_fits(float(m.group(1)), float(m.group(2))), p.stdout)
sys.exit(1 if R.failed else 0)
