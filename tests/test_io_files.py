"""tests/test_io_files.py — docs/DESIGN.md "Inputs" and "Outputs": every
program reads and writes regular files only. An output that is a character
device, a FIFO, a directory or a symlink to one is refused (exit 2) and never
replaced; two outputs of one run on one path are refused before
anything is written; a failed run leaves existing outputs as they were; a
240-byte output name works; an -o ending in '/' or in a missing directory
is found before the work. An input that is a FIFO or a device, or an HDF5
file reaching one through an external link (or external raw data, or a
filter this HDF5 lacks), is refused, never waited on. Strings from inputs
are escaped in text, JSON, CSV, SVG and Matrix Market outputs; sizes from
input are checked (snap-import's size line, partition2d's per-vertex
arrays). Every case: exit code, the message names the file, what is on disk
afterwards, inputs and existing outputs unchanged (device nodes and FIFOs
made here with mknod and mkfifo, never the real /dev), no hang."""
import csv, glob, io, json, os, shutil, stat, sys
import xml.dom.minidom
import numpy as np
import h5py
from b2ref import Report, TMP, run_bounded, digest, cmd_of, run_np_bounded

R = Report()
T = TMP
TIMEOUT = 60
ENV = dict(os.environ, B2_ERROR_WAIT="2")


def run(np_, prog, *args, env=ENV):
    return run_np_bounded(np_, prog, args, TIMEOUT, env)


def state(p):
    """What is at path p, without following a symlink or opening a device:
    compared before and after a run."""
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(p), state(os.path.realpath(p)) if os.path.exists(p) else None)
    if stat.S_ISCHR(st.st_mode):
        return ("chr", st.st_rdev, st.st_ino)
    if stat.S_ISFIFO(st.st_mode):
        return ("fifo", st.st_ino)
    if stat.S_ISDIR(st.st_mode):
        return ("dir", tuple((n, state(os.path.join(p, n))) for n in sorted(os.listdir(p))))
    return ("file", digest(p))


def leftovers(*dirs):
    out = []
    for d in set(dirs) | {T}:
        out += (glob.glob(os.path.join(d, ".*.tmp-*")) + glob.glob(os.path.join(d, ".*.spill-*"))
                + glob.glob(os.path.join(d, ".*.old-*")))
    return sorted(out)


def case(name, np_, prog, args, code, names, keep=(), absent=(), said=()):
    """Runs prog: exit `code`, stderr names each of `names` and says each of
    `said`, every path of `keep` is as it was, no path of `absent` exists, no
    temporary is left, no hang, no sanitizer report."""
    n = "%s (%d rank%s)" % (name, np_, "s" if np_ > 1 else "")
    before = {p: state(p) for p in keep}
    rc, err, out = run(np_, prog, *args)
    if not R.check(n + ": ends", rc is not None, "timed out after %d s (hang): %s" % (TIMEOUT, err[-300:])):
        return err
    R.check(n + ": exit %d" % code, rc == code, "exit %s, stderr: %s" % (rc, err[-500:]))
    for s in names:
        R.check(n + ": message names %s" % os.path.basename(s.rstrip("/")) or s, s in err, "stderr: %s" % err[-500:])
    for s in said:
        R.check(n + ": says '%s'" % s, s in err, "stderr: %s" % err[-500:])
    R.check(n + ": unchanged on disk", all(state(p) == before[p] for p in keep),
            str([p for p in keep if state(p) != before[p]]))
    R.check(n + ": nothing written", not [p for p in absent if os.path.lexists(p)],
            str([p for p in absent if os.path.lexists(p)]))
    dirs = [os.path.dirname(p) for p in list(keep) + list(absent) if os.path.isdir(os.path.dirname(p) or ".")]
    R.check(n + ": no temporary left", not leftovers(*dirs), str(leftovers(*dirs)))
    R.check(n + ": clean exit", "Sanitizer" not in err and "runtime error" not in err, err[-400:])
    return err


def ok_run(name, np_, prog, *args):
    rc, err, _ = run(np_, prog, *args)
    return R.check(name, rc == 0, "exit %s: %s" % (rc, err[-400:]))


# ---- inputs ----------------------------------------------------------------------
G, P1, P2, B1, B2, V1, E = (T + "/g.h5", T + "/p1.h5", T + "/p2.h5", T + "/b1.h5", T + "/b2.h5",
                            T + "/v1.h5", T + "/e.txt")
setup_ok = all([ok_run("setup rmat-gen", 1, "rmat-gen", "-q", "-s", "8", "-o", G),
                ok_run("setup partition 1x1", 1, "partition2d", "-q", "--grid", "1x1", G, "-o", P1),
                ok_run("setup partition 1x2", 1, "partition2d", "-q", "--grid", "1x2", G, "-o", P2),
                ok_run("setup bfs 1x1", 1, "bfs-gpu", "-q", "--backend", "cpu", "-n", "4", P1, "-o", B1),
                ok_run("setup bfs 1x2", 2, "bfs-gpu", "-q", "--backend", "cpu", "-n", "4", P2, "-o", B2),
                ok_run("setup validate", 1, "bfs-validate", "-q", G, B1, "-o", V1)])
with open(E, "w") as f:
    f.write("# Directed graph\n1 2\n2 3\n3 1\n")
if not setup_ok:
    sys.exit(1)

FIFO = T + "/fifo"
os.mkfifo(FIFO)
specials = {"a FIFO": FIFO}
try:
    os.mknod(T + "/nulldev", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    os.mknod(T + "/zerodev", 0o666 | stat.S_IFCHR, os.makedev(1, 5))
    specials["a character device"] = T + "/nulldev"
    os.symlink(T + "/nulldev", T + "/link-to-dev")
    specials["a symlink to a character device"] = T + "/link-to-dev"
except OSError as e:
    print("SKIP character-device cases: mknod failed: %s (the FIFO cases still run)" % e)
os.symlink(FIFO, T + "/link-to-fifo")
specials["a symlink to a FIFO"] = T + "/link-to-fifo"
KIND = {"a FIFO": "a FIFO", "a character device": "a character device",
        "a symlink to a character device": "a character device", "a symlink to a FIFO": "a FIFO"}

# ---- 4. outputs that are not regular files: exit 2, never replaced ----------------
D = T + "/adir"
os.mkdir(D)
writers = [  # (program, ranks, arguments with O for the output)
    ("rmat-gen", [1, 2], ["-s", "6", "-o", "O"]),
    ("snap-import", [1, 2], [E, "-o", "O"]),
    ("partition2d", [1, 2], ["--grid", "1x1", G, "-o", "O"]),
    ("edge-export", [1, 2], [G, "--format", "el", "-o", "O"]),
    ("bfs-gpu", [1], [P1, "--backend", "cpu", "-n", "2", "-o", "O"]),
    ("bfs-gpu", [2], [P2, "--backend", "cpu", "-n", "2", "-o", "O"]),
    ("bfs-validate", [1, 2], [G, B1, "-o", "O"]),
    ("bfs-report", [1], [B1, V1, "-o", "O"]),
    ("bfs-report", [1], [B1, V1, "--append", "O"]),
    ("bfs-report", [1], [B1, V1, "--svg", "O"]),
]
for prog, nps, args in writers:
    opt = args[args.index("O") - 1]
    for np_ in nps:
        for kind, path in specials.items():
            if np_ > 1 and kind.startswith("a symlink"):
                continue  # the same check as without the link: once is enough on 2 ranks
            a = [path if x == "O" else x for x in args]
            case("%s %s %s" % (prog, opt, kind), np_, prog, a, 2, [path],
                 keep=[path, FIFO, T + "/nulldev", G, B1, V1, E],
                 said=["is %s, not a regular file: refusing to replace it" % KIND[kind]])
        if opt != "--svg":
            a = [D if x == "O" else x for x in args]
            case("%s %s a directory" % (prog, opt), np_, prog, a, 2, [D], keep=[D, G, B1, V1, E])

# ---- 4. two outputs of one run on one path: refused before anything is written ----
X = T + "/table.csv"
ok_run("setup append table", 1, "bfs-report", B1, V1, "--append", X)
case("bfs-report -o X --append X", 1, "bfs-report", [B1, V1, "-o", X, "--append", X], 2, [X],
     keep=[X, B1, V1], said=["two outputs of one run cannot share a path"])
os.symlink(X, T + "/table-link")
case("bfs-report -o LINK --append X", 1, "bfs-report", [B1, V1, "-o", T + "/table-link", "--append", X], 2,
     [X, T + "/table-link"], keep=[X, T + "/table-link"])
SV = T + "/plots"
ok_run("setup plots", 1, "bfs-report", B1, V1, "--svg", SV)
case("bfs-report --svg D -o D/index.html", 1, "bfs-report", [B1, V1, "--svg", SV, "-o", SV + "/index.html"], 2,
     [SV, SV + "/index.html"], keep=[SV, B1, V1], said=["two outputs of one run cannot share a path"])
case("bfs-report --svg D --append D/report.csv", 1, "bfs-report",
     [B1, V1, "--svg", SV, "--append", SV + "/report.csv"], 2, [SV], keep=[SV, X])

# ---- 4. a failed run leaves every existing output as it was -----------------------
BAD = T + "/bad-time.h5"
shutil.copy(B1, BAD)
with h5py.File(BAD, "r+") as f:
    t = f["time"][...]
    t[0] = -1.0
    f["time"][...] = t
REP = T + "/old-report.txt"
with open(REP, "w") as f:
    f.write("an earlier report\n")
case("bfs-report failing on bad data", 1, "bfs-report",
     [B1, V1, BAD, "--unvalidated", "-o", REP, "--append", X, "--svg", SV], 3, [BAD], keep=[REP, X, SV, BAD])
# the last rename fails (the --append table is immutable: even root cannot
# replace it) after -o and the plots were renamed: they are put back (the
# table holds this run already: --append-again, so that the rename is reached)
IMM = T + "/immutable.csv"
shutil.copy(X, IMM)
import subprocess  # noqa: E402
if subprocess.run(["chattr", "+i", IMM], capture_output=True).returncode != 0:
    print("SKIP the last rename failing: chattr +i is not supported here")
else:
    case("bfs-report: the last rename fails, the earlier ones undone", 1, "bfs-report",
         [B1, V1, "-o", REP, "--svg", SV, "--append", IMM, "--append-again"], 4, [IMM],
         keep=[REP, SV, IMM, B1, V1])
    subprocess.run(["chattr", "-i", IMM])
BADE = T + "/bad-fp.h5"
shutil.copy(G, BADE)
with h5py.File(BADE, "r+") as f:
    f.attrs["fingerprint"] = np.uint64(12345)
for np_ in [1, 2]:
    OLD = T + "/old-part.h5"
    shutil.copy(P1, OLD)
    case("partition2d failing on bad data", np_, "partition2d", ["--grid", "1x1", BADE, "-o", OLD], 3, [BADE],
         keep=[OLD, BADE])

# ---- 4. long output names: a 239-byte name works ---------------------------------
LONG = T + "/" + "n" * 236
for np_ in [1, 2]:
    for prog, args, out in [("rmat-gen", ["-q", "-s", "6", "-o", LONG + ".h5"], LONG + ".h5"),
                            ("partition2d", ["-q", "--grid", "1x1", "--mem", "4096", G, "-o", LONG + ".h5"],
                             LONG + ".h5"),
                            ("edge-export", ["-q", G, "-o", LONG + ".el"], LONG + ".el"),
                            ("bfs-validate", ["-q", G, B1, "-o", LONG + ".h5"], LONG + ".h5")]:
        n = "%s -o (239 bytes) (%d ranks)" % (prog, np_)
        rc, err, _ = run(np_, prog, *args)
        R.check(n + ": exit 0", rc == 0, "exit %s: %s" % (rc, err[-300:]))
        R.check(n + ": written", os.path.isfile(out))
        R.check(n + ": no temporary left", not leftovers(), str(leftovers()))
        if os.path.exists(out):
            os.unlink(out)
rc, err, _ = run(1, "bfs-report", B1, V1, "-o", LONG + ".txt", "--append", LONG + ".csv")
R.check("bfs-report -o, --append (239 bytes): exit 0", rc == 0, err[-300:])
R.check("bfs-report -o, --append (239 bytes): written", os.path.isfile(LONG + ".txt") and os.path.isfile(LONG + ".csv"))
R.check("bfs-report (239 bytes): no temporary left", not leftovers(), str(leftovers()))

# ---- 4. checked early: -o ending in '/', a missing directory -----------------------
# each input is damaged where only the work finds it (exit 3): the output's
# problem must come first
BADP = T + "/bad-part.h5"
shutil.copy(P1, BADP)
with h5py.File(BADP, "r+") as f:
    cp = f["/csc/col_ptr"]
    r = cp[0]
    r[10] = r[11] + 50
    cp[0] = r
BADS = T + "/bad.txt"
with open(BADS, "w") as f:
    f.write("1 2\n2 3\nthree four\n")
early = [("rmat-gen", [1, 2], ["-s", "6", "-o", "O"]),
         ("snap-import", [1, 2], [BADS, "-o", "O"]),
         ("partition2d", [1, 2], ["--grid", "1x1", BADE, "-o", "O"]),
         ("edge-export", [1], [BADE, "--format", "el", "-o", "O"]),
         ("bfs-gpu", [1], [BADP, "--backend", "cpu", "-n", "2", "-o", "O"]),
         ("bfs-validate", [1, 2], [BADE, B1, "-o", "O"]),
         ("bfs-report", [1], [BAD, "--unvalidated", "-o", "O"])]
for prog, nps, args in early:
    for np_ in nps:
        a = [T + "/out-dir/" if x == "O" else x for x in args]
        case("%s -o ending in '/'" % prog, np_, prog, a, 2, [T + "/out-dir/"], absent=[T + "/out-dir"],
             said=["not a file name (it ends in '/')"])
        a = [T + "/missing/x.out" if x == "O" else x for x in args]
        case("%s -o in a missing directory, before the work" % prog, np_, prog, a, 4,
             [T + "/missing/x.out"], absent=[T + "/missing"], said=["does not exist"])
if os.geteuid() == 0:
    print("SKIP -o in a directory without write permission: running as root, which writes anyway")
else:
    RO = T + "/readonly"
    os.mkdir(RO, 0o555)
    case("partition2d -o in a read-only directory", 1, "partition2d", ["--grid", "1x1", BADE, "-o", RO + "/p.h5"],
         4, [RO + "/p.h5"], keep=[RO], said=["is not writable"])

# ---- 5. inputs that are not regular files: refused, never waited on ---------------
specials_in = dict(specials)
if os.path.exists(T + "/zerodev"):
    specials_in["a character device"] = T + "/zerodev"  # reading it would never end
readers = [("partition2d", [1, 2], ["--grid", "1x1", "I", "-o", T + "/in.out"]),
           ("bfs-gpu", [1, 2], ["I", "--backend", "cpu", "-o", T + "/in.out"]),
           ("bfs-validate", [1, 2], ["I", B1, "-o", T + "/in.out"]),
           ("bfs-validate", [1, 2], [G, "I", "-o", T + "/in.out"]),
           ("edge-export", [1, 2], ["I", "--format", "el", "-o", T + "/in.out"]),
           ("snap-import", [1, 2], ["I", "-o", T + "/in.out"]),
           ("bfs-report", [1], ["I"]),
           ("bfs-report", [1], [B1, V1, "--baseline", "I"]),
           ("bfs-report", [1], [B1, "I"])]
for prog, nps, args in readers:
    for np_ in nps:
        for kind, path in specials_in.items():
            if np_ > 1 and kind.startswith("a symlink"):
                continue
            a = [path if x == "I" else x for x in args]
            case("%s argument %d %s" % (prog, args.index("I") + 1, kind), np_, prog, a, 2, [path],
                 keep=[path, FIFO, G, B1, V1], absent=[T + "/in.out"],
                 said=["cannot read %s: it is %s, not a regular file" % (path, KIND[kind])])

# ---- 5. HDF5 external links, external data, missing filters: exit 3 ---------------
def copy_attrs(src, dst):
    for k, v in src.attrs.items():
        dst.attrs[k] = v

EXT, EXTG, EXTP, EXTB, EXTRAW, FILT = (T + "/ext-edges.h5", T + "/ext-group.h5", T + "/ext-part.h5",
                                       T + "/ext-bfs.h5", T + "/ext-raw.h5", T + "/filter.h5")
with h5py.File(G, "r") as src:
    edges = src["edges"][...]
    with h5py.File(EXT, "w") as f:
        copy_attrs(src, f)
        f["edges"] = h5py.ExternalLink(FIFO, "/edges")
    with h5py.File(EXTG, "w") as f:  # a soft link into an externally linked group
        copy_attrs(src, f)
        f["far"] = h5py.ExternalLink(FIFO, "/")
        f["edges"] = h5py.SoftLink("/far/edges")
    with h5py.File(EXTRAW, "w") as f:
        copy_attrs(src, f)
        f.create_dataset("edges", shape=edges.shape, dtype="<i8", external=[(FIFO, 0, h5py.h5f.UNLIMITED)])
    with h5py.File(FILT, "w") as f:
        copy_attrs(src, f)
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((64, 2))
        dcpl.set_filter(32001, h5py.h5z.FLAG_OPTIONAL, (0,))  # not in Debian's HDF5
        d = h5py.h5d.create(f.id, b"edges", h5py.h5t.STD_I64LE, h5py.h5s.create_simple(edges.shape), dcpl)
        d.write(h5py.h5s.ALL, h5py.h5s.ALL, edges)
shutil.copy(P1, EXTP)
with h5py.File(EXTP, "r+") as f:
    del f["csc"]
    f["csc"] = h5py.ExternalLink(FIFO, "/csc")
shutil.copy(B1, EXTB)
with h5py.File(EXTB, "r+") as f:
    del f["time"]
    f["time"] = h5py.ExternalLink(FIFO, "/time")
EXTR = T + "/ext-roots.h5"
shutil.copy(B1, EXTR)
with h5py.File(EXTR, "r+") as f:
    del f["roots"]
    f["roots"] = h5py.ExternalLink(FIFO, "/roots")
h5cases = [("partition2d", [1, 2], ["--grid", "1x1", "I", "-o", T + "/h5.out"]),
           ("edge-export", [1], ["I", "--format", "el", "-o", T + "/h5.out"]),
           ("bfs-validate", [1, 2], ["I", B1, "-o", T + "/h5.out"])]
for prog, nps, args in h5cases:
    for np_ in nps:
        for what, path, says in [("an external link to a FIFO", EXT, "external link"),
                                 ("a soft link through an external link", EXTG, "external link"),
                                 ("external raw data in a FIFO", EXTRAW, "external files"),
                                 ("a filter this HDF5 lacks", FILT, "HDF5 filter 32001")]:
            a = [path if x == "I" else x for x in args]
            case("%s: dataset through %s" % (prog, what), np_, prog, a, 3, [path], keep=[path, FIFO],
                 absent=[T + "/h5.out"], said=[says])
for np_ in [1]:
    case("bfs-gpu: partition group through an external link", np_, "bfs-gpu",
         [EXTP, "--backend", "cpu", "-o", T + "/h5.out"], 3, [EXTP], keep=[EXTP, FIFO], absent=[T + "/h5.out"],
         said=["external link"])
    case("bfs-report: /time through an external link", np_, "bfs-report", [EXTB, "--unvalidated"], 3, [EXTB],
         keep=[EXTB, FIFO], said=["external link"])
for np_ in [1, 2]:
    case("bfs-validate: BFS /roots through an external link", np_, "bfs-validate", [G, EXTR, "-o", T + "/h5.out"],
         3, [EXTR], keep=[EXTR, FIFO], absent=[T + "/h5.out"], said=["external link"])

# ---- 5. strings from inputs, escaped in every output ------------------------------
EV = T + "/evil\nharmonic_mean_TEPS: 9e99\n.h5"
EVV = T + "/evil-valid.h5"
if ok_run("bfs-gpu -o a name with newlines", 1, "bfs-gpu", "-q", "--backend", "cpu", "-n", "4", P1, "-o", EV) and \
   ok_run("bfs-validate of it", 1, "bfs-validate", "-q", G, EV, "-o", EVV):
    ESCAPED = EV.replace("\n", "\\n")
    rc, err, out = run(1, "bfs-report", EV, EVV)
    R.check("text: exit 0", rc == 0, err[-300:])
    lines = out.splitlines()
    R.check("text: no injected line", not [l for l in lines if "9e99" in l and not l.startswith("==")
                                           and ESCAPED not in l], str([l for l in lines if "9e99" in l]))
    R.eq("text: one harmonic_mean_TEPS line", len([l for l in lines if "harmonic_mean_TEPS" in l
                                                   and ESCAPED not in l]), 1)
    R.check("text: the name shown escaped", ESCAPED in out, out[:300])
    rc, err, out = run(1, "bfs-report", EV, EVV, "--format", "json")
    try:
        js = json.loads(out)
        R.eq("json: the exact name", js["runs"][0]["bfs_file"], EV)
    except ValueError as e:
        R.check("json: parses", False, str(e))
    rc, err, out = run(1, "bfs-report", EV, EVV, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    R.eq("csv: one row per run", len(rows), 1)
    R.eq("csv: one line per row", len(out.splitlines()), 2)
    R.eq("csv: the name in text form", rows[0]["bfs_file"] if rows else None, ESCAPED)
    AP = T + "/evil-table.csv"
    rc, err, out = run(1, "bfs-report", EV, EVV, "--append", AP)
    R.check("append: exit 0, two lines", rc == 0 and len(open(AP).read().splitlines()) == 2, err[-300:])
    # an ESC and markup in the backend attribute
    ESCB = T + "/esc-backend.h5"
    shutil.copy(B1, ESCB)
    BACK = "cpu\x1b[31m <&>\"'"
    with h5py.File(ESCB, "r+") as f:
        f.attrs["backend"] = np.bytes_(BACK.encode())
    PL = T + "/esc-plots"
    rc, err, out = run(1, "bfs-report", ESCB, "--unvalidated", "--svg", PL)
    R.check("svg: exit 0", rc == 0, err[-300:])
    for name in ["teps.svg", "phases.svg", "frontier.svg", "scaling.svg"]:
        try:
            xml.dom.minidom.parse(os.path.join(PL, name))
            R.check("svg: %s is well-formed" % name, True)
        except Exception as e:
            R.check("svg: %s is well-formed" % name, False, str(e))
    ph = open(os.path.join(PL, "phases.svg"), encoding="utf-8").read()
    R.check("svg: backend shown escaped", "cpu\\x1b[31m &lt;&amp;&gt;&quot;&#39;" in ph and "\x1b" not in ph)
    R.check("text: no ESC", "\x1b" not in out and "cpu\\x1b[31m" in out, out[:400])
    R.eq("report.json: the exact backend", json.load(open(os.path.join(PL, "report.json")))["runs"][0]["backend"], BACK)
    idx = open(os.path.join(PL, "index.html"), encoding="utf-8").read()
    R.check("index.html: no ESC, no raw markup from the input", "\x1b" not in idx and " <&>" not in idx)
# edge-export: the input's name in a comment line, one line
GE = T + "/g\n256 256 1\n.h5"
shutil.copy(G, GE)
MTX = T + "/evil.mtx"
rc, err, _ = run(1, "edge-export", GE, "-o", MTX)
if R.check("edge-export of a name with newlines: exit 0", rc == 0, err[-300:]):
    body = [l for l in open(MTX).read().splitlines() if not l.startswith("%")]
    with h5py.File(G, "r") as f:
        n, m = int(f.attrs["num_vertices"]), int(f.attrs["num_edges"])
    R.eq("mtx: one size line, then the tuples", body[0], "%d %d %d" % (n, n, m))
    R.eq("mtx: lines after the comments", len(body), m + 1)
    R.check("mtx: the name escaped in its comment", "g\\n256 256 1\\n.h5" in open(MTX).read())

# ---- 5. sizes from input ------------------------------------------------------------
BIG = T + "/big.mtx"
with open(BIG, "w") as f:
    f.write("%%MatrixMarket matrix coordinate pattern general\n4611686018427387904 4611686018427387904 1\n1 2\n")
for np_ in [1, 2]:
    case("snap-import size line near 2^62", np_, "snap-import", [BIG, "-o", T + "/big.h5"], 3, [BIG],
         keep=[BIG], absent=[T + "/big.h5"], said=["line 2", "4611686018427387904 vertices"])
HUGEIDS = T + "/hugeids.mtx"
with open(HUGEIDS, "w") as f:
    f.write("%%MatrixMarket matrix coordinate pattern general\n1152921504606846975 1152921504606846975 1\n1 2\n")
env = dict(ENV, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":allocator_may_return_null=1")
rc, out, err = run_bounded(cmd_of(1, "snap-import", [HUGEIDS, "-o", T + "/hugeids.h5"]), TIMEOUT, env)
R.check("snap-import out of memory: exit 4, the true byte count",
        rc == 4 and "9223372036854775800 bytes" in err and not os.path.exists(T + "/hugeids.h5"),
        "exit %s: %s" % (rc, err[-300:]))
NEG = T + "/neg.txt"
with open(NEG, "w") as f:
    f.write("# Nodes: -5 Edges: -7\n1 2\n2 3\n")
rc, err, _ = run(1, "snap-import", NEG, "-o", T + "/neg.h5")
R.check("snap-import negative header counts echoed", rc == 0 and "says -5 nodes" in err and "says -7 edges" in err,
        err[-300:])
HUGE = T + "/huge-n.h5"
with h5py.File(G, "r") as src, h5py.File(HUGE, "w") as f:
    copy_attrs(src, f)
    f.create_dataset("edges", data=np.array([[0, 1], [1, 2]], dtype="<i8"))
    f.attrs["num_vertices"] = np.int64(1 << 31)
    f.attrs["num_edges"] = np.int64(2)
for np_ in [1, 2]:
    case("partition2d: N = 2^31 from a tiny file", np_, "partition2d", ["--grid", "1x1", HUGE, "-o", T + "/huge.p.h5"],
         4, [HUGE], keep=[HUGE], absent=[T + "/huge.p.h5"], said=["GiB per rank for the per-vertex arrays",
                                                                  "give --mem"])

sys.exit(1 if R.failed else 0)
