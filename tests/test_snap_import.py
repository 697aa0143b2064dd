"""tests/test_snap_import.py — snap-import against independent Python readings
of the same text: the SNAP test graphs (counts from tests/data/snap/README.md), rank-count
independence, Matrix Market files written here, and every kind of bad input."""
import glob, gzip, os, random, re, sys
import numpy as np
import h5py
from b2ref import Report, run, BIN, TMP, SAN, SNAP_DIR as SNAP, snap_table, snap_files

R = Report()
MASK = (1 << 64) - 1


# ---- independent references -------------------------------------------------

def mix64(z):
    z = z.astype(np.uint64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xbf58476d1ce4e5b9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94d049bb133111eb)
    return z ^ (z >> np.uint64(31))

def fingerprint(edges):
    """common/b2.h b2_fp_tuple summed over rows, mod 2^64."""
    with np.errstate(over="ignore"):
        rows = np.arange(len(edges), dtype=np.uint64)
        u = edges[:, 0].astype(np.int64).view(np.uint64)
        v = edges[:, 1].astype(np.int64).view(np.uint64)
        t = mix64(mix64(rows + np.uint64(0x3c6ef372fe94f82b)) ^ mix64(u + np.uint64(0xa54ff53a5f1d36f1))
                  ^ (v * np.uint64(0x9e3779b97f4a7c15)))
        return int(t.sum(dtype=np.uint64))

def read_text(path):
    """Raw bytes, gunzipped when the file starts with the gzip magic."""
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("ascii", "replace")

def snap_pairs(path):
    """(u, v) of every non-comment, non-blank line: the first two columns."""
    out = []
    for line in read_text(path).splitlines():
        f = line.split()
        if not f or f[0].startswith("#"):
            continue
        out.append((int(f[0]), int(f[1])))
    return np.array(out, dtype=np.int64).reshape(-1, 2)

def mm_pairs(path):
    lines = read_text(path).splitlines()
    out, seen_size = [], False
    for line in lines[1:]:
        f = line.split()
        if not f or f[0].startswith("%"):
            continue
        if not seen_size:
            seen_size = True
            continue
        out.append((int(f[0]), int(f[1])))
    return np.array(out, dtype=np.int64).reshape(-1, 2)


# ---- running snap-import ------------------------------------------------------

def imp(np_, inp, out, *args, **kw):
    if os.path.exists(out):
        os.remove(out)
    return run(np_, "snap-import", inp, "-o", out, *args, check=False, **kw)

def load(path):
    with h5py.File(path, "r") as f:
        return f["edges"][...], f["vertex_ids"][...], dict(f.attrs)

def check_against(name, out, pairs, directed=None, source=None):
    """out must hold exactly `pairs` (original ids, input order)."""
    e, ids, a = load(out)
    want_ids = np.unique(pairs)
    ok = R.eq(name + " vertex_ids", ids, want_ids)
    ok &= R.eq(name + " edges map back", ids[e] if len(ids) else e, pairs)
    ok &= R.eq(name + " num_vertices", int(a["num_vertices"]), len(want_ids))
    ok &= R.eq(name + " num_edges", int(a["num_edges"]), len(pairs))
    ok &= R.eq(name + " fingerprint", int(a["fingerprint"]), fingerprint(e))
    ok &= R.eq(name + " format", a["format"].decode() if isinstance(a["format"], bytes) else a["format"],
               "bfs2d-edges")
    if directed is not None:
        ok &= R.eq(name + " directed", int(a["directed"]), directed)
    if source is not None:
        s = a["source"]
        R.eq(name + " source", s.decode() if isinstance(s, bytes) else s, source)
    return ok

def check_mm(name, out, pairs, n, directed):
    """out must hold the Matrix Market entries `pairs` (1-based, input order)
    on the n vertices the file declares: index i is vertex i-1."""
    e, ids, a = load(out)
    ok = R.eq(name + " edges are the indices less one", e, pairs - 1)
    ok &= R.eq(name + " vertex_ids 1..n", ids, np.arange(1, n + 1, dtype=np.int64))
    ok &= R.eq(name + " num_vertices is the declared size", int(a["num_vertices"]), n)
    ok &= R.eq(name + " num_edges", int(a["num_edges"]), len(pairs))
    ok &= R.eq(name + " fingerprint", int(a["fingerprint"]), fingerprint(e))
    ok &= R.eq(name + " directed", int(a["directed"]), directed)
    return ok

def same_output(name, a, b):
    ea, ia, aa = load(a)
    eb, ib, ab = load(b)
    R.eq(name + " edges", eb, ea)
    R.eq(name + " vertex_ids", ib, ia)
    for k in ("fingerprint", "num_vertices", "num_edges", "directed"):
        R.eq(name + " " + k, int(ab[k]), int(aa[k]))

def write(path, text, gz=False):
    data = text.encode("latin-1") if isinstance(text, str) else text
    if gz:
        data = gzip.compress(data)
    with open(path, "wb") as f:
        f.write(data)
    return path


# ---- 1. the SNAP test graphs ---------------------------------------------------

# every file of the table in tests/data/snap/README.md is there, non-empty and
# of the listed size, and the directory holds no graph the table leaves out
table = snap_table()
files = snap_files(R)
on_disk = sorted(x for x in os.listdir(SNAP) if x != "README.md") if os.path.isdir(SNAP) else []
R.eq("snap directory holds exactly the README's graphs", on_disk, sorted(table))
R.eq("seven SNAP graphs", len(table), 7)
for f in files:
    b = os.path.basename(f)
    R.eq(b + " bytes as README", os.path.getsize(f), table[b]["bytes"])
directed_want = {"as20000102.txt": 0}  # "Undirected graph" header; the others say Directed or nothing
outs = {}
for f in files:
    b = os.path.basename(f)
    out = os.path.join(TMP, b + ".h5")
    p = imp(1, f, out)
    if not R.check("import " + b, p.returncode == 0, p.stderr):
        continue
    outs[b] = out
    e, ids, a = load(out)
    R.eq(b + " vertices as README", int(a["num_vertices"]), table[b]["vertices"])
    R.eq(b + " tuples as README", int(a["num_edges"]), table[b]["tuples"])
    # a header that disagrees with the data is warned about, one that agrees is not
    t = table[b]
    want = []
    if t["header_edges"] is not None and t["header_edges"] != t["tuples"]:
        want.append("the header says %d edges, the data has %d tuples" % (t["header_edges"], t["tuples"]))
    if t["header_nodes"] is not None and t["header_nodes"] != t["vertices"]:
        want.append("the header says %d nodes, the data has %d distinct vertex ids" % (t["header_nodes"], t["vertices"]))
    R.check(b + " header warnings as README", all(w in p.stderr for w in want)
            and p.stderr.count("warning") == len(want), p.stderr)
    R.check(b + " vertex_ids increasing", bool(np.all(np.diff(ids) > 0)))
    check_against(b, out, snap_pairs(f), directed=directed_want.get(b, 1), source=f)

# as20000102.txt's header says 13233 edges: a warning naming both numbers, not an error
p = imp(1, os.path.join(SNAP, "as20000102.txt"), os.path.join(TMP, "as.h5"))
R.check("header mismatch warns with both numbers",
        p.returncode == 0 and "13233" in p.stderr and "13895" in p.stderr and "warning" in p.stderr, p.stderr)
p = imp(1, os.path.join(SNAP, "wiki-Vote.txt"), os.path.join(TMP, "wv.h5"))
R.check("matching header: no warning", p.returncode == 0 and "warning" not in p.stderr, p.stderr)

# ---- 2. the same output with 1, 2 and 3 ranks ------------------------------------

multi = ["wiki-Vote.txt", "ca-HepTh.txt.gz", "as20000102.txt"] if not SAN else ["ca-GrQc.txt", "email-Eu-core.txt.gz"]
for b in multi:
    if b not in outs:
        continue
    f = os.path.join(SNAP, b)
    # (mpiexec start-up costs seconds here: few multi-rank runs, each telling)
    for np_, extra in ((2, []), (3, ["--block-bytes", "4096", "--batch", "1000", "--id-cache"])):
        tag = "%s np%d%s" % (b, np_, " small blocks" if extra else "")
        out = os.path.join(TMP, "m.h5")
        p = imp(np_, f, out, *extra)
        if R.check("import " + tag, p.returncode == 0, p.stderr):
            same_output(tag, outs[b], out)
    # the hash numbering (sparse ids) gives what the bitmap gives (dense ids)
    for np_ in ((1, 3) if b == multi[0] else (1,)):
        out = os.path.join(TMP, "h.h5")
        p = imp(np_, f, out, "--id-map", "hash", "--batch", "777")
        if R.check("import %s np%d hash" % (b, np_), p.returncode == 0, p.stderr):
            same_output("%s np%d hash" % (b, np_), outs[b], out)

# ---- 2b. many ranks: empty shares, id ranges of every shape, both numberings --------
# With P > 1, dense ids are numbered through presence bitmaps (each rank marks
# its own ids; owners of slices of the id range count them) and sparse ones by
# sending every end to the owner of its id; -v says which one ran.

def same_as_np1(tag, path, cases):
    ref = os.path.join(TMP, "r1.h5")
    p = imp(1, path, ref)
    if not R.check("import %s np1" % tag, p.returncode == 0, p.stderr):
        return
    for np_, args in cases:
        out = os.path.join(TMP, "rn.h5")
        p = imp(np_, path, out, *args)
        t = "%s np%d %s" % (tag, np_, " ".join(args))
        if R.check("import " + t, p.returncode == 0, p.stderr):
            same_output(t, ref, out)

# more ranks than lines: ranks with empty byte ranges, receivers that get no block
tiny = write(os.path.join(TMP, "tiny.txt"), "7 3\n")
tinygz = write(os.path.join(TMP, "tiny.txt.gz"), "# one tuple\n7 3\n3 3\n", gz=True)
same_as_np1("one line", tiny, [(3, []), (4, ["--id-map", "hash"])])
same_as_np1("one gzip block", tinygz, [(3, []), (4, ["--block-bytes", "64"])])
# ids within one 64-id word: every owner but one has no word of the range
w1 = write(os.path.join(TMP, "w1.txt"), "".join("%d %d\n" % (5 + i % 33, 40 - i % 7) for i in range(50)))
same_as_np1("ids in one word", w1, [(3, ["--block-bytes", "64"]), (4, ["--id-map", "bitmap"])])
# dense ids far from 0, on word boundaries and between them, gzip dealt to 2 receivers
rng = random.Random(3)
base = 10**12 - 64
ids = [base + x for x in (0, 63, 64, 127, 128, 4095, 4096, 5000)] + [base + rng.randrange(6000) for _ in range(300)]
far = "".join("%d\t%d\n" % (rng.choice(ids), rng.choice(ids)) for _ in range(3000))
farp = write(os.path.join(TMP, "far.txt"), far)
fargz = write(os.path.join(TMP, "far.txt.gz"), far, gz=True)
same_as_np1("dense ids from 10^12", farp, [(2, ["--block-bytes", "512"]), (3, ["--id-map", "hash", "--batch", "100"])])
same_as_np1("dense ids from 10^12 gzip", fargz, [(3, ["--block-bytes", "1024"])])
p = imp(1, farp, os.path.join(TMP, "far1.h5"))
if R.check("import far np1", p.returncode == 0, p.stderr):
    check_against("dense ids from 10^12", os.path.join(TMP, "far1.h5"), snap_pairs(farp))
# which numbering ran
for args, want in (([], "presence bitmaps"), (["--id-map", "hash"], "ends exchanged")):
    p = imp(2, farp, os.path.join(TMP, "v.h5"), "-v", *args)
    R.check("np2 %s: %s" % (" ".join(args) or "auto", want), p.returncode == 0 and want in p.stderr, p.stderr)
wide = write(os.path.join(TMP, "wide.txt"), "0 1\n4611686018427387904 5\n")
p = imp(2, wide, os.path.join(TMP, "v.h5"), "-v")
R.check("np2 wide ids: ends exchanged", p.returncode == 0 and "ends exchanged" in p.stderr, p.stderr)
p = imp(2, wide, os.path.join(TMP, "v.h5"), "--id-map", "bitmap")
R.check("np2 --id-map bitmap on wide ids: usage error, one message",
        p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--id-map" in p.stderr, p.stderr)

# ---- 3. hand-made SNAP text: every layout the format allows ------------------------

rng = random.Random(7)
big = [0, 1, 2, 4611686018427387904, 4611686018427387903, 10**15, 99, 12345678901]
lines = ["# Undirected graph: made up", "# Nodes: 8 Edges: 999"]
for i in range(400):
    u, v = rng.choice(big), rng.choice(big)
    sep = rng.choice([" ", "\t", "  ", " \t"])
    end = rng.choice(["\n", "\r\n"])
    lead = rng.choice(["", "", " ", "\t"])
    tail = rng.choice(["", "", " 1", "\t0.5", " -3e7", " "])
    lines.append(lead + "%d%s%d%s%s" % (u, sep, v, tail, end.rstrip("\n")))
    if i % 97 == 5:
        lines.append("# a comment in the middle " + "x" * rng.randrange(0, 300))
    if i % 53 == 7:
        lines.append(rng.choice(["", "   ", "\t\r"]))
lines.append("# " + "long comment " * 400)  # longer than a small block
lines.append("7 7")  # self-loop, and the file ends without a line end
messy = write(os.path.join(TMP, "messy.txt"), "\n".join(lines))
ref_out = os.path.join(TMP, "messy1.h5")
p = imp(1, messy, ref_out)
if R.check("import messy text", p.returncode == 0, p.stderr):
    pairs = snap_pairs(messy)
    check_against("messy", ref_out, pairs, directed=0)
    R.check("messy header mismatch warns", "says 999 edges" in p.stderr and "has 401 tuples" in p.stderr, p.stderr)
    R.check("messy: 401 tuples", len(pairs) == 401, str(len(pairs)))
    for np_, args in ((1, ["--block-bytes", "256"]), (1, ["--block-bytes", "100", "--id-map", "hash"]),
                      (2, ["--block-bytes", "256", "--batch", "6"]), (3, ["--block-bytes", "100", "--batch", "2"]),
                      (2, ["--id-cache", "--batch", "50"]), (3, ["--id-cache", "--id-map", "hash", "--batch", "9"])):
        if True:
            out = os.path.join(TMP, "messy-x.h5")
            p = imp(np_, messy, out, *args)
            tag = "messy np%d %s" % (np_, " ".join(args))
            if R.check("import " + tag, p.returncode == 0, p.stderr):
                same_output(tag, ref_out, out)
    gz = write(os.path.join(TMP, "messy.txt.gz"), "\n".join(lines), gz=True)
    for np_ in ((1, 3) if not SAN else (1, 2)):
        out = os.path.join(TMP, "messy-gz.h5")
        p = imp(np_, gz, out, "--block-bytes", "512")
        if R.check("import messy gzip np%d" % np_, p.returncode == 0, p.stderr):
            same_output("messy gzip np%d" % np_, ref_out, out)
    # two gzip members one after the other are one stream
    half = len(lines) // 2
    cat = write(os.path.join(TMP, "messy2.gz"),
                gzip.compress(("\n".join(lines[:half]) + "\n").encode()) + gzip.compress("\n".join(lines[half:]).encode()))
    out = os.path.join(TMP, "messy-cat.h5")
    p = imp(2, cat, out, "--block-bytes", "300")
    if R.check("import concatenated gzip members", p.returncode == 0, p.stderr):
        same_output("concatenated gzip members", ref_out, out)

# directed from the header, and the flags override
d = write(os.path.join(TMP, "dir.txt"), "# Directed graph (each unordered pair of nodes is saved once): x\n5 6\n6 5\n")
u = write(os.path.join(TMP, "undir.txt"), "# Undirected graph: x\n5 6\n")
n = write(os.path.join(TMP, "nohdr.txt"), "5 6\n")
for path, args, want, tag in ((d, [], 1, "Directed graph header"), (u, [], 0, "Undirected graph header"),
                              (n, [], 1, "no header: directed 1"), (d, ["--undirected"], 0, "--undirected overrides"),
                              (u, ["--directed"], 1, "--directed overrides")):
    out = os.path.join(TMP, "d.h5")
    p = imp(1, path, out, *args)
    if R.check("import " + tag, p.returncode == 0, p.stderr):
        R.eq(tag, int(load(out)[2]["directed"]), want)
p = imp(1, d, os.path.join(TMP, "d.h5"), "--directed", "--undirected")
R.eq("--directed with --undirected is a usage error", p.returncode, 2)

# ---- 4. Matrix Market written here -------------------------------------------------

def mm_text(field, symmetry, rows, cols, entries, crlf=False):
    nl = "\r\n" if crlf else "\n"
    t = ["%%%%MatrixMarket matrix coordinate %s %s" % (field, symmetry), "% a comment", "%", ""]
    t.append("%d %d %d" % (rows, cols, len(entries)))
    for k, (i, j) in enumerate(entries):
        if field == "pattern":
            t.append("%d %d" % (i, j))
        elif field == "integer":
            t.append("%d\t%d\t%d" % (i, j, k - 5))
        else:
            t.append("%d %d %.6e" % (i, j, (k + 1) * 0.37))
        if k == 3:
            t.append("% a comment among the entries")
    return nl.join(t) + nl

rng = random.Random(11)
for field in ("pattern", "integer", "real"):
    for symmetry in ("general", "symmetric"):
        nrow = 60 if symmetry == "general" else 70  # 70: indices 61..70 occur in no entry
        ent = []
        for _ in range(150):
            i, j = rng.randrange(1, 61), rng.randrange(1, 61)
            if symmetry == "symmetric" and i < j:
                i, j = j, i  # the lower triangle, as the format stores it
            ent.append((i, j))
        for gz in (False, True):
            tag = "mm %s %s%s" % (field, symmetry, " gz" if gz else "")
            path = write(os.path.join(TMP, "m-%s-%s.mtx%s" % (field, symmetry, ".gz" if gz else "")),
                         mm_text(field, symmetry, nrow, nrow, ent, crlf=(field == "integer")), gz=gz)
            out = os.path.join(TMP, "mm.h5")
            p = imp(1, path, out)
            if not R.check("import " + tag, p.returncode == 0, p.stderr):
                continue
            pairs = np.array(ent, dtype=np.int64)
            R.eq(tag + " reference reader agrees", mm_pairs(path), pairs)
            check_mm(tag, out, pairs, nrow, directed=0 if symmetry == "symmetric" else 1)
            # a few multi-rank runs: plain general on 3 ranks, gzip symmetric on 2
            for np_ in ([3] if (field, symmetry, gz) == ("real", "general", False) else
                        [2] if (field, symmetry, gz) == ("pattern", "symmetric", True) else []):
                o2 = os.path.join(TMP, "mm2.h5")
                p = imp(np_, path, o2, "--block-bytes", "128", "--batch", "10")
                if R.check("import %s np%d" % (tag, np_), p.returncode == 0, p.stderr):
                    same_output("%s np%d" % (tag, np_), out, o2)
sym = write(os.path.join(TMP, "sym.mtx"), mm_text("pattern", "symmetric", 3, 3, [(2, 1), (3, 3)]))
p = imp(1, sym, os.path.join(TMP, "mm.h5"), "--directed")
if R.check("import mm --directed", p.returncode == 0, p.stderr):
    R.eq("mm --directed overrides symmetric", int(load(os.path.join(TMP, "mm.h5"))[2]["directed"]), 1)
    R.eq("mm vertex_ids are the indices 1..n", load(os.path.join(TMP, "mm.h5"))[1], np.array([1, 2, 3]))

# ---- 5. bad inputs: exit 3, file and line named, no output -----------------------------

good = "".join("%d %d\n" % (i, i + 1) for i in range(1, 1001))  # 1000 good lines
gz_ok = gzip.compress(("1 2\n" * 5000 + "3 4\n").encode())
# the cases also run on several ranks (parse errors found by any rank, gzip dealt out)
multi_bad = {"non-numeric token", "comments only", "truncated gzip", "corrupt gzip", "mm index 0",
             "bad token deep in a later rank's range", "empty file", "one number"}
bad_cases = [
    ("non-numeric token", "1 2\n3 x4\n", 2),
    ("one number", "# c\n1 2\n\n7\n", 4),
    ("negative id", "1 2\n-5 3\n", 2),
    ("id above 2^62", "1 2\n3 4611686018427387905\n", 2),
    ("huge id", "1 99999999999999999999999\n", 1),
    ("empty file", "", 1),
    ("comments only", "# a\n# b\n\n# c\n", 4),
    ("truncated gzip", gz_ok[: len(gz_ok) // 2], None),
    ("corrupt gzip", gz_ok[:20] + bytes(b ^ 0x55 for b in gz_ok[20:60]) + gz_ok[60:], None),
    ("gzip with trailing garbage", gz_ok + b"garbage", None),
    ("mm complex", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1.0 2.0\n", 1),
    ("mm array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1),
    ("mm hermitian", "%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n1 1 1\n", 1),
    ("mm index 0", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n0 1\n", 4),
    ("mm index above rows", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n4 1\n", 4),
    ("mm missing value", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1.5\n2 1\n", 4),
    ("mm too few entries", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 1\n", 4),
    ("mm no size line", "%%MatrixMarket matrix coordinate pattern general\n% only\n", 2),
    ("binary garbage", bytes(random.Random(5).randrange(256) for _ in range(5000)).replace(b"\x1f\x8b", b"xx"), None),
    ("long data line", "1 2\n" + "1" * 5000 + " 2\n", 2),
    ("CR-only line ends", "1 2\n3 4\r5 6\r7 8\r", 2),
    ("comma separated", "1,2\n", 1),
    ("bad token deep in a later rank's range", good + "1001 1002\n1003 y\n" + good, 1002),
]
for np_ in ((1, 3) if not SAN else (1, 2)):
    for tag, text, line in bad_cases:
        if np_ > 1 and tag not in multi_bad:
            continue
        name = "bad-%s.txt" % tag.replace(" ", "_").replace("^", "")
        path = write(os.path.join(TMP, name), text)
        out = os.path.join(TMP, "bad-out.h5")
        p = imp(np_, path, out, "--block-bytes", "1024")
        t = "%s np%d" % (tag, np_)
        R.eq(t + ": exit 3", p.returncode, 3)
        m = re.findall(r"line (\d+)", p.stderr)
        R.check(t + ": message names the file and a line", path in p.stderr and len(m) >= 1, p.stderr)
        if line is not None:
            R.check(t + ": line %d" % line, m[:1] == [str(line)], p.stderr)
        R.check(t + ": one message", len(p.stderr.strip().splitlines()) == 1, p.stderr)
        R.check(t + ": no output", not os.path.exists(out) and not glob.glob(os.path.join(TMP, ".bad-out.h5.tmp*")))

# truncated / corrupt gzip: the line named is where the text breaks off
lines5k = gzip.decompress(gz_ok).decode().count("\n")
p = imp(1, write(os.path.join(TMP, "trunc.gz"), gz_ok[: len(gz_ok) - 12]), os.path.join(TMP, "t.h5"))
m = re.findall(r"line (\d+)", p.stderr)
R.check("truncated gzip names a line within the text", p.returncode == 3 and m and 1 <= int(m[0]) <= lines5k + 1, p.stderr)

# ---- 6. cannot open: exit 4; usage and non-regular inputs: exit 2---------------------------------------------
p = imp(1, os.path.join(TMP, "no-such-file.txt"), os.path.join(TMP, "x.h5"))
R.eq("missing input: exit 4", p.returncode, 4)
R.check("missing input: no output", not os.path.exists(os.path.join(TMP, "x.h5")))
p = imp(2, TMP, os.path.join(TMP, "x.h5"))
R.eq("directory as input: exit 2 (inputs are regular files)", p.returncode, 2)
fifo = os.path.join(TMP, "fifo")
os.mkfifo(fifo)
p = imp(1, fifo, os.path.join(TMP, "x.h5"), timeout=60)  # must not wait for a writer
R.eq("FIFO as input: exit 2 (inputs are regular files)", p.returncode, 2)
p = run(1, "snap-import", os.path.join(SNAP, "wiki-Vote.txt"), check=False)
R.eq("no -o: exit 2", p.returncode, 2)
p = imp(1, os.path.join(SNAP, "wiki-Vote.txt"), os.path.join(TMP, "no-dir", "x.h5"))
R.eq("unwritable output: exit 4", p.returncode, 4)

# ---- 7. a round trip through rmat-gen's edge file ---------------------------------
# The text of an rmat-gen graph imports to the same tuples (through /vertex_ids),
# and this file's fingerprint formula is the one rmat-gen writes.
if R.check("rmat-gen built", os.path.exists(os.path.join(BIN, "rmat-gen")), "not in " + BIN):
    rm = os.path.join(TMP, "rmat.h5")
    p = run(1, "rmat-gen", "-q", "-s", "9", "-e", "8", "-o", rm, check=False)
    if R.check("rmat-gen for the round trip", p.returncode == 0, p.stderr):
        with h5py.File(rm, "r") as f:
            E = f["edges"][...]
            R.eq("rmat-gen's fingerprint = this test's formula", int(f.attrs["fingerprint"]), fingerprint(E))
        txt = write(os.path.join(TMP, "rmat.txt"), "# Undirected graph\n" + "".join("%d\t%d\n" % (u, v) for u, v in E))
        out = os.path.join(TMP, "rmat-back.h5")
        p = imp(2, txt, out)
        if R.check("import rmat text np2", p.returncode == 0, p.stderr):
            check_against("rmat round trip", out, E.astype(np.int64), directed=0)

sys.exit(1 if R.failed else 0)
