"""tests/test_bfs_gpu.py — the CUDA backend against the CPU backend and the
serial BFS, on the grids the visible GPUs allow (1x1, 1x2, 2x1, 2x2, 1x3,
3x1, 1x4, 4x1) and on 2x3 with GPUs shared (the warning checked; 1x2 and 2x1 too
where there is one GPU): levels of every kept
search equal, trees valid; pull's device levels also on 1x2, 2x1 and 2x2
sharing one GPU (--test-shared-gpus), NCCL's on 1x2 and 2x1 sharing one GPU
(--test-shared-gpus: NCCL's socket transport); bitmap on/off/auto (on and off also on 1x2 and
2x1 sharing one GPU, the host-staged MPI path), k = 1, 2, 4, 8 edges per
thread, every --direction (auto, top-down, bottom-up) and every --transport
(auto, pull, ipc, nccl, mpi, and NCCL forced onto its socket transport)
crossed give the same levels, with the `exchange` attribute naming the
transport, and `mpi` the CPU backend's expand bytes at every step and
rank (message levels: the same lists, bitmaps and compact bitmaps); so does the level plan with its special rules off (--rule-off:
all, and each that applies to the grid, over pull and mpi), and the
bottom-up step with its loads evict-first and not (--evict-first on, off); a named transport that cannot serve (pull or nccl with GPUs
shared) exits 2; too little device memory (memory held by another process) exits 4
with what is needed and free, and leaves no output. Device levels' phase times: 0 exactly
for the exchanges a grid side does not have, and each rank's level phases
summing to its search's. Prints nothing and
passes where no GPU is visible or CUDA was not built (CI); run on a GPU host
by bench/gpu-check.sh. B2_GPU_SCALE (default 14) sets the R-MAT scale;
B2_GPU_QUICK=1 keeps the R-MAT graph on 1x1, 1x2 and 2x1 (as many GPUs
as there are) and every transport and direction only (a first look after
a change); B2_GPU_GRIDS ("2x2 1x4 4x1", say) picks the grids of a GPU per
rank instead."""
import os, re, subprocess, sys
import numpy as np
import h5py
from b2ref import Report, BIN, TMP, MPIEXEC
import partref
from partref import Graph, check_bfs

rep = Report()
SCALE = int(os.environ.get("B2_GPU_SCALE", "14"))
QUICK = os.environ.get("B2_GPU_QUICK") == "1"
GRIDS = ([tuple(map(int, g.split("x"))) for g in os.environ["B2_GPU_GRIDS"].split()]
         if os.environ.get("B2_GPU_GRIDS") else [(1, 1), (1, 2), (2, 1)] if QUICK else
         [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (1, 4), (4, 1), (2, 3)])
# B2_GPU_SHARED_ONLY=1: only the larger grids with ranks sharing the GPUs
SHARED_ONLY = os.environ.get("B2_GPU_SHARED_ONLY") == "1"

# NCCL on its network (socket) transport: a stand-in for ranks on different nodes
SOCKETS = {"NCCL_P2P_DISABLE": "1", "NCCL_SHM_DISABLE": "1"}

def bfs(np_, *args, env=None):
    cmd = [os.path.join(BIN, "bfs-gpu")] + [str(a) for a in args]
    if np_ > 1:
        cmd = MPIEXEC.split() + ["-n", str(np_)] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "4"), **(env or {})))

tiny = os.path.join(TMP, "gputiny.h5")
partref.write_edges(tiny, 4, np.array([[0, 1], [1, 2]]))
partref.partition(tiny, 1, 1, tiny + ".p")
p = bfs(1, tiny + ".p", "--backend", "cuda", "-n", 1, "-o", os.path.join(TMP, "probe.h5"))
if p.returncode != 0 and ("no CUDA device" in p.stderr or "built without CUDA" in p.stderr):
    print("# no CUDA device or no CUDA build: skipped")
    sys.exit(0)
rep.check("cuda probe runs", p.returncode == 0, p.stderr[-500:])
ngpu = int(os.environ.get("B2_NGPU", "0")) or len(subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.splitlines())
print("# %d GPU(s), R-MAT scale %d" % (ngpu, SCALE), flush=True)

graphs = []
rm = os.path.join(TMP, "rmat%d.h5" % SCALE)
subprocess.run([os.path.join(BIN, "rmat-gen"), "-s", str(SCALE), "-e", "16", "--seed", "3", "-o", rm], check=True, capture_output=True)
graphs.append(Graph("rmat%d" % SCALE, rm))
rng = np.random.default_rng(5)
star = os.path.join(TMP, "gstar.h5")
partref.write_edges(star, 3001, np.array([[0, k] for k in range(1, 3001)] + [[k, k + 1] for k in range(1, 2999, 5)]))
graphs.append(Graph("star", star))
dis = os.path.join(TMP, "gdis.h5")
partref.write_edges(dis, 2001, np.concatenate([rng.integers(0, 900, size=(3000, 2)), rng.integers(1000, 1900, size=(2000, 2))]))
graphs.append(Graph("disconnected", dis))

def attr(f, k):
    v = f.attrs[k]
    return v.decode() if isinstance(v, bytes) else v

def expected(R, C, opt):
    """The exchange attribute --transport / --ipc / --bitmap should give on one
    node with a GPU per rank."""
    tp = opt.get("--transport", {"push": "ipc", "off": "mpi"}.get(opt.get("--ipc"), "auto"))
    bitmaps = opt.get("--bitmap") != "off"
    via = {"pull": "cuda-ipc-pull", "ipc": "cuda-ipc", "nccl": "nccl", "mpi": "mpi"}.get(
        tp, "cuda-ipc-pull" if bitmaps else "cuda-ipc")
    return "expand %s, fold %s" % ("none" if R == 1 else via, "none" if C == 1 else via)

def check_device_phases(tag, f, R, C, opt, shared_pull=False):
    """Device levels time the update by the GPU clock and the exchanges on
    the stream by CUDA events, the expansion being the rest of the level's
    busy time: with R = 1 there is no expand exchange
    (0 exactly), with C = 1 neither a fold nor an update (0 exactly); where
    there is one, every search spends time in it (the fold: where NCCL
    carries it)."""
    ph = f["phase_time"][...]
    via = dict(re.findall(r"(expand|fold) ([^,]+)", attr(f, "exchange")))
    vias = [v for v in via.values() if v != "none"]
    bitmaps = opt.get("--bitmap") != "off"
    devlev = bitmaps and ((R * C == 1 and opt.get("--transport") == "pull") or
                          ((R * C <= ngpu or shared_pull) and vias and
                           all(v in ("cuda-ipc-pull", "nccl") for v in vias)))
    rep.check(tag + " phase times >= 0", (ph >= 0).all(), str(ph.min(axis=0)))
    # each rank's phases add up to at most its search time, the slowest's
    t = f["time"][...]
    rep.check(tag + " phase times sum to at most the search time",
              (ph.sum(axis=1) <= t * 1.01 + 1e-6).all(), "%s > %s" % (ph.sum(axis=1).max(), t.max()))
    # each rank's level phases (device levels: the backend's split) sum to its search's
    lp, rp = f["level_phase_time"][...], f["rank_phase_time"][...]
    rep.check(tag + " level phases sum to each rank's phases",
              np.allclose(lp.sum(axis=1), rp[:, :, :5], rtol=1e-9, atol=1e-12),
              "%s vs %s" % (lp.sum(axis=1)[0, 0], rp[0, 0, :5]))
    if not devlev:
        return
    # (phase, is there one, is its time sure to be > 0: pull's fold is the
    # update's wait for signals that may have come already)
    for name, t, exists, sure in (("expand exchange", ph[:, 0], R > 1, True),
                                  ("fold exchange", ph[:, 2], C > 1, via["fold"] == "nccl"),
                                  ("update", ph[:, 3], C > 1, True)):
        if not exists:
            rep.check(tag + " device levels: no %s (0)" % name, (t == 0).all(), str(t))
        elif sure:
            rep.check(tag + " device levels: %s timed in every search" % name, (t > 0).all(), str(t))

# pull mode (device levels) with the ranks sharing one GPU: testing only;
# so is NCCL with them (over its socket transport, each rank its own host id)
SHARED_PULL = ("pull", "--test-shared-gpus")
SHARED_NCCL = ("nccl", "--test-shared-gpus")

def out_path(g, R, C, backend, extra, sfx=""):
    return os.path.join(TMP, "b-%s-%dx%d-%s-%s%s.h5" % (g.name, R, C, backend, "_".join(map(str, extra)), sfx))

def run(g, R, C, backend, *extra, nroots=8, env=None):
    part = os.path.join(TMP, "%s.%dx%d.h5" % (g.name, R, C))
    if not os.path.exists(part):
        partref.partition(g.path, R, C, part)
    if env is SOCKETS:
        sfx, note = "-sockets", " (NCCL on sockets)"
    elif env is SHARED_PULL:
        sfx, note = "-sharedpull", " (--test-shared-gpus)"
    elif env is SHARED_NCCL:
        sfx, note = "-sharednccl", " (--test-shared-gpus)"
    else:
        sfx, note = "", ""
    out = out_path(g, R, C, backend, extra, sfx)
    testing = ("--test-shared-gpus",) if env in (SHARED_PULL, SHARED_NCCL) else ()
    p = bfs(R * C, part, "--backend", backend, "-n", nroots, *extra, *testing, "-o", out,
            env=None if testing else env)
    tag = "%s %dx%d %s %s%s" % (g.name, R, C, backend, " ".join(map(str, extra)), note)
    if not rep.check(tag + " runs", p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-600:])):
        return {}
    with h5py.File(out, "r") as f:
        rep.eq(tag + " backend", attr(f, "backend"), backend)
        if "--alpha" not in extra:  # the backend's default (PERFORMANCE.md)
            rep.eq(tag + " default alpha", float(f.attrs["alpha"]), 10.0 if backend == "cuda" else 15.0)
        # a grid of one row is searched as one column (plan.h ROW_AS_COLUMN)
        off = [str(extra[k + 1]) for k in range(len(extra) - 1) if extra[k] == "--rule-off"]
        SR, SC = (C, 1) if R == 1 and C > 1 and not {"row-as-column", "all"} & set(off) else (R, C)
        rep.eq(tag + " grid searched", attr(f, "grid_searched"), "%dx%d" % (SR, SC))
        if backend == "cuda":
            # one node: pull unless another transport is named or --bitmap
            # off; a 1-wide side has no exchange
            opt = dict(zip(map(str, extra[::2]), map(str, extra[1::2])))
            if R * C <= ngpu:
                rep.eq(tag + " exchange", attr(f, "exchange"), expected(SR, SC, opt))
                if "nccl" in expected(SR, SC, opt):
                    rep.check(tag + " nccl_version", attr(f, "nccl_version").startswith("2."))
            elif env is SHARED_PULL or env is SHARED_NCCL:
                rep.eq(tag + " exchange", attr(f, "exchange"), expected(SR, SC, opt))
            else:  # GPUs shared: IPC within one GPU may be refused, then MPI
                print("# %s: exchange %s" % (tag, attr(f, "exchange")))
            check_device_phases(tag, f, SR, SC, opt, env is SHARED_PULL or env is SHARED_NCCL)
    if R * C > ngpu and backend == "cuda":
        rep.check(tag + " warns that GPUs are shared", "share" in p.stderr and "GPU" in p.stderr, p.stderr[-300:])
    opt = dict(zip(map(str, extra[::2]), map(str, extra[1::2])))
    return check_bfs(rep, tag, g, out, nroots, direction=opt.get("--direction", "auto"))

def rules_off(R, C):
    """The --rule-off values worth a run on an R x C grid: all, and each
    rule that applies there alone (traverse/plan.h)."""
    # a grid of one row is searched as one column (row-as-column); its
    # other rules apply with that one off
    row = ["row-as-column"] if R == 1 else []
    return ([["all"]] + ([row] if R == 1 else [["front-lists"]]) +
            ([row + ["row-carries"]] if C == 2 else []) +
            ([row + ["bottom-up-turns"]] if C > 1 else []))

def same(tag, a, b):
    ok = len(a) > 0 and a.keys() == b.keys() and all(np.array_equal(a[r], b[r]) for r in a)
    rep.check(tag, ok)

def same_expand_bytes(tag, a, b):
    """Message levels send the same expand messages whatever the backend
    and direction (the plan's forms from the same frontiers; compact
    bitmaps as large as the masks the frontiers left): runs a and b's
    /level_bytes expand column equal."""
    try:
        with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
            x, y = fa["level_bytes"][..., 0], fb["level_bytes"][..., 0]
    except (OSError, KeyError) as e:
        return rep.check(tag, False, str(e))
    rep.check(tag, x.shape == y.shape and np.array_equal(x, y),
              "%s vs %s: %s vs %s" % (x.shape, y.shape, x.sum(axis=(1, 2)).tolist(), y.sum(axis=(1, 2)).tolist()))

for g in [] if SHARED_ONLY else graphs[:1] if QUICK else graphs:
    for R, C in GRIDS:
        # 2x3 runs with GPUs shared (allowed for testing, with a warning);
        # so do 1x2 and 2x1 on one GPU (message levels, CUDA IPC and MPI)
        if R * C > ngpu and not (R * C == 6 and ngpu >= 2) and not (R * C == 2 and ngpu == 1):
            continue
        cu = run(g, R, C, "cuda")
        cp = run(g, R, C, "cpu")
        same("%s %dx%d cuda levels == cpu levels" % (g.name, R, C), cu, cp)
        for d in ("top-down", "bottom-up"):
            same("%s %dx%d cuda --direction %s == cpu" % (g.name, R, C, d), run(g, R, C, "cuda", "--direction", d), cp)
        # the bottom-up step's neighbour loads evict-first (on at any size
        # here; auto gives it only where the frontier is over half the L2)
        for ev in ("on", "off"):
            for d in ("auto", "bottom-up"):
                same("%s %dx%d cuda --evict-first %s --direction %s == cpu" % (g.name, R, C, ev, d),
                     run(g, R, C, "cuda", "--evict-first", ev, "--direction", d), cp)
        own = R * C <= ngpu  # a GPU per rank: every transport
        if R * C == 1:  # no exchange; pull names device levels (one host wait a level)
            for d in ("auto", "top-down", "bottom-up"):
                same("%s 1x1 cuda --transport pull --direction %s == cpu" % (g.name, d),
                     run(g, 1, 1, "cuda", "--transport", "pull", "--direction", d), cp)
        if R * C > 1:
            for tp in (("pull", "ipc", "nccl", "mpi") if own else ("ipc", "mpi")):
                for d in ("auto", "top-down", "bottom-up"):
                    same("%s %dx%d cuda --transport %s --direction %s == cpu" % (g.name, R, C, tp, d),
                         run(g, R, C, "cuda", "--transport", tp, "--direction", d), cp)
                    if tp == "mpi":
                        same_expand_bytes("%s %dx%d cuda --transport mpi --direction %s: expand bytes == cpu's"
                                          % (g.name, R, C, d),
                                          out_path(g, R, C, "cuda", ("--transport", "mpi", "--direction", d)),
                                          out_path(g, R, C, "cpu", ()))
            if own:
                for d in ("auto", "top-down", "bottom-up"):
                    same("%s %dx%d cuda --transport nccl --direction %s, NCCL on sockets == cpu" % (g.name, R, C, d),
                         run(g, R, C, "cuda", "--transport", "nccl", "--direction", d, env=SOCKETS), cp)
                same("%s %dx%d cuda --ipc push (old name) == cpu" % (g.name, R, C),
                     run(g, R, C, "cuda", "--ipc", "push"), cp)
            else:  # GPUs shared: no device levels, no NCCL (but for testing)
                for d in ("auto", "top-down", "bottom-up"):
                    same("%s %dx%d cuda --transport pull --direction %s, GPUs shared (--test-shared-gpus) == cpu" % (g.name, R, C, d),
                         run(g, R, C, "cuda", "--transport", "pull", "--direction", d, env=SHARED_PULL), cp)
                    if R * C == 2:
                        same("%s %dx%d cuda --transport nccl --direction %s, GPUs shared (--test-shared-gpus) == cpu" % (g.name, R, C, d),
                             run(g, R, C, "cuda", "--transport", "nccl", "--direction", d, env=SHARED_NCCL), cp)
                for tp in ("pull", "nccl"):
                    p = bfs(R * C, os.path.join(TMP, "%s.%dx%d.h5" % (g.name, R, C)), "--backend", "cuda",
                            "--transport", tp, "-o", os.path.join(TMP, "refused.h5"))
                    rep.eq("%s %dx%d --transport %s, GPUs shared: exit 2" % (g.name, R, C, tp), p.returncode, 2)
                    rep.check("%s %dx%d --transport %s, GPUs shared: says why" % (g.name, R, C, tp),
                              "share GPUs" in p.stderr, p.stderr[-300:])
        # the level plan without its special rules (--rule-off): the general
        # paths in their place, device levels (pull) and message levels (mpi)
        if R * C > 1 and own:
            for rules in rules_off(R, C):
                for tp in ("pull", "mpi"):
                    for d in ("auto", "bottom-up"):
                        same("%s %dx%d cuda --rule-off %s --transport %s --direction %s == cpu" % (g.name, R, C, ",".join(rules), tp, d),
                             run(g, R, C, "cuda", *[a for r in rules for a in ("--rule-off", r)], "--transport", tp, "--direction", d), cp)
        # bitmap messages forced on and off: on the largest grid with a GPU
        # per rank, and on 1x2 and 2x1 sharing one GPU (the host-staged path)
        if R * C > 1 and not QUICK and (R * C == min(4, ngpu) or (R * C == 2 and ngpu == 1)):
            for m in ("on", "off"):
                for tp in ("auto", "ipc", "nccl", "mpi") if own else ("ipc", "mpi"):
                    for d in ("auto", "bottom-up"):
                        same("%s %dx%d cuda --bitmap %s --transport %s --direction %s == cpu" % (g.name, R, C, m, tp, d),
                             run(g, R, C, "cuda", "--bitmap", m, "--transport", tp, "--direction", d), cp)
    # pull's device levels on 2x2 with four ranks sharing one GPU: a grid
    # row of two (the fold carries the visited state) with a column of two
    if ngpu == 1 and not QUICK and g is graphs[0]:
        cp = run(g, 2, 2, "cpu")
        for d in ("auto", "bottom-up"):
            same("%s 2x2 cuda --transport pull --direction %s, GPUs shared (--test-shared-gpus) == cpu" % (g.name, d),
                 run(g, 2, 2, "cuda", "--transport", "pull", "--direction", d, env=SHARED_PULL), cp)
    for k in () if QUICK else (1, 2, 8):
        same("%s 1x1 cuda k=%d == k=4" % (g.name, k), run(g, 1, 1, "cuda", "--edges-per-thread", k), run(g, 1, 1, "cuda"))

# BOTTOM_UP_TURNS on rows of three and four ranks (1x3 and 1x4 searched
# as rows), pull's device levels, the ranks sharing the GPUs where there
# are fewer: turn s of rank j waits for rank j + 1's turn s - 1, whose
# finds (and those of the ranks before it) rank j skips
if not SHARED_ONLY:
    g = graphs[0]
    for C in (3, 4):
        cp = run(g, 1, C, "cpu")
        for d in ("auto", "bottom-up"):
            for rules in (["row-as-column"], ["row-as-column", "bottom-up-turns"]):
                same("%s 1x%d cuda --rule-off %s --transport pull --direction %s == cpu" % (g.name, C, ",".join(rules), d),
                     run(g, 1, C, "cuda", *[a for r in rules for a in ("--rule-off", r)], "--transport", "pull",
                         "--direction", d, env=SHARED_PULL if C > ngpu else None), cp)

# Larger grids with ranks sharing the GPUs (the level plan's general paths:
# rows and columns of more than two ranks): mpi, and nccl through
# --test-shared-gpus, every direction; levels equal to the CPU backend's,
# and every tree accepted by bfs-validate. B2_GPU_SHARED_GRIDS picks them
# (default "2x2 2x4 4x4"; empty: none).
import test_validate as tv
for spec in ([] if QUICK else os.environ.get("B2_GPU_SHARED_GRIDS", "2x2 2x4 4x4").split()):
    R, C = map(int, spec.split("x"))
    g = graphs[0]
    cp = run(g, R, C, "cpu", nroots=4)
    for tp in ("mpi", "nccl"):
        for d in ("auto", "top-down", "bottom-up"):
            env = SHARED_NCCL if tp == "nccl" and R * C > ngpu else None
            extra = ("--transport", tp, "--direction", d)
            same("%s %dx%d cuda --transport %s --direction %s, GPUs shared == cpu" % (g.name, R, C, tp, d),
                 run(g, R, C, "cuda", *extra, nroots=4, env=env), cp)
            # the file run() wrote
            out = os.path.join(TMP, "b-%s-%dx%d-cuda-%s%s.h5" % (g.name, R, C, "_".join(extra),
                                                                "-sharednccl" if env is SHARED_NCCL else ""))
            valid = os.path.join(TMP, "valid-%dx%d-%s-%s.h5" % (R, C, tp, d))
            if rep.check("%s %dx%d %s %s: BFS file kept" % (g.name, R, C, tp, d), os.path.exists(out), out):
                r = tv.validate(2, g.path, out, valid)
                if rep.check("%s %dx%d %s %s: bfs-validate exits 0" % (g.name, R, C, tp, d), r.returncode == 0, r.stderr[-300:]):
                    v = tv.read_valid(valid)
                    rep.check("%s %dx%d %s %s: bfs-validate passes every tree" % (g.name, R, C, tp, d),
                              len(v["passed"]) > 0 and (v["passed"] == 1).all(), str(v["passed"]))

# Too little device memory: another process (PyTorch, where installed) holds
# all but ~300 MiB of GPU 0; an R-MAT scale-20 graph needs more than is left.
try:
    import torch  # noqa: F401
    have_torch = True
except ImportError:
    have_torch = False
if have_torch and not QUICK:
    big = os.path.join(TMP, "rmat20.h5")
    subprocess.run(MPIEXEC.split() + ["-n", "4", os.path.join(BIN, "rmat-gen"), "-q", "-s", "20", "-o", big], check=True)
    subprocess.run(MPIEXEC.split() + ["-n", "4", os.path.join(BIN, "partition2d"), "-q", "--grid", "1x1", big, "-o", big + ".p"], check=True)
    hold = subprocess.Popen([sys.executable, "-c",
        "import torch, time\n"
        "free, _ = torch.cuda.mem_get_info(0)\n"
        "x = torch.empty(free - (300 << 20), dtype=torch.uint8, device='cuda:0')\n"
        "print('held', flush=True)\n"
        "time.sleep(120)\n"], stdout=subprocess.PIPE, text=True,
        env=dict(os.environ, CUDA_VISIBLE_DEVICES="0"))
    try:
        if rep.check("device memory held by another process", hold.stdout.readline().strip() == "held"):
            out = os.path.join(TMP, "nomem.h5")
            p = subprocess.run([os.path.join(BIN, "bfs-gpu"), big + ".p", "--backend", "cuda", "-n", "2", "-o", out],
                               capture_output=True, text=True, timeout=300, env=dict(os.environ, CUDA_VISIBLE_DEVICES="0"))
            rep.eq("too little device memory: exit 4", p.returncode, 4)
            rep.check("too little device memory: says needed and free",
                      ("need" in p.stderr and "free" in p.stderr) or "cannot use CUDA device" in p.stderr, p.stderr[-400:])
            rep.check("too little device memory: no output", not os.path.exists(out))
    finally:
        hold.kill()
        hold.wait()
sys.exit(1 if rep.failed else 0)
