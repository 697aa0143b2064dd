"""Issue 32, section 3: what a benchmarking user reads. --baseline in text,
for one run, with the baseline's commit and a verdict against the spread;
the NOISY and NBFS < 64 flags in text, JSON and plots; --progress on a log
(whole lines, no carriage returns, 1 and 2 ranks); the plots (no empty
scaling panel, the no-bottom-up note only where true, coinciding frontier
lines told apart, a linear TEPS axis however wide the spread, oversubscribed
runs marked visibly, error bars of the harmonic mean); construction_time with bfs-gpu's
build at load. Files written with h5py as docs/FORMATS.md describes them."""
import json, math, os, re, subprocess, sys
import xml.etree.ElementTree as ET
import numpy as np
import h5py
import b2ref
from b2ref import Report, TMP
from reportlib import write_bfs, write_valid, report, close

R = Report()
P = lambda n: os.path.join(TMP, n)
SVGNS = "{http://www.w3.org/2000/svg}"

def hm(t, n):
    return len(t) / sum(np.asarray(t) / np.asarray(n))

def g500(times, nedge):
    """harmonic mean and Graph500's harmonic_stddev_TEPS"""
    inv = np.asarray(times) / np.asarray(nedge)
    k = len(inv)
    return 1 / inv.mean(), inv.std(ddof=1) / (inv.mean() ** 2 * math.sqrt(k - 1))

rng = np.random.default_rng(7)
K = 64
steady = list(0.010 * (1 + 0.02 * rng.standard_normal(K)))   # 2 % spread
ne = [100000] * K

# ---- --baseline: text for one run, commit, verdict ----------------------------------------
base = write_bfs(P("base.bfs.h5"), steady, ne, grid=(1, 2), fp=21)
with h5py.File(base, "a") as f:
    f.attrs["git_commit"] = np.bytes_(b"abc1234")
basev = write_valid(P("base.valid.h5"), base)
old = P("old.json")
open(old, "w").write(report(base, basev, "--format", "json").stdout)
cases = {"faster": [t / 1.5 for t in steady], "slower": [t * 1.5 for t in steady],
         "within noise": [t * 1.001 for t in steady]}
for verdict, tt in cases.items():
    tag = verdict.replace(" ", "_")
    b = write_bfs(P("%s.bfs.h5" % tag), tt, ne, grid=(1, 2), fp=21)
    v = write_valid(P("%s.valid.h5" % tag), b)
    p = report(b, v, "--baseline", old)
    h1, s1 = g500(tt, ne)
    h0, s0 = g500(steady, ne)
    want = "faster" if h1 - h0 > 2 * math.hypot(s1, s0) else "slower" if h0 - h1 > 2 * math.hypot(s1, s0) else "within noise"
    R.eq("baseline_reference_verdict_%s" % tag, want, verdict)
    line = [l for l in p.stdout.splitlines() if l.startswith("# baseline ")]
    R.check("baseline_text_one_run_%s" % tag, p.returncode == 0 and len(line) == 1 and "run 1 (commit abc1234)" in line[0]
            and line[0].endswith(", " + verdict + "; the same recorded options"), "\n".join(line) or p.stdout[-400:])
    m = re.search(r"speed-up ([0-9.e+-]+)", line[0]) if line else None
    R.check("baseline_text_speedup_%s" % tag, m is not None and close(float(m.group(1)), h1 / h0, 1e-2), str(line))
    js = json.loads(report(b, v, "--baseline", old, "--format", "json").stdout)["runs"][0]
    R.check("baseline_json_%s" % tag, js["baseline_verdict"] == verdict and js["baseline_commit"] == "abc1234"
            and close(js["baseline_speedup"], h1 / h0, 1e-12), str({k: js[k] for k in ("baseline_verdict", "baseline_commit")}))
# several runs: the verdict in the comparison table too
o2 = write_bfs(P("other.bfs.h5"), steady, ne, grid=(2, 2), fp=21)
o2v = write_valid(P("other.valid.h5"), o2)
txt = report(P("faster.bfs.h5"), P("faster.valid.h5"), o2, o2v, "--baseline", old).stdout
rows = [l.split() for l in txt.split("== comparison")[1].splitlines()[2:4]] if "== comparison" in txt else []
R.check("baseline_table_verdict", len(rows) == 2 and rows[0][10] == "faster" and rows[1][9] == "-", str(rows))
R.check("baseline_no_match_said_in_text", "# baseline %s: no run of the same graph and grid" % old in txt, txt[-600:])
R.check("tables_first_with_several_runs", txt.startswith("== comparison"), txt[:100])

# ---- noise and the count of searches --------------------------------------------------------
noisy_t = list(0.010 * np.exp(rng.uniform(-1, 1, K)))
n1 = write_bfs(P("noisy.bfs.h5"), noisy_t, ne, fp=31)
n1v = write_valid(P("noisy.valid.h5"), n1)
spe = np.asarray(noisy_t) / np.asarray(ne)
cv = spe.std(ddof=1) / spe.mean()
R.check("noisy_reference_over_threshold", cv > 0.25, str(cv))
st = write_bfs(P("steady.bfs.h5"), steady, ne, fp=32)
stv = write_valid(P("steady.valid.h5"), st)
few = write_bfs(P("few.bfs.h5"), steady[:8], ne[:8], fp=33)
fewv = write_valid(P("few.valid.h5"), few)
sv = P("svg")
p = report(n1, n1v, st, stv, few, fewv, "--svg", sv)
R.eq("flags_exit", p.returncode, 0)
blocks = p.stdout.split("== run ")[1:]
R.check("noisy_text", len(blocks) == 3 and "# NOISY:" in blocks[0] and "%.2f" % cv in blocks[0] and "# NOISY" not in blocks[1]
        and "# NOISY" not in blocks[2], p.stdout[:300])
R.check("few_text", len(blocks) == 3 and "# FEW SEARCHES: NBFS 8 < 64" in blocks[2] and "FEW SEARCHES" not in blocks[0]
        and "FEW SEARCHES" not in blocks[1])
tl = p.stdout.split("\n")
R.check("flags_table", "(NBFS<64: fewer than 64 searches, not Graph500 results: run 3)" in p.stdout and tl[2].endswith(" NOISY")
        and not tl[3].endswith("NOISY") and tl[4].endswith(" NBFS<64"), p.stdout[:700])
js = json.loads(report(n1, n1v, st, stv, few, fewv, "--format", "json").stdout)["runs"]
R.check("flags_json", [r["noisy"] for r in js] == [True, False, False] and [r["graph500_nbfs"] for r in js] == [True, True, False]
        and close(js[0]["rate_cv"], cv, 1e-9) and close(js[0]["time_max_over_min"], max(noisy_t) / min(noisy_t), 1e-9))
tp = ET.parse(sv + "/teps.svg").getroot()
fl = {(e.get("class"), e.get("data-run")) for e in tp.iter(SVGNS + "text") if (e.get("class") or "").startswith("flag-")}
R.eq("flags_teps_svg", fl, {("flag-noisy", "1"), ("flag-few", "3")})
ph = ET.parse(sv + "/phases.svg").getroot()
fl = {(e.get("class"), e.get("data-run")) for e in ph.iter(SVGNS + "text") if (e.get("class") or "").startswith("flag-")}
R.eq("flags_phases_svg", fl, {("flag-noisy", "1"), ("flag-few", "3")})

# ---- plots ---------------------------------------------------------------------------------
# one run: no scaling panel in index.html
p = report(st, stv, "--svg", P("one"))
html = open(P("one/index.html")).read()
R.check("single_run_no_scaling_panel", p.returncode == 0 and "scaling.svg" not in html and "teps.svg" in html)
sc = ET.parse(P("one/scaling.svg")).getroot()
R.check("single_run_scaling_file_has_no_axes", not list(sc.iter(SVGNS + "line")) and int(sc.get("height")) < 200)
# the no-bottom-up note: only under bars without a bottom-up part
def with_dirs(path, bu_share):
    with h5py.File(path, "a") as f:
        pt = f["phase_time"][...]
        e = np.stack([pt[:, 1] * (1 - bu_share), pt[:, 1] * bu_share], axis=1)
        f["expansion_time"] = e
        L = f["frontier_size"].shape[1]
        f["level_direction"] = np.zeros((len(pt), L), dtype=np.int8)
        f["edges_examined"] = np.zeros((len(pt), L), dtype=np.int64)
bu = write_bfs(P("bu.bfs.h5"), steady[:8], ne[:8], fp=41)
with_dirs(bu, 0.5)
td = write_bfs(P("td.bfs.h5"), steady[:8], ne[:8], fp=41)
with_dirs(td, 0.0)
nod = write_bfs(P("nodir.bfs.h5"), steady[:8], ne[:8], fp=41)
runs = [bu, write_valid(P("bu.valid.h5"), bu), td, write_valid(P("td.valid.h5"), td), nod, write_valid(P("nodir.valid.h5"), nod)]
report(*runs, "--svg", P("ph"))
ph = ET.parse(P("ph/phases.svg")).getroot()
notes = {e.get("data-run"): e.text for e in ph.iter(SVGNS + "text") if e.get("class") == "no-bottom-up"}
R.eq("no_bottom_up_note_only_where_true", notes, {"2": "(no bottom-up step)", "3": "(no direction data)"})
R.check("no_bottom_up_legend_note_gone", not [e for e in ph.iter(SVGNS + "text") if e.text and "no bottom-up part" in e.text])
# identical frontier lines: the repeat dashed, and said so
fr = ET.parse(P("ph/frontier.svg")).getroot()
ser = {g.get("data-run"): g for g in fr.iter(SVGNS + "g") if g.get("class") == "series"}
dashes = [ser[k].find(SVGNS + "polyline").get("stroke-dasharray") for k in ("1", "2", "3")]
R.check("identical_frontiers_distinguishable", ser["1"].get("data-same-as") is None and ser["2"].get("data-same-as") == "1"
        and ser["3"].get("data-same-as") == "1" and dashes[0] is None and dashes[1] and dashes[2] and dashes[1] != dashes[2], str(dashes))
R.check("identical_frontiers_legend", any(e.text and "(same as #1" in e.text for e in ser["2"].iter(SVGNS + "text")))
# the TEPS axis: linear however wide the spread (a bar's length is its rate)
slow = write_bfs(P("slow.bfs.h5"), [t * 100 for t in steady[:8]], ne[:8], fp=51)
report(st, stv, slow, write_valid(P("slow.valid.h5"), slow), "--svg", P("wide"))
scale = lambda d: ET.parse(d + "/teps.svg").getroot().find(SVGNS + "desc").text
R.eq("teps_linear_axis_when_wide", scale(P("wide")), "linear")
R.eq("teps_linear_axis_when_narrow", scale(P("one")), "linear")
fr1 = ET.parse(P("wide/frontier.svg")).getroot()  # 64 and 8 searches: other means
R.check("different_frontiers_solid", len([g for g in fr1.iter(SVGNS + "g") if g.get("class") == "series"]) == 2
        and not [g for g in fr1.iter(SVGNS + "g") if g.get("data-same-as")]
        and not [e for e in fr1.iter(SVGNS + "polyline") if e.get("stroke-dasharray")])
wt = ET.parse(P("wide/teps.svg")).getroot()
bars = {e.get("data-run"): float(e.get("height")) for e in wt.iter(SVGNS + "rect") if e.get("class") == "teps" and e.get("data-search") == "0"}
R.check("teps_linear_bars_proportional", "1" in bars and "2" in bars and close(bars["1"] / bars["2"], 100.0, 1e-2), str(bars))
# scaling: error bars of the plotted harmonic mean, oversubscribed marked visibly
def srun(name, grid, scale_t, over=False):
    b = write_bfs(P(name + ".bfs.h5"), [t * scale_t for t in steady[:16]], ne[:16], grid=grid, fp=61)
    if over:
        with h5py.File(b, "a") as f:
            f.attrs.update(oversubscribed=np.int64(1), ranks_per_node=np.int64(4), cores_per_node=np.int64(2))
    return [b, write_valid(P(name + ".valid.h5"), b)]
sargs = srun("s1", (1, 1), 1.0) + srun("s2", (1, 2), 0.6) + srun("s4", (2, 2), 0.4, over=True)
report(*sargs, "--svg", P("sc"))
sc = ET.parse(P("sc/scaling.svg")).getroot()
jr = json.loads(report(*sargs, "--format", "json").stdout)["runs"]
eb = {e.get("data-run"): e for e in sc.iter(SVGNS + "path") if e.get("class") == "errorbar"}
# bars: the harmonic mean plus and minus its standard error, from the times themselves
def hm_se(t, n):
    spe = np.asarray(t) / np.asarray(n, dtype=float)
    m = spe.mean()
    return 1 / m, spe.std(ddof=1) / (m * m * math.sqrt(len(spe) - 1))
sref = [hm_se([t * f for t in steady[:16]], ne[:16]) for f in (1.0, 0.6, 0.4)]
R.check("scaling_error_bars_standard_error_of_hmean", sorted(eb) == ["1", "2", "3"] and all(
    close(float(eb[str(i + 1)].get("data-lo")), sref[i][0] - sref[i][1], 1e-8) and
    close(float(eb[str(i + 1)].get("data-hi")), sref[i][0] + sref[i][1], 1e-8) for i in range(3)), str(list(eb)))
notes = " ".join(e.text or "" for e in sc.iter(SVGNS + "text") if e.get("class") == "subtitle")
R.check("scaling_says_what_bars_show", "bars: plus or minus its standard error" in notes and "point: harmonic mean" in notes
        and "roots: any" in notes, notes)
doubt = {e.get("data-run"): e.text for e in sc.iter(SVGNS + "text") if e.get("class") == "flag-doubt"}
R.eq("scaling_points_marked_few_searches", doubt, {"1": "NBFS<64", "2": "NBFS<64", "3": "NBFS<64"})
ov = [e.get("data-run") for e in sc.iter() if e.get("class") in ("oversubscribed", "flag-oversubscribed")]
R.eq("scaling_oversubscribed_visible", sorted(ov), ["3", "3"])
R.check("scaling_panel_in_index", "scaling.svg" in open(P("sc/index.html")).read())

# ---- construction_time: partition2d's and bfs-gpu's build ------------------------------------
cb = write_bfs(P("cons.bfs.h5"), steady[:8], ne[:8], fp=71)
with h5py.File(cb, "a") as f:
    f.attrs.update(load_build_time=np.float64(0.5), load_read_time=np.float64(0.25), load_time=np.float64(0.75))
cv_ = write_valid(P("cons.valid.h5"), cb)
p = report(cb, cv_)
R.check("construction_time_block", re.search(r"^construction_time: +0\.625$", p.stdout, re.M) is not None, p.stdout[:900])
R.check("construction_time_split_shown", "construction_time 0.625 s = partition2d 0.125 s + bfs-gpu's build at load 0.5 s" in p.stdout)
js = json.loads(report(cb, cv_, "--format", "json").stdout)["runs"][0]
R.check("construction_time_json", js["construction_time"] == 0.625 and js["partition_time"] == 0.125 and js["load_build_time"] == 0.5)

# ---- --progress on a log: whole lines, on 1 and 2 ranks --------------------------------------
env = dict(os.environ)
env.pop("B2_PROGRESS", None)
env.pop("SLURM_PTY_PORT", None)
for np_ in (1, 2):
    p = b2ref.run(np_, "rmat-gen", "-s", 12, "-e", 8, "--progress", "-o", P("prog%d.h5" % np_), check=False, env=env)
    R.check("progress_log_%dranks_no_carriage_return" % np_, p.returncode == 0 and "\r" not in p.stderr
            and "generating" in p.stderr and "done in" in p.stderr, repr(p.stderr[:300]))
    R.check("progress_log_%dranks_whole_lines" % np_, p.stderr.endswith("\n") and all(
        l.startswith("rmat-gen") for l in p.stderr.splitlines() if l.strip()), repr(p.stderr[:300]))
    R.check("progress_log_%dranks_no_padding" % np_, not re.search(r" {4,}$", p.stderr, re.M), repr(p.stderr[:300]))
sys.exit(1 if R.failed else 0)
