"""Issue 32, section 2: a run carries its identity and every option.
bfs-gpu's run id (1 and 2 ranks), bfs-validate copying it (1 and 2 ranks),
bfs-report pairing by it and refusing a mismatched pair; the options in
text, JSON, CSV and the --append table; --append under a lock (8 at once),
with a bounded header and no run twice; num_ranks, grid, GPUs and devices
that disagree. Each refusal: its exit code, the file named, nothing written,
inputs unchanged."""
import csv, hashlib, io, json, os, re, subprocess, sys
import numpy as np
import h5py
import b2ref
from b2ref import Report, TMP, BIN
from reportlib import write_bfs, write_valid, report, sattr

R = Report()
P = lambda n: os.path.join(TMP, n)
run = lambda np_, *a, **kw: b2ref.run(np_, *a, check=False, **kw)

def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest() if os.path.exists(path) else None

def attr(path, name):
    with h5py.File(path, "r") as f:
        v = f.attrs.get(name)
    return v.decode() if isinstance(v, bytes) else v

def leftovers():
    return [x for x in os.listdir(TMP) if ".tmp-" in x]

# ---- the id: made by bfs-gpu, copied by bfs-validate, on 1 and 2 ranks ----------------
run(1, "rmat-gen", "-s", 9, "-e", 8, "-o", P("g.h5"))
for grid in ("1x1", "1x2"):
    run(1, "partition2d", "--grid", grid, P("g.h5"), "-o", P("g%s.h5" % grid))
ids = {}
for np_, grid in ((1, "1x1"), (2, "1x2")):
    b, v = P("r%d.bfs.h5" % np_), P("r%d.valid.h5" % np_)
    p = run(np_, "bfs-gpu", P("g%s.h5" % grid), "-n", 4, "--backend", "cpu", "--direction", "top-down",
            "--bitmap", "off", "--warmup", 2, "--seed", 5, "-o", b)
    R.check("bfs_gpu_%dranks_exit_0" % np_, p.returncode == 0, p.stderr)
    rid = attr(b, "run_id") if os.path.exists(b) else None
    R.check("run_id_%dranks_is_128_bits_hex" % np_, isinstance(rid, str) and re.fullmatch(r"[0-9a-f]{32}", rid) is not None, repr(rid))
    ids[np_] = rid
    # validated on the other rank count than it ran on
    p = run(3 - np_, "bfs-validate", P("g.h5"), b, "-o", v)
    R.check("validate_%dranks_exit_0" % (3 - np_), p.returncode == 0, p.stderr)
    R.eq("validate_%dranks_copies_run_id" % (3 - np_), attr(v, "bfs_run_id") if os.path.exists(v) else None, rid)
R.check("run_ids_differ", ids[1] != ids[2])
with h5py.File(P("r2.bfs.h5"), "r") as f:
    lt, lr, lb = (float(f.attrs[k]) for k in ("load_time", "load_read_time", "load_build_time"))
R.check("load_time_split", lr >= 0 and lb >= 0 and abs(lr + lb - lt) <= 1e-9 * lt + 1e-12, "%r %r %r" % (lt, lr, lb))

p = report(P("r1.bfs.h5"), P("r1.valid.h5"), P("r2.bfs.h5"), P("r2.valid.h5"))
R.check("report_pairs_by_id", p.returncode == 0 and "# run id %s (validated as such)" % ids[1] in p.stdout
        and "# run id %s (validated as such)" % ids[2] in p.stdout, p.stderr + p.stdout[:400])

# ---- the case: a run of the same name that kept no predecessors ------------------
b, v = P("r1.bfs.h5"), P("r1.valid.h5")
p = run(1, "bfs-gpu", P("g1x1.h5"), "-n", 4, "--backend", "cpu", "--keep-pred", "none", "-o", b)
R.check("rerun_same_name_exit_0", p.returncode == 0, p.stderr)
newid = attr(b, "run_id")
before = {x: digest(x) for x in (b, v)}
out = P("mismatch.txt")
p = report(b, v, "-o", out)
R.check("mismatch_exit_3", p.returncode == 3, "exit %d: %s" % (p.returncode, p.stderr))
R.check("mismatch_names_both_files_and_runs", b in p.stderr and v in p.stderr and newid in p.stderr
        and ids[1] in p.stderr, p.stderr)
R.check("mismatch_nothing_written", not os.path.exists(out) and not leftovers(), str(leftovers()))
R.check("mismatch_inputs_unchanged", all(digest(x) == before[x] for x in before))
p = report(b, v, "--unvalidated")
R.check("mismatch_not_accepted_with_unvalidated", p.returncode == 3 and "4 passed" not in p.stdout, p.stdout[:300])

# a validation of another run with the same roots, name and graph (h5py files)
t4, n4 = [0.01, 0.012, 0.011, 0.013], [1000, 1000, 1000, 1000]
x1 = write_bfs(P("x.bfs.h5"), t4, n4)
x1v = write_valid(P("x.valid.h5"), x1)
os.rename(x1, P("x.first.h5"))
write_bfs(P("x.bfs.h5"), t4, n4)
p = report(P("x.bfs.h5"), x1v)
R.check("same_name_same_roots_other_run_exit_3", p.returncode == 3 and "x.valid.h5" in p.stderr and "x.bfs.h5" in p.stderr, p.stderr)
# a validation file that names no run, for a BFS file that has one
nv = write_valid(P("x.noid.valid.h5"), P("x.bfs.h5"), run_id=None)
p = report(P("x.bfs.h5"), nv)
R.check("validation_without_id_for_run_with_id_exit_3", p.returncode == 3 and "none recorded" in p.stderr, p.stderr)
# files of older builds (no ids at all) pair by name as before
o1 = write_bfs(P("old.bfs.h5"), t4, n4, run_id=None)
o1v = write_valid(P("old.valid.h5"), o1)
p = report(o1, o1v)
R.check("files_without_ids_pair_by_name", p.returncode == 0 and "4 passed" in p.stdout, p.stderr)
# only the searches the validation file validated count
y = write_bfs(P("y.bfs.h5"), t4, n4)
yv = write_valid(P("y.valid.h5"), y, search=[0, 2])
p = report(y, yv)
R.check("partial_validation_counts_only_its_searches", p.returncode == 0 and "# validation %s: 2 passed, 0 FAILED, 2 not validated" % yv in p.stdout
        and re.search(r"^NBFS: +2$", p.stdout, re.M), p.stdout[:600])

# ---- options in text, JSON, CSV and the --append table --------------------------------------
args = [P("r2.bfs.h5"), P("r2.valid.h5")]
txt = report(*args).stdout
R.check("text_options", "# options: direction top-down (alpha 15, beta 18), bitmap off, seed 5, warm-up 2, -n 4, edges per thread 4" in txt, txt[:700])
# the 1x2 partition is searched as 2x1 (plan.h ROW_AS_COLUMN)
R.check("text_exchanges_backend_devices", "# grid 1x2 (searched as 2x1), 2 ranks, backend cpu, devices 2 x CPU (OpenMP), "
        "exchanges expand mpi, fold none" in txt, txt[:400])
R.check("text_commit_and_driver", re.search(r"^#   git_commit +\S+", txt, re.M) and re.search(r"^#   cuda_driver_version +\S+", txt, re.M), txt[:1200])
js = json.loads(report(*args, "--format", "json").stdout)["runs"][0]
want = {"run_id": ids[2], "validation_run_id": ids[2], "direction": "top-down", "alpha": 15, "beta": 18, "bitmap": "off",
        "seed": 5, "nroots": 4, "warmup": 2, "roots_from": "any", "backend": "cpu", "exchange": "expand mpi, fold none",
        "devices": "2 x CPU (OpenMP)", "git_commit": attr(args[0], "git_commit"), "cuda_driver_version": attr(args[0], "cuda_driver_version")}
R.check("json_options", all(js.get(k) == w for k, w in want.items()), str({k: js.get(k) for k in want}))
row = list(csv.DictReader(io.StringIO(report(*args, "--format", "csv").stdout)))[0]
R.check("csv_options", all(row.get(k) == str(w) for k, w in want.items() if k not in ("validation_run_id", "alpha", "beta"))
        and float(row["alpha"]) == 15 and float(row["beta"]) == 18, str({k: row.get(k) for k in want}))
tab = P("t.csv")
p = report(*args, "--append", tab)
arow = list(csv.DictReader(open(tab)))
R.check("append_row_has_options", p.returncode == 0 and len(arow) == 1 and arow[0]["run_id"] == ids[2]
        and arow[0]["direction"] == "top-down" and arow[0]["bitmap"] == "off" and arow[0]["warmup"] == "2", str(arow)[:300])
# two runs that differ in one option differ in that column
p = run(2, "bfs-gpu", P("g1x2.h5"), "-n", 4, "--backend", "cpu", "--direction", "auto", "--bitmap", "off",
        "--warmup", 2, "--seed", 5, "-o", P("r3.bfs.h5"))
run(2, "bfs-validate", P("g.h5"), P("r3.bfs.h5"), "-o", P("r3.valid.h5"))
rows = list(csv.DictReader(io.StringIO(report(*args, P("r3.bfs.h5"), P("r3.valid.h5"), "--format", "csv").stdout)))
diff = sorted(k for k in rows[0] if k in want and k not in ("run_id", "validation_run_id") and rows[0][k] != rows[1][k])
R.eq("runs_differing_in_direction_differ_in_that_column", diff, ["direction"])

# ---- --append: one row per run, eight at once, no run twice ---------------------------------
t8 = P("eight.csv")
runs8 = []
for i in range(8):
    bb = write_bfs(P("c%d.bfs.h5" % i), t4, n4, fp=500 + i)
    runs8.append((bb, write_valid(P("c%d.valid.h5" % i), bb)))
procs = [subprocess.Popen([os.path.join(BIN, "bfs-report"), bb, vv, "--append", t8, "-o", P("c%d.txt" % i)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i, (bb, vv) in enumerate(runs8)]
codes = [pp.wait() for pp in procs]
errs = [pp.stderr.read() for pp in procs]
R.check("append_eight_at_once_exit_0", codes == [0] * 8, str(codes) + " ".join(errs))
rows = list(csv.DictReader(open(t8)))
R.check("append_eight_at_once_eight_rows", sorted(r["bfs_file"] for r in rows) == sorted(bb for bb, _ in runs8), str(len(rows)))
R.check("append_eight_one_header", open(t8).read().count("run,bfs_file,") == 1)
R.check("append_lock_file_removed", not os.path.exists(P(".eight.csv.lock")))
# the same run again: refused, table unchanged
before = digest(t8)
p = report(runs8[3][0], runs8[3][1], "--append", t8, "-o", P("again.txt"))
R.check("append_same_run_exit_2", p.returncode == 2, "exit %d: %s" % (p.returncode, p.stderr))
R.check("append_same_run_message", t8 in p.stderr and runs8[3][0] in p.stderr and "--append-again" in p.stderr, p.stderr)
R.check("append_same_run_nothing_written", digest(t8) == before and not os.path.exists(P("again.txt")) and not leftovers())
p = report(runs8[3][0], runs8[3][1], "--append", t8, "--append-again")
R.check("append_again_adds_it", p.returncode == 0 and len(list(csv.DictReader(open(t8)))) == 9, p.stderr)
p = report(runs8[0][0], runs8[0][1], runs8[0][0], runs8[0][1], "--append", P("twice.csv"))
R.check("append_same_run_twice_on_command_line_exit_2", p.returncode == 2 and not os.path.exists(P("twice.csv"))
        and "twice.csv" in p.stderr, p.stderr)
R.check("append_again_in_help", "--append-again" in report("--help").stdout)
# the header is read with a bound
big = P("big.csv")
open(big, "w").write("x" * 70000)
before = digest(big)
p = report(runs8[0][0], runs8[0][1], "--append", big)
R.check("append_unbounded_header_exit_3", p.returncode == 3 and "big.csv" in p.stderr and "longer than" in p.stderr, p.stderr)
R.check("append_unbounded_header_unchanged", digest(big) == before and not leftovers())

# ---- consistency: ranks, grid, GPUs, devices -------------------------------------------------
def bad(name, edit, words):
    bb = write_bfs(P("bad-%s.bfs.h5" % name), t4, n4, grid=(1, 2))
    with h5py.File(bb, "a") as f:
        edit(f)
    vv = write_valid(P("bad-%s.valid.h5" % name), bb)
    before = {x: digest(x) for x in (bb, vv)}
    out = P("bad-%s.txt" % name)
    p = report(bb, vv, "-o", out, "--format", "json")
    R.check("consistency_%s_exit_3" % name, p.returncode == 3, "exit %d: %s" % (p.returncode, p.stderr))
    R.check("consistency_%s_message" % name, bb in p.stderr and all(w in p.stderr for w in words), p.stderr)
    R.check("consistency_%s_nothing_written" % name, not os.path.exists(out) and not leftovers()
            and all(digest(x) == before[x] for x in before))
bad("zero_ranks", lambda f: f.attrs.__setitem__("num_ranks", np.int64(0)), ["num_ranks is 0", "1x2"])
bad("negative_ranks", lambda f: f.attrs.__setitem__("num_ranks", np.int64(-2)), ["num_ranks is -2"])
bad("ranks_not_grid", lambda f: f.attrs.__setitem__("num_ranks", np.int64(3)), ["num_ranks is 3", "has 2 ranks"])
def gpus_other(f):
    f.attrs["num_gpus"] = np.int64(4)
    sattr(f, "backend", "cuda")
bad("gpus_not_ranks", gpus_other, ["num_gpus is 4"])
def cuda_no_gpus(f):
    sattr(f, "backend", "cuda")
bad("cuda_without_gpus", cuda_no_gpus, ["num_gpus is 0", "cuda"])
bad("devices_not_ranks", lambda f: sattr(f, "devices", "4 x CPU (OpenMP)"), ["devices says 4", "num_ranks is 2"])
sys.exit(1 if R.failed else 0)
