"""tests/test_hostile_common.py — hostile kinds every program meets through
common/, each on 1 and 2 ranks where ranks matter, each run under a time
limit (a hang is a FAIL):

- a numeric option with a blank before or after it, or a sign where none is
  taken (' -1', '+5', '5 ', ' 5' to --seed, --scale, --nroots, --read-rows,
  --batch, --alpha): exit 2 naming the option, never a wrapped value;
- an HDF5 input with a user block (512, 1024, 4096 bytes) is read as the
  same file without one (same output datasets);
- a uint64 attribute above INT64_MAX (num_vertices, num_edges of an edge
  file) or a negative int64 where a uint64 goes (fingerprint): exit 3 naming
  the file and the attribute, before any output, never clamped;
- a string attribute over 16 KiB (edges_file of a partition file, run_id of
  a BFS file) and a run id that is not 32 lowercase hex digits (empty, two
  lines, upper case, 31 digits): exit 3 naming the file and attribute, up
  front (no output, no temporary);
- an input that one rank cannot open (missing where that rank runs; another
  kind of file there): exit 4 (3) naming that rank and the reason, not
  "truncated or corrupt";
- SIGXFSZ (ulimit -f) while writing an HDF5 output, a text report or an
  --append table: exit 4 "cannot write FILE", no temporary, no lock file,
  the table unchanged; SIGPIPE (a reader of standard output that quit):
  exit 4 naming standard output, the --append row written, no temporary
  nor lock file."""
import glob, os, resource, shutil, subprocess
import numpy as np
import h5py
from b2ref import Report, BIN, TMP, MPIEXEC, run_bounded, digest, write_edges, put_str

rep = Report()
LIMIT = 120


def cmd(np_, prog, args, wdirs=None):
    c = [os.path.join(BIN, prog)] + [str(a) for a in args]
    if wdirs:  # one rank per directory (MPMD), so a relative input differs by rank
        full = MPIEXEC.split()
        for i, d in enumerate(wdirs):
            full += (([":"] if i else []) + ["-n", "1", "-wdir", d] + c)
        return full
    return (MPIEXEC.split() + ["-n", str(np_)] + c) if np_ > 1 else c


def run(np_, prog, *args, wdirs=None, fsize=None, close_stdout=False):
    """(exit code or None on a hang, stdout, stderr)."""
    if close_stdout:
        r, w = os.pipe()
        os.close(r)  # the reader quit before the first byte
        p = subprocess.Popen(cmd(np_, prog, args, wdirs), stdout=w, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        os.close(w)
        try:
            _, err = p.communicate(timeout=LIMIT)
            return p.returncode, "", err
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, 9)
            return None, "", ""
    return run_bounded(cmd(np_, prog, args, wdirs), LIMIT,
                       rlimit=None if fsize is None else (resource.RLIMIT_FSIZE, fsize))


def leftovers(d):
    return glob.glob(os.path.join(d, ".*tmp*")) + glob.glob(os.path.join(d, ".*.lock"))


def expect(name, code, np_, prog, args, says=(), out=None, inputs=(), **kw):
    before = [digest(p) for p in inputs]
    rc, _, err = run(np_, prog, *args, **kw)
    name = "%s (%d rank%s)" % (name, np_, "s" if np_ > 1 else "")
    if not rep.check(name + ": ends", rc is not None, "killed after %d s (a hang)" % LIMIT):
        return False
    ok = rep.check(name + ": exit %d" % code, rc == code, "exit %s, stderr: %s" % (rc, err[-500:]))
    for s in says:
        ok &= rep.check(name + ": says '%s'" % s[:60], s in err, "stderr: %s" % err[-500:])
    if out is not None:
        ok &= rep.check(name + ": no output", not os.path.exists(out), out)
        ok &= rep.check(name + ": no temporary nor lock", not leftovers(os.path.dirname(out)),
                        str(leftovers(os.path.dirname(out))))
    if inputs:
        ok &= rep.check(name + ": inputs unchanged", [digest(p) for p in inputs] == before)
    ok &= rep.check(name + ": clean exit", "Sanitizer" not in err and "runtime error" not in err, err[-400:])
    return ok


def setup():
    ok = True
    steps = [(1, ["rmat-gen", "-q", "-s", "6", "-o", T + "/g.h5"]),
             (1, ["partition2d", "-q", "--grid", "1x1", T + "/g.h5", "-o", T + "/p1.h5"]),
             (2, ["partition2d", "-q", "--grid", "1x2", T + "/g.h5", "-o", T + "/p2.h5"]),
             (2, ["bfs-gpu", "-q", T + "/p2.h5", "-n", "4", "--backend", "cpu", "-o", T + "/b.h5"]),
             (1, ["bfs-validate", "-q", T + "/g.h5", T + "/b.h5", "-o", T + "/v.h5"])]
    for np_, a in steps:
        rc, _, err = run(np_, a[0], *a[1:])
        ok &= rep.check("setup: " + a[0], rc == 0, err[-300:])
    return ok


# ---- option values: the number alone ------------------------------------------
def options():
    o = T + "/opt.h5"
    for v in [" -1", "-1", "+5", "5 ", " 5", "\t7", "1\n"]:
        expect("rmat-gen --seed %r" % v, 2, 1, "rmat-gen", ["-q", "-s", "4", "--seed", v, "-o", o],
               ["--seed"], out=o)
        expect("rmat-gen -s %r" % v, 2, 1, "rmat-gen", ["-q", "-s", v, "-o", o], ["--scale"], out=o)
    for np_ in (1, 2):
        for v in [" -1", "+1", "4 "]:
            expect("bfs-gpu --seed %r" % v, 2, np_, "bfs-gpu",
                   [T + "/p%d.h5" % np_, "--backend", "cpu", "--seed", v, "-o", o], ["--seed"], out=o)
            expect("bfs-gpu --nroots %r" % v, 2, np_, "bfs-gpu",
                   [T + "/p%d.h5" % np_, "--backend", "cpu", "-n", " 4" if v == "4 " else v, "-o", o],
                   ["--nroots"], out=o)
        expect("bfs-validate --read-rows ' -1'", 2, np_, "bfs-validate",
               [T + "/g.h5", T + "/b.h5", "--read-rows", " -1", "-o", o], ["--read-rows"], out=o)
    expect("bfs-gpu --alpha ' 2'", 2, 1, "bfs-gpu", [T + "/p1.h5", "--backend", "cpu", "--alpha", " 2",
                                                     "-o", o], ["--alpha"], out=o)
    expect("snap-import --batch ' -3'", 2, 1, "snap-import", [T + "/g.h5", "--batch", " -3", "-o", o],
           ["--batch"], out=o)
    # the good value still parses
    rc, _, err = run(1, "rmat-gen", "-q", "-s", "4", "--seed", "18446744073709551615", "-o", o)
    rep.check("rmat-gen --seed 2^64-1 still taken", rc == 0, err[-300:])
    if os.path.exists(o):
        os.unlink(o)


# ---- a user block before the HDF5 signature --------------------------------------
def copy_file(src, dst, ub=0, **strs):
    """src copied object by object into dst, with a user block of ub bytes;
    string attributes strs put in place of src's (the newest file format,
    so that an attribute may pass 64 KiB)."""
    kw = dict(userblock_size=ub) if ub else dict(libver="latest")
    with h5py.File(src, "r") as a, h5py.File(dst, "w", **kw) as b:
        for k, v in a.attrs.items():
            if k not in strs:
                b.attrs.create(k, v, dtype=a.attrs.get_id(k).dtype)
        for k, v in strs.items():
            put_str(b, k, v)
        for k in a:
            a.copy(k, b)


def copy_with_userblock(src, dst, ub):
    copy_file(src, dst, ub)
    with open(dst, "r+b") as f:  # a user block holds what its maker wants
        f.write(b"#!user block of %d bytes\n" % ub)


def userblock():
    for ub in (512, 1024, 4096):
        g = T + "/g_ub%d.h5" % ub
        copy_with_userblock(T + "/g.h5", g, ub)
        with open(g, "rb") as f:
            head = f.read(8)
        rep.check("user block %d: the file does not start with the signature" % ub,
                  head != b"\x89HDF\r\n\x1a\n", repr(head))
        for np_ in (1, 2):
            o = T + "/pu.h5"
            grid = "1x%d" % np_
            rc, _, err = run(np_, "partition2d", "-q", "--grid", grid, g, "-o", o)
            if rep.check("user block %d: partition2d reads it (%d ranks)" % (ub, np_), rc == 0, err[-400:]):
                with h5py.File(o, "r") as a, h5py.File(T + "/p%d.h5" % np_, "r") as b:
                    rep.check("user block %d: the same partition (%d ranks)" % (ub, np_),
                              all(np.array_equal(a[k][()], b[k][()]) for k in ("csc/row_idx", "csc/row_off")
                                  if k in a and k in b) and "csc/row_idx" in a, "datasets differ")
                os.unlink(o)
        o = T + "/vu.h5"
        rc, _, err = run(2, "bfs-validate", "-q", g, T + "/b.h5", "-o", o)
        rep.check("user block %d: bfs-validate reads it (2 ranks)" % ub, rc == 0, err[-400:])
        if os.path.exists(o):
            os.unlink(o)
    # a user block size HDF5 does not look at is no HDF5 file, still exit 3
    bad = T + "/g_off.h5"
    with open(T + "/g.h5", "rb") as f, open(bad, "wb") as w:
        w.write(b"x" * 300 + f.read())
    expect("signature at 300", 3, 1, "partition2d", ["--grid", "1x1", bad, "-o", T + "/px.h5"],
           ["not an HDF5 file", bad], out=T + "/px.h5")


# ---- integers: never clamped -------------------------------------------------------
def edges_with(path, **attrs):
    shutil.copy(T + "/g.h5", path)
    with h5py.File(path, "r+") as f:
        for k, v in attrs.items():
            del f.attrs[k]
            f.attrs[k] = v
    return path


def integers():
    big = np.uint64((1 << 63) + 5)
    for attr in ("num_vertices", "num_edges"):
        e = edges_with(T + "/big_%s.h5" % attr, **{attr: big})
        for np_ in (1, 2):
            expect("uint64 %s above INT64_MAX: partition2d" % attr, 3, np_, "partition2d",
                   ["--grid", "1x%d" % np_, e, "-o", T + "/pb.h5"], [e, attr, "9223372036854775813"],
                   out=T + "/pb.h5", inputs=[e])
            expect("uint64 %s above INT64_MAX: bfs-validate" % attr, 3, np_, "bfs-validate",
                   [e, T + "/b.h5", "-o", T + "/vb.h5"], [e, attr], out=T + "/vb.h5", inputs=[e])
        expect("uint64 %s above INT64_MAX: edge-export" % attr, 3, 1, "edge-export",
               [e, "-o", T + "/eb.el"], [e, attr], out=T + "/eb.el", inputs=[e])
    e = edges_with(T + "/neg_fp.h5", fingerprint=np.int64(-7))
    expect("negative int64 fingerprint: partition2d", 3, 2, "partition2d",
           ["--grid", "1x2", e, "-o", T + "/pb.h5"], [e, "fingerprint", "-7"], out=T + "/pb.h5")
    # a uint64 that fits is still taken
    e = edges_with(T + "/u_nv.h5", num_vertices=np.uint64(64))
    rc, _, err = run(1, "partition2d", "-q", "--grid", "1x1", e, "-o", T + "/pu.h5")
    rep.check("uint64 num_vertices 64: taken", rc == 0, err[-300:])


# ---- strings: bounded, run ids well formed -------------------------------------------
def strings():
    long_s = "x" * (70 * 1024)
    p = {}
    for np_ in (1, 2):
        p[np_] = T + "/p%d_long.h5" % np_
        copy_file(T + "/p%d.h5" % np_, p[np_], edges_file=long_s)
        expect("edges_file of 70 KiB: bfs-gpu", 3, np_, "bfs-gpu",
               [p[np_], "--backend", "cpu", "-n", "2", "-o", T + "/bl.h5"], [p[np_], "edges_file"],
               out=T + "/bl.h5", inputs=[p[np_]])
    bad_ids = {"empty": "", "two lines": "0123456789abcdef\n0123456789abcde",
               "upper case": "0123456789ABCDEF0123456789ABCDEF", "31 digits": "0" * 31,
               "70 KiB": "a" * (70 * 1024)}
    for what, rid in bad_ids.items():
        b = T + "/b_rid.h5"
        copy_file(T + "/b.h5", b, run_id=rid)
        for np_ in (1, 2):
            expect("run_id %s: bfs-validate" % what, 3, np_, "bfs-validate",
                   [T + "/g.h5", b, "-o", T + "/vr.h5"], [b, "run_id"], out=T + "/vr.h5", inputs=[b])
        expect("run_id %s: bfs-report" % what, 3, 1, "bfs-report", [b, "--unvalidated"], [b, "run_id"])
    # variable-length (h5py str) run id, well formed: taken
    b = T + "/b_vl.h5"
    shutil.copy(T + "/b.h5", b)
    with h5py.File(b, "r+") as f:
        rid = f.attrs["run_id"]
        rid = rid.decode() if isinstance(rid, bytes) else str(rid)
        del f.attrs["run_id"]
        f.attrs["run_id"] = rid
    rc, _, err = run(2, "bfs-validate", "-q", T + "/g.h5", b, "-o", T + "/vr.h5")
    rep.check("run_id variable-length, well formed: bfs-validate takes it", rc == 0, err[-300:])


# ---- a rank that cannot open an input ------------------------------------------------
def per_rank():
    a, b = T + "/rankA", T + "/rankB"
    for d in (a, b):
        os.makedirs(d, exist_ok=True)
    shutil.copy(T + "/g.h5", a + "/in.h5")
    o = T + "/pr.h5"
    expect("input missing for rank 1 only", 4, 2, "partition2d", ["--grid", "1x2", "in.h5", "-o", o],
           ["rank 1", "in.h5", "No such file or directory"], out=o, wdirs=[a, b])
    expect("input missing for rank 0 only", 4, 2, "partition2d", ["--grid", "1x2", "in.h5", "-o", o],
           ["rank 0", "in.h5", "No such file or directory"], out=o, wdirs=[b, a])
    rc, _, err = run(2, "partition2d", "--grid", "1x2", "in.h5", "-o", o, wdirs=[a, b])
    rep.check("input missing for one rank: not called truncated or corrupt", "corrupt" not in err, err[-300:])
    with open(b + "/in.h5", "w") as f:
        f.write("not hdf5\n")
    expect("input another kind for rank 1", 3, 2, "partition2d", ["--grid", "1x2", "in.h5", "-o", o],
           ["rank 1", "in.h5", "not an HDF5 file"], out=o, wdirs=[a, b])
    os.unlink(b + "/in.h5")
    shutil.copy(T + "/b.h5", a + "/b.h5")
    expect("bfs file missing for rank 1: bfs-validate", 4, 2, "bfs-validate",
           [T + "/g.h5", "b.h5", "-o", o], ["rank 1", "b.h5", "No such file or directory"], out=o,
           wdirs=[a, b])
    shutil.copy(T + "/p2.h5", a + "/p.h5")
    expect("partition missing for rank 1: bfs-gpu", 4, 2, "bfs-gpu",
           ["p.h5", "--backend", "cpu", "-n", "2", "-o", o], ["rank 1", "p.h5", "No such file"], out=o,
           wdirs=[a, b])


# ---- SIGXFSZ and SIGPIPE ---------------------------------------------------------------
# MPI's own shared-memory files need about 4 MiB under the limit
FSIZE = 6 << 20


def signals():
    g = T + "/g16.h5"
    rc, _, err = run(1, "rmat-gen", "-q", "-s", "16", "-o", g)
    rep.check("setup: a graph of 16 MiB", rc == 0, err[-300:])
    for np_ in (1, 2):
        o = T + "/big%d.h5" % np_
        expect("file size limit: rmat-gen", 4, np_, "rmat-gen", ["-q", "-s", "16", "-o", o],
               ["cannot write", o], out=o, fsize=FSIZE)
        expect("file size limit: partition2d", 4, np_, "partition2d",
               ["-q", "--grid", "1x%d" % np_, g, "-o", o], ["cannot write", o], out=o,
               fsize=FSIZE, inputs=[g])
    tab = T + "/tab.csv"
    if os.path.exists(tab):
        os.unlink(tab)
    rc, _, err = run(1, "bfs-report", "-q", T + "/b.h5", T + "/v.h5", "--append", tab, "-o", T + "/r1.txt")
    rep.check("append: first row", rc == 0, err[-300:])
    with open(tab) as f:
        header, row = f.readline(), f.readline()
    with open(tab, "a") as f:  # a table near the limit: its rows are copied as they are
        while f.tell() < FSIZE - 1024:
            f.write(row)
    size = os.path.getsize(tab)
    before = digest(tab)
    b2 = T + "/b2.h5"
    rc, _, err = run(2, "bfs-gpu", "-q", T + "/p2.h5", "-n", "4", "--backend", "cpu", "-o", b2)
    rep.check("setup: a second run", rc == 0, err[-300:])
    rc, _, err = run(1, "bfs-report", b2, "--unvalidated", "--append", tab, "-o", T + "/r2.txt",
                     fsize=size + 16)
    rep.check("file size limit on --append: exit 4", rc == 4, "exit %s: %s" % (rc, err[-300:]))
    rep.check("file size limit on --append: names the table", "cannot write" in err and tab in err, err[-300:])
    rep.check("file size limit on --append: table unchanged", digest(tab) == before)
    rep.check("file size limit on --append: no temporary nor lock", not leftovers(T), str(leftovers(T)))
    rep.check("file size limit on --append: no report", not os.path.exists(T + "/r2.txt"))
    # standard output read by nobody: bfs-report's outputs are all or none
    rc, _, err = run(1, "bfs-report", b2, "--unvalidated", "--append", tab, close_stdout=True)
    rep.check("closed stdout: exit 4", rc == 4, "exit %s: %s" % (rc, err[-300:]))
    rep.check("closed stdout: says standard output and why", "standard output: Broken pipe" in err, err[-300:])
    rep.check("closed stdout: one message", err.count("\n") == 1, err[-300:])
    rep.check("closed stdout: the table unchanged, not silently", digest(tab) == before)
    rep.check("closed stdout: no temporary nor lock", not leftovers(T), str(leftovers(T)))
    # a program whose stdout is only its --help
    rc, _, err = run(1, "partition2d", "--help", close_stdout=True)
    rep.check("closed stdout: --help exit 4", rc == 4 and "standard output" in err, "exit %s: %s" % (rc, err))


T = TMP
if setup():
    for part in (options, userblock, integers, strings, per_rank, signals):
        part()
else:
    rep.check("setup", False, "inputs could not be made")
