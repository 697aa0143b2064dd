"""tests/test_snap_import_mm.py — snap-import's Matrix Market vertex numbering
and its messages, each case on 1 and 2 ranks: a matrix keeps its declared
size (index i is vertex i-1, isolated vertices kept, /vertex_ids = 1..n),
checked with h5py against tuples written out by hand; non-square sizes,
indices outside 1..n and fractions in an integer matrix are bad input
(exit 3, one message naming the file and the line, no output left, the
input unchanged); a SNAP header whose Nodes or Edges count disagrees with
the data is a warning with both numbers; an output that is the input is
refused."""
import glob, gzip, os, random, re, sys
import numpy as np
import h5py
from b2ref import Report, run, TMP

R = Report()
RANKS = (1, 2)


def write(name, text, gz=False):
    path = os.path.join(TMP, name)
    data = text.encode()
    with open(path, "wb") as f:
        f.write(gzip.compress(data) if gz else data)
    return path


def imp(np_, inp, out, *args):
    if os.path.exists(out):
        os.remove(out)
    return run(np_, "snap-import", inp, "-o", out, *args, check=False)


def leftovers(out):
    d, b = os.path.split(out)
    return glob.glob(os.path.join(d, "." + b + ".tmp*"))


def load(path):
    with h5py.File(path, "r") as f:
        a = dict(f.attrs)
        return f["edges"][...], f["vertex_ids"][...], {k: a[k] for k in ("num_vertices", "num_edges", "directed")}


def expect_output(tag, out, p, edges, n, directed):
    """The import ran, and out holds exactly these tuples on n vertices."""
    if not R.check(tag + ": exit 0", p.returncode == 0, p.stderr):
        return
    e, ids, a = load(out)
    R.eq(tag + ": /edges", e, np.array(edges, dtype=np.int64).reshape(-1, 2))
    R.eq(tag + ": num_vertices", int(a["num_vertices"]), n)
    R.eq(tag + ": num_edges", int(a["num_edges"]), len(edges))
    R.eq(tag + ": directed", int(a["directed"]), directed)
    R.eq(tag + ": /vertex_ids = 1..n", ids, np.arange(1, n + 1, dtype=np.int64))


def expect_bad(tag, np_, path, line, says):
    """exit 3, one message naming the file, the line and `says`; nothing left."""
    before = open(path, "rb").read()
    out = os.path.join(TMP, "bad.h5")
    p = imp(np_, path, out)
    err = p.stderr.strip()
    R.eq(tag + ": exit 3", p.returncode, 3)
    R.check(tag + ": one message", len(err.splitlines()) == 1, err)
    R.check(tag + ": names the file and line %d" % line, ("%s: line %d:" % (path, line)) in err, err)
    R.check(tag + ": says what is wrong", all(s in err for s in says), err)
    R.check(tag + ": no output", not os.path.exists(out) and not leftovers(out), str(leftovers(out)))
    R.check(tag + ": input unchanged", open(path, "rb").read() == before)


BANNER = "%%MatrixMarket matrix coordinate {} {}\n"

# ---- a matrix keeps its declared size ----------------------------------------------
# 10x10, entries touching indices 2, 3, 7 and 10 only: 10 vertices, six of
# them isolated; vertex numbers are the indices less one, in file order.
small = (BANNER.format("pattern", "general") + "% four of ten indices occur\n"
         "10 10 5\n2 3\n3 7\n10 2\n7 7\n3 7\n")
small_want = [(1, 2), (2, 6), (9, 1), (6, 6), (2, 6)]
small_int = (BANNER.format("integer", "symmetric") + "10 10 3\n"
             "3 2 -4\n10 7 +12\n2 2 0\n")
small_int_want = [(2, 1), (9, 6), (1, 1)]
# 1x1 with one self-loop: the smallest graph a matrix can declare
one = BANNER.format("real", "general") + "1 1 1\n1 1 2.5e-3\n"
for np_ in RANKS:
    for name, text, want, n, directed in (("small.mtx", small, small_want, 10, 1),
                                         ("small-int.mtx", small_int, small_int_want, 10, 0),
                                         ("one.mtx", one, [(0, 0)], 1, 1)):
        for gz in (False, True):
            path = write(name + (".gz" if gz else ""), text, gz)
            out = os.path.join(TMP, "mm.h5")
            tag = "%s%s np%d" % (name, " gzip" if gz else "", np_)
            expect_output(tag, out, imp(np_, path, out), want, n, directed)

# the case: 20000x20000 whose entries touch 19867 distinct indices,
# cut into many small blocks
rng = random.Random(5)
used = sorted(rng.sample(range(1, 20001), 19867))
ent = [(used[k], used[(7 * k + 3) % len(used)]) for k in range(len(used))] + \
      [(rng.choice(used), rng.choice(used)) for _ in range(3000)]
big = write("big.mtx", BANNER.format("pattern", "general") + "20000 20000 %d\n" % len(ent)
            + "".join("%d %d\n" % e for e in ent))
R.eq("20000x20000: 19867 indices occur", len({x for e in ent for x in e}), 19867)
for np_ in RANKS:
    out = os.path.join(TMP, "big.h5")
    p = imp(np_, big, out, "--block-bytes", "4096")
    expect_output("20000x20000 np%d" % np_, out, p, [(u - 1, v - 1) for u, v in ent], 20000, 1)

# ---- bad matrices --------------------------------------------------------------------
bad = [
    # (tag, text, line, words the message must contain)
    ("non-square", BANNER.format("pattern", "general") + "% c\n10 12 1\n2 3\n", 3,
     ["10 x 12", "square"]),
    ("non-square 1x2", BANNER.format("real", "general") + "1 2 1\n1 2 1.0\n", 2, ["1 x 2", "square"]),
    ("row index above n", BANNER.format("pattern", "general") + "10 10 3\n1 2\n11 2\n3 4\n", 4,
     ["row index 11", "1..10"]),
    ("column index above n", BANNER.format("integer", "general") + "10 10 2\n1 2 5\n4 11 5\n", 4,
     ["column index 11", "1..10"]),
    ("index 0", BANNER.format("pattern", "symmetric") + "% c\n%\n10 10 2\n1 1\n2 0\n", 6,
     ["column index 0", "1..10"]),
    ("integer value 1.5", BANNER.format("integer", "general") + "% c\n10 10 3\n1 2 3\n2 3 1.5\n3 4 -2\n", 5,
     ["'1.5'", "whole number", "integer"]),
    ("integer value 2e3", BANNER.format("integer", "general") + "10 10 2\n1 2 3\n2 3 2e3\n", 4,
     ["'2e3'", "whole number"]),
    ("integer value -.5 after CRLF lines", (BANNER.format("integer", "general") + "10 10 2\n1 2 -3\n2 3 -.5\n")
     .replace("\n", "\r\n"), 4, ["'-.5'", "whole number"]),
]
for np_ in RANKS:
    for tag, text, line, says in bad:
        expect_bad("%s np%d" % (tag, np_), np_, write("bad.mtx", text), line, says)
    # the fraction far into the file, in the second rank's share and in a gzip block
    lines = [BANNER.format("integer", "general").rstrip("\n"), "100 100 3001"]
    lines += ["%d %d %d" % (1 + k % 100, 1 + (k * 7) % 100, k) for k in range(3000)]
    lines.insert(2 + 2500, "5 6 0.25")
    text = "\n".join(lines) + "\n"
    for gz in (False, True):
        expect_bad("integer value 0.25 on line 2503%s np%d" % (" gzip" if gz else "", np_), np_,
                   write("deep.mtx" + (".gz" if gz else ""), text, gz), 2503, ["'0.25'"])
    # a real matrix takes fractions
    path = write("real.mtx", BANNER.format("real", "general") + "3 3 1\n1 2 1.5\n")
    expect_output("real value 1.5 np%d" % np_, os.path.join(TMP, "r.h5"),
                  imp(np_, path, os.path.join(TMP, "r.h5")), [(0, 1)], 3, 1)

# ---- SNAP header counts that disagree with the data: warnings ------------------------
def warn_line(path, line, what):
    return "snap-import: warning: %s: line %d: the header says %s (the data is used)" % (path, line, what)

cases = [
    # (tag, text, header line, expected warnings' tails)
    ("Nodes wrong", "# Undirected graph: x\n# Nodes: 10 Edges: 3\n1 2\n2 3\n3 4\n", 2,
     ["10 nodes, the data has 4 distinct vertex ids"]),
    ("Edges wrong", "# Nodes: 4 Edges: 5\n1 2\n2 3\n3 4\n", 1,
     ["5 edges, the data has 3 tuples"]),
    ("both wrong", "# c\n# c\n# Nodes: 3 Edges: 2\n7 8\n8 9\n9 10\n10 7\n", 3,
     ["2 edges, the data has 4 tuples", "3 nodes, the data has 4 distinct vertex ids"]),
]
for np_ in RANKS:
    for tag, text, line, tails in cases:
        path = write("hdr.txt", text)
        out = os.path.join(TMP, "hdr.h5")
        p = imp(np_, path, out)
        err = [l for l in p.stderr.splitlines() if "warning" in l]
        want = [warn_line(path, line, t) for t in tails]
        R.check("%s np%d: exit 0, output written" % (tag, np_), p.returncode == 0 and os.path.exists(out), p.stderr)
        R.eq("%s np%d: warnings" % (tag, np_), sorted(l.replace("snap-import [rank 0]:", "snap-import:") for l in err),
             sorted(want))
    path = write("hdr-ok.txt", "# Nodes: 4 Edges: 3\n1 2\n2 3\n3 4\n")
    p = imp(np_, path, os.path.join(TMP, "ok.h5"))
    R.check("header that agrees np%d: no warning" % np_, p.returncode == 0 and "warning" not in p.stderr, p.stderr)

# ---- the output is the input: refused, the input unchanged -----------------------------
for np_ in RANKS:
    src = write("self.mtx", small)
    before = open(src, "rb").read()
    link = os.path.join(TMP, "self-link.mtx")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(src, link)
    for tag, out in (("the input", src), ("a link to the input", link)):
        p = run(np_, "snap-import", src, "-o", out, check=False)
        R.check("output is %s np%d: exit 2 naming both" % (tag, np_),
                p.returncode == 2 and "refusing to overwrite an input" in p.stderr and src in p.stderr
                and out in p.stderr, p.stderr)
        R.check("output is %s np%d: input unchanged" % (tag, np_), open(src, "rb").read() == before)
        R.check("output is %s np%d: no temporaries" % (tag, np_), not leftovers(src))

sys.exit(1 if R.failed else 0)
