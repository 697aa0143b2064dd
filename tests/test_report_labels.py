"""bfs-report where runs compare (issue 36): every run's label (graph, grid,
backend, and its variant or the options that differ from bfs-gpu's
defaults) in every table row, legend, JSON and CSV; --baseline naming the
options that differ; NOISY and small runs marked in the scaling tables and
plots and in index.html; runs that kept no predecessors; threads per rank;
the root rule; and every text of every plot inside its canvas."""
import csv, io, json, os, re, sys
import xml.etree.ElementTree as ET
import numpy as np
import h5py
from b2ref import Report, TMP
from reportlib import write_bfs, write_valid, report, sattr, close

R = Report()
SVGNS = "{http://www.w3.org/2000/svg}"
T = TMP
K = 8
rng = np.random.default_rng(7)
times = list(0.01 * (1 + 0.01 * rng.uniform(size=K)))
nedge = [10000] * K

def bfs(name, t=times, grid=(1, 2), attrs=None, strs=None, **kw):
    b = write_bfs(T + "/%s.bfs.h5" % name, t, [10000] * len(t), grid=grid, **kw)
    with h5py.File(b, "a") as f:
        for k, v in (attrs or {}).items():
            f.attrs[k] = v
        for k, v in (strs or {}).items():
            sattr(f, k, v)
    return b

def pair(name, **kw):
    b = bfs(name, **kw)
    return [b, write_valid(T + "/%s.valid.h5" % name, b)]

# ---- labels: two variants of one graph and grid read apart everywhere --------------------------
auto = pair("auto", strs={"direction": "auto"}, attrs={"alpha": np.float64(15), "threads_per_rank": np.int64(4)})
td = pair("td", strs={"direction": "top-down"}, attrs={"alpha": np.float64(15), "threads_per_rank": np.int64(4)})
var = pair("var", strs={"direction": "top-down", "variant": "fast.v2"})
a8 = pair("a8", attrs={"alpha": np.float64(8), "warmup": np.int64(3)}, strs={"roots_from": "largest-component"})
runs = auto + td + var + a8
want = ["g 1x2 cpu", "g 1x2 cpu direction=top-down", "g 1x2 cpu fast.v2",
        "g 1x2 cpu alpha=8,roots=largest-component,warmup=3"]
p = report(*runs, "--format", "json")
js = json.loads(p.stdout)["runs"]
R.eq("json_labels", [r["label"] for r in js], want)
R.eq("json_variant", [r["variant"] for r in js], [None, None, "fast.v2", None])
R.eq("json_threads_per_rank", [r["threads_per_rank"] for r in js], [4, 4, None, None])
rows = list(csv.DictReader(io.StringIO(report(*runs, "--format", "csv").stdout)))
R.eq("csv_labels", [r["label"] for r in rows], want)
R.eq("csv_variant_threads", [(r["variant"], r["threads_per_rank"]) for r in rows], [("", "4"), ("", "4"), ("fast.v2", ""), ("", "")])
hdr = report(*runs, "--format", "csv").stdout.split("\n")[0].split(",")
old = hdr.index("baseline_commit")
R.check("csv_new_columns_at_the_end", old > 0 and hdr[old + 1:old + 4] == ["label", "variant", "threads_per_rank"]
        and hdr[-1] == "pred_bytes", str(hdr[old:]))
txt = report(*runs).stdout
cmp_ = txt.split("== comparison")[1].split("\n(")[0].splitlines()[2:]
R.check("table_rows_tell_variants_apart", len(cmp_) == 4 and [r.split()[10] for r in cmp_] ==
        ["-", "direction=top-down", "fast.v2", "alpha=8,roots=largest-component,warmup=3"], "\n".join(cmp_))
R.check("table_roots_column", [r.split()[9] for r in cmp_] == ["any", "any", "any", "largest-component"], "\n".join(cmp_))
R.check("text_label_line", "# label g 1x2 cpu direction=top-down\n" in txt)
R.check("text_threads", "backend cpu, devices cpu, exchanges expand none, fold mpi, 4 threads per rank, 8 searches" in txt, txt[:1500])
R.check("text_roots_next_to_hmean", txt.count("# the harmonic mean above: roots any (Graph500's rule") == 3
        and "# the harmonic mean above: roots largest-component" in txt)
sv = T + "/svg"
R.eq("svg_exit", report(*runs, "--svg", sv).returncode, 0)
tp = ET.parse(sv + "/teps.svg").getroot()
legend = [e.text for e in tp.iter(SVGNS + "text") if e.text and e.text.startswith("#")]
R.check("teps_legend_labels", all(any(l.startswith("#%d %s:" % (i + 1, w)) for l in legend) for i, w in enumerate(want)), str(legend))
subs = [e.text for e in tp.iter(SVGNS + "text") if e.get("class") == "subtitle"]
R.check("teps_subtitle_roots", subs and subs[0].startswith("roots: the runs differ"), str(subs))
fr = ET.parse(sv + "/frontier.svg").getroot()
fl = [e.text for e in fr.iter(SVGNS + "text") if e.text and e.text.startswith("#")]
R.check("frontier_legend_labels", all(any(l.startswith("#%d %s" % (i + 1, w)) for l in fl) for i, w in enumerate(want)), str(fl))

# ---- the data path: CUDA runs that differ only in their transport read apart ---------------------
via = {}
for tp, ex in (("pull", "expand cuda-ipc-pull, fold cuda-ipc-pull"), ("nccl", "expand nccl, fold nccl"),
               ("mpi", "expand mpi, fold mpi"), ("ipc", "expand cuda-ipc, fold cuda-ipc")):
    via[tp] = pair("via-" + tp, grid=(2, 2), backend="cuda", gpus=4, strs={"exchange": ex},
                   attrs={"alpha": np.float64(10), "edges_per_thread": np.int64(4)})
js = json.loads(report(*sum(via.values(), []), "--format", "json").stdout)["runs"]
R.eq("labels_name_the_transport_unless_pull", [r["label"] for r in js],
     ["g 2x2 cuda", "g 2x2 cuda transport=nccl", "g 2x2 cuda transport=mpi", "g 2x2 cuda transport=ipc"])

# ---- --evict-first: a CUDA run that forced it reads apart; auto is the default ------------------------
ev = {}
for v in ("auto", "on", "off"):
    ev[v] = pair("evict-" + v, grid=(4, 1), backend="cuda", gpus=4,
                 strs={"exchange": "expand cuda-ipc-pull, fold none", "evict_first": v},
                 attrs={"alpha": np.float64(10), "edges_per_thread": np.int64(4)})
js = json.loads(report(*sum(ev.values(), []), "--format", "json").stdout)["runs"]
R.eq("labels_name_evict_first_unless_auto", [r["label"] for r in js],
     ["g 4x1 cuda", "g 4x1 cuda evict-first=on", "g 4x1 cuda evict-first=off"])
R.eq("json_evict_first", [r["evict_first"] for r in js], ["auto", "on", "off"])

# ---- scaling: variants are series of their own; noise and small samples flagged --------------------
def sc(name, grid, f, direction="auto", n=K):
    return pair(name, t=[t * f for t in times[:n]], grid=grid, fp=77, strs={"direction": direction})
series = sc("s1", (1, 1), 1.0) + sc("s2", (1, 2), 0.5) + sc("t1", (1, 1), 1.2, "top-down") + sc("t2", (1, 2), 0.7, "top-down")
js = json.loads(report(*series, "--format", "json").stdout)
R.eq("scaling_series_per_variant", [g["runs"] for g in js["strong_scaling"]], [[1, 2], [3, 4]])
R.check("scaling_series_labels", [g["label"] for g in js["strong_scaling"]] == ["g, cpu", "g, cpu, direction=top-down"],
        str([g["label"] for g in js["strong_scaling"]]))
txt = report(*series).stdout
st = [l for l in txt.split("== strong scaling: g, cpu (roots any)")[1].split("\n\n")[0].splitlines() if l[:5].strip().isdigit()]
hm = lambda t: len(t) / sum(np.array(t) / 10000.0)
eff = 100 * hm([t * 0.5 for t in times]) / hm(times) / 2
R.check("strong_efficiency_flagged_few", len(st) == 2 and ("%.1f%% (NBFS<64)" % eff) in st[1] and st[1].rstrip().endswith("NBFS<64"),
        "\n".join(st))
R.check("strong_table_note", "(an efficiency marked NOISY or NBFS<64" in txt)
noisy_t = list(0.01 * np.exp(rng.uniform(-1.5, 1.5, 64)))
big = pair("n1", t=[0.01] * 64, grid=(1, 1), fp=88) + pair("n2", t=noisy_t, grid=(1, 2), fp=88)
txt = report(*big).stdout
st = [l for l in txt.split("== strong scaling")[1].split("\n\n")[0].splitlines() if l[:5].strip().isdigit()]
eff = 100 * hm(noisy_t) * 64 / 10000.0 / (hm([0.01] * 64) * 64 / 10000.0) / 2
R.check("strong_efficiency_flagged_noisy", len(st) == 2 and "(NOISY)" in st[1] and "NOISY" not in st[0] and "NBFS" not in "".join(st),
        "\n".join(st))
sv2 = T + "/svg_sc"
report(*big, "--svg", sv2)
scg = ET.parse(sv2 + "/scaling.svg").getroot()
R.eq("scaling_plot_noisy_mark", {e.get("data-run"): e.text for e in scg.iter(SVGNS + "text") if e.get("class") == "flag-doubt"}, {"2": "NOISY"})
html = open(sv2 + "/index.html").read()
items = re.findall(r"<li>(.*?)</li>", html)
R.check("index_marks_noisy", len(items) == 2 and "NOISY" in items[1] and "NOISY" not in items[0], str(items))
report(*series, "--svg", T + "/svg_few")
items = re.findall(r"<li>(.*?)</li>", open(T + "/svg_few/index.html").read())
R.check("index_marks_few_searches", len(items) == 4 and all("NBFS &lt; 64" in x for x in items), str(items))

# ---- --baseline names the options that differ -------------------------------------------------------
oldj = T + "/old.json"
open(oldj, "w").write(report(*auto, "--format", "json").stdout)
p = report(*td, "--baseline", oldj)
line = [l for l in p.stdout.splitlines() if l.startswith("# baseline ")]
R.check("baseline_text_options_differ", len(line) == 1 and line[0].endswith("; OPTIONS DIFFER: direction top-down (baseline auto)"), str(line))
jb = json.loads(report(*td, "--baseline", oldj, "--format", "json").stdout)["runs"][0]
R.eq("baseline_json_option_diffs", jb["baseline_option_diffs"], [{"option": "direction", "run": "top-down", "baseline": "auto"}])
cb = list(csv.DictReader(io.StringIO(report(*td, "--baseline", oldj, "--format", "csv").stdout)))[0]
R.eq("baseline_csv_option_diffs", cb["baseline_option_diffs"], "direction=top-down (baseline auto)")
same = pair("same", strs={"direction": "auto"}, attrs={"alpha": np.float64(15), "threads_per_rank": np.int64(4)})
jb = json.loads(report(*same, "--baseline", oldj, "--format", "json").stdout)["runs"][0]
R.eq("baseline_json_same_options", jb["baseline_option_diffs"], [])
thr = pair("thr", strs={"direction": "auto"}, attrs={"alpha": np.float64(15), "threads_per_rank": np.int64(1)})
jb = json.loads(report(*thr, "--baseline", oldj, "--format", "json").stdout)["runs"][0]
R.eq("baseline_json_threads_differ", jb["baseline_option_diffs"], [{"option": "threads_per_rank", "run": "1", "baseline": "4"}])

oldv = T + "/oldv.json"
open(oldv, "w").write(report(*var, "--format", "json").stdout)
nov = pair("novar", strs={"direction": "top-down", "variant": ""})
jb = json.loads(report(*nov, "--baseline", oldv, "--format", "json").stdout)["runs"][0]
R.eq("baseline_json_variant_none_differs", jb["baseline_option_diffs"], [{"option": "variant", "run": "", "baseline": "fast.v2"}])

# ---- runs that kept no predecessors --------------------------------------------------------------
MARK = "no predecessors kept; rerun bfs-gpu with --keep-pred all (or N) and bfs-validate to validate"
nb = bfs("nopred")
with h5py.File(nb, "a") as f:
    del f["kept"], f["pred"]
    f["kept"] = np.zeros(0, dtype=np.int64)
    f["pred"] = np.zeros((0, 1024), dtype=np.int64)
nv = write_valid(T + "/nopred.valid.h5", nb, search=np.zeros(0, dtype=np.int64))
for tag, args in (("pair", [nb, nv]), ("alone", [nb, "--unvalidated"])):
    p = report(*args)
    R.check("nopred_%s_exit_0" % tag, p.returncode == 0, p.stderr)
    R.check("nopred_%s_text" % tag, "# UNVALIDATED: " + MARK in p.stdout and "NBFS:                           %d" % K in p.stdout, p.stdout[:800])
    j = json.loads(report(*args, "--format", "json").stdout)["runs"][0]
    R.check("nopred_%s_json" % tag, j["validated"] is False and j["unvalidated_reason"] == MARK and j["NBFS"] == K, str(j["validated"]))
    c = list(csv.DictReader(io.StringIO(report(*args, "--format", "csv").stdout)))[0]
    R.check("nopred_%s_csv" % tag, c["validated"] == "0" and c["unvalidated_reason"] == MARK)
    report(*args, "--svg", T + "/svg_np_" + tag)
    fl = [e.text for e in ET.parse(T + "/svg_np_%s/teps.svg" % tag).getroot().iter(SVGNS + "text") if e.get("class") == "flag-unvalidated"]
    R.check("nopred_%s_plot" % tag, fl == ["UNVALIDATED: no predecessors kept"], str(fl))
p = report(nb)
R.check("nopred_alone_needs_unvalidated", p.returncode == 2, p.stderr)
kb = bfs("kept")
p = report(kb, write_valid(T + "/kept.valid.h5", kb, search=np.zeros(0, dtype=np.int64)))
R.check("empty_validation_of_kept_run_refused", p.returncode == 3 and "empty validation" in p.stderr, p.stderr)

# ---- every text of every plot inside its canvas --------------------------------------------------
def fits(path):
    """Every <text> within the viewBox, its width estimated as characters x font size x 0.6."""
    root = ET.parse(path).getroot()
    vx, vy, vw, vh = (float(x) for x in root.get("viewBox").split())
    bad = []
    def walk(e, fs, anchor):
        fs = float(e.get("font-size", fs))
        anchor = e.get("text-anchor", anchor)
        if e.tag == SVGNS + "text":
            s = "".join(e.itertext())
            w = len(s) * fs * 0.6
            x, y = float(e.get("x", 0)), float(e.get("y", 0))
            lo = -w / 2 if anchor == "middle" else -w if anchor == "end" else 0
            if "rotate(-90" in (e.get("transform") or ""):
                box = (x - fs, y - lo - w, x + 0.25 * fs, y - lo)
            else:
                box = (x + lo, y - fs, x + lo + w, y + 0.25 * fs)
            if box[0] < vx - 0.5 or box[1] < vy - 0.5 or box[2] > vx + vw + 0.5 or box[3] > vy + vh + 0.5:
                bad.append((s[:60], [round(b) for b in box]))
        for c in e:
            walk(c, fs, anchor)
    walk(root, 12, "start")
    return bad
longg = pair("long", edges_file="data/" + "a-very-long-graph-name-" * 5 + ".h5", strs={"variant": "v" * 60}, fp=99)
dirs = [sv, sv2, T + "/svg_few", T + "/svg_np_pair"]
report(*longg, *runs, *big, "--svg", T + "/svg_long")
dirs.append(T + "/svg_long")
for d in dirs:
    for n in sorted(os.listdir(d)):
        if n.endswith(".svg"):
            bad = fits(os.path.join(d, n))
            R.check("text_inside_canvas_%s_%s" % (os.path.basename(d), n), not bad, str(bad[:3]))
sys.exit(1 if R.failed else 0)
