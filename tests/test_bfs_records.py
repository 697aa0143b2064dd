"""tests/test_bfs_records.py — bfs-gpu's per-rank records (FORMATS.md, BFS
file): /rank_phase_time, /level_bytes, /level_phase_time, /pred_bytes and the attributes
threads_per_rank and variant, on the CPU backend over grids of one row, one
column and 2x2. Bytes are checked against what the message forms make of
the serial BFS's levels (b2ref): with --bitmap off an expand message is
the own frontier as a list, 4 bytes a vertex, to each of the
R - 1 column peers; with --bitmap on every expand and fold message is a
bitmap of the block with its count word; a bottom-up step without a
carried state first sends the own visited block to the C - 1 row peers.
Each rank's level phases sum, over the levels, to its phases of the search
exactly, and are 0 past a search's steps; bfs-report's JSON gives their
mean and max over ranks per level as numpy computes them from the file."""
import json
import os, sys
import numpy as np
import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2ref

rep = b2ref.Report()
tmp = b2ref.TMP
env1 = dict(os.environ, OMP_NUM_THREADS="1")
NROOTS = 3

edges = os.path.join(tmp, "rmat10.h5")
b2ref.run(1, "rmat-gen", "-s", 10, "-e", 8, "--seed", 5, "-o", edges)
N, tuples, _ = b2ref.read_edges(edges)
ptr, idx = b2ref.undirected_csr(N, tuples)


def bfs(R, C, *flags, env=env1, variant=None):
    part = os.path.join(tmp, "rmat10.%dx%d.h5" % (R, C))
    if not os.path.exists(part):
        b2ref.run(1, "partition2d", "--grid", "%dx%d" % (R, C), edges, "-o", part)
    out = os.path.join(tmp, "bfs.h5")
    args = [part, "--backend", "cpu", "-n", NROOTS, "-o", out] + list(flags)
    if variant:
        args += ["--variant", variant]
    p = b2ref.run(R * C, "bfs-gpu", *args, check=False, env=env)
    return p, out


def own_front(level, d, R, C):
    """[P] vertices of level d each rank owns."""
    v = np.flatnonzero(level == d)
    i, j = b2ref.vertex_owner(v, N, R, C)
    return np.bincount(i * C + j, minlength=R * C)


for R, C in ((2, 2), (1, 3), (3, 1)):
    P, b = R * C, b2ref.block_size(N, R, C)
    bmp = 4 * ((b + 31) // 32 + 1)
    for mode in ("top-down off", "top-down on", "bottom-up off"):
        direction, bitmap = mode.split()
        tag = "%dx%d %s bitmap %s" % (R, C, direction, bitmap)
        # a grid of one row as a row (the 1 x C search is the C x 1 one
        # unless row-as-column is off: tests/test_rules_off.py)
        p, out = bfs(R, C, "--direction", direction, "--bitmap", bitmap,
                     *(("--rule-off", "row-as-column") if R == 1 else ()))
        if not rep.check(tag + ": runs", p.returncode == 0, p.stderr[-400:]):
            continue
        with h5py.File(out, "r") as f:
            roots, fs = f["roots"][...], f["frontier_size"][...]
            L = fs.shape[1]
            rp, ph = f["rank_phase_time"][...], f["phase_time"][...]
            lb, pb = f["level_bytes"][...], f["pred_bytes"][...]
            lp = f["level_phase_time"][...]
            names = [x.decode() for x in f.attrs["level_bytes_names"]]
        rep.eq(tag + ": level_bytes_names", names, ["expand", "fold", "visited"])
        rep.eq(tag + ": shapes", (rp.shape, lb.shape, pb.shape),
               ((NROOTS, P, 6), (NROOTS, L, P, 3), (NROOTS, P)))
        rep.eq(tag + ": level_phase_time shape", lp.shape, (NROOTS, L, P, 5))
        rep.check(tag + ": level phases >= 0", (lp >= 0).all(), str(lp.min()))
        rep.check(tag + ": level phases sum to the search's phases, each rank",
                  np.allclose(lp.sum(axis=1), rp[:, :, :5], rtol=1e-12, atol=1e-15),
                  "%s vs %s" % (lp.sum(axis=1)[0, 0], rp[0, 0, :5]))
        past = np.zeros(lp.shape, bool)
        for k in range(NROOTS):
            past[k, int((fs[k] > 0).sum()):] = True  # the steps recorded: one a frontier
        rep.check(tag + ": no level phases past a search's steps", not lp[past].any())
        if mode == "top-down on":
            r = b2ref.run(1, "bfs-report", out, "--unvalidated", "--format", "json", check=False)
            if rep.check(tag + ": bfs-report json runs", r.returncode == 0, r.stderr[-300:]):
                got = json.loads(r.stdout)["runs"][0]["level_phases"]
                names = ["expand exchange", "frontier expansion", "fold exchange", "frontier update",
                         "termination test"]
                has = fs > 0
                for x, name in enumerate(names):
                    for stat, red in (("mean", np.mean), ("max", np.max)):
                        want_l = [red(lp[has[:, l], l, :, x], axis=1).mean() for l in range(L)]
                        rep.check(tag + ": report level phases %s %s" % (stat, name),
                                  np.allclose(got[stat][name], want_l, rtol=1e-9, atol=1e-15),
                                  "%s vs %s" % (got[stat][name], want_l))
        rep.check(tag + ": phase_time is the mean of rank_phase_time",
                  np.allclose(rp.mean(axis=1), ph, rtol=1e-12, atol=0), "%s vs %s" % (rp.mean(axis=1), ph))
        want = np.zeros((NROOTS, L, P, 3), np.int64)
        for k, root in enumerate(roots):
            level = b2ref.bfs_levels(N, ptr, idx, int(root))
            steps = int(level.max()) + 1  # the last one finds nothing
            for l in range(steps):
                if bitmap == "off":
                    want[k, l, :, 0] = (R - 1) * 4 * own_front(level, l, R, C)
                else:
                    want[k, l, :, 0] = (R - 1) * bmp
                    want[k, l, :, 1] = (C - 1) * bmp
                if direction == "bottom-up":
                    want[k, l, :, 2] = (C - 1) * (bmp - 4)
        rep.eq(tag + ": expand and visited bytes", lb[:, :, :, [0, 2]], want[:, :, :, [0, 2]])
        if bitmap == "on":
            rep.eq(tag + ": fold bytes (bitmaps)", lb[:, :, :, 1], want[:, :, :, 1])
        else:
            rep.check(tag + ": fold bytes are whole words, none without row peers",
                      (lb[:, :, :, 1] % 4 == 0).all() and (C > 1 or not lb[:, :, :, 1].any()))
        if C == 1:
            rep.eq(tag + ": no predecessor exchange without row peers", pb, np.zeros((NROOTS, P), np.int64))
        else:
            rep.check(tag + ": predecessor bytes sent", (pb >= 0).all() and pb.sum() > 0, str(pb))

# the attributes
p, out = bfs(1, 1, variant="td-k2.v1+x")
if rep.check("variant: runs", p.returncode == 0, p.stderr[-400:]):
    with h5py.File(out, "r") as f:
        rep.eq("variant recorded", f.attrs["variant"].decode(), "td-k2.v1+x")
        rep.eq("threads_per_rank recorded", int(f.attrs["threads_per_rank"]), 1)
p, out = bfs(1, 1)
if rep.check("no variant: runs", p.returncode == 0, p.stderr[-400:]):
    with h5py.File(out, "r") as f:
        rep.eq("no variant: empty", f.attrs["variant"].decode(), "")
for bad in ("a b", "a/b", "$x", "", "x" * 65, "q\""):
    os.path.exists(out) and os.unlink(out)
    p, out = bfs(1, 1, variant=None, *(["--variant", bad]))
    rep.check("variant %r refused (exit 2, no output)" % bad, p.returncode == 2 and not os.path.exists(out),
              "exit %d" % p.returncode)
cores = os.cpu_count() or 1
p, out = bfs(1, 1, env=dict(os.environ, OMP_NUM_THREADS=str(cores + 1)))
if rep.check("threads: runs", p.returncode == 0, p.stderr[-400:]):
    with h5py.File(out, "r") as f:
        rep.eq("threads_per_rank = OMP_NUM_THREADS", int(f.attrs["threads_per_rank"]), cores + 1)
        rep.eq("ranks x threads over the cores is oversubscribed", int(f.attrs["oversubscribed"]), 1)
    rep.check("oversubscription warned", "oversubscribed" in p.stderr, p.stderr[-300:])
p, out = bfs(1, 1, env=dict(os.environ, OMP_NUM_THREADS="1"))
if rep.check("one thread: runs", p.returncode == 0, p.stderr[-400:]):
    with h5py.File(out, "r") as f:
        rep.eq("one rank of one thread is not oversubscribed", int(f.attrs["oversubscribed"]), 0)
sys.exit(1 if rep.failed else 0)
