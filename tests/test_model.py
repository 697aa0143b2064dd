"""bench/model.py (issue 35's performance model) on BFS files written here:
the features it reads from a file equal those computed by hand from the
datasets written (edges by direction over P, top-down discoveries over R
and frontier columns over C, the busiest rank's bytes, rounds, steps), and
on runs whose phase times are an exact linear function of those features
with chosen costs, `fit` recovers every cost and predicts every run's
search time exactly (error 0.0 %, exit 0), a zero cost as 0; `--holdout
2` fits without the 2-GPU runs (4- and 8-GPU runs left, so that log2 P
still varies) and still predicts them exactly; `extrapolate` prints a row
for each of 1 .. 4096 GPUs (2: 1x2 searched as 2x1); a file without per-rank records is refused by
name; `split` sums each phase over the levels of each direction, over
ranks and searches, as computed by hand."""
import importlib.util, os, re, subprocess, sys
import numpy as np
import h5py
from b2ref import Report, TMP

R_ = Report()
top = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
MODEL = os.path.join(top, "bench", "model.py")
spec = importlib.util.spec_from_file_location("model", MODEL)
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)
D = os.path.join(TMP, "test_model")
os.makedirs(D, exist_ok=True)

# Two searches of four steps, or (SHORT) of four and three: directions,
# frontier sizes, edges examined (summed over ranks); per rank bytes
# [K][L][P][3]. Runs of both kinds, so that no two features are
# proportional over the runs of a transport.
DIRS = np.array([[0, 0, 1, 0], [0, 1, 1, 0]])
FRONT = np.array([[1, 40, 3000, 60], [1, 50, 2500, 70]], dtype=np.int64)
EXAM = np.array([[16, 900, 40000, 500], [16, 30000, 20000, 700]], dtype=np.int64)
SHORT = (np.array([[0, 0, 1, 0], [0, 1, 0, -1]]), np.array([[1, 40, 3000, 60], [1, 30, 900, 0]], dtype=np.int64),
         np.array([[16, 900, 40000, 500], [16, 20000, 4000, 0]], dtype=np.int64))


def write(path, R, C, transport, phases, scale, bytes_=None, pred_bytes=None, rank_records=True,
          shape=(DIRS, FRONT, EXAM)):
    """A BFS file of a run on an R x C grid, with phase times `phases`
    ([K][6]: each rank the same) and time their sum."""
    P = R * C
    dirs, front, exam = shape
    K, L = dirs.shape
    lb = bytes_ if bytes_ is not None else np.zeros((K, L, P, 3), dtype=np.int64)
    pb = pred_bytes if pred_bytes is not None else np.zeros((K, P), dtype=np.int64)
    ex = {"pull": "expand cuda-ipc-pull, fold cuda-ipc-pull", "nccl": "expand nccl, fold nccl",
          "local": "expand none, fold none"}[transport]
    with h5py.File(path, "w") as f:
        f["time"] = phases.sum(axis=1)
        f["nedge"] = np.full(K, 2 ** (scale + 4), dtype=np.int64)
        f["level_direction"] = dirs
        f["edges_examined"] = exam
        f["frontier_size"] = front
        f["level_bytes"] = lb
        f["pred_bytes"] = pb
        if rank_records:
            f["rank_phase_time"] = np.repeat(phases[:, None, :], P, axis=1)
        f.attrs["grid_rows"], f.attrs["grid_cols"] = R, C
        f.attrs["num_vertices"] = 2 ** scale
        f.attrs["exchange"] = np.bytes_(ex)
    return path


def features(R, C, scale, lb, pb, shape):
    """The model's features by hand, from the arrays written."""
    DIRS, FRONT, EXAM = shape
    P, N = R * C, 2 ** scale
    td, bu = DIRS == 0, DIRS == 1
    found = np.zeros_like(FRONT)
    found[:, :-1] = FRONT[:, 1:]
    steps = (DIRS >= 0).sum(axis=1).astype(float)
    busy = lb.max(axis=2)
    return {
        "E_td": np.where(td, EXAM, 0).sum(1) / P,
        "E_bu": np.where(bu, EXAM, 0).sum(1) / P,
        "steps": steps,
        "D_td": np.where(td, found, 0).sum(1) / R,
        "V_td": np.where(td, FRONT, 0).sum(1) / C,
        "B_expand": busy[:, :, 0].sum(1),
        "rounds_expand": (busy[:, :, 0] > 0).sum(1),
        "B_fold": busy[:, :, 1].sum(1) + busy[:, :, 2].sum(1),
        "rounds_fold": steps * (C > 1) + (busy[:, :, 2] > 0).sum(1),
        "rounds_2d": steps * (R > 1 and C > 1),
        "steps_term": steps,
        "steps_term_lg": steps * np.log2(P),
        "B_pred": pb.max(axis=1),
        "pred_round": np.full(2, float(C > 1)),
        "V_pred": np.full(2, N / P),
        "search": np.ones(2),
        "steps_rest": steps,
    }


# costs, s a unit of each feature; per transport the exchanges', shared the local ones
LOCAL = {"E_td": 2e-11, "E_bu": 3e-11, "steps": 2e-5, "D_td": 1e-10, "V_td": 3e-10}
XCHG = {"pull": {"B_expand": 5e-12, "rounds_expand": 2e-5, "B_fold": 4e-12, "rounds_fold": 1.5e-5,
                 "rounds_2d": 1e-4, "steps_term": 3e-6, "steps_term_lg": 5e-6, "B_pred": 0.0,
                 "pred_round": 2e-4, "V_pred": 5e-12, "search": 9e-5, "steps_rest": 1e-6},
        "local": {"steps_term": 1e-7, "V_pred": 6e-12, "search": 5e-5, "steps_rest": 4e-6}}


def phases_of(F, tp):
    """[K][6] phase times: expand, expansion, fold + update (all in fold),
    termination, predecessors; the search's rest goes into time only."""
    c = dict(LOCAL, **XCHG[tp])
    term = lambda names: sum(c.get(n, 0.0) * F[n] for n in names)
    ph = np.zeros((2, 6))
    ph[:, 0] = term(("B_expand", "rounds_expand"))
    ph[:, 1] = term(("E_td", "E_bu", "steps", "D_td", "V_td"))
    ph[:, 2] = term(("B_fold", "rounds_fold", "rounds_2d"))
    ph[:, 4] = term(("steps_term", "steps_term_lg"))
    ph[:, 5] = term(("B_pred", "pred_round", "V_pred"))
    return ph, term(("search", "steps_rest"))


rng = np.random.default_rng(7)
runs = []
GRIDS = ((1, 1, 20, "local"), (1, 1, 22, "local"), (1, 1, 24, "local"),
         (1, 2, 21, "pull"), (1, 2, 23, "pull"), (2, 1, 21, "pull"), (2, 1, 23, "pull"),
         (2, 2, 22, "pull"), (4, 1, 22, "pull"), (1, 4, 22, "pull"),
         (2, 2, 24, "pull"), (4, 1, 24, "pull"), (1, 4, 24, "pull"),
         (2, 4, 23, "pull"), (4, 2, 24, "pull"))   # 8 GPUs: held out 2, log2 P still varies
for n, (R, C, scale, tp) in enumerate(GRIDS):
    P = R * C
    shape = (DIRS, FRONT, EXAM) if n % 2 else SHORT
    lb = np.zeros((2, 4, P, 3), dtype=np.int64)     # a step that did not run sends nothing
    pb = np.zeros((2, P), dtype=np.int64)
    if P > 1:
        lb[..., 0] = rng.integers(0, 2 ** scale // 8, size=(2, 4, P)) * (R > 1)
        lb[..., 1] = rng.integers(0, 2 ** scale // 8, size=(2, 4, P)) * (C > 1)
        lb[:, 2, :, 2] = (2 ** scale // 8) * (C > 1)    # a visited exchange before step 2
        lb[shape[0] < 0] = 0
        pb[:] = rng.integers(0, 2 ** scale, size=(2, P)) * (C > 1)
    F = features(R, C, scale, lb, pb, shape)
    ph, rest = phases_of(F, tp)
    path = write(os.path.join(D, "r%dx%d-s%d.h5" % (R, C, scale)), R, C, tp, ph, scale, lb, pb,
                 shape=shape)
    with h5py.File(path, "a") as f:   # the search's start and lag beyond the phases
        f["time"][...] = ph.sum(axis=1) + rest
    runs.append((path, R, C, scale, tp, F, ph.sum(axis=1) + rest))

# features read from the files
for path, R, C, scale, tp, F, t in runs:
    r = model.load(path)
    name = os.path.basename(path)
    R_.eq("%s: grid" % name, (r["R"], r["C"], r["transport"]), (R, C, tp))
    for k, v in F.items():
        got = r["X"][:, model.FEATURES.index(k)]
        R_.check("%s: feature %s" % (name, k), np.allclose(got, v, rtol=1e-12, atol=0),
                 "got %s, want %s" % (got, v))

# the fit recovers the costs and predicts exactly
runs_l = [model.load(p) for p, *_ in runs]
params = model.fit_all(runs_l)
for k, v in LOCAL.items():
    R_.check("fit: local cost %s" % k, abs(params["pull"][k] - v) <= 1e-6 * v,
             "got %g, want %g" % (params["pull"][k], v))
for k, v in XCHG["pull"].items():
    R_.check("fit: pull cost %s" % k, abs(params["pull"][k] - v) <= 1e-6 * max(v, 1e-12),
             "got %g, want %g" % (params["pull"][k], v))
for r, (_, _, _, _, _, _, t) in zip(runs_l, runs):
    R_.check("fit: %s predicted exactly" % os.path.basename(r["path"]),
             np.allclose(model.predict(r, params), t, rtol=1e-6), "%s vs %s" % (model.predict(r, params), t))

# the command line: every error 0.0 %, exit 0; held out, still exact
p = subprocess.run([sys.executable, MODEL, "fit"] + [x[0] for x in runs] + ["--holdout", "2"],
                   capture_output=True, text=True)
errs = re.findall(r"([+-]\d+\.\d)%", p.stdout)
R_.eq("model.py fit: exit 0", p.returncode, 0)
held = sum(1 for g in GRIDS if g[0] * g[1] == 2)
R_.check("model.py fit: a row for every run and each held-out one", len(errs) == len(runs) + held,
         "%d rows: %s" % (len(errs), p.stdout[-400:]))
R_.check("model.py fit: every error 0.0 %", all(e in ("+0.0", "-0.0") for e in errs), " ".join(errs))
R_.check("model.py fit: says the largest error", "# largest error on several GPUs: 0.0 %" in p.stdout,
         p.stdout[-300:])
R_.check("model.py fit --holdout 2: held out exactly", "# held out 2 GPUs: largest error 0.0 %" in p.stdout,
         p.stdout[-300:])

# extrapolate: one row for each grid of the paper's shapes (C = R or 2R),
# 2 GPUs' 1x2 searched as 2x1 (plan.h ROW_AS_COLUMN)
p = subprocess.run([sys.executable, MODEL, "extrapolate"] + [x[0] for x in runs], capture_output=True, text=True)
rows = re.findall(r"^\s+(\d+)\s+(\d+)x(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)", p.stdout, re.M)
R_.eq("model.py extrapolate: exit 0", p.returncode, 0)
R_.eq("model.py extrapolate: the grids", [(int(a), int(b), int(c)) for a, b, c, *_ in rows],
      [(1, 1, 1), (2, 2, 1), (4, 2, 2), (16, 4, 4), (64, 8, 8), (256, 16, 16), (1024, 32, 32), (4096, 64, 64)])
R_.check("model.py extrapolate: times positive", rows and all(float(x[4]) > 0 for x in rows), p.stdout[-300:])
paper = {(int(a), int(b), int(c)): x[1] for a, b, c, *x in rows}

# --grids: the grids named, in order (1xC searched as Cx1), each costed as
# the paper's run costs it
p = subprocess.run([sys.executable, MODEL, "extrapolate"] + [x[0] for x in runs] +
                   ["--grids", "4x4, 16x1 1x4 4x1 2x2"], capture_output=True, text=True)
got = re.findall(r"^\s+(\d+)\s+(\d+)x(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)", p.stdout, re.M)
R_.eq("model.py extrapolate --grids: exit 0", p.returncode, 0)
R_.eq("model.py extrapolate --grids: the grids named", [(int(a), int(b), int(c)) for a, b, c, *_ in got],
      [(16, 4, 4), (16, 16, 1), (4, 4, 1), (4, 4, 1), (4, 2, 2)])
if len(got) == 5:
    R_.eq("model.py extrapolate --grids: 4x4 as in the paper's table", got[0][4], paper.get((16, 4, 4)))
    R_.eq("model.py extrapolate --grids: 2x2 as in the paper's table", got[4][4], paper.get((4, 2, 2)))
    R_.eq("model.py extrapolate --grids: 1x4 costs what 4x1 costs", got[2][4:], got[3][4:])
    R_.check("model.py extrapolate --grids: 16x1 and 4x4 differ", got[0][4] != got[1][4], str(got[:2]))
p = subprocess.run([sys.executable, MODEL, "extrapolate"] + [x[0] for x in runs] + ["--grids", "4x4 4y4"],
                   capture_output=True, text=True)
R_.check("model.py extrapolate --grids: a grid not RxC refused by name",
         p.returncode != 0 and "'4y4'" in p.stderr, "exit %d: %s" % (p.returncode, p.stderr[-200:]))

# a file of an older bfs-gpu (no per-rank records) is refused by name
old = write(os.path.join(D, "old.h5"), 1, 2, "pull", np.ones((2, 6)) * 1e-3, 20, rank_records=False)
p = subprocess.run([sys.executable, MODEL, "fit", old], capture_output=True, text=True)
R_.check("model.py: a file without /rank_phase_time refused", p.returncode != 0 and "old.h5" in p.stderr
         and "rank_phase_time" in p.stderr, "exit %d: %s" % (p.returncode, p.stderr))

# extrapolate --compact: the expand's messages between nodes as compact
# bitmaps where smaller, a bit for each vertex that this step and the later
# ones reached; within the node and wherever the list is smaller, as
# before. 8x1 with 4 GPUs a node: each round sends 3 messages in the node
# and 4 over the network (1 GB/s, no latency); every other cost zero, so
# the search is the expand's network bytes over 1e9 (b = 1024: a bitmap
# is 132 bytes)
zero = dict.fromkeys(model.FEATURES, 0.0)
steps = [{"front": f, "found": 0.0, "e_td": 0.0, "e_bu": 0.0, "front_td": 0.0, "found_td": 0.0,
          "bottom_up": 0.0} for f in (1e-6, 0.1, 0.5, 0.05)]
for compact, msgs in ((False, [4e-6 * 1024, 132, 132, 132]),
                      (True, [4e-6 * 1024, 0.65 * 128 + 4, 0.55 * 128 + 4, 0.05 * 128 + 4])):
    rows = model.extrapolate(steps, {"local": dict(zero), "pull": dict(zero)}, {"nedge_per_vertex": 16.0}, 4,
                             1e9, 0.0, "pull", 0.0, lb=10, grids=[(8, 1)], compact=compact)
    want = 4 * sum(msgs) / 1e9
    R_.check("model.py extrapolate%s: 8x1's search is its expand's network bytes (%.6g s)"
             % (" --compact" if compact else "", want), np.isclose(rows[0][4], want, rtol=1e-12, atol=0),
             "%r" % (rows,))
    R_.eq("model.py extrapolate%s: limited by the expand" % (" --compact" if compact else ""), rows[0][6], "expand")
p = subprocess.run([sys.executable, MODEL, "extrapolate"] + [x[0] for x in runs] + ["--compact"],
                   capture_output=True, text=True)
R_.eq("model.py extrapolate --compact: exit 0", p.returncode, 0)
R_.check("model.py extrapolate --compact: says so", "the expand's as compact bitmaps" in p.stdout, p.stdout[:400])
# split: per direction, the levels a search, each level phase's ms a search
# (mean over ranks), the edges a rank; the predecessors' mean
NAMES = ["expand_exchange", "frontier_expansion", "fold_exchange", "frontier_update", "termination",
         "pred_resolution"]
rng = np.random.default_rng(7)
lpt = rng.uniform(0, 1e-3, (2, 4, 4, 5))          # [K][L][P][5]: 2 searches, 4 levels, 2x2
lpt[1, 3] = 0                                       # search 1 has three levels
sdir = np.array([[0, 1, 1, 0], [0, 0, 1, -1]])
sexam = np.array([[8, 4000, 900, 40], [8, 600, 7000, 0]], dtype=np.int64)
ph = rng.uniform(0, 1e-3, (2, 6))
sp = os.path.join(D, "split.h5")
with h5py.File(sp, "w") as f:
    f["level_phase_time"], f["level_direction"], f["edges_examined"], f["phase_time"] = lpt, sdir, sexam, ph
    f["frontier_size"] = np.array([[1, 30, 700, 20], [1, 9, 400, 0]], dtype=np.int64)
    f.attrs["phase_names"] = [np.bytes_(n) for n in NAMES]
    f.attrs["num_vertices"] = 1024
p = subprocess.run([sys.executable, MODEL, "split", sp], capture_output=True, text=True)
R_.eq("model.py split: exit 0", p.returncode, 0)
got = {m[0]: [float(x) for x in m[1:]] for m in
       re.findall(r"^  (top-down|bottom-up)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)"
                  r"\s+([\d.e+-]+)$", p.stdout, re.M)}
for name, dv in (("top-down", 0), ("bottom-up", 1)):
    sel = sdir == dv
    want = [sel.sum() / 2] + [lpt.mean(axis=2)[sel][:, x].sum() / 2 * 1e3 for x in range(5)] + \
           [sexam[sel].sum() / 2 / 4]
    R_.check("model.py split: %s as computed by hand" % name, name in got and
             np.allclose(got[name], want, rtol=2e-3, atol=6e-4), "got %s, want %s" % (got.get(name), want))
R_.check("model.py split: the predecessors' mean", "predecessors %.3f ms" % (ph[:, 5].mean() * 1e3) in p.stdout,
         p.stdout)
p = subprocess.run([sys.executable, MODEL, "split", sp, "--search", "1"], capture_output=True, text=True)
lv = re.findall(r"^\s+(\d+) (TD|BU)\s+([\d.]+)\s+([\d.e+-]+)\s+(.*)$", p.stdout, re.M)
R_.eq("model.py split --search 1: its three levels", [(int(a), b) for a, b, *_ in lv], [(1, "TD"), (2, "TD"), (3, "BU")])
if len(lv) == 3:
    mm = [tuple(float(y) for y in x.split("/")) for x in lv[2][4].split()]
    want = [(lpt[1, 2, :, x].mean() * 1e6, lpt[1, 2, :, x].max() * 1e6) for x in range(5)]
    R_.check("model.py split --search 1: level 3's phases, mean / max over ranks", np.allclose(mm, want, atol=0.06),
             "got %s, want %s" % (mm, want))
    R_.eq("model.py split --search 1: level 3's edges a rank", float(lv[2][3]), 7000 / 4)
    R_.eq("model.py split --search 1: level 3's frontier share", float(lv[2][2]), round(400 / 1024, 6))
sys.exit(1 if R_.failed else 0)
