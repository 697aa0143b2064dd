#!/usr/bin/env python3
"""bench/model.py — a performance model of bfs-gpu, fitted from BFS files.

    bench/model.py fit BFS.h5... [--holdout N] [--json OUT] [--tolerance 0.15]
    bench/model.py extrapolate BFS.h5... [--gpus-per-node 4] [--net-bw B] [--net-lat S]

The time of one search is the sum over its steps of the local step, the
exchanges before and after it and the termination test, plus the
predecessor resolution (docs/DESIGN.md, "Inside bfs-gpu"):

    t = c_td * E_td + c_bu * E_bu + o * steps              local steps
      + (B_expand + B_fold + B_visited) / bw + lat * rounds  exchanges
      + t_term * steps * [P > 1]                             termination
      + B_pred / bw + lat_pred * [C > 1]                     predecessors

E_td, E_bu: the edges that the slowest rank examines in top-down and
bottom-up steps (the sum over ranks that /edges_examined records, over P:
the recorded per-rank phase times show the imbalance the factor leaves);
B_x: the bytes the busiest rank sends in exchange x at each step, summed
over the steps (/level_bytes, /pred_bytes); rounds: the steps with an expand
exchange (R > 1), with a fold exchange (C > 1) and with a visited exchange.
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
takes the most time."""
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

FEATURES = ("E_td", "E_bu", "steps", "B_xchg", "rounds", "term", "B_pred", "pred")


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
    """One run: its grid and transport, and per search the model's features
    and the measured time."""
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
    R, C = int(a["grid_rows"]), int(a["grid_cols"])
    P = R * C
    steps = (d >= 0).sum(axis=1)
    X = np.zeros((len(t), len(FEATURES)))
    X[:, 0] = np.where(d == 0, ex, 0).sum(axis=1) / P
    X[:, 1] = np.where(d == 1, ex, 0).sum(axis=1) / P
    X[:, 2] = steps
    X[:, 3] = lb.max(axis=2).sum(axis=(1, 2))          # the busiest rank, each step and exchange
    X[:, 4] = ((lb[:, :, :, 0].max(axis=2) > 0).sum(axis=1) * (R > 1) +
               (d >= 0).sum(axis=1) * (C > 1) + (lb[:, :, :, 2].max(axis=2) > 0).sum(axis=1))
    X[:, 5] = steps * (P > 1)
    X[:, 6] = pb.max(axis=1)
    X[:, 7] = C > 1
    return {"path": path, "R": R, "C": C, "P": P, "transport": transport_of(a),
            "scale": int(a.get("scale", 0)), "N": int(a["num_vertices"]), "X": X, "t": t, "nedge": ne,
            "rank_phase": rp, "direction": d, "examined": ex, "front": fs}


def fit(runs):
    """Local coefficients from every run; exchange ones per transport."""
    X = np.concatenate([r["X"] for r in runs])
    y = np.concatenate([r["t"] for r in runs])
    # scale columns so that NNLS is well conditioned, then undo
    s = np.where(X.max(axis=0) > 0, X.max(axis=0), 1)
    coef, _ = nnls(X / s / y[:, None], np.ones(len(y)))   # relative error, least squares
    return coef / s


def fit_all(runs):
    local = [r for r in runs if r["P"] == 1]
    params = {}
    base = fit(local) if local else np.zeros(len(FEATURES))
    params["local"] = dict(zip(FEATURES, base.tolist()))
    for tp in sorted({r["transport"] for r in runs if r["P"] > 1}):
        rs = [r for r in runs if r["transport"] == tp]
        # the local costs stay the one-GPU fit's: the exchanges' and the
        # termination's are this transport's, fitted on what remains
        Xl = np.concatenate([r["X"] for r in rs])
        y = np.concatenate([r["t"] for r in rs])
        rest = y - Xl[:, :3] @ base[:3]
        cols = [3, 4, 5, 6, 7]
        A = Xl[:, cols]
        sc = np.where(A.max(axis=0) > 0, A.max(axis=0), 1)
        c, _ = nnls(A / sc / y[:, None], rest / y)
        full = base.copy()
        full[cols] = c / sc
        params[tp] = dict(zip(FEATURES, full.tolist()))
    return params


def predict(run, params):
    p = params.get(run["transport"]) or params["local"]
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
    """Per step of a one-GPU run, averaged over its searches: the frontier's
    share of the vertices, the share discovered by the step, the edges
    examined per vertex, and the direction."""
    d, ex, fs = run["direction"], run["examined"], run["front"]
    L = d.shape[1]
    N = run["N"]
    prof = []
    for l in range(L):
        m = d[:, l] >= 0
        if m.sum() < max(1, len(d) // 2):
            break
        prof.append({"front": fs[m, l].mean() / N,
                     "found": (fs[m, l + 1].mean() if l + 1 < L else 0.0) / N,
                     "examined": ex[m, l].mean() / N,
                     "bottom_up": float((d[m, l] == 1).mean() > 0.5)})
    return prof


def bottom_up_growth(runs):
    """k in E_bu(C) = E_bu(1) * (1 + k log2 C): the bottom-up edges examined
    per input edge grow with the ranks of a grid row, each scanning its part
    of a row until it finds a parent."""
    def per_edge(r):
        bu = r["X"][:, 1] * r["P"]
        return float(np.mean(bu / r["nedge"]))
    ones = [per_edge(r) for r in runs if r["P"] == 1]
    pts = [(math.log2(r["C"]), per_edge(r) / np.mean(ones) - 1) for r in runs if r["C"] > 1]
    if not ones or not pts or np.mean(ones) == 0:
        return 0.0
    x, y = np.array([p[0] for p in pts]), np.array([p[1] for p in pts])
    return max(0.0, float(x @ y / (x @ x)))


def extrapolate(prof, params, one, gpus_per_node, net_bw, net_lat, nvl_bw, nvl_lat, growth, lb=26):
    """Predicted search time and the parts of it on an R x C grid."""
    loc = params["local"]
    b = 1 << lb
    rows = []
    for P in (1, 2, 4, 16, 64, 256, 1024, 4096):
        lg = int(math.log2(P))
        R, C = 1 << (lg // 2), 1 << (lg - lg // 2)   # the paper's shapes: C = R or 2R
        N = b * P
        t = {"local": 0.0, "expand": 0.0, "fold": 0.0, "visited": 0.0, "term": 0.0}
        bitmap = b / 8 + 4
        for s in prof:
            e = s["examined"] * N / P * ((1 + growth * math.log2(C)) if s["bottom_up"] else 1)
            t["local"] += (loc["E_bu"] if s["bottom_up"] else loc["E_td"]) * e + loc["steps"]
            if P == 1:
                continue

            def xchg(n, msg, intra):
                """A round among n ranks sending msg bytes to each of the
                n - 1 others, `intra` of them in the node."""
                if n <= 1:
                    return 0.0
                inter = n - 1 - intra
                return (intra * msg / nvl_bw + inter * msg / net_bw +
                        (nvl_lat if inter == 0 else net_lat) * math.ceil(math.log2(n)))
            # ranks i*C + j: a row's first min(C, g) share a node; a column's
            # ranks are C apart
            row_intra = min(C, gpus_per_node) - 1
            col_intra = max(0, min(R, gpus_per_node // C) - 1) if C < gpus_per_node else 0
            t["expand"] += xchg(R, min(4 * s["front"] * b, bitmap), col_intra)
            t["fold"] += xchg(C, min(4 * s["found"] * b, bitmap), row_intra)
            if s["bottom_up"]:
                t["visited"] += xchg(C, b / 8, row_intra)
            t["term"] += (nvl_lat if P <= gpus_per_node else net_lat) * 2 * lg
        total = sum(t.values()) + one["pred"]
        nedge = one["nedge_per_vertex"] * N
        xs = {k: v for k, v in t.items() if k in ("expand", "fold", "visited", "term")}
        rows.append((P, R, C, lg + lb, total, nedge / total * 1e-9, max(xs, key=xs.get) if P > 1 else "-",
                     t["local"] / total))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", choices=("fit", "extrapolate"))
    ap.add_argument("files", nargs="+", help="BFS files (bfs-gpu, with per-rank records)")
    ap.add_argument("--holdout", type=int, default=0, help="fit without the runs of this many GPUs, predict them")
    ap.add_argument("--json", help="write the fitted parameters here")
    ap.add_argument("--gpus-per-node", type=int, default=4)
    ap.add_argument("--net-bw", type=float, default=25e9, help="bytes/s per GPU between nodes (default 25e9: 200 Gb/s)")
    ap.add_argument("--net-lat", type=float, default=5e-6, help="seconds a message between nodes (default 5e-6)")
    ap.add_argument("--per-gpu-scale", type=int, default=26, help="extrapolate: 2^this many vertices a GPU "
                    "(26; the paper's weak scaling used 21)")
    ap.add_argument("--tolerance", type=float, default=0.15, help="fit: the largest error allowed on several GPUs")
    o = ap.parse_args()
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
        pull = params.get("pull") or params.get("nccl") or params["local"]
        nvl_bw = 1 / pull["B_xchg"] if pull["B_xchg"] > 0 else 1e12
        nvl_lat = pull["rounds"]
        extra = {"pred": pull["pred"], "nedge_per_vertex": float(np.mean(one["nedge"]) / one["N"])}
        growth = bottom_up_growth(runs)
        print("# extrapolation: 2^%d vertices a GPU, %d GPUs a node on NVLink (%.0f GB/s, %.1f us a round, "
              "fitted), %.0f GB/s and %.1f us a message between nodes; profile of %s; bottom-up "
              "edges examined x (1 + %.3f log2 C)"
              % (o.per_gpu_scale, o.gpus_per_node, nvl_bw * 1e-9, nvl_lat * 1e6, o.net_bw * 1e-9, o.net_lat * 1e6,
                 os.path.basename(one["path"]), growth))
        print("%6s %7s %6s %12s %10s %10s  %s" % ("GPUs", "grid", "scale", "search ms", "GTEPS", "local %", "limited by"))
        for P, R, C, sc, tt, g, lim, lf in extrapolate(prof, params, extra, o.gpus_per_node, o.net_bw,
                                                      o.net_lat, nvl_bw, nvl_lat, growth, o.per_gpu_scale):
            print("%6d %3dx%-3d %6d %12.3f %10.1f %9.0f%%  %s" % (P, R, C, sc, 1e3 * tt, g, 100 * lf, lim))
    return 0 if worst <= o.tolerance else 1


if __name__ == "__main__":
    sys.exit(main())
