"""bfs-report against hostile inputs, each kind of issue 36 as a kind: times
out of range (a denormal search time, NaN, infinity, negative, huge) in
every time dataset and attribute; sums and products that overflow 64 bits;
a hand-damaged --append table; a --baseline that is not JSON; and the
directory rules of --svg, -o and --append. Each case: the exit code the
contract names, a message naming the file (and dataset or line), no output
left, and no hang (every run has a time limit)."""
import json, os, subprocess, sys
import numpy as np
import h5py
from b2ref import Report, BIN, TMP
from reportlib import write_bfs, write_valid, sattr, sattrv, close

R = Report()
T = TMP
K = 8
times = [0.01 + 0.001 * k for k in range(K)]
nedge = [10000 + 10 * k for k in range(K)]

def report(*args, timeout=60):
    cmd = [os.path.join(BIN, "bfs-report")] + [str(a) for a in args]
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, -999, "", "TIMED OUT after %ds" % timeout)

def expect(name, code, args, words, outdir=None):
    p = report(*args)
    R.check(name + "_exit_%d" % code, p.returncode == code, "exit %d, stderr %r" % (p.returncode, p.stderr[-400:]))
    R.check(name + "_message", all(w in p.stderr for w in words), "%r lacks %r" % (p.stderr[-400:], words))
    if outdir:
        R.check(name + "_no_output", not os.path.exists(outdir), str(os.listdir(outdir)) if os.path.isdir(outdir) else "")
    return p

def mod(path, **datasets):
    """Replaces datasets (name -> array) and attributes (attr_NAME -> value) of a file."""
    with h5py.File(path, "a") as f:
        for k, v in datasets.items():
            if k.startswith("attr_"):
                f.attrs[k[5:]] = v
            else:
                if k in f:
                    del f[k]
                f[k] = v
    return path

def bfs(name, t=times, ne=nedge, **kw):
    return write_bfs(T + "/" + name + ".bfs.h5", t, ne, **kw)

# ---- 1: a tiny positive search time -------------------------------------------------------
for tag, tiny in (("denormal", 5e-324), ("tiny", 1e-300), ("sub_picosecond", 1e-13)):
    b = bfs(tag, [tiny] + times[1:])
    v = write_valid(T + "/%s.valid.h5" % tag, b)
    expect("time_%s" % tag, 3, [b, v], [b, "/time[0]"])
    expect("time_%s_svg" % tag, 3, [b, v, "--svg", T + "/svg_" + tag, "--format", "json"], [b, "/time[0]"],
           outdir=T + "/svg_" + tag)
# the smallest time taken, with the largest nedge: every statistic a finite number, the plots drawn
b = bfs("fast", [1e-12, 1e-12, 2e-12, 1e9 - 1], [2**62, 2**62 - 1, 1, 1])
v = write_valid(T + "/fast.valid.h5", b)
p = report(b, v, "--svg", T + "/svg_fast", "--format", "json")
R.eq("time_extremes_exit_0", p.returncode, 0)
if p.returncode == 0:
    js = json.loads(p.stdout)["runs"][0]
    R.check("time_extremes_finite_stats", all(isinstance(js[k], float) for k in ("harmonic_mean_TEPS", "harmonic_stddev_TEPS"))
            and all(isinstance(x, (int, float)) for x in js["TEPS"].values()), str(js["TEPS"]))
    svgs = "".join(open(os.path.join(T, "svg_fast", n)).read() for n in os.listdir(T + "/svg_fast") if n.endswith(".svg"))
    R.check("time_extremes_svg_numbers", "nan" not in svgs.lower() and "inf" not in svgs.lower().replace("info", ""))

# ---- 14: every time read is a number of seconds ---------------------------------------------
ph = np.full((K, 6), 0.001)
def bad_phase(v):
    x = ph.copy(); x[2, 3] = v
    return x
cases = [("phase_nan", {"phase_time": bad_phase(np.nan)}, "/phase_time[2][3]"),
         ("phase_inf", {"phase_time": bad_phase(np.inf)}, "/phase_time[2][3]"),
         ("phase_negative", {"phase_time": bad_phase(-0.5)}, "/phase_time[2][3]"),
         ("phase_huge", {"phase_time": bad_phase(1e300)}, "/phase_time[2][3]"),
         ("expansion_nan", {"expansion_time": np.where(np.arange(2 * K).reshape(K, 2) == 5, np.nan, 0.001)}, "/expansion_time[2][1]"),
         ("level_time_inf", {"level_time": np.where(np.arange(5 * K).reshape(K, 5) == 7, np.inf, 0.001)}, "/level_time[1][2]"),
         ("rank_phase_nan", {"rank_phase_time": np.where(np.arange(6 * K).reshape(K, 1, 6) == 13, np.nan, 0.001)}, "/rank_phase_time[2][1]"),
         ("time_nan", {"time": np.array([0.01] * (K - 1) + [np.nan])}, "/time[7]"),
         ("generation_time_nan", {"attr_generation_time": np.float64(np.nan)}, "generation_time"),
         ("load_build_time_inf", {"attr_load_build_time": np.float64(np.inf)}, "load_build_time"),
         ("partition_time_negative", {"attr_partition_time": np.float64(-1.0)}, "partition_time"),
         ("alpha_nan", {"attr_alpha": np.float64(np.nan)}, "alpha")]
for tag, ds, word in cases:
    b = mod(bfs(tag), **ds)
    v = write_valid(T + "/%s.valid.h5" % tag, b)
    expect(tag, 3, [b, v, "--svg", T + "/svg_" + tag], [b, word], outdir=T + "/svg_" + tag)
b = bfs("vt")
for tag, vt in (("valid_time_nan", np.nan), ("valid_time_inf", np.inf), ("valid_time_negative", -1.0)):
    v = write_valid(T + "/%s.valid.h5" % tag, b, vtime=np.array([0.5] * (K - 1) + [vt]))
    expect(tag, 3, [b, v], [v, "/time[7]"])

# ---- 10: overflow on values from the input (the sanitizer build halts on any) ----------------
b = bfs("bigrid")
with h5py.File(b, "a") as f:
    del f.attrs["num_ranks"]
    f.attrs["grid_rows"] = np.int64(2**32)
    f.attrs["grid_cols"] = np.int64(2**32)
expect("grid_product_overflow", 3, [b, "--unvalidated"], [b, "grid"])
ex = np.zeros((K, 5), dtype=np.int64); ex[3, 1] = ex[3, 2] = 2**62 + 2**61
b = mod(bfs("exam"), edges_examined=ex, level_direction=np.zeros((K, 5), dtype=np.int8))
expect("edges_examined_sum_overflow", 3, [b, write_valid(T + "/exam.valid.h5", b)], [b, "/edges_examined", "search 3"])
ex = np.zeros((K, 5), dtype=np.int64); ex[0, 0] = -5
b = mod(bfs("examneg"), edges_examined=ex)
expect("edges_examined_negative", 3, [b, write_valid(T + "/examneg.valid.h5", b)], [b, "/edges_examined"])
good = bfs("good")
goodv = write_valid(T + "/good.valid.h5", good)
base = json.loads(report(good, goodv, "--format", "json").stdout)
for tag, num in (("huge", 1e300), ("fraction", 2.5), ("zero", 0), ("negative", -3)):
    bj = dict(base); bj["runs"] = [dict(base["runs"][0], run=num)]
    open(T + "/b_%s.json" % tag, "w").write(json.dumps(bj))
    expect("baseline_run_number_%s" % tag, 3, [good, goodv, "--baseline", T + "/b_%s.json" % tag],
           [T + "/b_%s.json" % tag, "\"run\""])

# ---- 18: --baseline is strict JSON -------------------------------------------------------------
txt = json.dumps(base, indent=1)
hm = repr(base["runs"][0]["harmonic_mean_TEPS"])
assert hm in txt
line = txt[:txt.index(hm)].count("\n") + 1
bad = {"nan": txt.replace(hm, "nan"), "NaN": txt.replace(hm, "NaN"), "Infinity": txt.replace(hm, "Infinity"),
       "overflow": txt.replace(hm, "1e999"), "leading_zero": txt.replace(hm, "01"), "plus": txt.replace(hm, "+1"),
       "hex": txt.replace(hm, "0x10"), "bad_escape": txt.replace('"graph": "', '"graph": "\\x'),
       "control_char": txt.replace('"graph": "', '"graph": "\t'), "trailing": txt + " x",
       "trailing_comma": txt.replace(hm, hm + ","), "single_quotes": txt.replace('"grid"', "'grid'")}
for tag, t in bad.items():
    path = T + "/bad_%s.json" % tag
    open(path, "w").write(t)
    p = expect("baseline_not_json_%s" % tag, 3, [good, goodv, "--baseline", path], [path, "line ", "column "])
    R.check("baseline_not_json_%s_no_warning" % tag, "no run of the same graph" not in p.stderr, p.stderr)
p = report(good, goodv, "--baseline", T + "/bad_nan.json")
R.check("baseline_nan_position", ("line %d," % line) in p.stderr, p.stderr)
open(T + "/ok.json", "w").write(txt.replace('"graph": "', '"graph": "\\u00e9\\n'))
R.eq("baseline_valid_escapes_accepted", report(good, goodv, "--baseline", T + "/ok.json").returncode, 0)

# ---- 5: a hand-edited --append table ------------------------------------------------------------
tab = T + "/t.csv"
R.eq("append_first", report(good, goodv, "--append", tab).returncode, 0)
other = bfs("other"); otherv = write_valid(T + "/other.valid.h5", other)
R.eq("append_second", report(other, otherv, "--append", tab).returncode, 0)
rows = open(tab).read().split("\n")
# a stray quote inside an unquoted field of row 1: the rest of the file is still read field by field
edited = "\n".join([rows[0], rows[1].replace(good, good.replace("good", 'go"od'), 1)] + rows[2:])
open(tab, "w").write(edited)
p = report(other, otherv, "--append", tab)
R.check("append_stray_quote_duplicate_found", p.returncode == 2 and "row 2" in p.stderr, p.stderr)
p = report(good, goodv, "--append", tab)
R.check("append_stray_quote_same_row_found", p.returncode == 2 and "row 1" in p.stderr, p.stderr)
# a quoted field with commas and doubled quotes before run_id
edited2 = "\n".join([rows[0], rows[1].replace(good, '"' + good.replace("good", 'g,o""od') + '"', 1)] + rows[2:])
open(tab, "w").write(edited2)
p = report(other, otherv, "--append", tab)
R.check("append_quoted_field_duplicate_found", p.returncode == 2 and "row 2" in p.stderr, p.stderr)
# a quote that opens a field and never closes on its line: refused, naming the table and line
edited3 = "\n".join([rows[0], rows[1].replace(good, '"' + good, 1)] + rows[2:])
open(tab, "w").write(edited3)
third = bfs("third"); thirdv = write_valid(T + "/third.valid.h5", third)
p = expect("append_unclosed_quote", 3, [third, thirdv, "--append", tab], [tab, "line 2", "quoted field"])
R.check("append_unclosed_quote_table_kept", open(tab).read() == edited3)
R.check("append_unclosed_quote_no_lock_left", not [x for x in os.listdir(T) if x.startswith(".t.csv")], str(os.listdir(T)))
open(tab, "w").write("\n".join([rows[0], rows[1].replace(good, '"' + good + '"x', 1)] + rows[2:]))
expect("append_text_after_quote", 3, [third, thirdv, "--append", tab], [tab, "line 2"])
# CRLF line ends (a spreadsheet's save) keep the run ids readable
open(tab, "w").write("\r\n".join(rows[:3]) + "\r\n")
p = report(other, otherv, "--append", tab)
R.check("append_crlf_duplicate_found", p.returncode == 2 and "row 2" in p.stderr, p.stderr)

# ---- 13: --svg, -o and --append directories ---------------------------------------------------
for there in (False, True):
    d = T + "/plots_%d" % there
    if there:
        os.makedirs(d)
    p = report(good, goodv, "--svg", d, "-o", d + "/report.txt", "--append", d + "/t.csv")
    R.check("svg_dir_with_outputs_inside_%s" % ("existing" if there else "new"), p.returncode == 0 and
            os.path.isfile(d + "/report.txt") and os.path.isfile(d + "/t.csv") and os.path.isfile(d + "/index.html"),
            p.stderr)
    d2 = T + "/plots_idx_%d" % there
    if there:
        os.makedirs(d2)
    p = expect("svg_dir_o_index_html_%s" % ("existing" if there else "new"), 2,
               [good, goodv, "--svg", d2, "-o", d2 + "/index.html"], [d2 + "/index.html"])
    R.check("svg_dir_o_index_html_%s_left" % ("existing" if there else "new"),
            os.path.isdir(d2) == there and (not there or os.listdir(d2) == []))
open(T + "/afile", "w").write("keep\n")
expect("svg_on_regular_file", 2, [good, goodv, "--svg", T + "/afile"], [T + "/afile", "not a directory"])
R.check("svg_on_regular_file_kept", open(T + "/afile").read() == "keep\n")
expect("svg_missing_parent", 4, [good, goodv, "--svg", T + "/nodir/plots"], ["cannot write", T + "/nodir"],
       outdir=T + "/nodir")
expect("append_missing_dir", 4, [good, goodv, "--append", T + "/nodir/t.csv"], ["cannot write", T + "/nodir"])
expect("o_missing_dir", 4, [good, goodv, "-o", T + "/nodir/r.txt"], ["cannot write", T + "/nodir"])
expect("svg_new_dir_fails_removed", 3, [bfs("late", [0.01] * (K - 1) + [np.nan]), "--unvalidated", "--svg", T + "/gone"],
       ["/time[7]"], outdir=T + "/gone")
sys.exit(1 if R.failed else 0)
