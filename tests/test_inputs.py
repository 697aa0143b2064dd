"""tests/test_inputs.py — what every program makes of its inputs, on 1 and 2
ranks, each run under a time limit (a hang is a FAIL):

- bfs-gpu checks the partition's derived data (docs/FORMATS.md "Partition
  file"): a /tuple_degree of 2^62, degrees whose sum disagrees with
  num_input_edges and num_self_loops, num_csc_edges off by one, /csc/row_off
  not cumulative, a column's rows not ascending; each exit 3 naming the
  file and the place, also when only one rank holds the fault (no hang);
- string attributes stored as h5py stores a str (variable-length UTF-8):
  accepted by every reader (edges -> partition2d -> bfs-gpu --backend cpu
  -> bfs-validate -> bfs-report give what the fixed-length files give, and
  the searches match the serial BFS); a bad such format names the file;
- an unknown option names the program (`NAME: `), not its path, once;
- a format_version newer than the program reads: exit 3 naming both numbers;
- a repeated -o/--output: exit 2;
with no output and no temporary left, and the inputs byte-for-byte unchanged."""
import glob, hashlib, json, os, shutil, signal, subprocess
import numpy as np
import h5py
from b2ref import Report, BIN, TMP, MPIEXEC, SAN, run_bounded, digest
import partref

rep = Report()
PROGS = ["rmat-gen", "snap-import", "partition2d", "bfs-gpu", "bfs-validate", "bfs-report"]
LIMIT = 120  # seconds; these inputs are tiny, so only a hang reaches it


def run(np_, prog, *args):
    """(exit code, stdout, stderr); exit None when it ran past LIMIT (killed)."""
    cmd = [os.path.join(BIN, prog)] + [str(a) for a in args]
    if np_ > 1:
        cmd = MPIEXEC.split() + ["-n", str(np_)] + cmd
    return run_bounded(cmd, LIMIT)


def leftovers(d=TMP):
    return glob.glob(os.path.join(d, ".*tmp*")) + glob.glob(os.path.join(d, ".*spill*"))


def expect(name, code, np_, prog, args, says=(), inputs=(), out=None):
    """Runs, then checks the exit code, that stderr says each of `says`, that
    no output or temporary is left and that the inputs are unchanged."""
    before = [digest(p) for p in inputs]
    rc, _, err = run(np_, prog, *args)
    err = err.strip()
    if rc is None:
        return rep.check(name + " ends", False, "still running after %d s: killed (a hang)" % LIMIT)
    ok = rep.check(name + " exit %d" % code, rc == code and err != "",
                   "exit %s, stderr: %s" % (rc, err[-600:]))
    for s in says:
        ok &= rep.check(name + " says '%s'" % s, s in err, "stderr: %s" % err[-600:])
    if out is not None:
        ok &= rep.check(name + " no output", not os.path.exists(out), out)
    ok &= rep.check(name + " no temporaries", not leftovers(), str(leftovers()))
    if inputs:
        ok &= rep.check(name + " inputs unchanged", [digest(p) for p in inputs] == before)
    if "Sanitizer" in err or "runtime error" in err:
        ok &= rep.check(name + " clean exit", False, err[-600:])
    return ok


def must(name, np_, prog, *args):
    rc, out, err = run(np_, prog, *args)
    rep.check(name, rc == 0, "exit %s: %s" % (rc, err[-600:]))
    return out


def path(name):
    return os.path.join(TMP, name)


def copy(src, name, edit=None):
    """A copy of src, edited in place with h5py by edit(f)."""
    dst = path(name)
    shutil.copyfile(src, dst)
    if edit:
        with h5py.File(dst, "a") as f:
            edit(f)
    return dst


def vl_strings(f):
    """Every string attribute rewritten as h5py stores a str: variable-length
    UTF-8 (lists of strings too)."""
    for k in list(f.attrs):
        v = f.attrs[k]
        if isinstance(v, bytes):
            del f.attrs[k]
            f.attrs[k] = v.decode()
        elif isinstance(v, np.ndarray) and v.dtype.kind == "S":
            del f.attrs[k]
            f.attrs.create(k, [x.decode() for x in v.ravel()], dtype=h5py.string_dtype())


def all_vl(p):
    """Whether p has string attributes, all of them variable-length."""
    with h5py.File(p, "r") as f:
        kinds = [f.attrs.get_id(k).get_type().is_variable_str() for k in f.attrs
                 if f.attrs.get_id(k).get_type().get_class() == h5py.h5t.STRING]
    return len(kinds) > 0 and all(kinds)


def datasets(p):
    out = {}
    with h5py.File(p, "r") as f:
        f.visititems(lambda n, o: out.__setitem__(n, o[...]) if isinstance(o, h5py.Dataset) else None)
    return out


def same_datasets(name, a, b, skip=()):
    da, db = datasets(a), datasets(b)
    rep.eq(name + " dataset names", sorted(da), sorted(db))
    bad = [k for k in da if k not in skip and (k not in db or not np.array_equal(da[k], db[k]))]
    rep.check(name + " datasets equal", not bad, "differ: %s" % bad)


def main():
    OUT = path("out.h5")
    # ---- the fixtures: a small graph through every stage, 1 and 2 ranks ----
    edges = path("g.h5")
    must("rmat-gen", 1, "rmat-gen", "-q", "-s", 7, "-e", 8, "--seed", 2, "-o", edges)
    g = partref.Graph("g", edges)
    part = {1: path("g.1x1.h5"), 2: path("g.1x2.h5")}
    must("partition 1x1", 1, "partition2d", "-q", "--grid", "1x1", edges, "-o", part[1])
    must("partition 1x2", 2, "partition2d", "-q", "--grid", "1x2", edges, "-o", part[2])
    bfs = {P: path("g.%d.bfs.h5" % P) for P in (1, 2)}
    valid = {P: path("g.%d.valid.h5" % P) for P in (1, 2)}
    for P in (1, 2):
        must("bfs-gpu P=%d" % P, P, "bfs-gpu", "-q", part[P], "-n", 4, "--backend", "cpu", "-o", bfs[P])
        must("bfs-validate P=%d" % P, P, "bfs-validate", "-q", edges, bfs[P], "-o", valid[P])
    N = g.n
    with h5py.File(part[2], "r") as f:
        M, E = int(f.attrs["num_input_edges"]), int(f.attrs["num_csc_edges"])
        b = int(f.attrs["block_size"])
        nnz = f["csc/nnz"][...]
        cp1 = f["csc/col_ptr"][1]
        loops = int(f.attrs["num_self_loops"])

    # ---- 6. bfs-gpu checks the partition's derived data (exit 3) ----
    # vertex N-1 is owned by the last rank: on 2 ranks only rank 1 sees it
    v = N - 1
    for P in (1, 2):
        def huge(f):
            f["tuple_degree"][v] = 1 << 62
        bad = copy(part[P], "tdeg62.%d.h5" % P, huge)
        expect("tuple_degree 2^62 P=%d" % P, 3, P, "bfs-gpu", [bad, "--backend", "cpu", "-o", OUT],
               [bad, "/tuple_degree", "vertex %d" % v], [bad], OUT)

        def plus1(f):
            f["tuple_degree"][v] = f["tuple_degree"][v] + 1
        bad = copy(part[P], "tdeg+1.%d.h5" % P, plus1)
        expect("tuple_degree sum off by one P=%d" % P, 3, P, "bfs-gpu", [bad, "--backend", "cpu", "-o", OUT],
               [bad, "/tuple_degree sums to %d" % (2 * (M - loops) + 1), str(2 * (M - loops))], [bad], OUT)

        # without num_self_loops (as tests/partref.py writes), only Σ <= 2M
        # is known: every degree M (each in range) sums past it
        def all_m(f):
            del f.attrs["num_self_loops"]
            f["tuple_degree"][...] = M
        bad = copy(part[P], "tdegM.%d.h5" % P, all_m)
        expect("tuple_degree sum > 2M P=%d" % P, 3, P, "bfs-gpu", [bad, "--backend", "cpu", "-o", OUT],
               [bad, "/tuple_degree sums to", "2 x num_input_edges = %d" % (2 * M)], [bad], OUT)

        for d in (1, -1):
            def off(f, d=d):
                f.attrs["num_csc_edges"] = np.int64(E + d)
            bad = copy(part[P], "ncsc%+d.%d.h5" % (d, P), off)
            expect("num_csc_edges %+d P=%d" % (d, P), 3, P, "bfs-gpu", [bad, "--backend", "cpu", "-o", OUT],
                   [bad, "num_csc_edges is %d" % (E + d), "sums to %d" % E], [bad], OUT)

    def shift(f):
        f["csc/row_off"][1] = f["csc/row_off"][1] + 1
    bad = copy(part[2], "rowoff.2.h5", shift)
    expect("row_off not cumulative P=2", 3, 2, "bfs-gpu", [bad, "--backend", "cpu", "-o", OUT],
           [bad, "/csc/row_off[1] = %d" % (nnz[0] + 1), "expected %d" % nnz[0]], [bad], OUT)

    # rank 1's first column with two rows, swapped: only rank 1 sees it
    c = int(np.flatnonzero(np.diff(cp1.astype(np.int64)) >= 2)[0])
    e = int(nnz[0] + cp1[c])
    def swap(f):
        r = f["csc/row_idx"][e:e + 2]
        f["csc/row_idx"][e:e + 2] = r[::-1]
    bad = copy(part[2], "unsorted.2.h5", swap)
    expect("row_idx not ascending on rank 1 P=2", 3, 2, "bfs-gpu", [bad, "--backend", "cpu", "-o", OUT],
           [bad, "/csc/row_idx[%d]" % (e + 1), "rank 1", "ascend"], [bad], OUT)

    # ---- 7. variable-length strings everywhere ----
    vedges = copy(edges, "vl.h5", vl_strings)
    rep.check("fixture: the edge file's strings are variable-length", all_vl(vedges))
    for P in (1, 2):
        R, C = 1, P
        vpart = path("vl.1x%d.h5" % P)
        must("VL edges: partition2d P=%d" % P, P, "partition2d", "-q", "--grid", "%dx%d" % (R, C), vedges, "-o", vpart)
        if os.path.exists(vpart):
            same_datasets("VL edges: partition P=%d" % P, vpart, part[P])
        vpart2 = copy(part[P], "vlpart.%d.h5" % P, vl_strings)
        rep.check("fixture: the partition's strings are variable-length", all_vl(vpart2))
        vbfs = path("vl.%d.bfs.h5" % P)
        must("VL partition: bfs-gpu P=%d" % P, P, "bfs-gpu", "-q", vpart2, "-n", 4, "--backend", "cpu", "-o", vbfs)
        if os.path.exists(vbfs):
            partref.check_bfs(rep, "VL partition: bfs-gpu P=%d" % P, g, vbfs, 4)
            with h5py.File(vbfs, "r") as f:
                ef = f.attrs["edges_file"]
            rep.eq("VL partition: edges_file carried P=%d" % P, ef.decode() if isinstance(ef, bytes) else ef, edges)
        # the BFS and validation files with variable-length strings (their
        # phase_names and rule_names are lists of strings)
        vbfs2 = copy(bfs[P], "vlbfs.%d.h5" % P, vl_strings)
        vvalid = path("vl.%d.valid.h5" % P)
        must("VL BFS file: bfs-validate P=%d" % P, P, "bfs-validate", "-q", vedges, vbfs2, "-o", vvalid)
        if os.path.exists(vvalid):
            same_datasets("VL BFS file: validation P=%d" % P, vvalid, valid[P], skip=("time", "read_time"))
        # bfs-report matches a validation file to its BFS file by name: the
        # pair keeps its names in a directory of its own
        os.makedirs(path("vl"), exist_ok=True)
        vbfs3 = copy(bfs[P], os.path.join("vl", os.path.basename(bfs[P])), vl_strings)
        vvalid2 = copy(valid[P], os.path.join("vl", os.path.basename(valid[P])), vl_strings)
        rep.check("fixture: the validation file's rule_names are variable-length", all_vl(vvalid2))
        outs = []
        for a, bb in ((bfs[P], valid[P]), (vbfs3, vvalid2)):
            out = must("VL files: bfs-report P=%d" % P, P, "bfs-report", a, bb, "--format", "json")
            try:
                j = json.loads(out)
                # the report's own time: the two runs may straddle a second
                j.get("report_provenance", {}).pop("created_utc", None)
                outs.append(json.dumps(j, sort_keys=True).replace(path("vl") + "/", TMP + "/"))
            except ValueError:
                outs.append(None)
        rep.check("VL files: bfs-report P=%d gives the same report" % P, outs[0] is not None and outs[0] == outs[1],
                  "reports differ")

    # a bad format value, as a variable-length string: the message names the file
    def bad_format(value):
        return lambda f: (vl_strings(f), f.attrs.__setitem__("format", value))
    for P in (1, 2):
        bad = copy(edges, "vlbad.e.h5", bad_format("bfs2d-edgez"))
        expect("VL bad format: partition2d P=%d" % P, 3, P, "partition2d", ["--grid", "1x%d" % P, bad, "-o", OUT],
               [bad, "bfs2d-edgez"], [bad], OUT)
        expect("VL bad format: bfs-validate (edges) P=%d" % P, 3, P, "bfs-validate", [bad, bfs[P], "-o", OUT],
               [bad, "bfs2d-edgez"], [bad], OUT)
        bad = copy(part[P], "vlbad.p.h5", bad_format("bfs2d-partitio"))
        expect("VL bad format: bfs-gpu P=%d" % P, 3, P, "bfs-gpu", [bad, "--backend", "cpu", "-o", OUT],
               [bad, "bfs2d-partitio"], [bad], OUT)
        bad = copy(bfs[P], "vlbad.b.h5", bad_format("bfs2d-bf"))
        expect("VL bad format: bfs-validate (bfs) P=%d" % P, 3, P, "bfs-validate", [edges, bad, "-o", OUT],
               [bad, "bfs2d-bf"], [bad], OUT)
        expect("VL bad format: bfs-report P=%d" % P, 3, P, "bfs-report", [bad, valid[P], "-o", OUT],
               [bad, "bfs2d-bf"], [bad], OUT)
        # an integer where the format string belongs
        bad = copy(edges, "intfmt.e.h5", lambda f: f.attrs.__setitem__("format", np.int64(7)))
        expect("integer format: partition2d P=%d" % P, 3, P, "partition2d", ["--grid", "1x%d" % P, bad, "-o", OUT],
               [bad, "'format'"], [bad], OUT)

    # ---- 7. unknown options name the program, once ----
    for prog in PROGS:
        for P in (1, 2):
            rc, _, err = run(P, prog, "--no-such-option")
            tag = "unknown option %s P=%d" % (prog, P)
            rep.check(tag + " exit 2", rc == 2, "exit %s: %s" % (rc, err[-300:]))
            lines = [l for l in err.splitlines() if "no-such-option" in l]
            rep.check(tag + " says '%s: '" % prog, len(lines) == 1 and lines[0].startswith(prog + ": "),
                      "stderr: %s" % err[-300:])
            rep.check(tag + " names no path", BIN not in err and "/" + prog not in err, "stderr: %s" % err[-300:])
        rc, _, err = run(1, prog, "-Z")
        rep.check("unknown short option %s says '%s: '" % (prog, prog),
                  rc == 2 and err.startswith(prog + ": ") and BIN not in err, "exit %s: %s" % (rc, err[-300:]))

    # ---- 7. a format_version newer than the program reads (exit 3) ----
    def newer(f):
        f.attrs["format_version"] = np.int64(7)
    says = ["format_version 7", "(1 at most)"]
    for P in (1, 2):
        ne = copy(edges, "v7.e.h5", newer)
        expect("newer edge file: partition2d P=%d" % P, 3, P, "partition2d", ["--grid", "1x%d" % P, ne, "-o", OUT],
               [ne] + says, [ne], OUT)
        expect("newer edge file: bfs-validate P=%d" % P, 3, P, "bfs-validate", [ne, bfs[P], "-o", OUT],
               [ne] + says, [ne], OUT)
        np_ = copy(part[P], "v7.p.h5", newer)
        expect("newer partition: bfs-gpu P=%d" % P, 3, P, "bfs-gpu", [np_, "--backend", "cpu", "-o", OUT],
               [np_] + says, [np_], OUT)
        nb = copy(bfs[P], "v7.b.h5", newer)
        expect("newer BFS file: bfs-validate P=%d" % P, 3, P, "bfs-validate", [edges, nb, "-o", OUT],
               [nb] + says, [nb], OUT)
        expect("newer BFS file: bfs-report P=%d" % P, 3, P, "bfs-report", [nb, valid[P], "-o", OUT],
               [nb] + says, [nb], OUT)
        nv = copy(valid[P], "v7.v.h5", newer)
        expect("newer validation file: bfs-report P=%d" % P, 3, P, "bfs-report", [bfs[P], nv, "-o", OUT],
               [nv] + says, [nv], OUT)
        n0 = copy(edges, "v0.e.h5", lambda f: f.attrs.__setitem__("format_version", np.int64(0)))
        expect("format_version 0: partition2d P=%d" % P, 3, P, "partition2d", ["--grid", "1x%d" % P, n0, "-o", OUT],
               [n0, "format_version is 0"], [n0], OUT)

    # ---- 7. -o twice is a usage error (exit 2) ----
    snap = path("g.txt")
    with open(snap, "w") as f:
        f.write("0 1\n1 2\n")
    A, B = path("a.h5"), path("b.h5")
    cmds = {
        "rmat-gen": ["-s", 4],
        "snap-import": [snap],
        "partition2d": ["--grid", "1x1", edges],
        "bfs-gpu": [part[1], "--backend", "cpu"],
        "bfs-validate": [edges, bfs[1]],
        "bfs-report": [bfs[1], valid[1]],
    }
    for prog, args in cmds.items():
        for P in (1, 2):
            if prog == "bfs-gpu":
                args = [part[P], "--backend", "cpu"]
            for form in (["-o", A, "-o", B], ["--output=" + A, "-o", B], ["-o", A, "--output", B]):
                tag = "%s %s P=%d" % (prog, " ".join(x.replace(TMP + "/", "") for x in form), P)
                rc, _, err = run(P, prog, *args, *form)
                rep.check(tag + " exit 2", rc == 2 and "given twice" in err and err.startswith(prog + ": "),
                          "exit %s: %s" % (rc, err[-300:]))
                rep.check(tag + " no output", not os.path.exists(A) and not os.path.exists(B) and not leftovers())


main()
raise SystemExit(1 if rep.failed else 0)
