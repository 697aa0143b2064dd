"""tests/test_hostile_links.py — an output named through a symbolic link is
written to the file the link names, and the link stays a link, on 1 and 2
ranks: -o of rmat-gen, partition2d, bfs-validate (HDF5 outputs), of
edge-export and bfs-report (text), bfs-report's --append; a link to an
existing file, a link to a name not there yet (the file is made where the
link points), a chain of relative links into another directory. The file
the link names is what a run without the link writes (the same datasets;
the table gains its row); no temporary is left in either directory, and the
link's directory gets no regular file of the link's name."""
import glob, os, shutil
import numpy as np
import h5py
from b2ref import Report, BIN, TMP, MPIEXEC, run_bounded

rep = Report()
T = TMP
LIMIT = 120


def run(np_, prog, *args):
    c = [os.path.join(BIN, prog)] + [str(a) for a in args]
    return run_bounded((MPIEXEC.split() + ["-n", str(np_)] + c) if np_ > 1 else c, LIMIT)


def temporaries(*dirs):
    return [p for d in dirs for p in glob.glob(os.path.join(d, ".*tmp*")) + glob.glob(os.path.join(d, ".*.lock"))]


def h5_same(a, b, skip=("created_utc",)):
    with h5py.File(a, "r") as x, h5py.File(b, "r") as y:
        names = []
        x.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        return len(names) > 0 and all(n in y and np.array_equal(x[n][()], y[n][()]) for n in names
                                      if not n.endswith("time"))


L = T + "/links"     # where the links are
D = T + "/targets"   # where they point
for d in (L, D):
    os.makedirs(d, exist_ok=True)


def fresh_link(kind, name):
    """A link L/name of `kind`: to an existing file, to a missing one, a
    relative chain; returns (link, the file written)."""
    link = os.path.join(L, name)
    target = os.path.join(D, name + ".real")
    for p in (link, target, link + ".2"):
        if os.path.lexists(p):
            os.unlink(p)
    if kind == "existing":
        with open(target, "w") as f:
            f.write("old\n")
        os.symlink(target, link)
    elif kind == "missing":
        os.symlink(target, link)
    else:  # L/name -> name.2 -> ../targets/name.real
        os.symlink(name + ".2", link)
        os.symlink(os.path.join("..", "targets", name + ".real"), link + ".2")
    return link, target


def check(n, link, target, rc, err, same):
    rep.check(n + ": exit 0", rc == 0, "exit %s: %s" % (rc, err[-300:]))
    rep.check(n + ": the link stays a link", os.path.islink(link), "a regular file replaced it")
    rep.check(n + ": the named file is written", os.path.isfile(target) and same(), target)
    rep.check(n + ": no temporary left", not temporaries(L, D), str(temporaries(L, D)))


# references, written without links
g = T + "/g.h5"
steps = [(1, "rmat-gen", ["-q", "-s", "6", "-o", g]),
         (2, "partition2d", ["-q", "--grid", "1x2", g, "-o", T + "/p.h5"]),
         (2, "bfs-gpu", ["-q", T + "/p.h5", "-n", "4", "--backend", "cpu", "-o", T + "/b.h5"]),
         (1, "bfs-validate", ["-q", g, T + "/b.h5", "-o", T + "/v.h5"]),
         (1, "edge-export", ["-q", g, "-o", T + "/g.el"]),
         (1, "bfs-report", ["-q", T + "/b.h5", T + "/v.h5", "-o", T + "/r.txt"])]
ok = True
for np_, prog, a in steps:
    rc, _, err = run(np_, prog, *a)
    ok &= rep.check("reference: " + prog, rc == 0, err[-300:])

text = lambda p: open(p, "rb").read()
if ok:
    for kind in ("existing", "missing", "chain"):
        for np_ in (1, 2):
            tag = "%s link, %d rank%s" % (kind, np_, "s" if np_ > 1 else "")
            link, target = fresh_link(kind, "g%d.h5" % np_)
            rc, _, err = run(np_, "rmat-gen", "-q", "-s", "6", "-o", link)
            check("rmat-gen -o, " + tag, link, target, rc, err, lambda: h5_same(g, target))
            link, target = fresh_link(kind, "p%d.h5" % np_)
            rc, _, err = run(np_, "partition2d", "-q", "--grid", "1x2", g, "-o", link)
            check("partition2d -o, " + tag, link, target, rc, err, lambda: h5_same(T + "/p.h5", target))
            link, target = fresh_link(kind, "v%d.h5" % np_)
            rc, _, err = run(np_, "bfs-validate", "-q", g, T + "/b.h5", "-o", link)
            check("bfs-validate -o, " + tag, link, target, rc, err, lambda: h5_same(T + "/v.h5", target))
        tag = "%s link" % kind
        link, target = fresh_link(kind, "g.el")
        rc, _, err = run(1, "edge-export", "-q", g, "-o", link)
        check("edge-export -o, " + tag, link, target, rc, err, lambda: text(target) == text(T + "/g.el"))
        link, target = fresh_link(kind, "r.txt")
        rc, _, err = run(1, "bfs-report", "-q", T + "/b.h5", T + "/v.h5", "-o", link)
        check("bfs-report -o, " + tag, link, target, rc, err,
              lambda: text(target).count(b"harmonic_mean_TEPS") == text(T + "/r.txt").count(b"harmonic_mean_TEPS") > 0)
        link, target = fresh_link(kind, "t.csv")
        if kind == "existing":
            os.unlink(target)  # the table: made by a first append through the link
        rc, _, err = run(1, "bfs-report", "-q", T + "/b.h5", T + "/v.h5", "--append", link)
        check("bfs-report --append, " + tag, link, target, rc, err,
              lambda: text(target).count(b"\n") == 2)
