"""tests/test_validate.py — bfs-validate against independent references.

Edge and BFS files are written here with h5py exactly as docs/FORMATS.md says;
the trees come from a serial BFS that picks a random valid parent (any
neighbour one level up), so they differ from any particular BFS's tree.
Checks: true trees pass on several graphs and 1, 2, 3 ranks, with nedge
recomputed exactly; each planted corruption is caught and named by its rule
(with the example vertex); bad inputs give docs/DESIGN.md's exit codes and no output.
The functions above `main` are also used by bench/validate.sh."""
import os, shutil, subprocess, sys
import numpy as np
import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2ref

from b2ref import fingerprint, put_str as sattr


def write_edges(path, n, tuples, fp=None):
    return b2ref.write_edges(path, n, tuples, 0, fp, created_by="test_validate.py")

def write_bfs(path, edges_path, roots, preds, nedge, kept=None, levels=None):
    """A BFS file per docs/FORMATS.md. preds: [Kp][N] rows for kept searches."""
    with h5py.File(edges_path, "r") as f:
        n = int(f.attrs["num_vertices"]); m = int(f.attrs["num_edges"]); fp = f.attrs["fingerprint"]
    K = len(roots)
    kept = list(range(K)) if kept is None else kept
    preds = np.asarray(preds, dtype=np.int64).reshape(len(kept), n)
    depth = 1
    if levels is not None:
        depth = max(int(l.max()) + 1 for l in levels)
    fs = np.zeros((K, depth), dtype=np.int64)
    if levels is not None:
        for k, l in enumerate(levels):
            c = np.bincount(l[l >= 0], minlength=depth)
            fs[k, :len(c)] = c
    with h5py.File(path, "w") as f:
        f["roots"] = np.asarray(roots, dtype=np.int64)
        f["time"] = np.full(K, 1e-3)
        f["nedge"] = np.asarray(nedge, dtype=np.int64)
        f["visited"] = fs.sum(axis=1)
        f["phase_time"] = np.zeros((K, 6))
        f["frontier_size"] = fs
        f["kept"] = np.asarray(kept, dtype=np.int64)
        f["pred"] = preds
        sattr(f, "format", "bfs2d-bfs")
        f.attrs["format_version"] = np.int64(1)
        sattr(f, "created_by", "test_validate.py")
        sattr(f, "partition_file", "none")
        sattr(f, "edges_file", edges_path)
        f.attrs["edges_fingerprint"] = np.uint64(fp)
        for a, v in (("num_vertices", n), ("num_input_edges", m), ("grid_rows", 1), ("grid_cols", 1),
                     ("num_ranks", 1), ("num_gpus", 0), ("nroots", K), ("edges_per_thread", 1)):
            f.attrs[a] = np.int64(v)
        sattr(f, "backend", "cpu"); sattr(f, "devices", "python"); sattr(f, "bitmap", "off")
        f.attrs["seed"] = np.uint64(1)
        f.attrs["phase_names"] = np.array([b"expand", b"expansion", b"fold", b"update", b"termination",
                                           b"pred"], dtype="S12")
        f.attrs["load_time"] = 0.0

def random_tree(n, ptr, idx, root, rng):
    """(pred, level): a BFS tree whose parents are random neighbours one level up."""
    level = b2ref.bfs_levels(n, ptr, idx, root)
    pred = np.full(n, -1, dtype=np.int64)
    pred[root] = root
    for v in np.flatnonzero(level > 0):
        nb = idx[ptr[v]:ptr[v + 1]]
        cand = nb[level[nb] == level[v] - 1]
        pred[v] = cand[rng.integers(len(cand))]
    return pred, level

def nedge_of(tuples, reached):
    u, v = tuples[:, 0], tuples[:, 1]
    return int(np.sum((u != v) & reached[u] & reached[v]))

def pick_roots(n, tuples, k, rng):
    deg = np.zeros(n, dtype=np.int64)
    nl = tuples[tuples[:, 0] != tuples[:, 1]]
    np.add.at(deg, nl[:, 0], 1); np.add.at(deg, nl[:, 1], 1)
    cand = np.flatnonzero(deg > 0)
    return rng.choice(cand, size=min(k, len(cand)), replace=False)

def make_case(dirname, name, n, tuples, nroots, seed):
    """Edge file + BFS file with random valid trees; returns (edges, bfs, roots, nedges, preds, levels)."""
    rng = np.random.default_rng(seed)
    tuples = np.asarray(tuples, dtype=np.int64).reshape(-1, 2)
    e = os.path.join(dirname, name + ".edges.h5"); b = os.path.join(dirname, name + ".bfs.h5")
    write_edges(e, n, tuples)
    ptr, idx = b2ref.undirected_csr(n, tuples)
    roots = pick_roots(n, tuples, nroots, rng)
    preds, levels, nedges = [], [], []
    for r in roots:
        p, l = random_tree(n, ptr, idx, int(r), rng)
        preds.append(p); levels.append(l); nedges.append(nedge_of(tuples, p >= 0))
    write_bfs(b, e, roots, preds, nedges, levels=levels)
    return e, b, roots, nedges, preds, levels, (ptr, idx)

def read_valid(path):
    with h5py.File(path, "r") as f:
        d = {k: f[k][...] for k in f.keys()}
        d["attrs"] = dict(f.attrs)
        d["names"] = [x.decode() if isinstance(x, bytes) else str(x) for x in f.attrs["rule_names"]]
    return d

# ---- graphs ----------------------------------------------------------------
def graph_small():
    """Three components, isolated vertices, duplicates, self-loops, a long path."""
    t = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7), (7, 8), (8, 9), (9, 3),
         (1, 2), (2, 1), (4, 4), (0, 10), (10, 11), (11, 12), (12, 13), (13, 14), (14, 15), (15, 16),
         (16, 17), (17, 18), (18, 19), (19, 20), (20, 21), (3, 21), (5, 5),
         (25, 26), (26, 27), (27, 25), (27, 28), (28, 29), (30, 30), (31, 32), (32, 31), (31, 32)]
    return 36, np.array(t)

def graph_cycle():
    """A cycle of 700 (levels up to 350: the four-byte level path), a
    separate triangle with a tail, isolated vertices."""
    c = [(i, (i + 1) % 700) for i in range(700)]
    return 720, np.array(c + [(0, 710), (705, 706), (706, 707), (707, 705), (707, 708), (708, 708)])

def graph_random(n, m, seed):
    rng = np.random.default_rng(seed)
    # a few dense-ish blobs plus sparse noise: several components, some isolated vertices
    u = rng.integers(0, n, size=m); v = (u + rng.integers(-40, 41, size=m)) % n
    t = np.stack([u, v], axis=1)
    t = np.concatenate([t, t[: m // 20]])  # duplicates
    rng.shuffle(t)
    return n, t

def graph_snap(rep):
    path = os.path.join(b2ref.SNAP_DIR, "ca-GrQc.txt")
    if not b2ref.need_input(rep, path):
        return None
    rows = [l.split() for l in open(path, "rb").read().decode().splitlines() if l and not l.startswith("#")]
    a = np.array([(int(x), int(y)) for x, y in rows], dtype=np.int64)
    ids, inv = np.unique(a.ravel(), return_inverse=True)
    return len(ids), inv.reshape(-1, 2).astype(np.int64)

def validate(np_, e, b, out, *extra):
    return b2ref.run(np_, "bfs-validate", e, b, "-o", out, *extra, check=False)

# ---- corruptions -------------------------------------------------------------
def plant(n, ptr, idx, tuples, pred, level, root, rng):
    """List of (label, expected rule, pred', nedge', allowed example vertices or None)."""
    reached = pred >= 0
    nb = lambda v: idx[ptr[v]:ptr[v + 1]]
    children = {}
    for v in np.flatnonzero(reached):
        if v != root:
            children.setdefault(int(pred[v]), []).append(int(v))
    def subtree(v):
        out, st = [], [v]
        while st:
            x = st.pop(); out.append(x); st.extend(children.get(x, []))
        return set(out)
    ne = nedge_of(tuples, reached)
    cases = []
    def add(label, rule, p, ex, nedge=None):
        cases.append((label, rule, p, ne if nedge is None else nedge, ex))
    c = int(nb(root)[0])
    p = pred.copy(); p[root] = c; add("root not its own parent", "root", p, {root})
    p = pred.copy(); p[root] = -1; add("root unreached", "root", p, {root}, nedge_of(tuples, p >= 0))
    inner = [v for v in children if v != root]
    v = inner[rng.integers(len(inner))] if inner else int(np.flatnonzero(level == 1)[0])
    p = pred.copy(); p[v] = -1; add("reachable vertex dropped", "component", p, {v}, nedge_of(tuples, p >= 0))
    deg = ptr[1:] - ptr[:-1]
    iso = np.flatnonzero(~reached & (deg == 0))
    far = np.flatnonzero(~reached & (deg > 0))
    if len(iso):
        x = int(iso[0]); p = pred.copy(); p[x] = root
        add("isolated unreachable vertex given a parent", "component", p, {x})
    if len(far):
        x = int(far[0]); p = pred.copy(); p[x] = v
        add("unreachable vertex given a parent", "component", p, set(nb(x).tolist()) | {x},
            nedge_of(tuples, p >= 0))
    w = int(np.flatnonzero(level >= 1)[-1])
    p = pred.copy(); p[w] = n; add("parent out of range (N)", "range", p, {w})
    p = pred.copy(); p[w] = -7; add("parent out of range (-7)", "range", p, {w})
    p = pred.copy(); p[w] = w; add("non-root its own parent", "tree", p, subtree(w))
    x = int(np.flatnonzero(level == 2)[0]); px = int(pred[x])
    p = pred.copy(); p[px] = x; add("two-vertex cycle", "tree", p, subtree(px))
    # a parent one level up that is not a neighbour
    done = False
    for x in np.flatnonzero(level >= 1):
        s = set(nb(x).tolist())
        for y in np.flatnonzero(level == level[x] - 1):
            if int(y) not in s:
                p = pred.copy(); p[x] = y; add("parent not a neighbour", "tree_edge", p, {int(x)})
                done = True; break
        if done: break
    x = int(np.flatnonzero(level >= 2)[0])
    p = pred.copy(); p[x] = pred[pred[x]]; add("parent two levels up", "tree_level", p, {x})
    add("wrong nedge", "nedge", pred.copy(), {-1}, ne + 1)
    add("valid tree", "pass", pred.copy(), {-1})
    return cases

def main():
    rep = b2ref.Report()
    tmp = b2ref.TMP
    san = b2ref.SAN
    rng = np.random.default_rng(7)

    # ---- true trees pass ---------------------------------------------------
    graphs = [("small", *graph_small()), ("cycle", *graph_cycle()), ("random", *graph_random(300 if san else 2000, 500 if san else 3000, 3))]
    sg = graph_snap(rep)
    if sg and not san:
        graphs.append(("ca-GrQc", *sg))
    if rep.check("rmat-gen built", os.path.exists(os.path.join(b2ref.BIN, "rmat-gen")), "not in " + b2ref.BIN):
        e = os.path.join(tmp, "rmat.edges.h5")
        b2ref.run(1, "rmat-gen", "-s", 8 if san else 11, "-e", 8, "--seed", 5, "-o", e)
        n, t, _ = b2ref.read_edges(e)
        graphs.append(("rmat", n, t))
    # every graph on some rank counts, 1, 2 and 3 each on several graphs
    plan = {"small": [1, 2, 3], "cycle": [1, 3], "random": [2, 3], "ca-GrQc": [2], "rmat": [1, 3]}
    for name, n, t in graphs:
        e, b, roots, nedges, preds, levels, _ = make_case(tmp, name, n, t, 4, 11)
        for P in plan[name]:
            out = os.path.join(tmp, "%s.p%d.valid.h5" % (name, P))
            extra = ("--read-rows", "37") if P == 3 else ()
            r = validate(P, e, b, out, *extra)
            if not rep.check("%s: %d ranks: exit 0" % (name, P), r.returncode == 0, "exit %d: %s%s" % (r.returncode, r.stdout[-500:], r.stderr[-500:])):
                continue
            d = read_valid(out)
            rep.eq("%s: %d ranks: all passed" % (name, P), d["passed"], np.ones(len(roots), dtype=np.int64))
            rep.eq("%s: %d ranks: nedge recomputed" % (name, P), d["nedge"], np.array(nedges))
            rep.eq("%s: %d ranks: roots" % (name, P), d["root"], np.array(roots))
            rep.eq("%s: %d ranks: rules 0, examples -1" % (name, P), np.concatenate([d["rule"], d["example_vertex"]]),
                   np.concatenate([np.zeros(len(roots), np.int64), -np.ones(len(roots), np.int64)]))
            rep.check("%s: %d ranks: summary line" % (name, P), "%d searches: %d passed, 0 failed" % (len(roots), len(roots)) in r.stdout, r.stdout[-300:])
        # a subset kept: only those rows are validated
        b2 = os.path.join(tmp, name + ".kept.bfs.h5")
        write_bfs(b2, e, roots, [preds[1], preds[3]], nedges, kept=[1, 3], levels=levels)
        out = os.path.join(tmp, name + ".kept.valid.h5")
        r = validate(2, e, b2, out)
        if rep.check("%s: kept subset: exit 0" % name, r.returncode == 0, r.stderr[-300:]):
            d = read_valid(out)
            rep.eq("%s: kept subset: search indices" % name, d["search"], np.array([1, 3]))
            rep.eq("%s: kept subset: nedge" % name, d["nedge"], np.array([nedges[1], nedges[3]]))

    # ---- planted corruptions -------------------------------------------------
    for gname, (n, t) in (("small", graph_small()), ("cycle", graph_cycle()), ("random", graph_random(300 if san else 1000, 600 if san else 1400, 9))):
        ptr, idx = b2ref.undirected_csr(n, t)
        root = int(np.argmax(ptr[1:] - ptr[:-1]))
        pred, level = random_tree(n, ptr, idx, root, rng)
        cases = plant(n, ptr, idx, t, pred, level, root, rng)
        e = os.path.join(tmp, gname + ".c.edges.h5"); b = os.path.join(tmp, gname + ".c.bfs.h5")
        write_edges(e, n, t)
        K = len(cases)
        write_bfs(b, e, [root] * K, [c[2] for c in cases], [c[3] for c in cases], levels=[level] * K)
        if gname == "small":
            labels = set(c[0] for c in cases)
            rep.check("small: at least nine corruption kinds planted", len(labels) >= 10, str(labels))
        for P in {"small": [1, 2, 3], "cycle": [2]}.get(gname, [3]):
            out = os.path.join(tmp, "%s.c.p%d.valid.h5" % (gname, P))
            r = validate(P, e, b, out)
            rep.check("%s corruptions: %d ranks: exit 1" % (gname, P), r.returncode == 1, "exit %d: %s" % (r.returncode, r.stderr[-300:]))
            if not os.path.exists(out):
                rep.check("%s corruptions: %d ranks: output written" % (gname, P), False, r.stderr[-300:])
                continue
            d = read_valid(out)
            names = d["names"]
            for q, (label, rule, _, _, ex) in enumerate(cases):
                got = names[int(d["rule"][q])]
                rep.check("%s, %d ranks: %s -> rule %s" % (gname, P, label, rule), got == rule,
                          "got rule %s (example %d)" % (got, d["example_vertex"][q]))
                rep.check("%s, %d ranks: %s -> example vertex" % (gname, P, label), int(d["example_vertex"][q]) in ex,
                          "example %d not in %s" % (d["example_vertex"][q], sorted(ex)[:10]))
            rep.eq("%s, %d ranks: nedge recomputed exactly, failing searches too" % (gname, P), d["nedge"],
                   np.array([nedge_of(t, c[2] != -1) for c in cases]))
            rep.eq("%s, %d ranks: passed column" % (gname, P), d["passed"], np.array([int(c[1] == "pass") for c in cases]))
            rep.eq("%s, %d ranks: num_failed" % (gname, P), int(d["attrs"]["num_failed"]), K - 1)
            rep.check("%s, %d ranks: stdout names the rules" % (gname, P), all(c[1] in r.stdout for c in cases if c[1] != "pass"), r.stdout[-400:])

    # ---- rule_names as documented --------------------------------------------
    rep.eq("rule_names", names, ["pass", "root", "range", "component", "tree", "tree_level", "edge_level", "tree_edge", "nedge"])

    # ---- bad inputs ----------------------------------------------------------
    n, t = graph_small()
    e, b, roots, nedges, preds, levels, _ = make_case(tmp, "err", n, t, 2, 5)
    n2, t2 = graph_random(200, 300, 1)
    e2, b2, *_ = make_case(tmp, "err2", n2, t2, 2, 5)
    out = os.path.join(tmp, "err.valid.h5")
    def expect(label, code, *args, np_=1):
        if os.path.exists(out):
            os.unlink(out)
        r = b2ref.run(np_, "bfs-validate", *args, check=False)
        rep.check(label + ": exit %d" % code, r.returncode == code and r.stderr.strip() != "",
                  "exit %d, stderr %r" % (r.returncode, r.stderr[-300:]))
        left = [f for f in os.listdir(tmp) if f.startswith(".err.valid.h5")] + ([out] if os.path.exists(out) else [])
        rep.check(label + ": no output left", not left, str(left))
        return r
    r = expect("BFS file of another graph", 3, e, b2, "-o", out, np_=2)
    rep.check("another graph: message names the fingerprint", "another graph" in r.stderr, r.stderr)
    # same fingerprint attribute, different contents: caught by the recomputation
    t_bad = t.copy(); t_bad[5] = (t_bad[5][0], (t_bad[5][1] + 1) % n)
    eb = os.path.join(tmp, "err.tampered.edges.h5")
    with h5py.File(e, "r") as f:
        fp_attr = int(f.attrs["fingerprint"])
    write_edges(eb, n, t_bad, fp=fp_attr)
    r = expect("edges changed under their fingerprint", 3, eb, b, "-o", out)
    rep.check("changed edges: message says so", "fingerprint" in r.stderr, r.stderr)
    expect("edge file given as the BFS file", 3, e, e, "-o", out)
    expect("BFS file given as the edge file", 3, b, b, "-o", out)
    txt = os.path.join(tmp, "err.txt")
    open(txt, "w").write("not hdf5\n")
    expect("text file as BFS file", 3, e, txt, "-o", out)
    tr = os.path.join(tmp, "err.trunc.bfs.h5")
    data = open(b, "rb").read()
    open(tr, "wb").write(data[: len(data) * 2 // 3])
    expect("truncated BFS file", 3, e, tr, "-o", out, np_=2)
    te = os.path.join(tmp, "err.trunc.edges.h5")
    data = open(e2, "rb").read()
    open(te, "wb").write(data[: len(data) - 4000])
    expect("truncated edge file", 3, te, b2, "-o", out)
    eo = os.path.join(tmp, "err.range.edges.h5")
    t_oor = t.copy(); t_oor[3] = (0, n + 5)
    write_edges(eo, n, t_oor)
    bo = os.path.join(tmp, "err.range.bfs.h5")
    write_bfs(bo, eo, roots, preds, nedges, levels=levels)
    r = expect("edge id out of range", 3, eo, bo, "-o", out)
    rep.check("edge id out of range: names the row", "row 3" in r.stderr, r.stderr)
    bk = os.path.join(tmp, "err.kept.bfs.h5")
    write_bfs(bk, e, roots, preds[:1], nedges, kept=[5], levels=levels)
    expect("kept index out of range", 3, e, bk, "-o", out)
    expect("missing edge file", 4, os.path.join(tmp, "nope.h5"), b, "-o", out)
    expect("missing BFS file", 4, e, os.path.join(tmp, "nope.h5"), "-o", out)
    expect("unwritable output", 4, e, b, "-o", os.path.join(tmp, "no", "such", "dir", "v.h5"))
    expect("no -o", 2, e, b)
    expect("one input", 2, e, "-o", out)
    expect("bad option", 2, e, b, "-o", out, "--frobnicate")
    r = b2ref.run(1, "bfs-validate", "--help", check=False)
    rep.check("--help exits 0", r.returncode == 0 and "Usage" in r.stdout, r.stderr)
    r = validate(1, e, b, out)
    rep.check("single process without mpiexec", r.returncode == 0, r.stderr[-300:])
    sys.exit(1 if rep.failed else 0)

if __name__ == "__main__":
    main()
