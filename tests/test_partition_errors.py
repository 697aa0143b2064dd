"""tests/test_partition_errors.py — partition2d refuses bad input with one
clear message, docs/DESIGN.md's exit code, and no output (nor temporary) left behind:
malformed grids (2), grids whose local indices would not fit 32 bits (2,
naming N/R or N/C and the smallest grid that fits), files that are not edge
files (3, naming the format found), truncated files (3), contents that do
not match the fingerprint (3), vertices out of range (3), a missing input or
an unwritable output (4), an output that is the input (2, the input
unchanged); on 1 and 2 ranks."""
import glob, os, sys
import numpy as np
import h5py
from b2ref import Report, run, TMP, SAN
from test_partition import write_edges, put_str

rep = Report()
OUT = os.path.join(TMP, "out.h5")


def leftovers():
    return glob.glob(os.path.join(TMP, ".*tmp*")) + glob.glob(os.path.join(TMP, ".*spill*"))


def expect(name, code, args, says=(), P=1, out=OUT):
    p = run(P, "partition2d", *args, check=False)
    err = p.stderr.strip()
    good = p.returncode == code and err != ""
    rep.check(name + " exit %d" % code, good, "exit %d, stderr: %s" % (p.returncode, err[-400:]))
    for s in says:
        rep.check(name + " says '%s'" % s, s in err, "stderr: %s" % err[-400:])
    rep.check(name + " no output", out is None or not os.path.exists(out), out or "")
    rep.check(name + " no temporaries", not leftovers(), str(leftovers()))
    if p.returncode < 0 or "Sanitizer" in err or "runtime error" in err:
        rep.check(name + " clean exit", False, err[-400:])


def main():
    rng = np.random.default_rng(3)
    t = rng.integers(0, 100, size=(3000, 2))
    good = write_edges(os.path.join(TMP, "good.h5"), 100, t)

    # ---- command line (2) ----
    for g in ["2x", "0x4", "axb", "x2", "2x0", "-1x2", "2x2x2", ""]:
        expect("grid '%s'" % g, 2, ["--grid", g, good, "-o", OUT], ["--grid"])
    expect("no grid", 2, [good, "-o", OUT], ["--grid"])
    expect("no output", 2, ["--grid", "1x1", good], ["-o"])
    expect("two inputs", 2, ["--grid", "1x1", good, good, "-o", OUT], ["one edge file"])
    expect("bad --mem", 2, ["--grid", "1x1", "--mem", "12Q", good, "-o", OUT], ["--mem"])
    expect("tiny --mem", 2, ["--grid", "1x1", "--mem", "100", good, "-o", OUT], ["--mem"])

    # ---- grids too small for 32-bit local indices (2) ----
    big = write_edges(os.path.join(TMP, "big.h5"), 1 << 33, [[0, 1], [(1 << 33) - 1, 5]])
    expect("N=2^33 1x1", 2, ["--grid", "1x1", big, "-o", OUT], ["N/R and N/C", "smallest grid that fits is 3x3"])
    expect("N=2^33 1x4", 2, ["--grid", "1x4", big, "-o", OUT], ["N/R is too large", "is 3x4"])
    expect("N=2^33 4x1", 2, ["--grid", "4x1", big, "-o", OUT], ["N/C is too large", "is 4x3"])
    if not SAN:
        expect("N=2^33 1x4 P=2", 2, ["--grid", "1x4", big, "-o", OUT], ["N/R is too large"], P=2)
    # N = 2^32 on 1x1: local indices would reach 2^32 - 1 = UINT32_MAX: refused too
    edge = write_edges(os.path.join(TMP, "edge32.h5"), 1 << 32, [[0, 1]])
    expect("N=2^32 1x1", 2, ["--grid", "1x1", edge, "-o", OUT], ["is 2x2"])

    # ---- not an edge file, truncated, corrupt (3) ----
    other = os.path.join(TMP, "other.h5")
    with h5py.File(other, "w") as f:
        put_str(f, "format", "bfs2d-bfs")
        f.create_dataset("roots", data=np.arange(3))
    expect("bfs file", 3, ["--grid", "1x1", other, "-o", OUT], ["bfs2d-bfs"])
    plain = os.path.join(TMP, "plain.h5")
    with h5py.File(plain, "w") as f:
        f.create_dataset("edges", data=np.zeros((2, 2), dtype=np.int64))
    expect("no format", 3, ["--grid", "1x1", plain, "-o", OUT], ["format"])
    txt = os.path.join(TMP, "edges.txt")
    with open(txt, "w") as f:
        f.write("0 1\n1 2\n")
    expect("text file", 3, ["--grid", "1x1", txt, "-o", OUT], ["not an HDF5 file"])
    data = open(good, "rb").read()
    trunc = os.path.join(TMP, "trunc.h5")
    with open(trunc, "wb") as f:
        f.write(data[:len(data) // 2])
    expect("truncated", 3, ["--grid", "2x2", trunc, "-o", OUT], ["trunc"])
    badfp = write_edges(os.path.join(TMP, "badfp.h5"), 100, t, fp=12345)
    expect("fingerprint mismatch", 3, ["--grid", "2x2", badfp, "-o", OUT], ["fingerprint"])
    expect("fingerprint mismatch P=2", 3, ["--grid", "2x2", badfp, "-o", OUT], ["fingerprint"], P=2)
    t2 = t.copy()
    t2[1234] = (7, 100)
    oor = write_edges(os.path.join(TMP, "oor.h5"), 100, t2)
    expect("vertex = N", 3, ["--grid", "2x2", oor, "-o", OUT], ["row 1234", "outside"])
    expect("vertex = N P=2", 3, ["--grid", "2x2", oor, "-o", OUT], ["row 1234", "outside"], P=2)
    t2[1234] = (-1, 3)
    neg = write_edges(os.path.join(TMP, "neg.h5"), 100, t2)
    expect("negative vertex", 3, ["--grid", "1x1", neg, "-o", OUT], ["row 1234"])
    cnt = write_edges(os.path.join(TMP, "cnt.h5"), 100, t, num_edges=5)
    expect("num_edges mismatch", 3, ["--grid", "1x1", cnt, "-o", OUT], ["num_edges"])
    i32 = os.path.join(TMP, "i32.h5")
    write_edges(i32, 100, t)
    with h5py.File(i32, "a") as f:
        del f["edges"]
        f.create_dataset("edges", data=t.astype(np.int32))
    expect("int32 /edges", 3, ["--grid", "1x1", i32, "-o", OUT], ["edges", "type"])
    three = os.path.join(TMP, "three.h5")
    write_edges(three, 100, t)
    with h5py.File(three, "a") as f:
        del f["edges"]
        f.create_dataset("edges", data=np.zeros((len(t), 3), dtype=np.int64))
    expect("3-column /edges", 3, ["--grid", "1x1", three, "-o", OUT], ["columns"])
    zero = write_edges(os.path.join(TMP, "zero.h5"), 0, np.zeros((0, 2)))
    expect("no vertices", 3, ["--grid", "1x1", zero, "-o", OUT], ["num_vertices"])

    # ---- I/O (4) ----
    expect("missing input", 4, ["--grid", "1x1", os.path.join(TMP, "nope.h5"), "-o", OUT], ["nope.h5"])
    expect("output dir missing", 4, ["--grid", "1x1", good, "-o", os.path.join(TMP, "no/such/dir/p.h5")],
           ["does not exist"], out=None)
    expect("output is a directory", 2, ["--grid", "1x1", good, "-o", TMP], ["directory"], out=None)

    # ---- the output is the input (or a link to it): refused (2), the input unchanged ----
    before = open(good, "rb").read()
    link = os.path.join(TMP, "link.h5")
    os.symlink(good, link)
    for P in (1, 2):
        for tag, out in (("the input", good), ("a link to the input", link)):
            expect("output is %s P=%d" % (tag, P), 2, ["--grid", "1x1", good, "-o", out],
                   ["refusing to overwrite an input", out, good], P=P, out=None)
            rep.check("output is %s P=%d: input unchanged" % (tag, P), open(good, "rb").read() == before)
    os.unlink(link)

    # ---- a failed run leaves an existing output as it was ----
    p = run(1, "partition2d", "-q", "--grid", "2x2", good, "-o", OUT, check=False)
    if rep.check("good run", p.returncode == 0, p.stderr):
        before = open(OUT, "rb").read()
        p = run(1, "partition2d", "--grid", "2x2", badfp, "-o", OUT, check=False)
        rep.check("failed run keeps the old output", p.returncode == 3 and open(OUT, "rb").read() == before,
                  "exit %d" % p.returncode)
        rep.check("failed run no temporaries", not leftovers(), str(leftovers()))

    # ---- --help / --version ----
    for a in ["--help", "--version"]:
        p = run(1, "partition2d", a, check=False)
        rep.check(a, p.returncode == 0 and "partition2d" in p.stdout, "exit %d" % p.returncode)
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
