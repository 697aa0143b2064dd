"""rmat-gen: determinism across ranks, seeds, the relabelling bijection,
quadrant frequencies per bit level, degree skew, attributes, fingerprint."""
import os
import numpy as np
import h5py
from b2ref import Report, run, TMP, SAN, fingerprint

t = Report()
P = os.path.join

def gen(path, *args, np_=1):
    run(np_, "rmat-gen", "-q", *args, "-o", path)
    with h5py.File(path, "r") as f:
        return f["edges"][...], dict(f.attrs)

# --- the same bytes of /edges whatever the number of ranks, deflated or not
s, e = (10, 3) if SAN else (13, 5)
ref, ref_attrs = gen(P(TMP, "r1.h5"), "-s", s, "-e", e, "--seed", 7)
for np_ in (2, 3, 4):
    got, attrs = gen(P(TMP, "r%d.h5" % np_), "-s", s, "-e", e, "--seed", 7, np_=np_)
    t.eq("same edges on %d ranks" % np_, got, ref)
    t.eq("same fingerprint on %d ranks" % np_, attrs["fingerprint"], ref_attrs["fingerprint"])
for np_ in (1, 2):
    got, _ = gen(P(TMP, "z%d.h5" % np_), "-s", s, "-e", e, "--seed", 7, "--deflate", 6, np_=np_)
    t.eq("deflated edges equal on %d ranks" % np_, got, ref)
    with h5py.File(P(TMP, "z%d.h5" % np_), "r") as f:
        t.eq("deflate filter set on %d ranks" % np_, f["edges"].compression, "gzip")

# --- attributes, and the fingerprint recomputed independently
t.eq("format", ref_attrs["format"].decode() if isinstance(ref_attrs["format"], bytes) else ref_attrs["format"], "bfs2d-edges")
t.eq("num_vertices", int(ref_attrs["num_vertices"]), 1 << s)
t.eq("num_edges", int(ref_attrs["num_edges"]), e << s)
t.eq("shape of /edges", ref.shape, (e << s, 2))
t.eq("scale attr", int(ref_attrs["scale"]), s)
t.eq("edgefactor attr", int(ref_attrs["edgefactor"]), e)
t.eq("seed attr", int(ref_attrs["seed"]), 7)
t.eq("directed attr", int(ref_attrs["directed"]), 0)
t.check("initiator attr", np.allclose(ref_attrs["initiator"], [0.57, 0.19, 0.19, 0.05]), str(ref_attrs["initiator"]))
t.check("generation_time attr", float(ref_attrs["generation_time"]) > 0)
t.eq("fingerprint matches the data", int(ref_attrs["fingerprint"]), fingerprint(ref))
t.check("ids in range", ref.min() >= 0 and ref.max() < (1 << s))
t.check("every tuple not the same", len(np.unique(ref[:, 0])) > 100)

# --- different seeds give different graphs
other, oattrs = gen(P(TMP, "seed8.h5"), "-s", s, "-e", e, "--seed", 8)
t.check("different seed, different edges", (other != ref).mean() > 0.5, "%.3f equal" % (other == ref).mean())
t.check("different seed, different fingerprint", oattrs["fingerprint"] != ref_attrs["fingerprint"])

# --- the relabelling is a bijection, and the relabelled graph is the raw one
#     through it (as a multiset of tuples: the order is a permutation)
sigma = np.array(run(1, "rmat-gen", "-s", s, "--seed", 7, "--print-relabel").stdout.split(), dtype=np.int64)
t.eq("relabelling hits every id exactly once", np.sort(sigma), np.arange(1 << s))
t.check("relabelling is not the identity", (sigma != np.arange(1 << s)).mean() > 0.9)
raw, rattrs = gen(P(TMP, "raw.h5"), "-s", s, "-e", e, "--seed", 7, "--no-relabel")
t.eq("raw file says relabelled=0", int(rattrs["relabelled"]), 0)
mapped = sigma[raw]
key = lambda a: np.sort(a[:, 0] * (1 << s) + a[:, 1])
t.eq("relabelled tuples = sigma(raw tuples) as a multiset", key(mapped), key(ref))
t.check("tuple order is shuffled", (mapped != ref).any(axis=1).mean() > 0.9)

# --- quadrant frequencies at every bit level match the initiator
for init in ([0.57, 0.19, 0.19], [0.45, 0.25, 0.15]):
    ss, ee = (10, 16) if SAN else (12, 64)
    raw, _ = gen(P(TMP, "q.h5"), "-s", ss, "-e", ee, "--seed", 3, "--no-relabel",
                 "--initiator", ",".join(map(str, init)))
    p = np.array(init + [1 - sum(init)])
    m = len(raw)
    worst = 0.0
    for lvl in range(ss):
        qd = ((raw[:, 0] >> lvl) & 1) * 2 + ((raw[:, 1] >> lvl) & 1)
        f = np.bincount(qd, minlength=4) / m
        z = np.abs(f - p) / np.sqrt(p * (1 - p) / m)
        worst = max(worst, z.max())
    t.check("quadrant frequencies per level match %s (max %.2f sigma)" % (init, worst), worst < 5.0,
            "max deviation %.2f sigma" % worst)

# --- the degree distribution is as skewed as Kronecker graphs are, unlike a
#     uniform random graph of the same size made by the same generator
def skew(path, *args):
    ed, _ = gen(path, "-s", s, "-e", 16, *args)
    deg = np.bincount(ed.ravel(), minlength=1 << s)
    top = np.sort(deg)[::-1][: max(1, (1 << s) // 100)].sum() / deg.sum()
    return top, deg.max() / deg.mean(), (deg == 0).mean()
top, mx, iso = skew(P(TMP, "k.h5"))
utop, umx, uiso = skew(P(TMP, "u.h5"), "--initiator", "0.25,0.25,0.25")
t.check("top 1%% of vertices hold > 20%% of tuple ends (%.1f%%)" % (100 * top), top > 0.20)
t.check("max degree > 50x mean (%.0fx)" % mx, mx > 50)
t.check("many isolated vertices (%.1f%%)" % (100 * iso), iso > 0.10)
t.check("uniform initiator is not skewed (top 1%%: %.1f%%)" % (100 * utop), utop < 0.05 and umx < 5)

# --- --stats agrees with an independent count
out = run(1, "rmat-gen", "-s", s, "-e", 16, "--stats", "-o", P(TMP, "st.h5")).stdout
ed, _ = gen(P(TMP, "k.h5"), "-s", s, "-e", 16)
deg = np.bincount(ed.ravel(), minlength=1 << s)
t.check("--stats max degree", "max degree %d" % deg.max() in out, out)
t.check("--stats isolated", "isolated %d " % (deg == 0).sum() in out, out)

raise SystemExit(1 if t.failed else 0)
