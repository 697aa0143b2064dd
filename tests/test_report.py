"""bfs-report: Graph500 statistics against an independent numpy computation,
JSON/CSV, the comparison and scaling tables, SVG plots, bad inputs.
BFS and validation files are written here with h5py exactly as
docs/FORMATS.md describes them, with known numbers."""
import csv, io, json, math, os, re, subprocess, sys
import xml.etree.ElementTree as ET
import numpy as np
import h5py
from b2ref import Report, BIN, TMP

R = Report()
SVGNS = "{http://www.w3.org/2000/svg}"
PHASES = ["expand exchange", "frontier expansion", "fold exchange", "frontier update",
          "termination test", "predecessor resolution"]
RULES = ["pass", "root", "tree", "levels", "edges", "reached", "nedge"]

from reportlib import sattr, sattrv, write_bfs, write_valid, report, close

# ---- the independent reference: Graph500 get_statistics, in numpy ----------
def g500(x):
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    xs = np.sort(x)
    return dict(min=xs[0], firstquartile=(xs[(n - 1) // 4] + xs[n // 4]) / 2,
                median=(xs[(n - 1) // 2] + xs[n // 2]) / 2,
                thirdquartile=(xs[n - 1 - (n - 1) // 4] + xs[n - 1 - n // 4]) / 2,
                max=xs[-1], mean=x.mean(), stddev=x.std(ddof=1) if n > 1 else float("nan"))

def expected_block(times, nedge, vtimes, scale=10, ef=16, ranks=1, gen=0.5, construction=0.125):
    # construction_time is partition2d's partition_time (0.125 in write_bfs), not the load
    t, e = np.asarray(times, float), np.asarray(nedge, float)
    n = len(t)
    st, se, sv = g500(t), g500(e), g500(vtimes)
    teps = e / t
    # TEPS statistics are order statistics of TEPS itself (spe = 1/TEPS)
    tq = g500(teps)
    hm = n / np.sum(1.0 / teps)
    inv = 1.0 / teps
    hs = np.std(inv, ddof=1) / (np.mean(inv) ** 2 * math.sqrt(n - 1)) if n > 1 else float("nan")
    out = {"SCALE": scale, "edgefactor": ef, "NBFS": n, "graph_generation": gen,
           "num_mpi_processes": ranks, "construction_time": construction}
    for k in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev"):
        out["bfs  %s_time" % k] = st[k]
    for k in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev"):
        out["%s_nedge" % k] = se[k]
    # quartiles of TEPS from those of seconds-per-edge: the same elements, because
    # 1/x reverses the order (the pairs averaged differ, so recompute as the reference)
    si = g500(inv)
    out["bfs  min_TEPS"] = 1 / si["max"]
    out["bfs  firstquartile_TEPS"] = 1 / si["thirdquartile"]
    out["bfs  median_TEPS"] = 1 / si["median"]
    out["bfs  thirdquartile_TEPS"] = 1 / si["firstquartile"]
    out["bfs  max_TEPS"] = 1 / si["min"]
    out["bfs  harmonic_mean_TEPS"] = hm
    out["bfs  harmonic_stddev_TEPS"] = hs
    for k in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev"):
        out["bfs  %s_validate" % k] = sv[k]
    # sanity of the reference itself: min/max TEPS are the extreme TEPS
    assert abs(out["bfs  max_TEPS"] - tq["max"]) <= 1e-9 * tq["max"]
    return out

G500_KEYS = ["SCALE", "edgefactor", "NBFS", "graph_generation", "num_mpi_processes",
             "construction_time"] + \
    ["bfs  %s_time" % k for k in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")] + \
    ["%s_nedge" % k for k in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")] + \
    ["bfs  %s_TEPS" % k for k in ("min", "firstquartile", "median", "thirdquartile", "max")] + \
    ["bfs  harmonic_mean_TEPS", "bfs  harmonic_stddev_TEPS"] + \
    ["bfs  %s_validate" % k for k in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")]

def parse_blocks(text):
    """Graph500-style 'key: value' lines (the reference's '!' marker dropped),
    one dict per block, keys in order."""
    blocks, cur = [], None
    for line in text.splitlines():
        if line.startswith("SCALE:"):
            cur = []
            blocks.append(cur)
        if cur is None or ":" not in line or line.startswith("#") or line.startswith("=="):
            continue
        k, v = line.split(":", 1)
        v = v.replace("!", "").strip()
        try:
            cur.append((k, float(v)))
        except ValueError:
            pass
    return [dict(b) for b in blocks], [[k for k, _ in b] for b in blocks]

def check_block(name, got, want, rel):
    bad = [(k, got.get(k), want[k]) for k in want if k not in got or not close(float(got[k]), float(want[k]), rel)]
    R.check(name, not bad, "mismatches (key, got, want): %s" % bad[:4])

T = TMP
# ---- one validated run --------------------------------------------------------
times = [0.010, 0.020, 0.015, 0.012, 0.030, 0.011, 0.018, 0.025, 0.014]
nedge = [16000, 16100, 15800, 16384, 9000, 16200, 16050, 15000, 16300]
vt = [0.5, 0.7, 0.6, 0.9, 0.55, 0.65, 0.8, 0.75, 0.85]
b1 = write_bfs(T + "/a.bfs.h5", times, nedge, grid=(1, 2))
v1 = write_valid(T + "/a.valid.h5", b1, vtime=vt)
p = report(b1, v1)
R.eq("single_run_exit", p.returncode, 0)
blocks, keys = parse_blocks(p.stdout)
R.eq("single_run_one_block", len(blocks), 1)
if blocks:
    R.eq("g500_field_names_in_reference_order", keys[0], G500_KEYS)
    check_block("g500_statistics_match_numpy", blocks[0],
                expected_block(times, nedge, vt, ranks=2), 1e-5)
R.check("harmonic_mean_marker_as_reference", "bfs  harmonic_mean_TEPS:     !  " in p.stdout, p.stdout[:300])
R.check("text_names_the_transports", "exchanges expand none, fold mpi" in p.stdout, p.stdout[:300])

# the block's lines are laid out exactly as the Graph500 reference prints them:
# the same keys, in the same order, values from column 32 (when the reference
# reference program is given as G500_BFS=/path; skipped otherwise)
g500_bin = os.environ.get("G500_BFS")
if g500_bin and os.access(g500_bin, os.X_OK):
    ref = subprocess.run([g500_bin, "8", "4"], capture_output=True, text=True, timeout=120).stdout
    ref_lines = [l[:32] for l in ref.splitlines() if ":" in l]
    ours = [l[:32] for l in p.stdout.splitlines() if ":" in l and not l.startswith(("#", "=="))]
    R.check("g500_reference_layout_identical", ref_lines == ours and len(ours) == len(G500_KEYS),
            "reference %r\nours %r" % (ref_lines[:8], ours[:8]))
else:
    print("# g500_reference_layout: skipped (set G500_BFS to the Graph500 reference binary)")

# JSON: exact numbers
p = report(b1, v1, "--format", "json")
try:
    js = json.loads(p.stdout)
    r0 = js["runs"][0]
    want = expected_block(times, nedge, vt, ranks=2)
    R.check("json_parses", True)
    R.check("json_harmonic_mean", close(r0["harmonic_mean_TEPS"], want["bfs  harmonic_mean_TEPS"], 1e-12),
            "%r vs %r" % (r0["harmonic_mean_TEPS"], want["bfs  harmonic_mean_TEPS"]))
    R.check("json_harmonic_stddev", close(r0["harmonic_stddev_TEPS"], want["bfs  harmonic_stddev_TEPS"], 1e-12),
            "%r vs %r" % (r0["harmonic_stddev_TEPS"], want["bfs  harmonic_stddev_TEPS"]))
    ok = all(close(r0["time"][k], want["bfs  %s_time" % k], 1e-12) for k in r0["time"]) and \
         all(close(r0["nedge"][k], want["%s_nedge" % k], 1e-12) for k in r0["nedge"]) and \
         all(close(r0["TEPS"][k], want["bfs  %s_TEPS" % k], 1e-12) for k in r0["TEPS"]) and \
         all(close(r0["validate"][k], want["bfs  %s_validate" % k], 1e-12) for k in r0["validate"])
    R.check("json_statistics_exact", ok, json.dumps(r0)[:400])
    R.eq("json_search_count", len(r0["searches"]), len(times))
    R.check("json_per_search_teps", all(close(s["TEPS"], nedge[i] / times[i], 1e-12) for i, s in enumerate(r0["searches"])))
    R.eq("json_grid_backend", (r0["grid"], r0["backend"], r0["num_mpi_processes"], r0["validated"]), ("1x2", "cpu", 2, True))
    R.eq("json_exchange", r0["exchange"], "expand none, fold mpi")
except (ValueError, KeyError) as e:
    R.check("json_parses", False, "%s: %s" % (e, p.stdout[:300]))

# CSV
p = report(b1, v1, "--format", "csv")
rows = list(csv.DictReader(io.StringIO(p.stdout)))
R.eq("csv_one_row", len(rows), 1)
if rows:
    want = expected_block(times, nedge, vt, ranks=2)
    R.check("csv_values", close(float(rows[0]["harmonic_mean_TEPS"]), want["bfs  harmonic_mean_TEPS"], 1e-12)
            and close(float(rows[0]["median_time"]), want["bfs  median_time"], 1e-12)
            and close(float(rows[0]["thirdquartile_TEPS"]), want["bfs  thirdquartile_TEPS"], 1e-12)
            and rows[0]["grid"] == "1x2" and rows[0]["NBFS"] == "9", str(rows[0])[:300])

# --per-search lists every search with its TEPS and status
p = report(b1, v1, "--per-search")
rows = [l.split() for l in p.stdout.splitlines() if l.startswith("# ") and l.split()[1:2] and l.split()[1].isdigit()]
R.check("per_search_rows", len(rows) == len(times) and all(
    int(r[2]) == i * 7 % 1024 and close(float(r[5]), nedge[i] / times[i] * 1e-9, 1e-5) and r[6] == "passed"
    for i, r in enumerate(rows)), str(rows[:3]))

# -o writes the same text atomically
out = T + "/rep.txt"
p2 = report(b1, v1, "-o", out)
R.check("output_file", p2.returncode == 0 and os.path.exists(out) and open(out).read() == report(b1, v1).stdout,
        p2.stderr)
R.check("output_no_temporary", not [x for x in os.listdir(T) if ".tmp-" in x], str(os.listdir(T)))

# ---- failed searches are left out, exit 1 ------------------------------------
passed = [1, 1, 0, 1, 1, 0, 1, 1, 1]
vf = write_valid(T + "/a2.valid.h5", b1, passed=passed, vtime=vt)
b1b = T + "/a2.bfs.h5"
os.link(b1, b1b)
vf = write_valid(T + "/a2.valid.h5", b1b, passed=passed, vtime=vt)
p = report(b1b, vf)
R.eq("failed_search_exit_1", p.returncode, 1)
R.check("failed_search_message", "FAILED" in p.stderr and "2 of 9" in p.stderr, p.stderr)
blocks, _ = parse_blocks(p.stdout)
keep = [i for i in range(9) if passed[i]]
if blocks:
    check_block("failed_searches_excluded_from_stats", blocks[0],
                expected_block([times[i] for i in keep], [nedge[i] for i in keep], vt, ranks=2), 1e-5)
R.check("failed_search_rule_named", "rule 2 'tree' at vertex 5" in p.stdout, p.stdout[:600])
allfail = write_valid(T + "/a3.valid.h5", b1b, passed=[0] * 9)
p = report(b1b, allfail)
R.check("all_failed_no_results", p.returncode == 1 and "No results printed for invalid run." in p.stdout
        and "harmonic_mean_TEPS" not in p.stdout, p.stdout[:400])

# ---- unvalidated runs --------------------------------------------------------
p = report(b1)
R.check("unvalidated_needs_flag", p.returncode == 2 and "--unvalidated" in p.stderr and p.stdout == "", p.stderr)
p = report(b1, "--unvalidated")
blocks, _ = parse_blocks(p.stdout)
R.check("unvalidated_marked", p.returncode == 0 and "UNVALIDATED" in p.stdout, p.stdout[:300])
if blocks:
    b = expected_block(times, nedge, vt, ranks=2)
    b = {k: v for k, v in b.items() if "validate" not in k}
    check_block("unvalidated_stats", blocks[0], b, 1e-5)
    # the reference prints the seven validate lines with -1 when it did not validate
    want_v = {"bfs  %s_validate" % k: -1.0 for k in ("min", "firstquartile", "median", "thirdquartile", "max", "mean", "stddev")}
    check_block("unvalidated_validate_lines_minus_one", blocks[0], want_v, 0)
    R.eq("unvalidated_field_names_in_reference_order", parse_blocks(p.stdout)[1][0], G500_KEYS)
js = json.loads(report(b1, "--unvalidated", "--format", "json").stdout)
R.eq("unvalidated_json_flag", js["runs"][0]["validated"], False)
# partial validation: searches 0..4 validated; the rest only with --unvalidated
b4 = T + "/p.bfs.h5"
os.link(b1, b4)
vp = write_valid(T + "/p.valid.h5", b4, search=[0, 1, 2, 3, 4], vtime=vt[:5])
blocks, _ = parse_blocks(report(b4, vp).stdout)
if blocks:
    R.eq("partial_validation_uses_validated_only", blocks[0]["NBFS"], 5.0)
blocks, _ = parse_blocks(report(b4, vp, "--unvalidated").stdout)
if blocks:
    R.eq("partial_validation_unvalidated_flag_uses_all", blocks[0]["NBFS"], 9.0)

# single search: stddevs are NaN as in the reference (n-1 = 0)
b5 = write_bfs(T + "/one.bfs.h5", [0.01], [5000])
v5 = write_valid(T + "/one.valid.h5", b5)
blocks, _ = parse_blocks(report(b5, v5).stdout)
if blocks:
    check_block("single_search", blocks[0], expected_block([0.01], [5000], [0.5]), 1e-5)

# nedge from the validator wins when the two disagree (with a warning)
b6 = write_bfs(T + "/ne.bfs.h5", [0.01, 0.02], [5000, 6000])
v6 = write_valid(T + "/ne.valid.h5", b6, nedge=[5000, 6100])
p = report(b6, v6, "--format", "json")
js = json.loads(p.stdout)
R.check("validator_nedge_used", close(js["runs"][0]["nedge"]["max"], 6100, 0) and "differs" in p.stderr, p.stderr)

# ---- bad inputs ----------------------------------------------------------------
def expect(name, code, args, words=()):
    p = report(*args)
    good = p.returncode == code and p.stderr.strip() and all(w in p.stderr for w in words)
    R.check(name, good, "exit %d, stderr %r" % (p.returncode, p.stderr[:300]))

edges = T + "/e.h5"
with h5py.File(edges, "w") as f:
    sattr(f, "format", "bfs2d-edges")
    f.attrs["format_version"] = np.int64(1)
    f["edges"] = np.zeros((4, 2), dtype=np.int64)
expect("bad_edge_file", 3, [edges], ["bfs2d-edges", "not a BFS file"])
txt = T + "/x.txt"
open(txt, "w").write("SCALE: 3\n")
expect("bad_not_hdf5", 3, [txt], ["not an HDF5 file"])
expect("bad_missing_file", 4, [T + "/nope.h5"], ["nope.h5"])
expect("bad_validation_first", 2, [v1, b1], ["no BFS file comes before it"])
expect("bad_two_validations", 2, [b1, v1, v1], ["already has"])
other = write_bfs(T + "/other.bfs.h5", times, nedge)
expect("mismatch_other_bfs_file", 3, [other, v1], ["validates"])
vfp = T + "/a.valid.h5"
b7 = write_bfs(T + "/fp.bfs.h5", times, nedge, fp=99)
v7 = write_valid(T + "/fp.valid.h5", b7, fp=98)
expect("mismatch_fingerprint", 3, [b7, v7], ["fingerprint"])
b8 = write_bfs(T + "/rt.bfs.h5", times, nedge)
v8 = write_valid(T + "/rt.valid.h5", b8, root=np.arange(9) + 1)
expect("mismatch_roots", 3, [b8, v8], ["root"])
b9 = write_bfs(T + "/empty.bfs.h5", [], [], frontier=np.zeros((0, 3)), phase=np.zeros((0, 6)))
expect("empty_run", 3, [b9, "--unvalidated"], ["empty run"])
b10 = write_bfs(T + "/neg.bfs.h5", [0.01, -1.0], [10, 10])
expect("bad_time", 3, [b10, "--unvalidated"], ["/time[1]"])
with h5py.File(T + "/short.bfs.h5", "w") as f:
    pass
write_bfs(T + "/short.bfs.h5", times, nedge)
with h5py.File(T + "/short.bfs.h5", "a") as f:
    del f["nedge"]
    f["nedge"] = np.zeros(3, dtype=np.int64)
expect("bad_dataset_rows", 3, [T + "/short.bfs.h5", "--unvalidated"], ["nedge", "rows"])
expect("bad_format_option", 2, [b1, v1, "--format", "xml"], ["--format"])
expect("no_arguments", 2, [])
p = report(other, v1, "-o", T + "/never.txt")
R.check("no_output_on_error", p.returncode == 3 and not os.path.exists(T + "/never.txt")
        and not [x for x in os.listdir(T) if ".tmp-" in x])

# ---- several runs: comparison, strong and weak scaling --------------------------
# strong: one graph (fingerprint 7) on 1, 2 and 4 ranks; weak: scales 10, 11, 12 on 1, 2, 4
def teps_run(name, grid, t, fp, scale, gpus=0, backend="cpu"):
    K = 4
    tt = [t * (1 + 0.1 * k) for k in range(K)]
    ne = [10000 + 100 * k for k in range(K)]
    b = write_bfs(T + "/%s.bfs.h5" % name, tt, ne, grid=grid, fp=fp, scale=scale, gpus=gpus,
                  backend=backend, N=2 ** scale, M=16 * 2 ** scale)
    v = write_valid(T + "/%s.valid.h5" % name, b)
    return b, v, K / sum(np.array(tt) / np.array(ne))

runs = [teps_run("s1", (1, 1), 0.04, 7, 10), teps_run("s2", (1, 2), 0.025, 7, 10),
        teps_run("s4", (2, 2), 0.012, 7, 10),
        teps_run("w2", (1, 2), 0.03, 8, 11), teps_run("w4", (2, 2), 0.035, 9, 12)]
args = [x for r in runs for x in r[:2]]
p = report(*args)
R.eq("multi_exit", p.returncode, 0)
blocks, _ = parse_blocks(p.stdout)
R.eq("multi_blocks", len(blocks), 5)
hm = [r[2] for r in runs]
ndev = [1, 2, 4, 2, 4]
lines = p.stdout.splitlines()
def table(title):
    try:
        i = next(i for i, l in enumerate(lines) if l.startswith("== " + title))
    except StopIteration:
        return None
    rows = []
    for l in lines[i + 2:]:
        if not l.strip() or l.startswith("==") or l.startswith("("):
            break
        rows.append(l.split())
    return rows
cmp_ = table("comparison")
ok = cmp_ is not None and len(cmp_) == 5 and all(
    close(float(row[6]), hm[i] * 1e-9, 1e-3) and close(float(row[7]), hm[i] * 1e-9 / ndev[i], 1e-3)
    and close(float(row[8]), hm[i] / hm[0] if i < 3 else 1.0, 1e-2) and row[3] == ["1x1", "1x2", "2x2", "1x2", "2x2"][i]
    for i, row in enumerate(cmp_))
R.check("comparison_table", ok, str(cmp_))
st = table("strong scaling")
ok = st is not None and len(st) == 3 and all(
    int(row[0]) == ndev[i] and close(float(row[2]), hm[i] * 1e-9, 1e-3)
    and close(float(row[4]), hm[i] / hm[0], 1e-2)
    and close(float(row[5].rstrip("%")), 100 * hm[i] / hm[0] / ndev[i], 1e-3) for i, row in enumerate(st))
R.check("strong_scaling_table", ok, str(st))
wk = table("weak scaling")
widx = [0, 3, 4]  # scales 10, 11, 12 on 1, 2, 4 ranks
ok = wk is not None and len(wk) == 3 and all(
    int(row[0]) == ndev[j] and int(row[2]) == 10 + i and close(float(row[4]), hm[j] * 1e-9, 1e-3)
    and close(float(row[6].rstrip("%")), 100 * (hm[j] / ndev[j]) / hm[0], 1e-3) for i, (j, row) in enumerate(zip(widx, wk)))
R.check("weak_scaling_table", ok, str(wk))
js = json.loads(report(*args, "--format", "json").stdout)
R.eq("json_strong_groups", [g["runs"] for g in js["strong_scaling"]], [[1, 2, 3]])
R.eq("json_weak_groups", [g["runs"] for g in js["weak_scaling"]], [[1, 4, 5]])
R.check("json_speedup_within_a_graph", all(close(js["runs"][i]["speedup"], hm[i] / hm[0] if i < 3 else 1.0, 1e-12)
                                           and js["runs"][i]["speedup_over_run"] == (1 if i < 3 else i + 1) for i in range(5)),
        str([(r["speedup"], r["speedup_over_run"]) for r in js["runs"]]))
rows = list(csv.DictReader(io.StringIO(report(*args, "--format", "csv").stdout)))
R.check("csv_rows", len(rows) == 5 and all(close(float(rows[i]["GTEPS_per_gpu"]), hm[i] * 1e-9 / ndev[i], 1e-12) for i in range(5)))

# ---- SVG ---------------------------------------------------------------------------
sv = T + "/svg"
p = report(*args, b1b, vf, "--svg", sv)
R.eq("svg_exit_with_a_failed_run", p.returncode, 1)
names = ["teps.svg", "phases.svg", "scaling.svg", "frontier.svg"]
trees = {}
for n in names:
    try:
        trees[n] = ET.parse(os.path.join(sv, n)).getroot()
        R.check("svg_well_formed_" + n.split(".")[0], trees[n].tag == SVGNS + "svg")
    except (ET.ParseError, OSError) as e:
        R.check("svg_well_formed_" + n.split(".")[0], False, str(e))
R.check("svg_index_html", os.path.exists(os.path.join(sv, "index.html")))
allruns = runs + [(b1b, vf, None)]
if "teps.svg" in trees:
    rects = [e for e in trees["teps.svg"].iter(SVGNS + "rect") if e.get("class") == "teps"]
    got = {(int(e.get("data-run")), int(e.get("data-search"))): float(e.get("data-teps")) for e in rects}
    want = {}
    for ri, (b, v, _) in enumerate(allruns):
        with h5py.File(b, "r") as f, h5py.File(v, "r") as g:
            t_, ne_ = f["time"][...], g["nedge"][...]
            ps = g["passed"][...]
        for k in range(len(t_)):
            if ps[k]:
                want[(ri + 1, k)] = ne_[k] / t_[k]
    R.check("svg_teps_per_search_values", got.keys() == want.keys() and all(close(got[k], want[k], 1e-8) for k in want),
            "%d bars, want %d" % (len(got), len(want)))
    fails = [e for e in trees["teps.svg"].iter(SVGNS + "path") if e.get("class") == "failed"]
    R.eq("svg_failed_searches_marked", sorted(int(e.get("data-search")) for e in fails), [2, 5])
    hml = {int(e.get("data-run")): float(e.get("data-teps")) for e in trees["teps.svg"].iter(SVGNS + "line") if e.get("class") == "hmean"}
    R.check("svg_harmonic_mean_lines", all(close(hml[i + 1], hm[i], 1e-8) for i in range(5)), str(hml))
    # bar heights are proportional to the values within a panel
    r1 = sorted(((float(e.get("height")), got[(1, int(e.get("data-search")))]) for e in rects if e.get("data-run") == "1"))
    R.check("svg_bar_heights_proportional", all(close(h / v, r1[-1][0] / r1[-1][1], 1e-2) for h, v in r1), str(r1))
if "phases.svg" in trees:
    ph = [e for e in trees["phases.svg"].iter(SVGNS + "rect") if e.get("class") == "phase"]
    ok, why = True, ""
    bars = {g.get("data-run"): g for g in trees["phases.svg"].iter(SVGNS + "g") if g.get("class") == "bar"}
    for ri, (b, v, _) in enumerate(allruns):
        with h5py.File(b, "r") as f, h5py.File(v, "r") as g:
            sel = g["search"][...][g["passed"][...] == 1]
            pt = f["phase_time"][...][sel]
            tt = f["time"][...]
            tmean = tt[sel].mean()
        m = pt.mean(axis=0)
        # the bar is the median search by time (the lower of two middle ones)
        med = sorted(sel, key=lambda k: (tt[k], k))[(len(sel) - 1) // 2]
        with h5py.File(b, "r") as f:
            pk = f["phase_time"][med]
        mine = [x for x in ph if x.get("data-run") == str(ri + 1)]
        # all six phases, each the median search's, with the mean over searches as data-mean
        for pi in range(6):
            e = [x for x in mine if x.get("data-phase") == PHASES[pi]]
            if not (len(e) == 1 and close(float(e[0].get("data-seconds")), pk[pi], 1e-8)
                    and close(float(e[0].get("data-mean")), m[pi], 1e-8)):
                ok, why = False, "run %d phase %s: %r" % (ri + 1, PHASES[pi], [x.attrib for x in e])
        # the bar adds up to the median search's time (the rest is 'outside the phases')
        total = sum(float(x.get("data-seconds")) for x in mine)
        want = max(tt[med], pk.sum())
        bar = bars[str(ri + 1)]
        if not close(total, want, 1e-7) or not close(float(bar.get("data-total")), tt[med], 1e-8) \
                or int(bar.get("data-search")) != med or not close(float(bar.get("data-mean")), tmean, 1e-8):
            ok, why = False, "run %d: segments add to %r, median search %d time %r" % (ri + 1, total, med, tt[med])
    R.check("svg_phases_median_search_with_mean", ok, why)
if "scaling.svg" in trees:
    pts = [e for e in trees["scaling.svg"].iter() if e.get("class") == "run"]
    ok = len(pts) == 6  # run 1 is in both series
    for e in pts:
        i = int(e.get("data-run")) - 1
        ok = ok and int(e.get("data-devices")) == ndev[i] and close(float(e.get("data-teps")), hm[i], 1e-8)
    R.check("svg_scaling_points", ok, str([e.attrib for e in pts])[:300])
    pl = {e.get("class"): e.get("data-runs") for e in trees["scaling.svg"].iter(SVGNS + "polyline")}
    R.eq("svg_scaling_series", pl, {"strong": "1 2 3", "weak": "1 4 5"})
    cols = [e.get("data-color") for e in trees["scaling.svg"].iter(SVGNS + "polyline")]
    R.check("svg_scaling_one_colour_per_series", len(set(cols)) == len(cols) == 2, str(cols))
    # a marker's shape is its path without the numbers
    shapes = {}
    for e in pts:
        shapes.setdefault(e.get("data-series"), set()).add(re.sub(r"[-0-9.]+", "", e.get("d")))
    R.check("svg_scaling_markers_differ", all(len(v) == 1 for v in shapes.values())
            and len({next(iter(v)) for v in shapes.values()}) == 2, str(shapes))
    ideal = [e for e in trees["scaling.svg"].iter(SVGNS + "line") if e.get("class") == "ideal"]
    R.eq("svg_scaling_ideal_line_per_series", len(ideal), 2)
    # no one-point series: a graph on one device count alone draws nothing
    ps = T + "/svg_single"
    report(runs[3][0], runs[3][1], "--svg", ps)
    t1 = ET.parse(os.path.join(ps, "scaling.svg")).getroot()
    R.check("svg_scaling_no_one_point_series", not [e for e in t1.iter() if e.get("class") in ("run", "strong", "weak")])
if "frontier.svg" in trees:
    pts = [e for e in trees["frontier.svg"].iter() if e.get("class") == "frontier"]
    ok = True
    for ri, (b, v, _) in enumerate(allruns):
        with h5py.File(b, "r") as f, h5py.File(v, "r") as g:
            fm = f["frontier_size"][...][g["passed"][...] == 1].mean(axis=0)
        got = {int(e.get("data-level")): float(e.get("data-size")) for e in pts if e.get("data-run") == str(ri + 1)}
        ok = ok and got.keys() == {l for l in range(len(fm)) if fm[l] > 0} and all(close(got[l], fm[l], 1e-8) for l in got)
    R.check("svg_frontier_values", ok)
    cols = [g.get("data-color") for g in trees["frontier.svg"].iter(SVGNS + "g") if g.get("class") == "series"]
    R.check("svg_frontier_one_colour_per_series", len(cols) == len(allruns) and len(set(cols)) == len(cols), str(cols))
    R.check("svg_frontier_direction_unknown_without_dataset", all(e.get("data-direction") == "unknown" for e in pts))

# an imported graph (no scale attribute): SCALE/edgefactor approximated and said so
b11 = write_bfs(T + "/imp.bfs.h5", times, nedge, scale=None, N=5242, M=28980, edges_file="data/ca-GrQc.h5")
v11 = write_valid(T + "/imp.valid.h5", b11)
p = report(b11, v11)
blocks, _ = parse_blocks(p.stdout)
R.check("imported_graph_scale", p.returncode == 0 and blocks and blocks[0]["SCALE"] == 12 and blocks[0]["edgefactor"] == 6
        and "nearest Kronecker shape" in p.stdout and "ca-GrQc" in p.stdout and math.isnan(blocks[0]["graph_generation"]),
        p.stdout[:400])
sys.exit(1 if R.failed else 0)
