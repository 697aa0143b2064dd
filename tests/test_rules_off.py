"""tests/test_rules_off.py — bfs-gpu --rule-off (the level plan without a
special rule of traverse/plan.h): on the CPU backend over MPI, 1x2, 2x2
and 1x4 with each rule that applies there off, and with all off, in
every direction give the serial BFS's levels and valid trees
(partref.check_bfs); the BFS file records what was off (`rules_off`, the
names joined by '+'); an unknown rule is a usage error (exit 2) naming
it; bfs-report labels the run with them and gives them in its JSON.
--evict-first is recorded as given, and a bad value is a usage error. The
CUDA paths are checked on GPU hosts (tests/test_bfs_gpu.py)."""
import json, os, sys
import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2ref
import partref
from partref import Graph, check_bfs

rep = b2ref.Report()
tmp = b2ref.TMP
env = dict(os.environ, OMP_NUM_THREADS="1")
NROOTS = 3
edges = os.path.join(tmp, "rules-rmat10.h5")
b2ref.run(1, "rmat-gen", "-s", 10, "-e", 8, "--seed", 7, "-o", edges)
g = Graph("rmat10", edges)
# (grid, the rules off, what the file records, the grid searched: a grid
# of one row is searched as one column unless row-as-column is off, and
# its other rules apply only then)
CASES = [((1, 2), ["row-as-column", "row-carries"], "row-carries+row-as-column", "1x2"),
         ((1, 2), ["row-as-column"], "row-as-column", "1x2"),
         ((1, 2), ["all"], "row-carries+front-lists+row-as-column+compact+bottom-up-turns", "1x2"),
         ((2, 2), ["compact"], "compact", "2x2"),
         ((4, 1), ["compact"], "compact", "4x1"),
         ((2, 2), ["row-carries"], "row-carries", "2x2"),
         ((2, 2), ["bottom-up-turns"], "bottom-up-turns", "2x2"),
         ((1, 4), ["front-lists"], "front-lists", "4x1"),
         ((1, 4), ["row-as-column", "front-lists"], "front-lists+row-as-column", "1x4")]
for (R, C), rules, recorded, searched in CASES:
    part = os.path.join(tmp, "rules-rmat10.%dx%d.h5" % (R, C))
    if not os.path.exists(part):
        b2ref.run(2, "partition2d", "--grid", "%dx%d" % (R, C), edges, "-o", part)
    opts = [a for r in rules for a in ("--rule-off", r)]
    for d in ("auto", "bottom-up"):
        tag = "rmat10 %dx%d --rule-off %s --direction %s" % (R, C, ",".join(rules), d)
        out = os.path.join(tmp, "rules-%dx%d-%s-%s.h5" % (R, C, "_".join(rules), d))
        p = b2ref.run(R * C, "bfs-gpu", part, "--backend", "cpu", "-n", NROOTS, "--direction", d,
                      *opts, "-o", out, check=False, env=env)
        if not rep.check(tag + " runs", p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-500:])):
            continue
        if not check_bfs(rep, tag, g, out, NROOTS, direction=d):
            rep.check(tag + " searches found", False, "no search checked")
        with h5py.File(out, "r") as f:
            v = f.attrs["rules_off"]
            rep.eq(tag + " rules_off recorded", v.decode() if isinstance(v, bytes) else v, recorded)
            v = f.attrs["grid_searched"]
            rep.eq(tag + " grid_searched recorded", v.decode() if isinstance(v, bytes) else v, searched)
        if d == "auto":  # bfs-report tells the variant apart: label and JSON
            r = b2ref.run(1, "bfs-report", out, "--unvalidated", "--format", "json", check=False)
            if rep.check(tag + " bfs-report runs", r.returncode == 0, r.stderr[-300:]):
                run = json.loads(r.stdout)["runs"][0]
                rep.eq(tag + " bfs-report rules_off", run["rules_off"], recorded)
                rep.eq(tag + " bfs-report grid_searched", run["grid_searched"], searched)
                rep.check(tag + " bfs-report label", run["label"].endswith("rules-off=" + recorded), run["label"])
            r = b2ref.run(1, "bfs-report", out, "--unvalidated", check=False)
            want = "# grid %dx%d%s," % (R, C, "" if searched == "%dx%d" % (R, C) else " (searched as %s)" % searched)
            rep.check(tag + " bfs-report text: " + want, want in r.stdout, r.stdout[:600])
        os.unlink(out)

# ROW_AS_COLUMN: a 1 x C run is the C x 1 run of the same graph, step for
# step: the same roots, levels, directions, edges examined and bytes sent
# by each rank (the CSC each rank searches is the one partitioned for C x 1)
for C in (2, 4):
    res = {}
    for R_, C_ in ((1, C), (C, 1)):
        part = os.path.join(tmp, "rules-rmat10.%dx%d.h5" % (R_, C_))
        if not os.path.exists(part):
            b2ref.run(2, "partition2d", "--grid", "%dx%d" % (R_, C_), edges, "-o", part)
        out = os.path.join(tmp, "rules-as-column-%dx%d.h5" % (R_, C_))
        p = b2ref.run(C, "bfs-gpu", part, "--backend", "cpu", "-n", 4, "--keep-pred", "all", "-o", out,
                      check=False, env=env)
        if rep.check("%dx%d runs" % (R_, C_), p.returncode == 0, p.stderr[-300:]):
            with h5py.File(out, "r") as f:
                res[R_, C_] = {k: f[k][...] for k in ("/roots", "/frontier_size", "/level_direction",
                                                       "/edges_examined", "/level_bytes", "/pred")}
            os.unlink(out)
    if len(res) == 2:
        for k in res[1, C]:
            rep.check("1x%d searched as %dx1: %s the same" % (C, C, k),
                      np.array_equal(res[1, C][k], res[C, 1][k]), "%s vs %s" % (res[1, C][k].ravel()[:8], res[C, 1][k].ravel()[:8]))

def compact_expand_bytes(g, R, C, roots, L):
    """FORMATS.md's expand bytes [K][L][P] of a run with compact bitmaps, from
    the serial BFS: at step l rank (i, j) sends the vertices of its block
    (j * R + i) at level l - 1 to its R - 1 column peers as a list (n words)
    or a bitmap (ceil(b/32) + 1 words) by section 5's rule, or as a compact
    bitmap of its vertices with a tuple degree at no level below l - 1
    (ceil(d/32) + 1 words) where that is fewer words."""
    b = -(-g.n // (R * C))
    bw = -(-b // 32)
    want = np.zeros((len(roots), L, R * C), dtype=np.int64)
    for k, r in enumerate(roots):
        lv = g.level(int(r))
        for p in range(R * C):
            i, j = divmod(p, C)
            blk = slice((j * R + i) * b, min((j * R + i + 1) * b, g.n))
            bl, has = lv[blk], g.tdeg[blk] > 0
            for l in range(1, L + 1):
                n = int((bl == l - 1).sum())
                if l - 1 > lv.max():  # past the search's last step
                    continue
                words = bw + 1 if 32 * n > b else n
                d = int((has & ((bl < 0) | (bl >= l - 1))).sum())
                want[k, l - 1, p] = 4 * (R - 1) * min(words, -(-d // 32) + 1)
    return want

# COMPACT: the same search step for step with the expand's compact
# bitmaps and without, and fewer expand bytes with them, as many as the
# serial BFS says (message levels)
for R, C in ((4, 1), (2, 2)):
    part = os.path.join(tmp, "rules-rmat10.%dx%d.h5" % (R, C))
    res = {}
    for tag, opts in (("on", []), ("off", ["--rule-off", "compact"])):
        out = os.path.join(tmp, "rules-compact-%s.h5" % tag)
        p = b2ref.run(R * C, "bfs-gpu", part, "--backend", "cpu", "-n", 4, "--keep-pred", "all", *opts,
                      "-o", out, check=False, env=env)
        if rep.check("%dx%d compact %s runs" % (R, C, tag), p.returncode == 0, p.stderr[-300:]):
            with h5py.File(out, "r") as f:
                res[tag] = {k: f[k][...] for k in ("/frontier_size", "/level_direction", "/edges_examined",
                                                    "/level_bytes", "/pred", "/roots")}
            os.unlink(out)
    if len(res) == 2:
        for k in ("/frontier_size", "/level_direction", "/edges_examined", "/pred"):
            rep.check("%dx%d compact on and off: %s the same" % (R, C, k), np.array_equal(res["on"][k], res["off"][k]))
        on, off = (res[t]["/level_bytes"][..., 0].sum() for t in ("on", "off"))
        rep.check("%dx%d compact: fewer expand bytes (%d < %d)" % (R, C, on, off), 0 < on < off)
        got = res["on"]["/level_bytes"][..., 0]
        want = compact_expand_bytes(g, R, C, res["on"]["/roots"], got.shape[1])
        bad = np.argwhere(got != want)
        rep.check("%dx%d compact: expand bytes of every step and rank as the serial BFS says" % (R, C),
                  len(bad) == 0, "first differences (root, step, rank): %s, got %s, want %s"
                  % (bad[:4].tolist(), got[tuple(bad[:4].T)].tolist(), want[tuple(bad[:4].T)].tolist()))

# none off: recorded as ""
out = os.path.join(tmp, "rules-none.h5")
p = b2ref.run(2, "bfs-gpu", os.path.join(tmp, "rules-rmat10.1x2.h5"), "--backend", "cpu", "-n", 1,
              "-o", out, check=False, env=env)
if rep.check("no --rule-off runs", p.returncode == 0, p.stderr[-300:]):
    with h5py.File(out, "r") as f:
        v = f.attrs["rules_off"]
        rep.eq("no --rule-off: rules_off empty", v.decode() if isinstance(v, bytes) else v, "")
        v = f.attrs["grid_searched"]
        rep.eq("no --rule-off: 1x2 searched as 2x1", v.decode() if isinstance(v, bytes) else v, "2x1")
    os.unlink(out)
# --evict-first: recorded as given (the CPU backend has no L2 hint to
# give, and its levels stay the serial BFS's); a bad value is a usage error
for v in ("on", "off"):
    p = b2ref.run(2, "bfs-gpu", os.path.join(tmp, "rules-rmat10.1x2.h5"), "--backend", "cpu", "-n", 2,
                  "--evict-first", v, "-o", out, check=False, env=env)
    if rep.check("--evict-first %s runs" % v, p.returncode == 0, p.stderr[-300:]):
        check_bfs(rep, "--evict-first " + v, g, out, 2)
        with h5py.File(out, "r") as f:
            e = f.attrs["evict_first"]
            rep.eq("--evict-first %s recorded" % v, e.decode() if isinstance(e, bytes) else e, v)
        os.unlink(out)
p = b2ref.run(1, "bfs-gpu", os.path.join(tmp, "rules-rmat10.1x2.h5"), "--evict-first", "always",
              "-o", out, check=False, env=env)
rep.eq("--evict-first always: exit 2", p.returncode, 2)
rep.check("--evict-first always: names the choices", "--evict-first" in p.stderr and "'always'" in p.stderr,
          p.stderr[-300:])
rep.check("--evict-first always: no output", not os.path.exists(out))
p = b2ref.run(1, "bfs-gpu", os.path.join(tmp, "rules-rmat10.1x2.h5"), "--rule-off", "own-rows",
              "-o", out, check=False, env=env)
rep.eq("--rule-off own-rows (no such rule): exit 2", p.returncode, 2)
rep.check("--rule-off own-rows: names the rule and the choices",
          "'own-rows'" in p.stderr and "row-as-column" in p.stderr, p.stderr[-300:])
rep.check("--rule-off own-rows: no output", not os.path.exists(out))
sys.exit(1 if rep.failed else 0)
