"""tests/test_pred_dump.py — the predecessor dump (/pred) compressed and not:
the same searches written with --compress-pred on and off give exactly the
same /pred, bfs-validate passes both on 1 and 2 ranks, the storage is what
docs/FORMATS.md says (chunks one search wide, scale-offset then deflate 1,
pred_compression), on one rank and gathered from two, with chunks that cross
the ranks' column ranges; no side file is left behind."""
import os, signal, subprocess, sys, time
import numpy as np
import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2ref
import test_validate as tv

FILTERS = "scaleoffset+deflate1"
H5Z_DEFLATE, H5Z_SCALEOFFSET = 1, 6

def storage(path):
    """(pred_compression, /pred, its chunk shape, [(filter id, params)])."""
    with h5py.File(path, "r") as f:
        comp = f.attrs["pred_compression"]
        comp = comp.decode() if isinstance(comp, bytes) else str(comp)
        d = f["pred"]
        pl = d.id.get_create_plist()
        filters = [(pl.get_filter(i)[0], tuple(pl.get_filter(i)[2])) for i in range(pl.get_nfilters())]
        return comp, d[...], d.chunks, filters

def star_graph():
    """Vertex 0 the parent of most vertices (0 is HDF5's default fill value,
    which the scale-offset filter encodes apart), a path, isolated vertices."""
    n = 300
    t = [(0, v) for v in range(1, 150)] + [(v, v + 1) for v in range(149, 280)]
    return n, np.array(t, dtype=np.int64)

def rank_pid(out, rank):
    """The PID of rank `rank` of the bfs-gpu writing `out` (hydra sets PMI_RANK)."""
    for p in os.listdir("/proc"):
        try:
            cmd = open("/proc/%s/cmdline" % p, "rb").read().split(b"\0")
            envs = open("/proc/%s/environ" % p, "rb").read().split(b"\0")
        except (OSError, ValueError):
            continue
        if out.encode() in cmd and cmd[0].endswith(b"bfs-gpu") and ("PMI_RANK=%d" % rank).encode() in envs:
            return int(p)
    return None

def signalled(rep, env):
    """SIGTERM to rank 1 while rank 0 writes the side file: no temporary,
    side file or output is left (rank 1 knows the side file's name too)."""
    d = os.path.join(b2ref.TMP, "sig")
    os.makedirs(d, exist_ok=True)
    e = os.path.join(d, "g.h5")
    b2ref.run(1, "rmat-gen", "-s", 10 if b2ref.SAN else 13, "-o", e)
    part = os.path.join(d, "p.h5")
    b2ref.run(1, "partition2d", "--grid", "2x1", e, "-o", part)
    out = os.path.join(d, "b.h5")
    cmd = b2ref.MPIEXEC.split() + ["-n", "2", os.path.join(b2ref.BIN, "bfs-gpu"), part, "--backend", "cpu",
                                   "--compress-pred", "on", "--warmup", "100", "-n", "64", "-o", out]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    pid, t0 = None, time.time()
    while time.time() - t0 < 60 and p.poll() is None and pid is None:
        if any(".pred.tmp-" in f for f in os.listdir(d)):
            pid = rank_pid(out, 1)
        time.sleep(0.01)
    if not rep.check("SIGTERM to rank 1 while gathering: caught the side file", pid is not None,
                     "the run ended first (exit %s)" % p.poll()):
        p.wait()
        return
    os.kill(pid, signal.SIGTERM)
    try:
        p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        rep.check("SIGTERM to rank 1 while gathering: ends", False, "hung")
        return
    rep.check("SIGTERM to rank 1 while gathering: fails", p.returncode != 0, "exit %d" % p.returncode)
    rep.eq("SIGTERM to rank 1 while gathering: nothing left",
           sorted(f for f in os.listdir(d) if f not in ("g.h5", "p.h5")), [])

def main():
    rep = b2ref.Report()
    tmp = b2ref.TMP
    env = dict(os.environ, OMP_NUM_THREADS="1")
    graphs = []
    e = os.path.join(tmp, "rmat.h5")
    b2ref.run(1, "rmat-gen", "-s", 8 if b2ref.SAN else 11, "-e", 8, "--seed", 5, "-o", e)
    graphs.append(("rmat", e))
    n, t = star_graph()
    graphs.append(("star", b2ref.write_edges(os.path.join(tmp, "star.h5"), n, t)))
    for name, e in graphs:
        n, t, _ = b2ref.read_edges(e)
        for R, C in [(1, 1), (2, 1)]:
            P = R * C
            tag = "%s %dx%d" % (name, R, C)
            part = os.path.join(tmp, "%s.g%dx%d.h5" % (name, R, C))
            b2ref.run(1, "partition2d", "--grid", "%dx%d" % (R, C), e, "-o", part)
            # chunks of 37 columns cross the ranks' ranges (b is a multiple of 64)
            runs = [("off", []), ("on", []), ("auto", []), ("on, 37-column chunks", ["--pred-chunk", 37])]
            got = {}
            for label, extra in runs:
                mode = label.split(",")[0]
                bfs = os.path.join(tmp, "%s.g%dx%d.%s.bfs.h5" % (name, R, C, len(got)))
                r = b2ref.run(P, "bfs-gpu", part, "--backend", "cpu", "-n", 4, "--seed", 2,
                              "--compress-pred", mode, *extra, "-o", bfs, env=env, check=False)
                if not rep.check("%s %s: exit 0" % (tag, label), r.returncode == 0, r.stderr[-400:]):
                    continue
                got[label] = (bfs,) + storage(bfs)
            if "off" not in got or "on" not in got:
                continue
            ref = got["off"][2]
            rep.eq(tag + " off: pred_compression", got["off"][1], "none")
            rep.eq(tag + " off: contiguous, no filter", (got["off"][3], got["off"][4]), (None, []))
            rep.eq(tag + " off: shape [K][N]", ref.shape, (4, n))
            for label in ["on", "on, 37-column chunks", "auto"]:
                if label not in got:
                    continue
                bfs, comp, pred, chunks, filters = got[label]
                want = FILTERS if label != "auto" or P == 1 else "none"
                rep.eq("%s %s: pred_compression" % (tag, label), comp, want)
                rep.eq("%s %s: /pred exactly the uncompressed run's" % (tag, label), pred, ref)
                if want == "none":
                    rep.eq("%s %s: contiguous, no filter" % (tag, label), (chunks, filters), (None, []))
                    continue
                w = 37 if "37" in label else n
                rep.eq("%s %s: chunks one search by %d" % (tag, label, w), chunks, (1, w))
                rep.eq("%s %s: scale-offset (integers, minimum bits) then deflate 1" % (tag, label),
                       [(fid, p[:1] if fid == H5Z_DEFLATE else p[:2]) for fid, p in filters],
                       [(H5Z_SCALEOFFSET, (2, 0)), (H5Z_DEFLATE, (1,))])
            if name == "star":
                rep.check(tag + ": the test has predecessors equal to the fill value 0",
                          int(np.sum(ref == 0)) >= 100, "only %d" % int(np.sum(ref == 0)))
            else:
                with h5py.File(got["on"][0], "r") as f:
                    stored = f["pred"].id.get_storage_size()
                rep.check(tag + ": compressed /pred under half of 8·N·K bytes", 0 < stored * 2 < ref.nbytes,
                          "%d stored, %d uncompressed" % (stored, ref.nbytes))
            # bfs-validate reads either through HDF5, on 1 and 2 ranks (the
            # 37-column run's /pred is the uncompressed one's, checked above)
            for label in ["off", "on"]:
                if label not in got:
                    continue
                for vp in [1, 2]:
                    out = os.path.join(tmp, "%s.g%dx%d.v%d.%d.valid.h5" % (name, R, C, vp, len(label)))
                    r = tv.validate(vp, e, got[label][0], out)
                    vt = "%s %s, validated on %d rank%s" % (tag, label, vp, "s" if vp > 1 else "")
                    if not rep.check(vt + ": exit 0", r.returncode == 0, r.stderr[-400:]):
                        continue
                    d = tv.read_valid(out)
                    rep.eq(vt + ": all passed", d["passed"], np.ones(4, np.int64))
                    rep.eq(vt + ": nedge = independent count", d["nedge"],
                           np.array([tv.nedge_of(t, p >= 0) for p in ref]))
    # kept counts: --keep-pred 2 compressed keeps two rows; none is an empty
    # dataset, uncompressed (nothing to compress)
    part = os.path.join(tmp, "rmat.g2x1.h5")
    for keep, rows, comp in [("2", 2, FILTERS), ("none", 0, "none")]:
        bfs = os.path.join(tmp, "keep-%s.bfs.h5" % keep)
        r = b2ref.run(2, "bfs-gpu", part, "--backend", "cpu", "-n", 4, "--seed", 2, "--keep-pred", keep,
                      "--compress-pred", "on", "-o", bfs, env=env, check=False)
        if rep.check("--keep-pred %s --compress-pred on: exit 0" % keep, r.returncode == 0, r.stderr[-400:]):
            c, pred, _, _ = storage(bfs)
            rep.eq("--keep-pred %s: pred_compression" % keep, c, comp)
            rep.eq("--keep-pred %s: rows" % keep, pred.shape[0], rows)
            if rows:
                rep.eq("--keep-pred %s: the first rows of the full run" % keep, pred,
                       storage(os.path.join(tmp, "rmat.g2x1.0.bfs.h5"))[1][:rows])
    signalled(rep, env)
    r = b2ref.run(1, "bfs-gpu", part, "--compress-pred", "yes", "-o", os.path.join(tmp, "x.h5"), check=False)
    rep.check("--compress-pred yes: exit 2", r.returncode == 2 and "--compress-pred" in r.stderr, r.stderr)
    left = [f for f in os.listdir(tmp) if ".tmp-" in f]
    rep.eq("no temporary or side file left", left, [])
    sys.exit(1 if rep.failed else 0)

if __name__ == "__main__":
    main()
