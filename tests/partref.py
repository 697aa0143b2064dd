"""tests/partref.py — an independent, serial partitioner for the bfs-gpu
tests: writes partition files exactly as docs/FORMATS.md ("Partition file")
describes, from edge files read with h5py, straight from docs/DESIGN.md's
formulas. Also writes small edge files (FORMATS.md "Edge file")."""
import numpy as np
import h5py
from b2ref import read_edges, undirected_csr, bfs_levels, levels_from_pred

from b2ref import M64, _mix64, fingerprint, rng_at, rng_key, write_edges, put_str

def cstr(x):
    """A fixed-length string attribute with its terminating NUL (FORMATS.md)."""
    x = x.encode() if isinstance(x, str) else x
    return np.array(x, dtype="S%d" % (len(x) + 1))

def expected_roots(tdeg, nroots, seed, stream=4):
    """FORMATS.md "BFS file": the roots rule, written independently."""
    n = len(tdeg)
    want = min(nroots, int((tdeg > 0).sum()))
    key, got, k = rng_key(seed, stream), [], 0
    while len(got) < want:
        x = rng_at(key, k) % n
        if tdeg[x] > 0 and x not in got:
            got.append(x)
        k += 1
    return got

def partition(edges_path, R, C, out_path):
    with h5py.File(edges_path, "r") as f:
        n = int(f.attrs["num_vertices"])
        t = f["edges"][...].astype(np.int64).reshape(-1, 2)
        fp = int(f.attrs["fingerprint"])
    b = -(-n // (R * C))
    u, v = t[:, 0], t[:, 1]
    keep = u != v
    tdeg = np.bincount(u[keep], minlength=n) + np.bincount(v[keep], minlength=n)
    a = np.concatenate([u[keep], v[keep]]); z = np.concatenate([v[keep], u[keep]])
    key = np.unique(a * n + z)
    cu, rv = key // n, key % n          # CSC column u, row v
    gj = cu // (b * R)
    gi = (rv // b) % R
    lcol = cu - gj * b * R
    lrow = (rv // (b * R)) * b + rv % b
    col_ptr = np.zeros((R * C, b * R + 1), dtype=np.uint64)
    segs, offs, nnz = [], [], []
    off = 0
    for p in range(R * C):
        i, j = divmod(p, C)
        sel = (gi == i) & (gj == j)
        c, r = lcol[sel], lrow[sel]
        order = np.lexsort((r, c))
        c, r = c[order], r[order]
        cnt = np.bincount(c, minlength=b * R)
        col_ptr[p, 1:] = np.cumsum(cnt)
        segs.append(r.astype(np.uint32))
        offs.append(off); nnz.append(len(r)); off += len(r)
    with h5py.File(out_path, "w") as f:
        f.create_dataset("csc/col_ptr", data=col_ptr, dtype="<u8")
        f.create_dataset("csc/row_idx", data=np.concatenate(segs) if segs else np.zeros(0, np.uint32), dtype="<u4")
        f.create_dataset("csc/row_off", data=np.array(offs, dtype=np.int64), dtype="<i8")
        f.create_dataset("csc/nnz", data=np.array(nnz, dtype=np.int64), dtype="<i8")
        f.create_dataset("tuple_degree", data=tdeg.astype(np.int64), dtype="<i8")
        at = f.attrs
        at["format"] = cstr("bfs2d-partition")
        at["format_version"] = np.int64(1)
        at["created_by"] = cstr("partref.py")
        at["grid_rows"] = np.int64(R); at["grid_cols"] = np.int64(C)
        at["num_vertices"] = np.int64(n); at["block_size"] = np.int64(b)
        at["num_input_edges"] = np.int64(len(t)); at["num_csc_edges"] = np.int64(len(key))
        at["edges_file"] = cstr(edges_path)
        at["edges_fingerprint"] = np.uint64(fp)
        at["directed"] = np.int64(0)
    return tdeg

# ---- checking BFS files (shared by test_bfs.py and test_bfs_gpu.py) -----
class Graph:
    def __init__(self, name, path):
        self.name, self.path = name, path
        self.n, self.t, _ = read_edges(path)
        self.ptr, self.idx = undirected_csr(self.n, self.t)
        u, v = self.t[:, 0], self.t[:, 1]
        k = u != v
        self.tdeg = np.bincount(u[k], minlength=self.n) + np.bincount(v[k], minlength=self.n)
        self.levels = {}
        self.keys = np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.ptr)) * self.n + self.idx
    def level(self, root):
        if root not in self.levels:
            self.levels[root] = bfs_levels(self.n, self.ptr, self.idx, root)
        return self.levels[root]
    def adjacent(self, a, b):
        """Elementwise: is (a[x], b[x]) an edge of the undirected graph?"""
        k = np.asarray(a, dtype=np.int64) * self.n + np.asarray(b, dtype=np.int64)
        i = np.minimum(np.searchsorted(self.keys, k), max(len(self.keys) - 1, 0))
        return (self.keys[i] == k) if len(self.keys) else np.zeros(len(k), bool)

def rule_directions(g, ref, alpha, beta):
    """The steps' directions under --direction auto as FORMATS.md states
    Beamer's rule, from the serial BFS's levels alone: nf and mf of each
    frontier (mf 0 at the root and after a bottom-up step), mu the
    tuple-degree sum less the top-down steps' mf."""
    nsteps = int(ref.max()) + 1
    nf = np.bincount(ref[ref >= 0], minlength=nsteps)
    mf = np.bincount(ref[ref >= 0], weights=g.tdeg[ref >= 0], minlength=nsteps).astype(np.int64)
    dirs, cur, fresh, mu, prev = [], 0, 0, int(g.tdeg.sum()), 0
    for l in range(nsteps):
        deg = 0 if l == 0 or dirs[-1] == 1 else int(mf[l])
        if l == 0:
            cur, fresh = 0, 0
        elif cur == 1:
            if nf[l] < prev and float(nf[l]) * beta <= float(g.n):
                cur, fresh = 0, 1
        elif not fresh and float(deg) * alpha > float(mu):
            cur = 1
        else:
            fresh = 0
        if cur == 0:
            mu -= deg
        prev = int(nf[l])
        dirs.append(cur)
    return dirs

def check_directions(rep, tag, g, roots, fs, ldir, exam, direction, rule=None):
    """The per-level records of FORMATS.md: one direction per step (the steps
    are as many as the non-empty frontiers, -1 after them); top-down steps
    examine exactly the undirected degree of every vertex they expand, so a
    search that is top-down throughout examines the degree sum of its
    component; a bottom-up step examines at least one edge per vertex it
    finds and at most every edge. rule = (alpha, beta): under auto, every
    step's direction is the one rule_directions gives."""
    deg = np.diff(g.ptr)
    bad, why = 0, ""
    for q, r in enumerate(roots):
        ref = g.level(int(r))
        nsteps = int(ref.max()) + 1
        d, e = ldir[q], exam[q]
        if not (np.all(np.isin(d[:nsteps], (0, 1))) and np.all(d[nsteps:] == -1) and not e[nsteps:].any()):
            bad += 1; why = "root %d: directions %s" % (r, d); continue
        if direction == "top-down" and d[:nsteps].any() or direction == "bottom-up" and not d[:nsteps].all():
            bad += 1; why = "root %d: directions %s under --direction %s" % (r, d, direction); continue
        if direction == "auto" and rule is not None and list(d[:nsteps]) != rule_directions(g, ref, *rule):
            bad += 1; why = "root %d: directions %s, the rule gives %s" % (r, list(d[:nsteps]), rule_directions(g, ref, *rule)); continue
        for l in range(nsteps):
            expanded = np.flatnonzero(ref == l)
            found = int(fs[q][l + 1]) if l + 1 < len(fs[q]) else 0
            if d[l] == 0 and e[l] != deg[expanded].sum():
                bad += 1; why = "root %d step %d: top-down examined %d, the frontier's degree is %d" % (r, l, e[l], deg[expanded].sum()); break
            if d[l] == 1 and not (found <= e[l] <= len(g.idx)):
                bad += 1; why = "root %d step %d: bottom-up examined %d edges, found %d" % (r, l, e[l], found); break
    rep.check(tag + " level directions and edges examined", bad == 0, why)

def check_bfs(rep, tag, g, path, nroots, seed=1, direction=None):
    """Every assertion on one BFS file; returns {root: levels} of kept searches."""
    got = {}
    with h5py.File(path, "r") as f:
        roots, nedge, visited = f["roots"][...], f["nedge"][...], f["visited"][...]
        kept, pred, fs = f["kept"][...], f["pred"][...], f["frontier_size"][...]
        pt = f["phase_time"][...]
        ldir, exam, lt = f["level_direction"][...], f["edges_examined"][...], f["level_time"][...]
        rep.eq(tag + " level tables' shape", (ldir.shape, exam.shape, lt.shape), (fs.shape,) * 3)
        rule = None
        if direction is not None:
            a = f.attrs["direction"]
            rep.eq(tag + " direction attribute", a.decode() if isinstance(a, bytes) else a, direction)
            if direction == "auto":
                rule = (float(f.attrs["alpha"]), float(f.attrs["beta"]))
        rep.eq(tag + " format", f.attrs["format"].decode() if isinstance(f.attrs["format"], bytes) else f.attrs["format"], "bfs2d-bfs")
    check_directions(rep, tag, g, roots, fs, ldir, exam, direction, rule)
    rep.eq(tag + " roots follow the FORMATS rule", roots, np.array(expected_roots(g.tdeg, nroots, seed), dtype=np.int64))
    rep.check(tag + " roots are not isolated", bool(np.all(g.tdeg[roots] > 0)))
    rep.eq(tag + " phase_time shape", pt.shape, (len(roots), 6))
    bad_lv = bad_tree = bad_ne = bad_vis = bad_fs = 0
    why = ""
    for q, r in enumerate(roots):
        ref = g.level(int(r))
        reached = ref >= 0
        if nedge[q] != g.tdeg[reached].sum() // 2:
            bad_ne += 1; why = "nedge %d != %d" % (nedge[q], g.tdeg[reached].sum() // 2)
        if visited[q] != reached.sum():
            bad_vis += 1
        want = np.bincount(ref[reached])
        row = fs[q]
        if not (np.array_equal(row[:len(want)], want) and not row[len(want):].any()):
            bad_fs += 1
    for q, s in enumerate(kept):
        r = int(roots[s])
        ref = g.level(r)
        p = pred[q]
        # b2ref.levels_from_pred on the first kept search; on all of them the
        # equivalent vectorized rule: same reached set, root its own parent,
        # every other parent a neighbour exactly one level up
        if q == 0:
            lv = levels_from_pred(p, r)
            if lv is None or not np.array_equal(lv, ref):
                bad_lv += 1
                if lv is not None:
                    d = np.flatnonzero(lv != ref)
                    why = "root %d: vertex %d level %d, expected %d" % (r, d[0], lv[d[0]], ref[d[0]])
                continue
        if not np.array_equal(p >= 0, ref >= 0):
            bad_lv += 1; why = "root %d: reached sets differ" % r; continue
        if p[r] != r:
            bad_tree += 1; why = "root %d: pred[root] = %d" % (r, p[r]); continue
        vs = np.flatnonzero(p >= 0)
        vs = vs[vs != r]
        pv = p[vs]
        if not np.all(ref[pv] == ref[vs] - 1):
            bad_lv += 1; why = "root %d: a parent is not one level up" % r; continue
        adj = g.adjacent(pv, vs)
        if not np.all(adj):
            v = vs[~adj][0]
            bad_tree += 1; why = "root %d: pred[%d] = %d is not a neighbour" % (r, v, p[v]); continue
        got[r] = ref
    rep.check(tag + " levels equal the serial BFS", bad_lv == 0 and len(kept) > 0 or len(roots) == 0, "%d searches differ; %s" % (bad_lv, why))
    rep.check(tag + " trees valid", bad_tree == 0, why)
    rep.check(tag + " nedge", bad_ne == 0, why)
    rep.check(tag + " visited", bad_vis == 0)
    rep.check(tag + " frontier sizes", bad_fs == 0)
    return got

