"""bfs-report's per-rank records (issue 35): /rank_phase_time, /level_bytes,
/level_phase_time and /pred_bytes read when present, shapes and values
checked, and shown as the mean and max over ranks per phase with their
imbalance, bytes per level by exchange, predecessor bytes and each level's
phases (mean and max over ranks), in the text, JSON, CSV and plots.
Expected values computed here from the arrays written, by hand's rules."""
import csv, io, json, math, sys
import xml.etree.ElementTree as ET
import numpy as np
import h5py
from b2ref import Report, TMP
from reportlib import write_bfs, write_valid, report, sattrv, close

R = Report()
SVGNS = "{http://www.w3.org/2000/svg}"
T = TMP
K, L, P = 4, 5, 2
times = [0.010, 0.030, 0.020, 0.040]
nedge = [1000, 1000, 1000, 1000]
frontier = np.zeros((K, L), dtype=np.int64)
frontier[0, :3] = [1, 5, 2]          # search 0: steps 0..2
frontier[1, :4] = [1, 4, 8, 1]       # search 1: steps 0..3
frontier[2, :3] = [1, 6, 3]
frontier[3, :4] = [1, 2, 9, 4]       # search 3 fails validation: left out
rpt = np.array([[[0.001 * (k + 1) * (q + 1) * (p + 1) for p in range(6)] for q in range(P)] for k in range(K)])
lb = np.zeros((K, L, P, 3), dtype=np.int64)
for k in range(K):
    for l in range(L):
        if frontier[k, l] > 0:
            for q in range(P):
                lb[k, l, q] = [100 * (k + 1) + 10 * l + q, 7 * (l + 1) * (q + 1), 3 * k + l]
pb = np.array([[11 * (k + 1), 5 * (k + 2)] for k in range(K)], dtype=np.int64)
lpt = np.zeros((K, L, P, 5))
for k in range(K):
    for l in range(L):
        if frontier[k, l] > 0:
            lpt[k, l] = [[0.0001 * (k + 1) * (l + 2) * (x + 1) * (q + 1) for x in range(5)] for q in range(P)]

def write(name, **over):
    b = write_bfs(T + "/%s.bfs.h5" % name, times, nedge, grid=(1, 2), frontier=frontier)
    with h5py.File(b, "a") as f:
        f["rank_phase_time"] = over.get("rpt", rpt)
        f["level_bytes"] = over.get("lb", lb)
        f["pred_bytes"] = over.get("pb", pb)
        f["level_phase_time"] = over.get("lpt", lpt)
        sattrv(f, "level_bytes_names", over.get("names", ["expand", "fold", "visited"]))
    return b

b = write("r")
v = write_valid(T + "/r.valid.h5", b, passed=[1, 1, 1, 0])
used = [0, 1, 2]
# the hand-computed expectations
pmax = [np.mean([rpt[k, :, p].max() for k in used]) for p in range(6)]
pmean = [np.mean([rpt[k, :, p].mean() for k in used]) for p in range(6)]
imb = [pmax[p] / pmean[p] for p in range(6)]
lbm = {x: [np.mean([lb[k, l, :, x].sum() for k in used if frontier[k, l] > 0]) if any(frontier[k, l] > 0 for k in used) else None
           for l in range(L)] for x in range(3)}
tot = [np.mean([lb[k, :, :, x].sum() for k in used]) for x in range(3)]
pbm = np.mean([pb[k].sum() for k in used])
R.check("reference_imbalance", close(imb[0], 2 / 1.5, 1e-12), str(imb))  # ranks 1x and 2x: max/mean = 2/1.5

p = report(b, v, "--format", "json")
R.eq("json_exit_1_failed_search", p.returncode, 1)
js = json.loads(p.stdout)["runs"][0]
R.check("json_phase_rank_max", all(close(js["phase_rank_max"][i], pmax[i], 1e-12) for i in range(6)), str(js["phase_rank_max"]))
R.check("json_phase_rank_mean", all(close(js["phase_rank_mean"][i], pmean[i], 1e-12) for i in range(6)))
R.check("json_phase_imbalance", all(close(js["phase_imbalance"][i], imb[i], 1e-12) for i in range(6)), str(js["phase_imbalance"]))
names = ["expand", "fold", "visited"]
ok = sorted(js["level_bytes"]) == sorted(names) and all(
    (lbm[x][l] is None and js["level_bytes"][names[x]][l] is None) or close(js["level_bytes"][names[x]][l], lbm[x][l], 1e-12)
    for x in range(3) for l in range(L))
R.check("json_level_bytes_per_exchange", ok, str(js["level_bytes"]) + " want " + str(lbm))
R.check("json_level_bytes_mean_over_searches_with_step", close(js["level_bytes"]["expand"][3], lb[1, 3, :, 0].sum(), 1e-12))
R.check("json_bytes_per_search", all(close(js["bytes_per_search"][names[x]], tot[x], 1e-12) for x in range(3)), str(js["bytes_per_search"]))
R.check("json_pred_bytes", close(js["pred_bytes"], pbm, 1e-12), str(js["pred_bytes"]))
PH5 = ["expand exchange", "frontier expansion", "fold exchange", "frontier update", "termination test"]
for stat, red in (("mean", np.mean), ("max", np.max)):
    want_lp = {x: [np.mean([red(lpt[k, l, :, x]) for k in used if frontier[k, l] > 0]) if any(frontier[k, l] > 0 for k in used) else None
                   for l in range(L)] for x in range(5)}
    ok = sorted(js["level_phases"][stat]) == sorted(PH5) and all(
        (want_lp[x][l] is None and js["level_phases"][stat][PH5[x]][l] is None) or close(js["level_phases"][stat][PH5[x]][l], want_lp[x][l], 1e-12)
        for x in range(5) for l in range(L))
    R.check("json_level_phases_" + stat, ok, str(js["level_phases"][stat]) + " want " + str(want_lp))
# step 3: search 1 alone of the used has it; ranks 1x and 2x: mean 1.5x, max 2x
R.check("json_level_phases_step_of_one_search", close(js["level_phases"]["max"]["fold exchange"][3], lpt[1, 3, 1, 2], 1e-12)
        and close(js["level_phases"]["mean"]["fold exchange"][3], lpt[1, 3, :, 2].mean(), 1e-12))
c = list(csv.DictReader(io.StringIO(report(b, v, "--format", "csv").stdout)))[0]
ph = ["expand_exchange", "frontier_expansion", "fold_exchange", "frontier_update", "termination_test", "predecessor_resolution"]
R.check("csv_phase_max", all(close(float(c["phase_max_" + n]), pmax[i], 1e-12) for i, n in enumerate(ph)))
R.check("csv_phase_imbalance", all(close(float(c["phase_imbalance_" + n]), imb[i], 1e-12) for i, n in enumerate(ph)))
R.check("csv_bytes", all(close(float(c["bytes_" + n]), tot[x], 1e-12) for x, n in enumerate(names)) and close(float(c["pred_bytes"]), pbm, 1e-12))
txt = report(b, v).stdout
R.check("text_phases_over_ranks", "# phases over the 2 ranks" in txt and
        ("#   %-24s %10.4g %10.4g %8.3g" % ("expand exchange", pmean[0], pmax[0], imb[0])) in txt, txt[:2000])
R.check("text_bytes", "# bytes sent per search (summed over ranks and levels): expand %.6g, fold %.6g, visited %.6g" % tuple(tot) in txt
        and "# predecessor resolution: %.6g bytes sent per search" % pbm in txt)
R.check("text_bytes_per_level", ("#      1 %12.6g %12.6g %12.6g" % (lbm[0][1], lbm[1][1], lbm[2][1])) in txt)
l1 = [(np.mean([lpt[k, 1, :, x].mean() for k in used]), np.mean([lpt[k, 1, :, x].max() for k in used])) for x in range(5)]
R.check("text_level_phases", "# phases per level" in txt and
        ("#      1" + "".join(" %10.4g/%-10.4g" % m for m in l1)) in txt, txt[-1500:])
sv = T + "/svg"
report(b, v, "--svg", sv)
phs = ET.parse(sv + "/phases.svg").getroot()
med = 2  # used times 0.010, 0.030, 0.020: the median is search 2
bar = [g for g in phs.iter(SVGNS + "g") if g.get("class") == "bar"][0]
R.eq("phases_bar_is_median_search", bar.get("data-search"), str(med))
marks = {e.get("data-phase"): float(e.get("data-seconds")) for e in phs.iter(SVGNS + "line") if e.get("class") == "rank-max"}
PH = ["expand exchange", "frontier expansion", "fold exchange", "frontier update", "termination test", "predecessor resolution"]
R.check("phases_rank_max_marks", sorted(marks) == sorted(PH) and all(close(marks[PH[p]], rpt[med, :, p].max(), 1e-8) for p in range(6)), str(marks))
by = ET.parse(sv + "/bytes.svg").getroot()
pts = {(e.get("data-exchange"), int(e.get("data-level"))): float(e.get("data-bytes")) for e in by.iter(SVGNS + "path") if e.get("class") == "level-bytes"}
want = {(names[x], l): lbm[x][l] for x in range(3) for l in range(L) if lbm[x][l]}
R.check("bytes_svg_points", pts.keys() == want.keys() and all(close(pts[k], want[k], 1e-8) for k in want), str(pts))
R.check("bytes_svg_in_index", "bytes.svg" in open(sv + "/index.html").read())

# ---- older files: nothing recorded, nothing wrong ----------------------------------------------
o = write_bfs(T + "/old.bfs.h5", times, nedge, grid=(1, 2), frontier=frontier)
ov = write_valid(T + "/old.valid.h5", o)
jo = json.loads(report(o, ov, "--format", "json").stdout)["runs"][0]
R.check("older_file_nulls", all(jo[k] is None for k in ("phase_rank_max", "phase_imbalance", "level_bytes", "pred_bytes", "bytes_per_search", "level_phases")))
co = list(csv.DictReader(io.StringIO(report(o, ov, "--format", "csv").stdout)))[0]
R.check("older_file_empty_csv", co["pred_bytes"] == "" and co["phase_max_expand_exchange"] == "")
R.check("older_file_no_text", "phases over the" not in report(o, ov).stdout)

# ---- bad shapes and values: exit 3 naming the file and dataset -------------------------------------
bad = [("rpt_ranks", {"rpt": np.zeros((K, 3, 6))}, "/rank_phase_time"),
       ("rpt_phases", {"rpt": np.zeros((K, P, 5))}, "/rank_phase_time"),
       ("rpt_rank2", {"rpt": np.zeros((K, P * 6))}, "/rank_phase_time"),
       ("rpt_nan", {"rpt": np.where(rpt > 0.01, np.nan, rpt)}, "/rank_phase_time"),
       ("rpt_negative", {"rpt": -rpt}, "/rank_phase_time"),
       ("lb_levels", {"lb": np.zeros((K, L + 1, P, 3), dtype=np.int64)}, "/level_bytes"),
       ("lb_exchanges", {"lb": np.zeros((K, L, P, 2), dtype=np.int64)}, "/level_bytes"),
       ("lb_negative", {"lb": -lb}, "/level_bytes"),
       ("lb_float", {"lb": lb.astype(np.float64)}, "/level_bytes"),
       ("lb_names", {"names": ["fold", "expand", "visited"]}, "level_bytes_names"),
       ("pb_shape", {"pb": np.zeros(K, dtype=np.int64)}, "/pred_bytes"),
       ("pb_ranks", {"pb": np.zeros((K, 4), dtype=np.int64)}, "/pred_bytes"),
       ("pb_negative", {"pb": -pb - 1}, "/pred_bytes"),
       ("lpt_phases", {"lpt": np.zeros((K, L, P, 6))}, "/level_phase_time"),
       ("lpt_levels", {"lpt": np.zeros((K, L - 1, P, 5))}, "/level_phase_time"),
       ("lpt_negative", {"lpt": -lpt - 1e-3}, "/level_phase_time"),
       ("lpt_inf", {"lpt": np.where(lpt > 0.001, np.inf, lpt)}, "/level_phase_time")]
for tag, over, word in bad:
    bb = write(tag, **over)
    p = report(bb, "--unvalidated")
    R.check("bad_%s" % tag, p.returncode == 3 and bb in p.stderr and word in p.stderr, "exit %d: %s" % (p.returncode, p.stderr))
sys.exit(1 if R.failed else 0)
