"""edge-export: Matrix Market and gapbs edge lists, checked line by line
against the edge file, and round trips through snap-import; bad inputs."""
import os, sys
import numpy as np
import h5py
import b2ref
from b2ref import Report, TMP

R = Report()
P = lambda n: os.path.join(TMP, n)

def export(*args):
    return b2ref.run(1, "edge-export", *args, check=False)

def load(path):
    with h5py.File(path, "r") as f:
        return f["edges"][...], dict(f.attrs), (f["vertex_ids"][...] if "vertex_ids" in f else None)

src = P("r.h5")
b2ref.run(1, "rmat-gen", "-s", 9, "-e", 8, "--seed", 3, "-o", src, "-q")
E, A, _ = load(src)
N, M = int(A["num_vertices"]), int(A["num_edges"])

# ---- Matrix Market, general: the text, then the round trip -------------------
p = export(src, "-o", P("g.mtx"))
R.eq("mtx_exit", p.returncode, 0)
lines = open(P("g.mtx")).read().splitlines()
R.eq("mtx_banner", lines[0], "%%MatrixMarket matrix coordinate pattern general")
body = [l for l in lines[1:] if not l.startswith("%")]
R.eq("mtx_size_line", body[0], "%d %d %d" % (N, N, M))
got = np.array([l.split() for l in body[1:]], dtype=np.int64)
R.eq("mtx_entries_are_tuples_plus_one", got, E + 1)
R.check("mtx_carries_provenance", any(l.startswith("% created_utc ") for l in lines) and
        any(l.startswith("% git_commit ") for l in lines) and any(l.startswith("% mpi_version ") for l in lines))
b2ref.run(1, "snap-import", P("g.mtx"), "-o", P("g.h5"), "-q")
E2, A2, _ = load(P("g.h5"))
R.eq("mtx_round_trip_edges", E2, E)
R.eq("mtx_round_trip_vertices", int(A2["num_vertices"]), N)
R.eq("mtx_round_trip_fingerprint", int(A2["fingerprint"]), int(A["fingerprint"]))

# ---- symmetric: each tuple as (max, min) ---------------------------------------
export(src, "--symmetric", "-o", P("s.mtx"))
R.eq("mtx_symmetric_banner", open(P("s.mtx")).readline().strip(), "%%MatrixMarket matrix coordinate pattern symmetric")
b2ref.run(1, "snap-import", P("s.mtx"), "-o", P("s.h5"), "-q")
E3, A3, _ = load(P("s.h5"))
R.eq("mtx_symmetric_round_trip", E3, np.stack([E.max(axis=1), E.min(axis=1)], axis=1))
R.eq("mtx_symmetric_undirected", int(A3["directed"]), 0)

# ---- .el and .wel: 0-based lines; back through /vertex_ids ---------------------
for ext in ("el", "wel"):
    p = export(src, "-o", P("g." + ext))
    rows = [l.split() for l in open(P("g." + ext))]
    want = [[str(u), str(v)] + (["1"] if ext == "wel" else []) for u, v in E]
    R.check(ext + "_lines", p.returncode == 0 and rows == want, str(rows[:3]))
    b2ref.run(1, "snap-import", P("g." + ext), "-o", P(ext + ".h5"), "-q")
    E4, A4, ids = load(P(ext + ".h5"))
    R.eq(ext + "_round_trip_through_vertex_ids", ids[E4], E)
# a graph without isolated vertices comes back identical
small = P("small.h5")
b2ref.write_edges(small, 4, [(0, 1), (1, 2), (3, 2), (2, 2), (0, 1)])
export(small, "-o", P("small.el"))
b2ref.run(1, "snap-import", P("small.el"), "-o", P("small2.h5"), "-q")
R.eq("el_round_trip_identical", load(P("small2.h5"))[0], load(small)[0])

# ---- errors -------------------------------------------------------------------
def leftovers():
    return [x for x in os.listdir(TMP) if ".tmp-" in x]
bad = P("bad.h5")
b2ref.write_edges(bad, 4, [(0, 1), (1, 2)], fp=12345)
before = open(bad, "rb").read()
p = export(bad, "-o", P("bad.mtx"))
R.check("bad_fingerprint_exit_3", p.returncode == 3 and "fingerprint" in p.stderr and "bad.h5" in p.stderr, p.stderr)
R.check("bad_fingerprint_no_output", not os.path.exists(P("bad.mtx")) and not leftovers(), str(leftovers()))
R.check("input_unchanged", open(bad, "rb").read() == before)
rng = P("range.h5")
b2ref.write_edges(rng, 3, [(0, 1), (1, 7)])
p = export(rng, "-o", P("range.el"))
R.check("id_out_of_range_exit_3", p.returncode == 3 and "row 1" in p.stderr, p.stderr)
p = export(src, "-o", P("x.txt"))
R.check("unknown_extension_exit_2", p.returncode == 2 and "--format" in p.stderr, p.stderr)
p = export(src, "--format", "el", "-o", P("x.txt"))
R.check("format_option", p.returncode == 0 and open(P("x.txt")).readline().split() == [str(E[0, 0]), str(E[0, 1])])
p = export(src, "--symmetric", "-o", P("y.el"))
R.eq("symmetric_only_for_mtx", p.returncode, 2)
p = export(src, "-o", src)
R.check("output_is_input_refused", p.returncode == 2 and load(src)[0].shape == E.shape, p.stderr)
p = export(P("missing.h5"), "-o", P("m.el"))
R.check("missing_input_exit_4", p.returncode == 4 and "missing.h5" in p.stderr, p.stderr)
# write failures name the file and the reason, and leave no temporary
p = export(src, "-o", P("nodir/x.el"))
R.check("no_directory_exit_4", p.returncode == 4 and P("nodir/x.el") in p.stderr
        and "No such file or directory" in p.stderr and not leftovers(), p.stderr)
os.makedirs(P("adir.el"))
p = export(src, "-o", P("adir.el"))
R.check("rename_onto_directory_exit_2", p.returncode == 2 and P("adir.el") in p.stderr
        and "Is a directory" in p.stderr and os.path.isdir(P("adir.el")) and not leftovers(), p.stderr)
p = b2ref.run(2, "edge-export", src, "-o", P("two.el"), check=False)
R.check("two_ranks_same_output", p.returncode == 0 and open(P("two.el")).read() == open(P("g.el")).read(), p.stderr)
sys.exit(1 if R.failed else 0)
