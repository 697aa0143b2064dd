"""bfs-report for campaigns (issue 15): --append twice, --baseline, the
direction datasets (phases split, edges examined, frontier direction marks),
marks for oversubscribed runs and tiny components, index.html's contents.
Files written with h5py as docs/FORMATS.md describes them."""
import csv, io, json, os, re, subprocess, sys
import xml.etree.ElementTree as ET
import numpy as np
import h5py
from b2ref import Report, BIN, TMP
from reportlib import write_bfs, write_valid, report, close

R = Report()
SVGNS = "{http://www.w3.org/2000/svg}"
T = TMP

def with_directions(path, ldir, exam, expdir, **attrs):
    with h5py.File(path, "a") as f:
        f["level_direction"] = np.asarray(ldir, dtype=np.int8)
        f["edges_examined"] = np.asarray(exam, dtype=np.int64)
        f["level_time"] = np.zeros(np.shape(ldir))
        f["expansion_time"] = np.asarray(expdir, dtype=np.float64)
        for k, v in attrs.items():
            f.attrs[k] = v

K = 4
times = [0.01, 0.02, 0.015, 0.012]
nedge = [10000, 10100, 9900, 10050]
phase = np.array([[0.001, 0.004, 0.002, 0.001, 0.0005, 0.0005]] * K) * np.arange(1, K + 1)[:, None]
exp = np.stack([phase[:, 1] * 0.25, phase[:, 1] * 0.75], axis=1)
ldir = np.array([[0, 1, 1, 0, -1]] * 3 + [[0, 0, 1, 0, -1]], dtype=np.int8)
exam = np.array([[10, 3000, 2000, 40, 0]] * K, dtype=np.int64)
a = write_bfs(T + "/a.bfs.h5", times, nedge, phase=phase, grid=(1, 2), fp=11)
with_directions(a, ldir, exam, exp, oversubscribed=np.int64(1), ranks_per_node=np.int64(4), cores_per_node=np.int64(2))
av = write_valid(T + "/a.valid.h5", a)
b = write_bfs(T + "/b.bfs.h5", [t / 2 for t in times], nedge, grid=(2, 2), fp=11)  # older file: no direction datasets
bv = write_valid(T + "/b.valid.h5", b)
c = write_bfs(T + "/c.bfs.h5", times, [10000, 50, 10000, 10000], grid=(1, 2), fp=12, scale=11)
cv = write_valid(T + "/c.valid.h5", c)

# ---- the direction datasets -----------------------------------------------------
js = json.loads(report(a, av, "--format", "json").stdout)["runs"][0]
want = np.mean([exam[k].sum() / (2.0 * nedge[k]) for k in range(K)])
R.check("edges_examined_ratio", close(js["edges_examined_ratio"], want, 1e-12), "%r %r" % (js["edges_examined_ratio"], want))
R.check("expansion_mean", close(js["expansion_mean"][0], exp[:, 0].mean(), 1e-12) and close(js["expansion_mean"][1], exp[:, 1].mean(), 1e-12))
txt = report(a, av).stdout
R.check("text_edges_examined", "# edges examined: %.3g times" % want in txt, txt[:900])
R.check("text_oversubscribed", "# OVERSUBSCRIBED: 4 ranks on a node with 2 cores" in txt)
R.eq("json_oversubscribed", js["oversubscribed"], True)

sv = T + "/svg"
p = report(a, av, b, bv, c, cv, "--svg", sv)
R.eq("svg_exit", p.returncode, 0)
ph = ET.parse(sv + "/phases.svg").getroot()
rects = [e for e in ph.iter(SVGNS + "rect") if e.get("class") == "phase" and e.get("data-run") == "1"]
med = 3  # the median search by time: 0.01, 0.012 (search 3), 0.015, 0.02 -> the lower middle one
td = [e for e in rects if e.get("data-direction") == "top-down"]
bu = [e for e in rects if e.get("data-direction") == "bottom-up"]
R.check("phases_expansion_split", len(td) == 1 and len(bu) == 1 and td[0].get("data-phase") == "frontier expansion"
        and close(float(td[0].get("data-seconds")), exp[med, 0], 1e-8) and close(float(bu[0].get("data-seconds")), exp[med, 1], 1e-8))
names = {e.get("data-phase") for e in rects}
R.check("phases_all_six_present", {"expand exchange", "frontier expansion", "fold exchange", "frontier update",
                                   "termination test", "predecessor resolution"} <= names, str(names))
total = sum(float(e.get("data-seconds")) for e in rects)
R.check("phases_bar_adds_up_to_median_search_time", close(total, max(times[med], phase[med].sum()), 1e-7), "%r" % total)
fr = ET.parse(sv + "/frontier.svg").getroot()
d1 = {int(e.get("data-level")): e.get("data-direction") for e in fr.iter() if e.get("class") == "frontier" and e.get("data-run") == "1"}
R.eq("frontier_direction_per_level", [d1[l] for l in sorted(d1)], ["top-down", "mixed", "bottom-up", "top-down"])
d2 = {e.get("data-direction") for e in fr.iter() if e.get("class") == "frontier" and e.get("data-run") == "2"}
R.eq("frontier_older_file_direction_unknown", d2, {"unknown"})
ticks = [e.text for e in fr.iter(SVGNS + "text") if e.get("class") == "tick"]
R.check("frontier_readable_log_ticks", ticks and all(re.match(r"^[0-9.]+[kMGTP]?$", t) for t in ticks), str(ticks))
cols = [g.get("data-color") for g in fr.iter(SVGNS + "g") if g.get("class") == "series"]
R.check("frontier_distinct_colours", len(cols) == 3 and len(set(cols)) == 3, str(cols))
# many runs: still one colour each
many = []
for i in range(12):
    x = write_bfs(T + "/m%d.bfs.h5" % i, times, nedge, fp=100 + i)
    many += [x, write_valid(T + "/m%d.valid.h5" % i, x)]
report(*many, "--svg", T + "/svg12")
cols = [g.get("data-color") for g in ET.parse(T + "/svg12/frontier.svg").getroot().iter(SVGNS + "g") if g.get("class") == "series"]
R.check("frontier_twelve_distinct_colours", len(cols) == 12 and len(set(cols)) == 12, str(cols))
tp = ET.parse(T + "/svg12/teps.svg").getroot()
R.eq("teps_one_chart_for_many_runs", len([e for e in tp.iter(SVGNS + "g") if e.get("class") == "panel"]), 12)
# one scale for all runs: run 2 (twice as fast) has bars twice as high as run 1
t3 = ET.parse(sv + "/teps.svg").getroot()
hgt = {e.get("data-run"): float(e.get("height")) for e in t3.iter(SVGNS + "rect")
       if e.get("class") == "teps" and e.get("data-search") == "0"}
R.check("teps_shared_scale", close(hgt["2"] / hgt["1"], 2.0, 1e-3), str(hgt))
# the harmonic-mean labels are under the chart, below every bar
bottom = max(float(e.get("y")) + float(e.get("height")) for e in tp.iter(SVGNS + "rect") if e.get("class") == "teps")
labels = [e for e in tp.iter(SVGNS + "text") if e.text and "harmonic mean" in e.text and "dashed" not in e.text]
R.check("teps_labels_not_over_bars", labels and all(float(e.get("y")) > bottom for e in labels), str(bottom))

# ---- index.html -----------------------------------------------------------------
html = open(sv + "/index.html").read()
R.check("index_has_graph500_block", "bfs  harmonic_mean_TEPS:" in html and "construction_time:" in html)
R.check("index_has_tables", "== comparison" in html and "== strong scaling" in html)
R.check("index_links_data", 'href="report.json"' in html and 'href="report.csv"' in html)
try:
    j = json.load(open(sv + "/report.json"))
    rows = list(csv.DictReader(open(sv + "/report.csv")))
    R.check("index_data_files_parse", len(j["runs"]) == 3 and len(rows) == 3)
except (OSError, ValueError, KeyError) as e:
    R.check("index_data_files_parse", False, str(e))

# ---- comparison: speed-up only within a graph; tiny components --------------------
txt = report(a, av, b, bv, c, cv).stdout
def comparison(txt):
    ls = txt.splitlines()
    i = next(i for i, l in enumerate(ls) if l.startswith("== comparison"))
    out = []
    for l in ls[i + 2:]:
        if not l.strip() or l.startswith("("):
            break
        out.append(l.split())
    return out
rows = {r[0]: r for r in comparison(txt)}
hm = lambda t, n: len(t) / sum(np.array(t) / np.array(n))
R.check("speedup_within_graph", close(float(rows["2"][8]), hm([t / 2 for t in times], nedge) / hm(times, nedge), 1e-3)
        and rows["3"][8] == "1", str(rows))
R.check("comparison_marks_oversubscribed", rows["1"][-1] == "OVERSUBSCRIBED" and "OVERSUBSCRIBED" not in rows["2"])
R.check("tiny_component_warning", "WARNING: 1 of 4 searches reached a component" in txt)

# ---- --append: twice, one header, stable columns -------------------------------------
ap = T + "/campaign.csv"
p1 = report(a, av, "--append", ap)
p2 = report(b, bv, c, cv, "--append", ap)
lines = open(ap).read().splitlines()
hdr = report(a, av, "--format", "csv").stdout.splitlines()[0]
rows = list(csv.DictReader(io.StringIO(open(ap).read())))
R.check("append_twice", p1.returncode == 0 and p2.returncode == 0 and len(lines) == 4 and lines[0] == hdr
        and [r["bfs_file"] for r in rows] == [a, b, c], str(lines[:2]))
R.check("append_rows_as_csv", rows[1]["harmonic_mean_TEPS"] == list(csv.DictReader(io.StringIO(report(b, bv, "--format", "csv").stdout)))[0]["harmonic_mean_TEPS"])
open(T + "/other.csv", "w").write("a,b\n1,2\n")
p = report(a, av, "--append", T + "/other.csv")
R.check("append_refuses_other_columns", p.returncode == 3 and "other.csv" in p.stderr and open(T + "/other.csv").read() == "a,b\n1,2\n", p.stderr)
R.check("append_no_temporary", not [x for x in os.listdir(T) if ".tmp-" in x])

# ---- --append is one of the outputs: all of them or none ----------------------------
# a failing --svg leaves the --append table byte-for-byte as it was and no -o
# report: once before anything is staged (DIR under a plain file: exit 4),
# once where a plot's name is a directory (index.html: an output that is a
# directory, refused with exit 2 before anything is written)
before = open(ap, "rb").read()
def all_or_nothing(name, svg, want_in_err, svgdir, code):
    rep = T + "/aon-%s.txt" % name
    p = report(a, av, b, bv, "--append", ap, "--append-again", "-o", rep, "--svg", svg)
    R.check("aon_%s_exit_%d" % (name, code), p.returncode == code, "exit %d: %s" % (p.returncode, p.stderr))
    R.check("aon_%s_message" % name, all(w in p.stderr for w in want_in_err), p.stderr)
    R.check("aon_%s_append_unchanged" % name, open(ap, "rb").read() == before)
    R.check("aon_%s_no_report" % name, not os.path.exists(rep))
    left = [x for x in os.listdir(T) if ".tmp-" in x]
    if svgdir and os.path.isdir(svgdir):
        left += [x for x in os.listdir(svgdir) if x != "index.html"]
    R.check("aon_%s_nothing_left" % name, not left, str(left))
open(T + "/plain", "w").write("x\n")
all_or_nothing("svg_under_a_file", T + "/plain/svg", [T + "/plain/svg", "Not a directory"], None, 4)
R.check("aon_svg_under_a_file_input_kept", open(T + "/plain").read() == "x\n")
os.makedirs(T + "/svgdir/index.html")
all_or_nothing("rename_fails", T + "/svgdir", [T + "/svgdir/index.html", "Is a directory"], T + "/svgdir", 2)
R.check("aon_rename_fails_dir_kept", os.path.isdir(T + "/svgdir/index.html"))

# ---- --baseline ---------------------------------------------------------------------
old = T + "/old.json"
open(old, "w").write(report(a, av, c, cv, "--format", "json").stdout)
a2 = write_bfs(T + "/a2.bfs.h5", [t / 3 for t in times], nedge, grid=(1, 2), fp=11)
a2v = write_valid(T + "/a2.valid.h5", a2)
js = json.loads(report(a2, a2v, b, bv, "--baseline", old, "--format", "json").stdout)
R.check("baseline_same_graph_and_grid", close(js["runs"][0]["baseline_speedup"], hm([t / 3 for t in times], nedge) / hm(times, nedge), 1e-12),
        str(js["runs"][0]["baseline_speedup"]))
R.eq("baseline_other_grid_none", js["runs"][1]["baseline_speedup"], None)
txt = report(a2, a2v, b, bv, "--baseline", old).stdout
hdrl = [l for l in txt.splitlines() if l.strip().startswith("run ")][0]
r1 = comparison(txt)[0]
R.check("baseline_column", hdrl.split()[9] == "baseline" and close(float(r1[9]), 3.0, 1e-3), txt[-500:])
open(T + "/bad.json", "w").write("{\"runs\": [1, 2")
p = report(a, av, "--baseline", T + "/bad.json")
R.check("baseline_bad_json_exit_3", p.returncode == 3 and "bad.json" in p.stderr, p.stderr)
p = report(a, av, "--baseline", T + "/none.json")
R.check("baseline_missing_exit_4", p.returncode == 4 and "none.json" in p.stderr, p.stderr)
sys.exit(1 if R.failed else 0)
