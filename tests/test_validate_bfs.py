"""tests/test_validate_bfs.py — bfs-validate on real bfs-gpu output (--backend
cpu): R-MAT and a SNAP graph, several grids, validated on rank counts unlike
the grid; every tree passes with nedge equal to the BFS file's and to an
independent count; a tree corrupted after the fact fails with the right rule."""
import os, shutil, sys
import numpy as np
import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2ref
import test_validate as tv

def main():
    rep = b2ref.Report()
    tmp = b2ref.TMP
    need = ["rmat-gen", "snap-import", "partition2d", "bfs-gpu", "bfs-validate"]
    missing = [p for p in need if not os.path.exists(os.path.join(b2ref.BIN, p))]
    if missing:
        rep.check("programs present", False, "missing: " + " ".join(missing))
        sys.exit(1)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    graphs = []
    e = os.path.join(tmp, "rmat.h5")
    b2ref.run(1, "rmat-gen", "-s", 8 if b2ref.SAN else 10, "-e", 8, "--seed", 3, "-o", e)
    graphs.append(("rmat", e, [(1, 1, 2), (2, 1, 3), (1, 2, 1)]))
    snap = os.path.join(b2ref.SNAP_DIR, "ca-GrQc.txt")
    if not b2ref.SAN and b2ref.need_input(rep, snap):
        e2 = os.path.join(tmp, "grqc.h5")
        b2ref.run(1, "snap-import", snap, "-o", e2)
        graphs.append(("ca-GrQc", e2, [(2, 1, 2)]))
    for name, e, grids in graphs:
        n, t, _ = b2ref.read_edges(e)
        ptr, idx = b2ref.undirected_csr(n, t)
        for R, C, P in grids:
            tag = "%s %dx%d, validated on %d rank%s" % (name, R, C, P, "s" if P > 1 else "")
            part = os.path.join(tmp, "%s.g%dx%d.h5" % (name, R, C))
            bfs = os.path.join(tmp, "%s.g%dx%d.bfs.h5" % (name, R, C))
            out = os.path.join(tmp, "%s.g%dx%d.p%d.valid.h5" % (name, R, C, P))
            b2ref.run(1, "partition2d", "--grid", "%dx%d" % (R, C), e, "-o", part)
            b2ref.run(R * C, "bfs-gpu", part, "--backend", "cpu", "-n", 4, "--seed", 2, "-o", bfs, env=env)
            r = tv.validate(P, e, bfs, out)
            if not rep.check(tag + ": exit 0", r.returncode == 0, r.stdout[-400:] + r.stderr[-400:]):
                continue
            d = tv.read_valid(out)
            with h5py.File(bfs, "r") as f:
                kept = f["kept"][...]; bn = f["nedge"][...][kept]; pred = f["pred"][...]; roots = f["roots"][...][kept]
            rep.eq(tag + ": all passed", d["passed"], np.ones(len(kept), np.int64))
            rep.eq(tag + ": nedge = BFS file's", d["nedge"], bn)
            rep.eq(tag + ": nedge = independent count", d["nedge"],
                   np.array([tv.nedge_of(t, p >= 0) for p in pred]))
        # the last grid's BFS file, corrupted after the fact: a parent two
        # levels up in search 0, a dropped vertex in search 1
        with h5py.File(bfs, "r") as f:
            pred = f["pred"][...]; roots = f["roots"][...]; kept = f["kept"][...]
        bad = os.path.join(tmp, name + ".bad.bfs.h5")
        shutil.copy(bfs, bad)
        lv = b2ref.levels_from_pred(pred[0], int(roots[kept[0]]))
        x = int(np.flatnonzero(lv >= 2)[0])
        leaf = int(np.flatnonzero(lv >= 1)[-1])
        with h5py.File(bad, "r+") as f:
            p = f["pred"]
            row = p[0]; row[x] = row[row[x]]; p[0] = row
            row = p[1]; y = int(np.flatnonzero(row >= 0)[-1])
            if y == roots[kept[1]]:
                y = int(np.flatnonzero(row >= 0)[0])
            row[y] = -1; p[1] = row
        out = os.path.join(tmp, name + ".bad.valid.h5")
        r = tv.validate(2, e, bad, out)
        rep.check(name + " corrupted: exit 1", r.returncode == 1, r.stderr[-300:])
        if os.path.exists(out):
            d = tv.read_valid(out)
            names = d["names"]
            rep.eq(name + " corrupted: parent two levels up -> tree_level", names[d["rule"][0]], "tree_level")
            rep.eq(name + " corrupted: its vertex", int(d["example_vertex"][0]), x)
            rep.eq(name + " corrupted: vertex dropped -> component", names[d["rule"][1]], "component")
            rep.eq(name + " corrupted: the dropped vertex", int(d["example_vertex"][1]), y)
            rep.eq(name + " corrupted: other searches pass", d["passed"][2:], np.ones(len(kept) - 2, np.int64))
    sys.exit(1 if rep.failed else 0)

if __name__ == "__main__":
    main()
