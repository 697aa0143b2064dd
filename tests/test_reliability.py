"""tests/test_reliability.py — failures end cleanly on 1 and 2 ranks: an error
on one rank ends every rank with DESIGN's exit code (corrupt partitions),
a full disk before or while writing gives exit 4 and a message naming the
file (never a hang, never "wrote" for an incomplete file), an output that is
an input (same path, symlink, hard link; bfs-report's --svg directory) is
refused with exit 2 before anything is touched, a signal to rank 1 removes
the temporary, temporaries of dead processes are swept, bfs-report's outputs
are all or nothing. Every case: exit code, the message names the file, no
output nor temporary left, inputs byte-for-byte unchanged, no timeout."""
import glob, hashlib, os, shutil, signal, socket, subprocess, sys, time
import numpy as np
import h5py
from b2ref import Report, BIN, TMP, MPIEXEC, SAN, run_bounded, digest, cmd_of, run_np_bounded

R = Report()
T = TMP
TIMEOUT = 60
# a rank with an error gives up waiting for the others after this long
# (the default, 10 s, is exercised once below)
ENV = dict(os.environ, B2_ERROR_WAIT="2")


def run(np_, prog, *args, env=ENV):
    """(returncode or None on timeout, stderr, stdout)"""
    return run_np_bounded(np_, prog, args, TIMEOUT, env)


sha = digest


def temporaries(d):
    return sorted(glob.glob(os.path.join(d, ".*.tmp-*")))


def case(name, np_, prog, args, code, names, outputs=(), inputs=(), dirs=(), env=ENV,
         not_said=None):
    """Runs prog and checks the exit code, that stderr names each of `names`,
    that no path of `outputs` exists, that no temporary is in `dirs` (and the
    outputs' directories), that the inputs are unchanged. Returns stderr."""
    n = "%s (%d rank%s)" % (name, np_, "s" if np_ > 1 else "")
    before = {p: sha(p) for p in inputs}
    rc, err, out = run(np_, prog, *args, env=env)
    if not R.check(n + ": ends", rc is not None, "timed out after %d s (hang): %s" % (TIMEOUT, err[-300:])):
        return err
    R.check(n + ": exit %d" % code, rc == code, "exit %s, stderr: %s" % (rc, err[-400:]))
    for s in names:
        R.check(n + ": message names %s" % os.path.basename(s), s in err, "stderr: %s" % err[-400:])
    if not_said:
        R.check(n + ": does not say '%s'" % not_said, not_said not in out + err, out[-300:])
    left = [p for p in outputs if os.path.exists(p)]
    R.check(n + ": no output left", not left, str(left))
    tmps = []
    for d in set(list(dirs) + [os.path.dirname(p) or "." for p in outputs]):
        if os.path.isdir(d):
            tmps += temporaries(d)
    R.check(n + ": no temporary left", not tmps, str(tmps))
    changed = [p for p in inputs if sha(p) != before[p]]
    R.check(n + ": inputs unchanged", not changed, str(changed))
    R.check(n + ": clean exit", "Sanitizer" not in err and "runtime error" not in err, err[-400:])
    return err


# ---- inputs --------------------------------------------------------------------
def setup():
    ok = True
    g = T + "/g.h5"
    for np_, args in [(1, ["rmat-gen", "-q", "-s", "10", "-o", g]),
                      (1, ["partition2d", "-q", "--grid", "1x1", g, "-o", T + "/p1.h5"]),
                      (2, ["partition2d", "-q", "--grid", "1x2", g, "-o", T + "/p2.h5"]),
                      (2, ["bfs-gpu", "-q", T + "/p2.h5", "-n", "8", "--backend", "cpu", "-o", T + "/b.h5"]),
                      (1, ["bfs-validate", "-q", g, T + "/b.h5", "-o", T + "/v.h5"])]:
        rc, err, _ = run(np_, args[0], *args[1:])
        ok = R.check("setup: " + args[0], rc == 0, err[-300:]) and ok
    rng = np.random.default_rng(5)
    with open(T + "/e.txt", "w") as f:
        f.write("# 20001 tuples\n")
        for u, v in rng.integers(0, 100000, size=(20001, 2)):
            f.write("%d %d\n" % (u, v))
    return ok


# ---- 2. an error on one rank ends every rank --------------------------------------
def corrupt_partitions():
    def corrupt(src, dst, how):
        shutil.copy(src, dst)
        with h5py.File(dst, "r+") as f:
            cp, off, nnz = f["/csc/col_ptr"], f["/csc/row_off"], f["/csc/nnz"]
            row = 1 if how.endswith("1") else 0
            if how.startswith("decrease"):
                r = cp[row]
                r[10] = r[11] + 50
                cp[row] = r
            elif how == "last_not_nnz":
                r = cp[0]
                r[-1] = nnz[0] + 1
                cp[0] = r
            elif how == "row_off_out_of_range":
                o = off[...]
                o[-1] = 1 << 40
                off[...] = o
            elif how == "nnz_wrong":
                z = nnz[...]
                z[0] += 3
                nnz[...] = z
    for np_, part in [(1, T + "/p1.h5"), (2, T + "/p2.h5")]:
        hows = ["decrease", "last_not_nnz", "row_off_out_of_range", "nnz_wrong"]
        if np_ == 2:
            hows.append("decrease_row1")  # the other rank finds it
        for how in hows:
            bad = T + "/bad-%s-%d.h5" % (how, np_)
            corrupt(part, bad, how)
            out = T + "/o-%s.h5" % how
            case("corrupt partition, %s" % how, np_, "bfs-gpu",
                 [bad, "-n", "4", "--backend", "cpu", "-o", out], 3, [bad], [out], [bad])
    # the default wait, once: the ranks still leave (mpiexec returns the code
    # that b2_abort gave MPI_Abort)
    bad = T + "/bad-decrease-2.h5"
    env = dict(os.environ)
    env.pop("B2_ERROR_WAIT", None)
    case("corrupt partition, default B2_ERROR_WAIT", 2, "bfs-gpu",
         [bad, "-n", "4", "--backend", "cpu", "-o", T + "/o.h5"], 3, [bad], [T + "/o.h5"], [bad], env=env)
    rc, err, _ = run(1, "rmat-gen", "-s", "4", "-o", T + "/x.h5", env=dict(os.environ, B2_ERROR_WAIT="soon"))
    R.check("B2_ERROR_WAIT checked", rc == 2 and "B2_ERROR_WAIT" in err, "exit %s: %s" % (rc, err))


# ---- 3. full disks ----------------------------------------------------------------
class Tmpfs:
    """A small tmpfs under $B2_TMP: size in KiB; full=True fills it up;
    inodes: how many files it can hold (its root one of them)."""
    def __init__(self, name, kib, full=False, inodes=None):
        self.dir = os.path.join(T, name)
        os.makedirs(self.dir, exist_ok=True)
        opts = "size=%dk" % kib + (",nr_inodes=%d" % inodes if inodes else "")
        subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", self.dir],
                       check=True, capture_output=True)
        if full:
            try:
                with open(self.dir + "/fill", "wb") as f:
                    while True:
                        f.write(b"\0" * 4096)
                        f.flush()
            except OSError:
                pass

    def left(self):
        return sorted(x for x in os.listdir(self.dir) if x != "fill")

    def close(self):
        # a rank that mpiexec killed may still be closing its files
        for _ in range(50):
            if subprocess.run(["umount", self.dir], capture_output=True).returncode == 0:
                return
            time.sleep(0.1)
        subprocess.run(["umount", "-l", self.dir], capture_output=True)


def can_mount():
    if os.geteuid() != 0:
        return "not root"
    d = os.path.join(T, "probe")
    os.makedirs(d, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", d], capture_output=True, text=True)
    if p.returncode != 0:
        return "mount -t tmpfs failed: " + p.stderr.strip()
    subprocess.run(["umount", d])
    return None


def full_disks():
    g, b, v, e = T + "/g.h5", T + "/b.h5", T + "/v.h5", T + "/e.txt"
    # (name, ranks, program, args before -o, output name, inputs, tmpfs KiB, filled)
    cases = []
    for np_ in (1, 2):
        part = T + "/p%d.h5" % np_
        cases += [
            ("rmat-gen, disk full", np_, "rmat-gen", ["-s", "10"], "g.h5", [], 200, True),
            ("rmat-gen --deflate, disk fills while writing", np_, "rmat-gen", ["-s", "12", "--deflate", "1"],
             "g.h5", [], 64, False),
            ("snap-import, disk full", np_, "snap-import", [e], "s.h5", [e], 200, True),
            ("snap-import, disk fills while writing", np_, "snap-import", [e], "s.h5", [e], 300, False),
            ("partition2d, disk full", np_, "partition2d", ["--grid", "1x2", g], "p.h5", [g], 200, True),
            ("partition2d, disk fills while writing", np_, "partition2d", ["--grid", "1x2", g], "p.h5", [g],
             64, False),
            ("bfs-gpu, disk full", np_, "bfs-gpu", [part, "-n", "8", "--backend", "cpu"], "b.h5", [part],
             200, True),
            ("bfs-gpu, disk fills while writing", np_, "bfs-gpu", [part, "-n", "8", "--backend", "cpu",
             "--compress-pred", "off"], "b.h5", [part], 40, False),
            # compressed: written by the one rank, or gathered to rank 0's side file
            ("bfs-gpu --compress-pred on, disk fills while writing", np_, "bfs-gpu",
             [part, "-n", "8", "--backend", "cpu", "--compress-pred", "on"], "b.h5", [part], 16, False),
            ("bfs-validate, disk full", np_, "bfs-validate", [g, b], "v.h5", [g, b], 200, True),
            ("bfs-report -o, disk full", np_, "bfs-report", [b, v], "r.txt", [b, v], 200, True),
        ]
    for name, np_, prog, args, outname, inputs, kib, filled in cases:
        fs = Tmpfs("m", kib, filled)
        try:
            out = os.path.join(fs.dir, outname)
            case(name, np_, prog, args + ["-o", out], 4, [out], [out], inputs, [fs.dir], not_said="wrote")
            R.check("%s (%d): nothing on the disk" % (name, np_), not fs.left(), str(fs.left()))
        finally:
            fs.close()
    # partition2d spilling (a small --mem) where the output's temporary takes
    # the last file the disk holds: every rank's spill file fails, and the
    # message comes once (common/error.c, b2_err_held), not a rank each
    for np_ in (1, 4):
        fs = Tmpfs("m", 64 * 1024, inodes=2)
        try:
            out = os.path.join(fs.dir, "p.h5")
            name = "partition2d spilling, no file left on the disk"
            err = case(name, np_, "partition2d", ["--grid", "2x2", "--mem", "64K", g, "-o", out], 4,
                       [out, "cannot create temporary data beside", "No space left on device"], [out], [g],
                       [fs.dir])
            R.eq("%s (%d): one message" % (name, np_), err.count("No space left on device"), 1)
            R.check("%s (%d): nothing on the disk" % (name, np_), not fs.left(), str(fs.left()))
        finally:
            fs.close()
    # bfs-report: plots on a full disk, the report and the --append table
    # elsewhere: no report, the table unchanged, the plot directory it made
    # is removed, the message gives the reason
    camp = T + "/camp.csv"
    rc, err, _ = run(1, "bfs-report", b, v, "--append", camp)
    R.check("setup: bfs-report --append", rc == 0, err[-300:])
    for np_ in (1, 2):
        fs = Tmpfs("m", 200, True)
        try:
            rep, svg = T + "/rep.txt", os.path.join(fs.dir, "plots")
            case("bfs-report --svg on a full disk", np_, "bfs-report",
                 [b, v, "--svg", svg, "-o", rep, "--append", camp], 4,
                 [svg, "No space left on device"], [rep, svg], [b, v, camp], [T])
            R.check("bfs-report --svg on a full disk (%d): nothing on the disk" % np_, not fs.left(),
                    str(fs.left()))
        finally:
            fs.close()
        fs = Tmpfs("m", 200, True)
        try:
            rep, svg = os.path.join(fs.dir, "rep.txt"), T + "/plots"
            case("bfs-report -o on a full disk, --svg elsewhere", np_, "bfs-report",
                 [b, v, "--svg", svg, "-o", rep], 4, [rep], [rep, svg], [b, v])
        finally:
            fs.close()
        fs = Tmpfs("m", 200, True)
        try:
            new, rep, svg = os.path.join(fs.dir, "new.csv"), T + "/rep.txt", T + "/plots"
            case("bfs-report --append on a full disk, -o and --svg elsewhere", np_, "bfs-report",
                 [b, v, "--svg", svg, "-o", rep, "--append", new], 4, [new, "No space left on device"],
                 [new, rep, svg], [b, v], [T])
            R.check("bfs-report --append on a full disk (%d): nothing on the disk" % np_, not fs.left(),
                    str(fs.left()))
        finally:
            fs.close()


# ---- 4. never destroy an input --------------------------------------------------------
def same_file_outputs():
    g, p1, p2, b, v, e = (T + "/" + x for x in ["g.h5", "p1.h5", "p2.h5", "b.h5", "v.h5", "e.txt"])
    d = T + "/links"
    os.makedirs(d, exist_ok=True)
    for np_ in (1, 2):
        part = p1 if np_ == 1 else p2
        progs = [("snap-import", [e], e), ("partition2d", ["--grid", "1x2", g], g),
                 ("bfs-gpu", [part, "-n", "2", "--backend", "cpu"], part),
                 ("bfs-validate", [g, b], b), ("bfs-validate", [g, b], g),
                 ("bfs-report", [b, v], v)]
        for prog, args, victim in progs:
            sym, hard = d + "/sym-" + os.path.basename(victim), d + "/hard-" + os.path.basename(victim)
            for x in (sym, hard):
                if os.path.lexists(x):
                    os.unlink(x)
            os.symlink(victim, sym)
            os.link(victim, hard)
            for kind, out in [("the same path", victim), ("a symlink", sym), ("a hard link", hard),
                              ("another spelling", os.path.join(T, "links", "..", os.path.basename(victim)))]:
                inputs = sorted(set(a for a in args if os.path.isfile(a)))
                case("%s -o %s is %s of an input" % (prog, os.path.basename(victim), kind), np_, prog,
                     args + ["-o", out], 2, [out, victim], [], inputs, [T, d])
                R.check("%s -o %s (%d): output untouched" % (prog, kind, np_),
                        os.path.exists(out) and sha(out) == sha(victim))
        # --svg DIR that is an input, or contains one
        case("bfs-report --svg is an input", np_, "bfs-report", [b, v, "--svg", b], 2, [b], [], [b, v], [T])
        case("bfs-report --svg contains an input", np_, "bfs-report", [b, v, "--svg", T], 2, [T, b],
             [T + "/teps.svg", T + "/index.html"], [b, v], [T])


# ---- 5. leave nothing behind ---------------------------------------------------------
def rank_pid(out, rank):
    """The PID of the rank `rank` process writing `out` (hydra sets PMI_RANK)."""
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            cmd = open("/proc/%s/cmdline" % p, "rb").read().split(b"\0")
            env = open("/proc/%s/environ" % p, "rb").read().split(b"\0")
        except OSError:
            continue
        if out.encode() in cmd and cmd[0].endswith(b"rmat-gen") and \
                (rank == 0 and not any(x.startswith(b"PMI_RANK=") for x in env)
                 or ("PMI_RANK=%d" % rank).encode() in env):
            return int(p)
    return None


def signals():
    s = 19 if SAN else 20
    for np_, rank, extra in [(1, 0, []), (2, 1, []), (2, 0, []), (2, 1, ["--deflate", "1"])]:
        d = T + "/sig"
        os.makedirs(d, exist_ok=True)
        out = d + "/g.h5"
        # with --deflate rank 0 writes alone: rank 1 must know its temporary too
        n = "rmat-gen %sSIGTERM to rank %d of %d" % (" ".join(extra + [""]), rank, np_)
        p = subprocess.Popen(cmd_of(np_, "rmat-gen", ["-q", "-s", s, "-o", out] + extra), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
        pid, t0 = None, time.time()
        while time.time() - t0 < 20 and p.poll() is None:
            if temporaries(d):
                pid = rank_pid(out, rank)
                if pid:
                    break
            time.sleep(0.02)
        if not R.check(n + ": found the rank while it writes", pid is not None and p.poll() is None):
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            continue
        os.kill(pid, signal.SIGTERM)
        try:
            p.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            R.check(n + ": ends", False, "timed out")
        R.check(n + ": exit non-zero", p.returncode != 0, str(p.returncode))
        R.check(n + ": no output, no temporary", not os.listdir(d), str(os.listdir(d)))


def stale_temporaries():
    host = socket.gethostname()
    for np_ in (1, 2):
        d = T + "/stale%d" % np_
        os.makedirs(d, exist_ok=True)
        q = subprocess.Popen(["true"])
        q.wait()  # its PID is now free: a dead process's
        dead = "%s/.g.h5.tmp-%s-%d" % (d, host, q.pid)
        alive = "%s/.g.h5.tmp-%s-%d" % (d, host, os.getpid())
        other = "%s/.g.h5.tmp-otherhost-%d" % (d, q.pid)
        unrelated = "%s/.h.h5.tmp-%s-%d" % (d, host, q.pid)
        for x in (dead, alive, other, unrelated):
            open(x, "w").write("x")
        rc, err, _ = run(np_, "rmat-gen", "-q", "-s", "6", "-o", d + "/g.h5")
        n = "stale temporaries (%d rank%s)" % (np_, "s" if np_ > 1 else "")
        R.check(n + ": run ok", rc == 0, err)
        R.check(n + ": a dead process's temporary of this host is removed", not os.path.exists(dead))
        R.check(n + ": a live process's is kept", os.path.exists(alive))
        R.check(n + ": another host's is kept", os.path.exists(other))
        R.check(n + ": another target's is kept", os.path.exists(unrelated))


def main():
    if not setup():
        print("FAIL setup: cannot make the inputs")
        return 1
    why = can_mount()
    if why:
        print("# skipped the full-disk cases: %s" % why)
    else:
        full_disks()
    corrupt_partitions()
    signals()
    stale_temporaries()
    same_file_outputs()  # last: a build that fails them destroys the inputs
    return 1 if R.failed else 0


if __name__ == "__main__":
    sys.exit(main())
