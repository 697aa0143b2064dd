"""tests/test_partition.py — partition2d against independent references.

For grids 1x1, 1x2, 2x1, 2x2, 2x3, 3x2 and 1x4 and P in {1, 2, 3} ranks, on
hand-made edge files (N not divisible by R*C, self-loops, duplicates, isolated
vertices, a directed input, more blocks than vertices, no tuples at all) and
an rmat-gen graph: every block's CSC equals the one built here from the
symmetrized, deduplicated, self-loop-free edge set (tests/b2ref.py) with
docs/DESIGN.md's owner formulas and FORMATS' local indices; the union of the blocks
mapped back to global ids is that edge set; /tuple_degree is an independent
count; the datasets are identical for every P, and with a tiny --mem (many
spilled runs, merged)."""
import glob, os, sys
import numpy as np
import h5py
import b2ref
from b2ref import Report, run, TMP, SAN

rep = Report()
from b2ref import fingerprint, put_str


def write_edges(path, n, tuples, directed=0, fp=None, fmt="bfs2d-edges", num_edges=None):
    return b2ref.write_edges(path, n, tuples, directed, fp, fmt, num_edges, created_by="test_partition")


def datasets(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset):
                out[name] = obj[...]
        f.visititems(visit)
        attrs = dict(f.attrs)
    return out, attrs


def expected_blocks(n, tuples, R, C):
    """Per block p: (col_ptr [b*R+1], row_idx) straight from the formulas."""
    ptr, idx = b2ref.undirected_csr(n, tuples)
    u = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    v = idx.astype(np.int64)
    b = b2ref.block_size(n, R, C)
    i, j = b2ref.edge_owner(u, v, n, R, C)
    p = i * C + j
    lc = u - j * b * R
    lr = (v // (b * R)) * b + v % b
    blocks = []
    for q in range(R * C):
        sel = p == q
        c, r = lc[sel], lr[sel]
        order = np.lexsort((r, c))
        c, r = c[order], r[order]
        cp = np.zeros(b * R + 1, dtype=np.uint64)
        cp[1:] = np.cumsum(np.bincount(c, minlength=b * R)).astype(np.uint64)
        blocks.append((cp, r.astype(np.uint32)))
    return blocks, set(zip(u.tolist(), v.tolist()))


def check_partition(tag, path, n, tuples, R, C, directed, fp):
    d, a = datasets(path)
    b = b2ref.block_size(n, R, C)
    ok = rep.eq(tag + " attrs", (int(a["grid_rows"]), int(a["grid_cols"]), int(a["num_vertices"]),
                                 int(a["block_size"]), int(a["num_input_edges"]), int(a["directed"]),
                                 int(a["edges_fingerprint"])),
                (R, C, n, b, len(tuples), directed, fp))
    ok &= rep.eq(tag + " format", (a["format"].decode() if isinstance(a["format"], bytes) else a["format"]),
                 "bfs2d-partition")
    ok &= rep.eq(tag + " col_ptr shape", d["csc/col_ptr"].shape, (R * C, b * R + 1))
    ok &= rep.eq(tag + " dtypes", [str(d[k].dtype) for k in ("csc/col_ptr", "csc/row_idx", "csc/row_off",
                                                              "csc/nnz", "tuple_degree")],
                 ["uint64", "uint32", "int64", "int64", "int64"])
    blocks, ref_set = expected_blocks(n, tuples, R, C)
    nnz, off, cp, ri = d["csc/nnz"], d["csc/row_off"], d["csc/col_ptr"], d["csc/row_idx"]
    ok &= rep.eq(tag + " row_off", off, np.concatenate([[0], np.cumsum(nnz)[:-1]]).astype(np.int64))
    ok &= rep.eq(tag + " num_csc_edges", (int(a["num_csc_edges"]), len(ri)), (len(ref_set), len(ref_set)))
    # every block exactly as docs/DESIGN.md's formulas place the edges (rank p = i*C + j)
    bad = [q for q in range(R * C)
           if not (np.array_equal(cp[q], blocks[q][0]) and int(nnz[q]) == len(blocks[q][1])
                   and np.array_equal(ri[off[q]:off[q] + nnz[q]], blocks[q][1]))]
    ok &= rep.check(tag + " blocks on their owners", not bad, "blocks %s differ" % bad[:5])
    # the union of the blocks, mapped back to global ids, is the edge set
    got = set()
    for q in range(R * C):
        i, j = q // C, q % C
        cnt = np.diff(cp[q].astype(np.int64))
        lc = np.repeat(np.arange(b * R, dtype=np.int64), cnt)
        lr = ri[off[q]:off[q] + nnz[q]].astype(np.int64)
        u = j * b * R + lc
        v = (lr // b) * b * R + i * b + lr % b
        got.update(zip(u.tolist(), v.tolist()))
    ok &= rep.check(tag + " union = symmetrized edge set", got == ref_set,
                    "%d missing, %d extra" % (len(ref_set - got), len(got - ref_set)))
    t = np.asarray(tuples, dtype=np.int64).reshape(-1, 2)
    keep = t[:, 0] != t[:, 1]
    deg = np.bincount(t[keep].ravel(), minlength=n).astype(np.int64)
    ok &= rep.eq(tag + " tuple_degree", d["tuple_degree"], deg)
    ok &= rep.eq(tag + " num_self_loops", int(a["num_self_loops"]), int((~keep).sum()))
    return d


def same_datasets(tag, d0, d1):
    good = set(d0) == set(d1) and all(d0[k].dtype == d1[k].dtype and np.array_equal(d0[k], d1[k]) for k in d0)
    rep.check(tag, good, "datasets differ: %s" % [k for k in d0 if k not in d1 or not np.array_equal(d0[k], d1[k])])


def leftovers(d):
    return glob.glob(os.path.join(d, ".*tmp*")) + glob.glob(os.path.join(d, ".*spill*"))


def main():
    rng = np.random.default_rng(7)
    graphs = []
    # N = 37 (prime: never divisible by R*C > 1), self-loops, duplicates; vertices
    # 30..36 isolated
    t = rng.integers(0, 30, size=(400, 2))
    t[::17, 1] = t[::17, 0]            # self-loops
    t = np.concatenate([t, t[:50]])   # duplicates
    graphs.append(("g37", 37, t, 0))
    # a directed input: both directions of some tuples, one direction of others
    t = rng.integers(0, 50, size=(250, 2))
    t = np.concatenate([t, t[:40, ::-1]])
    graphs.append(("dir50", 50, t, 1))
    # more blocks than vertices for 2x3, 3x2 (6 > 5) and 1x4 (b = 2, last block half empty)
    graphs.append(("tiny5", 5, np.array([[0, 4], [4, 0], [1, 1], [2, 3], [3, 2], [0, 4]]), 0))
    # no tuples at all
    graphs.append(("empty", 9, np.zeros((0, 2), dtype=np.int64), 0))
    if SAN:
        graphs = graphs[:1] + graphs[2:3]

    paths = {}
    for name, n, t, directed in graphs:
        paths[name] = write_edges(os.path.join(TMP, name + ".h5"), n, t, directed)

    rmat = os.path.join(TMP, "rmat.h5")
    rp = run(1, "rmat-gen", "-s", 8 if SAN else 10, "-e", 8, "--seed", 3, "-o", rmat, check=False)
    if rep.check("rmat-gen input", rp.returncode == 0, rp.stderr):
        n, t, a = b2ref.read_edges(rmat)
        graphs.append(("rmat", n, t, 0))
        paths["rmat"] = rmat

    grids = [(1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2), (1, 4)]
    # every grid with P = 1, 2, 3 on the mixed graph (N prime: b not a power of
    # two); the others with P = 1 and a few multi-rank runs (mpiexec is slow
    # on 2 shared cores)
    for name, n, t, directed in graphs:
        fp = fingerprint(np.asarray(t, dtype=np.int64).reshape(-1, 2))
        for R, C in grids:
            if SAN and (R, C) not in [(1, 1), (2, 3), (1, 4)]:
                continue
            if name == "g37" or (name == "rmat" and (R, C) in [(2, 3), (1, 4)]):
                nps = [1, 2] if SAN else [1, 2, 3]
            else:
                nps = [1, 2] if (R, C) == (2, 3) else [1]
            first = None
            for P in nps:
                tag = "%s %dx%d P=%d" % (name, R, C, P)
                out = os.path.join(TMP, "%s.%dx%d.p%d.h5" % (name, R, C, P))
                p = run(P, "partition2d", "--grid", "%dx%d" % (R, C), paths[name], "-o", out, check=False)
                if not rep.check(tag + " runs", p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-500:])):
                    continue
                if first is None:
                    first = check_partition(tag, out, n, t, R, C, directed, fp)
                else:
                    same_datasets(tag + " same datasets as P=1", first, datasets(out)[0])
                os.unlink(out)
            rep.check("%s %dx%d no temporaries left" % (name, R, C), not leftovers(TMP), str(leftovers(TMP)))

    # ---- a deflated edge file gives the same partition ------------------------
    if "rmat" in paths:
        zf = os.path.join(TMP, "rmat-z.h5")
        rp = run(1, "rmat-gen", "-s", 8 if SAN else 10, "-e", 8, "--seed", 3, "--deflate", 1, "-o", zf,
                 check=False)
        if rep.check("rmat-gen --deflate input", rp.returncode == 0, rp.stderr):
            ref = os.path.join(TMP, "rmat-ref.h5")
            run(1, "partition2d", "-q", "--grid", "2x3", paths["rmat"], "-o", ref, check=False)
            for P in [1, 2]:
                out = os.path.join(TMP, "rmat-z.p%d.h5" % P)
                p = run(P, "partition2d", "-q", "--grid", "2x3", zf, "-o", out, check=False)
                if rep.check("deflated input P=%d runs" % P, p.returncode == 0, p.stderr[-300:]):
                    same_datasets("deflated input P=%d same datasets" % P, datasets(ref)[0], datasets(out)[0])

    # ---- spilling: a tiny budget gives many sorted runs, merged --------------
    name = "rmat" if "rmat" in paths else "g37"
    n, t = [(g[1], g[2]) for g in graphs if g[0] == name][0]
    # (1x1 on 2 ranks: the block is cut into pieces, each spilling)
    for R, C in [(2, 2), (1, 4), (1, 1)] if not SAN else [(2, 2), (1, 1)]:
        ref = None
        for P, mem in [(1, None), (1, "4096"), (2, "6K"), (3, "8192")] if not SAN else [(1, None), (2, "6K")]:
            if (R, C) != (2, 2) and P == 3:
                continue
            tag = "spill %s %dx%d P=%d mem=%s" % (name, R, C, P, mem)
            out = os.path.join(TMP, "spill.p%d.h5" % P)
            args = ["-v", "--grid", "%dx%d" % (R, C), paths[name], "-o", out] + (["--mem", mem] if mem else [])
            p = run(P, "partition2d", *args, check=False)
            if not rep.check(tag + " runs", p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-500:])):
                continue
            if mem:
                rep.check(tag + " spilled", " 0 spilled runs" not in p.stderr.split("rank 0:")[-1].split("\n")[0],
                          p.stderr[-300:])
            d = datasets(out)[0]
            if ref is None:
                ref = check_partition(tag, out, n, t, R, C, 0, fingerprint(np.asarray(t)))
            else:
                same_datasets(tag + " same datasets as in memory", ref, d)
            os.unlink(out)
        rep.check("spill %dx%d no temporaries left" % (R, C), not leftovers(TMP), str(leftovers(TMP)))
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
