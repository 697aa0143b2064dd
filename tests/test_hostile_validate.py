"""tests/test_hostile_validate.py — bfs-validate on 1 and 2 ranks, each run
under a time limit:

- a BFS file whose /kept repeats an index, is not increasing, or lists an
  index out of [0, K): exit 3 naming the file and /kept, before any work
  (no output, no temporary, the input unchanged); a /kept that picks rows
  (searches 0 and 2 of 4) is validated against those searches' roots;
- a BFS file of `bfs-gpu --keep-pred none` (/kept of length 0): exit 0, the
  message "no predecessors kept: nothing to validate (rerun bfs-gpu with
  --keep-pred)" on stderr, a validation file whose per-search datasets have
  zero rows, validated_searches = num_searches = 0;
- more ranks on a node than it has cores: one warning that names the ranks
  and the cores; none with a core per rank."""
import glob, os, shutil
import numpy as np
import h5py
from b2ref import Report, BIN, TMP, MPIEXEC, run_bounded, digest

rep = Report()
LIMIT = 120
T = TMP
MSG = "no predecessors kept: nothing to validate (rerun bfs-gpu with --keep-pred)"
PER_SEARCH = ["search", "root", "passed", "rule", "example_vertex", "nedge", "bfs_nedge", "time",
              "read_time"]


def run(np_, prog, *args):
    c = [os.path.join(BIN, prog)] + [str(a) for a in args]
    return run_bounded((MPIEXEC.split() + ["-n", str(np_)] + c) if np_ > 1 else c, LIMIT)


def leftovers():
    return glob.glob(os.path.join(T, ".*tmp*"))


def setup():
    ok = True
    for np_, a in [(1, ["rmat-gen", "-q", "-s", "7", "-o", T + "/g.h5"]),
                   (2, ["partition2d", "-q", "--grid", "1x2", T + "/g.h5", "-o", T + "/p.h5"]),
                   (2, ["bfs-gpu", "-q", T + "/p.h5", "-n", "4", "--backend", "cpu", "-o", T + "/b.h5"]),
                   (2, ["bfs-gpu", "-q", T + "/p.h5", "-n", "4", "--backend", "cpu", "--keep-pred", "none",
                        "-o", T + "/bn.h5"])]:
        rc, _, err = run(np_, *a)
        ok &= rep.check("setup: " + a[0], rc == 0, err[-300:])
    return ok


def with_kept(path, kept, rows=None):
    """b.h5 with /kept = kept and /pred = rows `rows` of b.h5's /pred (kept's own when None)."""
    shutil.copy(T + "/b.h5", path)
    with h5py.File(path, "r+") as f:
        pred = f["pred"][()]
        sel = kept if rows is None else rows
        sel = [min(max(int(r), 0), len(pred) - 1) for r in sel]
        del f["kept"], f["pred"]
        f.create_dataset("kept", data=np.asarray(kept, dtype=np.int64))
        f.create_dataset("pred", data=pred[sel] if len(sel) else np.zeros((0, pred.shape[1]), np.int64))
    return path


def kept_cases():
    bad = {"repeats an index": [0, 0, 2, 3], "not increasing": [1, 0, 2, 3],
           "an index past K": [0, 1, 2, 4], "a negative index": [-1, 1, 2, 3],
           "repeated at the end": [0, 1, 3, 3]}
    for what, kept in bad.items():
        b = with_kept(T + "/bk.h5", kept)
        for np_ in (1, 2):
            o = T + "/vk.h5"
            before = digest(b)
            rc, out, err = run(np_, "bfs-validate", T + "/g.h5", b, "-o", o)
            n = "/kept %s (%d rank%s)" % (what, np_, "s" if np_ > 1 else "")
            rep.check(n + ": exit 3", rc == 3, "exit %s: %s" % (rc, err[-300:]))
            rep.check(n + ": names the file and /kept", b in err and "/kept" in err, err[-300:])
            rep.check(n + ": before any work (no search line)", "pass" not in out and "FAIL" not in out,
                      out[-300:])
            rep.check(n + ": no output", not os.path.exists(o))
            rep.check(n + ": no temporary", not leftovers(), str(leftovers()))
            rep.check(n + ": input unchanged", digest(b) == before)
    # a proper subset: each row checked against its own search's root
    b = with_kept(T + "/bs.h5", [0, 2])
    with h5py.File(T + "/b.h5", "r") as f:
        roots = f["roots"][()]
    for np_ in (1, 2):
        o = T + "/vs.h5"
        rc, _, err = run(np_, "bfs-validate", "-q", T + "/g.h5", b, "-o", o)
        n = "/kept [0, 2] (%d rank%s)" % (np_, "s" if np_ > 1 else "")
        if rep.check(n + ": exit 0", rc == 0, "exit %s: %s" % (rc, err[-300:])):
            with h5py.File(o, "r") as f:
                rep.eq(n + ": searches", f["search"][()].tolist(), [0, 2])
                rep.eq(n + ": roots", f["root"][()].tolist(), [int(roots[0]), int(roots[2])])
                rep.eq(n + ": all passed", f["passed"][()].tolist(), [1, 1])
                rep.eq(n + ": validated_searches", int(f.attrs["validated_searches"]), 2)
            os.unlink(o)
    # rows swapped under an increasing /kept: the roots no longer match, a failure (exit 1), not a pass
    b = with_kept(T + "/bw.h5", [0, 2], rows=[2, 0])
    rc, _, err = run(2, "bfs-validate", "-q", T + "/g.h5", b, "-o", T + "/vw.h5")
    rep.check("/kept [0, 2] with the rows swapped: exit 1", rc == 1, "exit %s: %s" % (rc, err[-300:]))


def keep_none():
    with h5py.File(T + "/bn.h5", "r") as f:
        rep.eq("--keep-pred none: /kept is empty", len(f["kept"]), 0)
    for np_ in (1, 2):
        o = T + "/vn%d.h5" % np_
        rc, out, err = run(np_, "bfs-validate", T + "/g.h5", T + "/bn.h5", "-o", o)
        n = "--keep-pred none (%d rank%s)" % (np_, "s" if np_ > 1 else "")
        rep.check(n + ": exit 0", rc == 0, "exit %s: %s" % (rc, err[-300:]))
        rep.check(n + ": says so on stderr", MSG in err, err[-300:])
        if not rep.check(n + ": a validation file", os.path.exists(o)):
            continue
        with h5py.File(o, "r") as f:
            rep.eq(n + ": format", f.attrs["format"].decode() if isinstance(f.attrs["format"], bytes)
                   else str(f.attrs["format"]), "bfs2d-validation")
            for d in PER_SEARCH:
                rep.check(n + ": /%s has zero rows" % d, d in f and f[d].shape == (0,),
                          str(f[d].shape) if d in f else "missing")
            rep.eq(n + ": validated_searches", int(f.attrs["validated_searches"]), 0)
            rep.eq(n + ": num_searches", int(f.attrs["num_searches"]), 0)
            rep.eq(n + ": num_failed", int(f.attrs["num_failed"]), 0)
        rep.check(n + ": no temporary", not leftovers(), str(leftovers()))


def oversubscribed():
    cores = os.cpu_count() or 1
    o = T + "/vo.h5"
    rc, _, err = run(cores + 1, "bfs-validate", "-q", T + "/g.h5", T + "/b.h5", "-o", o)
    n = "%d ranks on %d cores" % (cores + 1, cores)
    rep.check(n + ": exit 0", rc == 0, "exit %s: %s" % (rc, err[-300:]))
    want = "%d ranks on a node with %d cores" % (cores + 1, cores)
    rep.check(n + ": warns once", err.count(want) == 1 and "oversubscribed" in err, err[-300:])
    if cores <= 2:  # one run more, within what this machine has
        rc, _, err = run(cores, "bfs-validate", "-q", T + "/g.h5", T + "/b.h5", "-o", o)
        rep.check("%d ranks on %d cores: no warning" % (cores, cores), rc == 0 and "oversubscribed" not in err,
                  err[-300:])


if setup():
    kept_cases()
    keep_none()
    oversubscribed()
else:
    rep.check("setup", False, "inputs could not be made")
