"""tests/pipeline_check.py — a pipeline run's report against numpy.

    python3 tests/pipeline_check.py NAME BFS VALID EDGES TXT JSON

prints "ok NAME_WHAT" / "FAIL NAME_WHAT: why" lines (tests/lib.sh's format):
every search validated, nedge recomputed from the edge file, the JSON's and
the text's harmonic mean, its standard deviation and the nedge range.
"""
import json, math, sys
import numpy as np, h5py
name, bfs, valid, edges, txt, js = sys.argv[1:7]
def say(ok, what, why=""):
    print(("ok %s_%s" % (name, what)) if ok else ("FAIL %s_%s: %s" % (name, what, why)))
import os
gone = [p for p in (bfs, valid, edges, txt, js) if not os.path.exists(p)]
if gone:
    say(False, "report_numbers", "no run to check: missing %s" % " ".join(gone))
    sys.exit(0)
with h5py.File(bfs, "r") as f:
    t, ne, pred, kept, roots = f["time"][...], f["nedge"][...], f["pred"][...], f["kept"][...], f["roots"][...]
with h5py.File(valid, "r") as f:
    passed, search, vne = f["passed"][...], f["search"][...], f["nedge"][...]
with h5py.File(edges, "r") as f:
    e = f["edges"][...]
say(passed.all() and len(search) == len(t), "all_searches_validated", str(passed))
# nedge: input tuples with both ends reached, self-loops excluded, duplicates counted
loops = e[:, 0] == e[:, 1]
ok = True
for q, k in enumerate(kept):
    reached = pred[q] >= 0
    want = int(np.sum(reached[e[:, 0]] & reached[e[:, 1]] & ~loops))
    ok = ok and want == ne[k] and pred[q][roots[k]] == roots[k]
say(ok, "nedge_from_edges")
teps = ne / t
hm = len(t) / np.sum(1.0 / teps)
inv = 1.0 / teps
hs = np.std(inv, ddof=1) / (np.mean(inv) ** 2 * math.sqrt(len(t) - 1)) if len(t) > 1 else float("nan")
r = json.load(open(js))["runs"][0]
say(abs(r["harmonic_mean_TEPS"] - hm) <= 1e-12 * hm, "json_harmonic_mean", "%r vs %r" % (r["harmonic_mean_TEPS"], hm))
say(r["NBFS"] == len(t) and r["nedge"]["max"] == ne.max() and r["nedge"]["min"] == ne.min(), "json_nedge")
say(math.isnan(hs) and r["harmonic_stddev_TEPS"] is None or abs(r["harmonic_stddev_TEPS"] - hs) <= 1e-9 * hs, "json_harmonic_stddev")
vals = {}
for line in open(txt):
    if ":" in line and not line.startswith("#"):
        k, v = line.split(":", 1)
        vals[k] = v.replace("!", "").strip()
try:
    got = float(vals["bfs  harmonic_mean_TEPS"])
    say(abs(got - hm) <= 1e-5 * hm and int(vals["NBFS"]) == len(t), "text_harmonic_mean", "%r vs %r" % (got, hm))
    say(float(vals["max_nedge"]) == ne.max() and abs(float(vals["bfs  min_time"]) - t.min()) <= 1e-5 * t.min(), "text_time_nedge")
except (KeyError, ValueError) as x:
    say(False, "text_harmonic_mean", "no statistics block: %s" % x)
