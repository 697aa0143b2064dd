"""tests/test_bfs_grids.py — bfs-gpu (CPU backend) on grids of up to 16 ranks
(4x4, 3x5, 8x2, 2x8: the level plan's general paths, rows and columns of more
than two ranks, N not divisible by R*C), every direction: levels equal to the
serial BFS of tests/b2ref.py, trees valid, nedge and frontier sizes as
FORMATS.md says (partref.check_bfs), and every kept tree accepted by
bfs-validate. B2_SAN=1 runs 4x4 only."""
import os, sys
import numpy as np
import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2ref
import partref
import test_validate as tv
from partref import Graph, check_bfs

rep = b2ref.Report()
tmp = b2ref.TMP
for prog in ("rmat-gen", "partition2d", "bfs-gpu", "bfs-validate"):
    if not rep.check("%s built" % prog, os.path.exists(os.path.join(b2ref.BIN, prog))):
        sys.exit(1)
env = dict(os.environ, OMP_NUM_THREADS="1")
GRIDS = [(4, 4)] if b2ref.SAN else [(4, 4), (3, 5), (8, 2), (2, 8)]
DIRECTIONS = ("auto", "top-down", "bottom-up")
NROOTS = 3

# scale 10 at edgefactor 8: N = 1024, which 3x5 = 15 ranks do not divide
edges = os.path.join(tmp, "rmat10.h5")
b2ref.run(1, "rmat-gen", "-s", 10, "-e", 8, "--seed", 5, "-o", edges)
g = Graph("rmat10", edges)
for R, C in GRIDS:
    part = os.path.join(tmp, "rmat10.%dx%d.h5" % (R, C))
    b2ref.run(2, "partition2d", "--grid", "%dx%d" % (R, C), edges, "-o", part)
    for d in DIRECTIONS:
        tag = "rmat10 %dx%d %s" % (R, C, d)
        out = os.path.join(tmp, "bfs-%dx%d-%s.h5" % (R, C, d))
        valid = os.path.join(tmp, "valid-%dx%d-%s.h5" % (R, C, d))
        p = b2ref.run(R * C, "bfs-gpu", part, "--backend", "cpu", "-n", NROOTS, "--direction", d,
                      "-o", out, check=False, env=env)
        if not rep.check(tag + " runs", p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-500:])):
            continue
        if not check_bfs(rep, tag, g, out, NROOTS, direction=d):
            rep.check(tag + " searches found", False, "no search checked")
        r = tv.validate(2, edges, out, valid)
        if rep.check(tag + " bfs-validate exits 0", r.returncode == 0, r.stderr[-400:]):
            v = tv.read_valid(valid)
            with h5py.File(out, "r") as f:
                kept = f["kept"][...]
                nedge = f["nedge"][...][kept]
            rep.eq(tag + " bfs-validate: every tree passed", v["passed"], np.ones(len(kept), np.int64))
            rep.eq(tag + " bfs-validate: nedge as the BFS file's", v["nedge"], nedge)
        for f in (out, valid):
            if os.path.exists(f):
                os.unlink(f)
sys.exit(1 if rep.failed else 0)
