#!/usr/bin/env python3
"""bench/model.py — a performance model of bfs-gpu, fitted from BFS files.

    bench/model.py fit BFS.h5... [--holdout N] [--json OUT] [--tolerance 0.15]
    bench/model.py extrapolate BFS.h5... [--gpus-per-node 4] [--net-bw B] [--net-lat S] [--grids "16x1 4x4"]
                                         [--compact]
    bench/model.py split BFS.h5... [--search K]

`split` prints, per run, where a search's time goes by the direction of
its levels: the levels a search, each phase's ms a search (mean over
ranks, summed over the levels of that direction), the edges a rank
examines, and the predecessors; with --search K, search K's levels one by
one (direction, frontier as a share of the vertices, edges a rank, each
phase's µs as the mean over ranks / the slowest rank). No fit: what the
model's features rest on.

The time of one search is the sum over its steps of the local step, the
exchanges before and after it and the termination test, plus the
predecessor resolution (docs/DESIGN.md, "Inside bfs-gpu"):

    t = c_td * E_td + c_bu * E_bu + o * steps              local steps
                                  (c_bu' on a grid of one row)
      + c_d * D_td + c_v * V_td                            top-down's discoveries, columns
      + (B_expand + B_fold + B_visited) / bw + lat * rounds  exchanges
      + w * steps * [R > 1 and C > 1]                       the fold's wait on a 2D grid
      + (t_term + t_lg * log2 P) * steps                    termination
      + c_p * N / P + B_pred / bw + lat_pred * [C > 1]      predecessors

E_td, E_bu: the edges that the slowest rank examines in top-down and
bottom-up steps (the sum over ranks that /edges_examined records, over P:
the recorded per-rank phase times show the imbalance the factor leaves);
D_td: the vertices a rank's top-down steps may discover (each step's
discoveries over R: a rank's rows are N / R of the vertices); V_td: the
frontier columns they gather and scan (the frontier over C); B_x: the
bytes the busiest rank sends in exchange x at each step, summed
over the steps (/level_bytes, /pred_bytes); rounds: the steps with an expand
exchange (R > 1), with a fold exchange (C > 1) and with a visited exchange;
on a grid of both exchanges the row peers start their steps after their
columns' gathers, and the fold waits (w a step).
The coefficients are fitted by non-negative least squares over every search
of every file given, per transport (a byte over NVLink read in place costs
what it costs; over NCCL or MPI more). `fit` prints each run's measured and
predicted mean search time and the error, and with --holdout N fits without
the runs of N GPUs and predicts those.

`extrapolate` carries the fitted local costs (the bottom-up edges examined
grown with the row's ranks as the runs given measured it, k log2 C) to R x C grids of 16 to 4096
GPUs at 2^26 vertices per GPU (--per-gpu-scale; the paper's Table 1 has
2^21), R x C as the paper's (C = R or 2R), from the
per-step profile of a one-GPU run (the frontier's share of the vertices and
the edges examined per vertex at each step) and a stated interconnect:
GPUS_PER_NODE GPUs a node joined by NVLink (the fitted pull bandwidth),
NET_BW bytes/s and NET_LAT seconds per GPU between nodes. A message is a
list of 4 bytes a vertex or a bitmap of the block, whichever is smaller;
the expand exchange gathers the column's R - 1 frontiers, the fold sends
each of the C - 1 row peers its discoveries, a bottom-up step without a
carried state first sends the own visited block to the row peers, and a
round among n ranks costs NET_LAT * ceil(log2 n) beyond its bytes. It
prints, per grid, the predicted harmonic-mean GTEPS and the exchange that
takes the most time. --grids names other grids (16x1, 8x2 and 4x4 for
four nodes of four GPUs, say) to compare the shapes a node count allows.
--compact sends the expand's messages between nodes as compact bitmaps
where smaller (plan.h COMPACT, which the mpi transport sends): a bit for
each vertex of the block that no earlier frontier held, taken as the
vertices that the one-GPU run's step and its later steps reached."""
import argparse, json, math, os, sys
import numpy as np
import h5py


def nnls(A, y):
    """Least squares with non-negative coefficients: solve, drop the
    columns whose coefficient came out negative, solve again (a cost is
    never negative; a column the data cannot pin stays 0)."""
    keep = np.ones(A.shape[1], bool)
    x = np.zeros(A.shape[1])
    while keep.any():
        sol, *_ = np.linalg.lstsq(A[:, keep], y, rcond=None)
        if (sol >= 0).all():
            x[keep] = sol
            break
        idx = np.flatnonzero(keep)
        keep[idx[sol < 0]] = False
    return x, None

# The model's terms, each fitted against the phase it explains (the mean
# over ranks of /rank_phase_time, per search): (name, features, phases).
PHASES = {
    "local":   (("E_td", "E_bu", "steps", "D_td", "V_td"), (1,)),  # frontier expansion
    "expand":  (("B_expand", "rounds_expand"), (0,)),     # expand exchange
    "fold":    (("B_fold", "rounds_fold", "rounds_2d"), (2, 3)),  # fold exchange + update
    "term":    (("steps_term", "steps_term_lg"), (4,)),   # termination test
    "pred":    (("B_pred", "pred_round", "V_pred"), (5,)),  # predecessors
    # the search's time beyond the mean rank's phases: its start (the
    # barrier, the root's degree), and the slowest rank's lag each step
    "rest":    (("search", "steps_rest"), ()),
}
FEATURES = tuple(f for fs, _ in PHASES.values() for f in fs)
# the terms every transport shares: the local step's
SHARED = ("local",)


def sattr(a, k, default=""):
    v = a.get(k, default)
    return v.decode() if isinstance(v, bytes) else v


def transport_of(a):
    """The run's data path: pull, nccl, mpi, ipc; 'local' on one rank."""
    ex = sattr(a, "exchange")
    for name, key in (("pull", "cuda-ipc-pull"), ("nccl", "nccl"), ("ipc", "cuda-ipc"), ("mpi", "mpi")):
        if key in ex:
            return name
    return "local"


def load(path):
    """One run: its grid and transport, and per search the model's features,
    the measured phases (mean over ranks) and time."""
    with h5py.File(path, "r") as f:
        a = dict(f.attrs)
        for need in ("level_bytes", "pred_bytes", "rank_phase_time"):
            if need not in f:
                raise SystemExit("model.py: %s has no /%s (a BFS file of an older bfs-gpu)" % (path, need))
        t, ne = f["time"][...], f["nedge"][...]
        d, ex = f["level_direction"][...], f["edges_examined"][...].astype(float)
        lb, pb = f["level_bytes"][...].astype(float), f["pred_bytes"][...].astype(float)
        rp = f["rank_phase_time"][...]
        fs = f["frontier_size"][...].astype(float)
    # the grid the search ran as (a 1xC partition is searched as Cx1)
    gs = sattr(a, "grid_searched")
    R, C = map(int, gs.split("x")) if gs else (int(a["grid_rows"]), int(a["grid_cols"]))
    P = R * C
    steps = (d >= 0).sum(axis=1).astype(float)
    busiest = lb.max(axis=2)                     # [K][L][3]: the busiest rank, each step
    found = np.zeros_like(fs)                    # what each step discovered
    found[:, :-1] = fs[:, 1:]
    F = {
        "E_td": np.where(d == 0, ex, 0).sum(axis=1) / P,
        "E_bu": np.where(d == 1, ex, 0).sum(axis=1) / P,
        "steps": steps,
        # a top-down step's work beyond its edges: the discoveries a rank
        # makes (its rows are N / R of the vertices) and the frontier
        # columns it gathers and scans (its columns are N / C)
        "D_td": np.where(d == 0, found, 0).sum(axis=1) / R,
        "V_td": np.where(d == 0, fs, 0).sum(axis=1) / C,
        "B_expand": busiest[:, :, 0].sum(axis=1),
        "rounds_expand": (busiest[:, :, 0] > 0).sum(axis=1).astype(float),
        "B_fold": busiest[:, :, 1].sum(axis=1) + busiest[:, :, 2].sum(axis=1),
        "rounds_fold": steps * (C > 1) + (busiest[:, :, 2] > 0).sum(axis=1),
        # on a grid of both exchanges the row peers start their steps after
        # their columns' gathers, at different times: the fold waits
        "rounds_2d": steps * (R > 1 and C > 1),
        "steps_term": steps,
        "steps_term_lg": steps * math.log2(P),
        "B_pred": pb.max(axis=1),
        "pred_round": np.full(len(t), float(C > 1)),
        "V_pred": np.full(len(t), float(a["num_vertices"]) / P),  # the owned vertices' predecessors
        "search": np.ones(len(t)),
        "steps_rest": steps,
    }
    X = np.stack([F[k] for k in FEATURES], axis=1)
    return {"path": path, "R": R, "C": C, "P": P, "transport": transport_of(a),
            "N": int(a["num_vertices"]), "X": X, "t": t, "nedge": ne,
            "phase": rp.mean(axis=1), "direction": d, "examined": ex, "front": fs, "found": found}


def cols(term):
    return [FEATURES.index(f) for f in PHASES[term][0]]


def fit_term(runs, term):
    """NNLS of the term's phases on its features, in relative error."""
    X = np.concatenate([r["X"][:, cols(term)] for r in runs])
    if PHASES[term][1]:
        y = np.concatenate([r["phase"][:, list(PHASES[term][1])].sum(axis=1) for r in runs])
    else:  # what the phases leave of the search's time
        y = np.concatenate([r["t"] - r["phase"].sum(axis=1) for r in runs])
    keep = y > 0
    if not keep.any():
        return np.zeros(len(cols(term)))
    X, y = X[keep], y[keep]
    s = np.where(X.max(axis=0) > 0, X.max(axis=0), 1)
    c, _ = nnls(X / s / y[:, None], np.ones(len(y)))
    return c / s


def fit_all(runs):
    """The local step's costs from every run; each transport's exchange,
    termination and predecessor costs from its own runs (one rank: 'local')."""
    params = {}
    shared = {t: fit_term(runs, t) for t in SHARED}
    for tp in sorted({r["transport"] for r in runs}):
        rs = [r for r in runs if r["transport"] == tp]
        full = np.zeros(len(FEATURES))
        for term in PHASES:
            full[cols(term)] = shared[term] if term in SHARED else fit_term(rs, term)
        params[tp] = dict(zip(FEATURES, full.tolist()))
    return params


def predict(run, params):
    p = params[run["transport"]]
    return run["X"] @ np.array([p[k] for k in FEATURES])


def hmean_teps(nedge, t):
    return len(t) / np.sum(t / nedge)


def report(runs, params, label=""):
    worst = 0.0
    print("%-44s %5s %-6s %10s %10s %7s %9s" % ("run" + label, "grid", "path", "measured", "model", "error",
                                                "GTEPS"))
    for r in runs:
        tm, tp = r["t"].mean(), predict(r, params).mean()
        err = tp / tm - 1
        if r["P"] > 1:
            worst = max(worst, abs(err))
        print("%-44s %2dx%-2d %-6s %8.3f ms %8.3f ms %+6.1f%% %9.1f" % (
            os.path.basename(r["path"])[:44], r["R"], r["C"], r["transport"], 1e3 * tm, 1e3 * tp,
            100 * err, hmean_teps(r["nedge"], r["t"]) * 1e-9))
    return worst


def profile(run):
    """Per step of a one-GPU run, averaged over its searches (a search that
    ended earlier counts as an empty step): the frontier's share of the
    vertices, the share discovered by the step, and per vertex the edges
    examined by top-down and by bottom-up searches at that step, with
    their top-down parts of the frontier and the discoveries and the share
    of searches going bottom-up there."""
    d, ex, fs, found = run["direction"], run["examined"], run["front"], run["found"]
    L = d.shape[1]
    N = run["N"]
    td, bu = d == 0, d == 1
    mean = lambda x, m: float(np.where(m, x, 0).mean()) / N
    return [{"front": mean(fs[:, l], d[:, l] >= 0), "found": mean(found[:, l], d[:, l] >= 0),
             "e_td": mean(ex[:, l], td[:, l]), "e_bu": mean(ex[:, l], bu[:, l]),
             "front_td": mean(fs[:, l], td[:, l]), "found_td": mean(found[:, l], td[:, l]),
             "bottom_up": float(bu[:, l].mean())}
            for l in range(L) if (d[:, l] >= 0).any()]


def bottom_up_growth(runs):
    """k in E_bu(C) = E_bu(1) * (1 + k log2 C) on grids of C > 1: the
    bottom-up edges examined per input edge grow with the ranks of a grid
    row, each scanning its part of a row until it finds a parent (less in
    turns, pull's BOTTOM_UP_TURNS: runs with --rule-off bottom-up-turns
    measure the growth of rows that cross nodes)."""
    def per_edge(r):
        bu = r["X"][:, FEATURES.index("E_bu")] * r["P"]
        return float(np.mean(bu / r["nedge"]))
    ones = [per_edge(r) for r in runs if r["P"] == 1]
    pts = [(math.log2(r["C"]), per_edge(r) / np.mean(ones) - 1) for r in runs if r["C"] > 1]
    if not ones or not pts or np.mean(ones) == 0:
        return 0.0
    x, y = np.array([p[0] for p in pts]), np.array([p[1] for p in pts])
    return max(0.0, float(x @ y / (x @ x)))


def paper_grids():
    """The paper's shapes (C = R or 2R) of 1 to 4096 GPUs."""
    out = []
    for P in (1, 2, 4, 16, 64, 256, 1024, 4096):
        lg = int(math.log2(P))
        out.append((1 << (lg // 2), 1 << (lg - lg // 2)))
    return out


def parse_grids(text):
    """"16x1 8x2 4x4" (spaces or commas) as [(R, C), ...]."""
    out = []
    for g in text.replace(",", " ").split():
        try:
            R, C = (int(x) for x in g.lower().split("x"))
        except ValueError:
            raise SystemExit("model.py: --grids: %r is not RxC" % g)
        if R < 1 or C < 1:
            raise SystemExit("model.py: --grids: %r has no ranks" % g)
        out.append((R, C))
    return out


def extrapolate(prof, params, one, gpus_per_node, net_bw, net_lat, node_name, growth, lb=26, grids=None,
                compact=False):
    """Predicted search time and the parts of it on the given grids (the
    paper's by default). node: the fitted costs within a node (bytes and
    rounds of the expand and the fold, the termination per step, the
    predecessors' round). compact: the expand's messages between nodes
    are compact bitmaps where smaller."""
    loc, node = params["local"], params[node_name]
    b = 1 << lb
    # the vertices no earlier frontier held: this step's and the later ones'
    unseen = [sum(s["front"] for s in prof[k:]) for k in range(len(prof))]
    rows = []
    for R, C in grids or paper_grids():
        if R == 1 and C > 1:                         # searched as C x 1 (plan.h ROW_AS_COLUMN)
            R, C = C, 1
        P = R * C
        lg = math.log2(P)
        N = b * P
        t = {"local": 0.0, "expand": 0.0, "fold": 0.0, "visited": 0.0, "term": 0.0}
        bitmap = b / 8 + 4
        steps = 0.0
        bu = loc["E_bu"]
        for k, s in enumerate(prof):
            ran = s["front"] > 0 or s["e_td"] + s["e_bu"] > 0
            steps += ran
            t["local"] += (loc["E_td"] * s["e_td"] * N / P + loc["D_td"] * s["found_td"] * N / R +
                           loc["V_td"] * s["front_td"] * N / C +
                           bu * s["e_bu"] * N / P * (1 + growth * math.log2(C)) +
                           loc["steps"] * ran)
            if P == 1 or not ran:
                continue

            def xchg(n, msg, intra, kind, net_msg=None):
                """A round among n ranks sending msg bytes to each of the
                n - 1 others (net_msg to those in other nodes), `intra` of
                them in the node (at the fitted cost of a byte and a round
                of that exchange)."""
                if n <= 1:
                    return 0.0
                inter = n - 1 - intra
                net_msg = msg if net_msg is None else net_msg
                return (intra * msg * node["B_" + kind] + inter * net_msg / net_bw +
                        (node["rounds_" + kind] if inter == 0 else net_lat * math.ceil(math.log2(n))))
            # ranks i*C + j: a row's first min(C, g) share a node; a column's
            # ranks are C apart
            row_intra = min(C, gpus_per_node) - 1
            col_intra = max(0, min(R, gpus_per_node // C) - 1) if C < gpus_per_node else 0
            msg = min(4 * s["front"] * b, bitmap)
            t["expand"] += xchg(R, msg, col_intra, "expand",
                                min(msg, unseen[k] * b / 8 + 4) if compact else None)
            t["fold"] += xchg(C, min(4 * s["found"] * b, bitmap), row_intra, "fold")
            if R > 1 and C > 1:
                t["fold"] += node["rounds_2d"]
            t["visited"] += s["bottom_up"] * xchg(C, b / 8, row_intra, "fold")
            t["term"] += (node["steps_term"] + node["steps_term_lg"] * lg +
                          (0 if P <= gpus_per_node else net_lat * 2 * lg))
        rest = params["local" if P == 1 else node_name]
        pred = rest["V_pred"] * b + (node["pred_round"] if C > 1 else 0)
        total = sum(t.values()) + pred + rest["search"] + rest["steps_rest"] * steps
        nedge = one["nedge_per_vertex"] * N
        xs = {k: v for k, v in t.items() if k in ("expand", "fold", "visited", "term")}
        rows.append((P, R, C, math.log2(N), total, nedge / total * 1e-9, max(xs, key=xs.get) if P > 1 else "-",
                     t["local"] / total))
    return rows


def split(path):
    """Phases by direction: (name, levels a search, [ms a search per level
    phase], edges a rank) for top-down and bottom-up, then the
    predecessors' ms."""
    with h5py.File(path, "r") as f:
        lp, d = f["level_phase_time"][...], f["level_direction"][...]
        ex, pt = f["edges_examined"][...].astype(float), f["phase_time"][...]
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f.attrs["phase_names"]]
    K, P = d.shape[0], lp.shape[2]
    rows = []
    for name, dv in (("top-down", 0), ("bottom-up", 1)):
        m = (d == dv)[:, :, None]
        rows.append((name, (d == dv).sum() / K, (lp.mean(axis=2) * m).sum(axis=(0, 1)) / K * 1e3,
                     np.where(d == dv, ex, 0).sum() / K / P))
    return names[:lp.shape[3]], rows, pt[:, names.index("pred_resolution")].mean() * 1e3


def split_levels(path, k):
    """Search k's levels: (direction, frontier / N, edges a rank,
    [(mean, max) µs per level phase])."""
    with h5py.File(path, "r") as f:
        lp, d = f["level_phase_time"][k], f["level_direction"][k]
        fs, ex = f["frontier_size"][k], f["edges_examined"][k]
        N = float(f.attrs["num_vertices"])
    P = lp.shape[1]
    return [("BU" if d[l] == 1 else "TD", fs[l] / N, ex[l] / P,
             [(lp[l, :, x].mean() * 1e6, lp[l, :, x].max() * 1e6) for x in range(lp.shape[2])])
            for l in range(len(d)) if d[l] >= 0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("fit", "extrapolate", "split"))
    ap.add_argument("files", nargs="+", help="BFS files (bfs-gpu, with per-rank records)")
    ap.add_argument("--holdout", type=int, default=0, help="fit without the runs of this many GPUs, predict them")
    ap.add_argument("--json", help="write the fitted parameters here")
    ap.add_argument("--gpus-per-node", type=int, default=4)
    ap.add_argument("--net-bw", type=float, default=25e9, help="bytes/s per GPU between nodes (default 25e9: 200 Gb/s)")
    ap.add_argument("--net-lat", type=float, default=5e-6, help="seconds a message between nodes (default 5e-6)")
    ap.add_argument("--node-transport", default="pull", help="extrapolate: whose fitted costs hold within "
                    "a node (pull)")
    ap.add_argument("--per-gpu-scale", type=int, default=26, help="extrapolate: 2^this many vertices a GPU "
                    "(26; the paper's weak scaling used 21)")
    ap.add_argument("--grids", help="extrapolate: these grids, e.g. \"16x1 8x2 4x4\" (default: the "
                    "paper's, 1 to 4096 GPUs with C = R or 2R); a 1xC grid is searched as Cx1")
    ap.add_argument("--compact", action="store_true", help="extrapolate: the expand's messages between nodes "
                    "as compact bitmaps of the vertices no earlier frontier held, where smaller (the mpi "
                    "transport's)")
    ap.add_argument("--search", type=int, help="split: this search's levels one by one (0: the first)")
    ap.add_argument("--tolerance", type=float, default=0.15, help="fit: the largest error allowed on several GPUs")
    o = ap.parse_args()
    if o.mode == "split":
        short = {"expand_exchange": "expand x", "frontier_expansion": "expansion",
                 "fold_exchange": "fold x", "frontier_update": "update", "termination": "term"}
        for p in o.files:
            names, rows, pred = split(p)
            print("%s (ms a search)\n  %-9s %6s  %s  %12s" % (os.path.basename(p), "", "levels",
                  " ".join("%9s" % short.get(n, n) for n in names), "edges/rank"))
            for name, n, ms, e in rows:
                print("  %-9s %6.2f  %s  %12.3g" % (name, n, " ".join("%9.3f" % x for x in ms), e))
            print("  predecessors %.3f ms" % pred)
            if o.search is not None:
                print("  search %d: level dir frontier/N edges/rank, then each phase in us, mean/max over ranks"
                      % o.search)
                for l, (dr, fr, e, ph) in enumerate(split_levels(p, o.search)):
                    print("  %5d %s %9.6f %11.4g  %s" % (l + 1, dr, fr, e,
                          "  ".join("%7.1f/%-7.1f" % mm for mm in ph)))
        return 0
    runs = [load(p) for p in o.files]
    params = fit_all(runs)
    worst = report(runs, params)
    print("# largest error on several GPUs: %.1f %% (tolerance %.0f %%)" % (100 * worst, 100 * o.tolerance))
    if o.holdout:
        train = [r for r in runs if r["P"] != o.holdout]
        held = [r for r in runs if r["P"] == o.holdout]
        if held and train:
            hp = fit_all(train)
            # a transport seen only on the held-out grids keeps its own fit
            for r in held:
                hp.setdefault(r["transport"], params[r["transport"]])
            w = report(held, hp, " (held out)")
            print("# held out %d GPUs: largest error %.1f %%" % (o.holdout, 100 * w))
    for tp, p in params.items():
        print("# %-6s " % tp + "  ".join("%s %.3g" % kv for kv in p.items()))
    if o.json:
        with open(o.json, "w") as f:
            json.dump(params, f, indent=1)
    if o.mode == "extrapolate":
        ones = [r for r in runs if r["P"] == 1]
        if not ones:
            raise SystemExit("model.py: extrapolate needs a one-GPU run among the files")
        one = max(ones, key=lambda r: r["N"])
        prof = profile(one)
        node = params.get(o.node_transport)
        if node is None:
            raise SystemExit("model.py: extrapolate needs %s runs among the files (--node-transport)"
                             % o.node_transport)
        extra = {"nedge_per_vertex": float(np.mean(one["nedge"]) / one["N"])}
        growth = bottom_up_growth(runs)
        gbs = lambda c: 1e-9 / c if c > 0 else float("inf")
        print("# extrapolation: 2^%d vertices a GPU; %d GPUs a node, at %s's fitted costs (expand %.0f GB/s "
              "and %.1f us a round, fold %.0f GB/s and %.1f us); %.0f GB/s and %.1f us a message between "
              "nodes%s; the steps of %s; bottom-up edges examined x (1 + %.3f log2 C)"
              % (o.per_gpu_scale, o.gpus_per_node, o.node_transport, gbs(node["B_expand"]),
                 node["rounds_expand"] * 1e6, gbs(node["B_fold"]), node["rounds_fold"] * 1e6,
                 o.net_bw * 1e-9, o.net_lat * 1e6, ", the expand's as compact bitmaps" if o.compact else "",
                 os.path.basename(one["path"]), growth))
        print("%6s %7s %6s %12s %10s %10s  %s" % ("GPUs", "grid", "scale", "search ms", "GTEPS", "local %", "limited by"))
        for P, R, C, sc, tt, g, lim, lf in extrapolate(prof, params, extra, o.gpus_per_node, o.net_bw,
                                                      o.net_lat, o.node_transport, growth, o.per_gpu_scale,
                                                      parse_grids(o.grids) if o.grids else None, o.compact):
            print("%6d %3dx%-3d %6.3g %12.3f %10.1f %9.0f%%  %s" % (P, R, C, sc, 1e3 * tt, g, 100 * lf, lim))
    return 0 if worst <= o.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
