"""tests/test_rules_off.py — bfs-gpu --rule-off (the level plan without a
special rule of traverse/plan.h): on the CPU backend over MPI, 1x2, 2x2
and 1x4 with each rule that applies there off, and with all off, in
every direction give the serial BFS's levels and valid trees
(partref.check_bfs); the BFS file records what was off (`rules_off`, the
names joined by '+'); an unknown rule is a usage error (exit 2) naming
it; bfs-report labels the run with them and gives them in its JSON. The
CUDA paths are checked on GPU hosts (tests/test_bfs_gpu.py)."""
import json, os, sys
import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import b2ref
import partref
from partref import Graph, check_bfs

rep = b2ref.Report()
tmp = b2ref.TMP
env = dict(os.environ, OMP_NUM_THREADS="1")
NROOTS = 3
edges = os.path.join(tmp, "rules-rmat10.h5")
b2ref.run(1, "rmat-gen", "-s", 10, "-e", 8, "--seed", 7, "-o", edges)
g = Graph("rmat10", edges)
# (grid, the rules off, what the file records)
CASES = [((1, 2), ["row-carries"], "row-carries"),
         ((1, 2), ["preds-from-levels"], "preds-from-levels"),
         ((1, 2), ["all"], "row-carries+preds-from-levels+own-rows+carry-own-block+fold-bound+front-lists"),
         ((2, 2), ["row-carries"], "row-carries"),
         ((1, 4), ["own-rows", "fold-bound"], "own-rows+fold-bound")]
for (R, C), rules, recorded in CASES:
    part = os.path.join(tmp, "rules-rmat10.%dx%d.h5" % (R, C))
    if not os.path.exists(part):
        b2ref.run(2, "partition2d", "--grid", "%dx%d" % (R, C), edges, "-o", part)
    opts = [a for r in rules for a in ("--rule-off", r)]
    for d in ("auto", "bottom-up"):
        tag = "rmat10 %dx%d --rule-off %s --direction %s" % (R, C, ",".join(rules), d)
        out = os.path.join(tmp, "rules-%dx%d-%s-%s.h5" % (R, C, "_".join(rules), d))
        p = b2ref.run(R * C, "bfs-gpu", part, "--backend", "cpu", "-n", NROOTS, "--direction", d,
                      *opts, "-o", out, check=False, env=env)
        if not rep.check(tag + " runs", p.returncode == 0, "exit %d: %s" % (p.returncode, p.stderr[-500:])):
            continue
        if not check_bfs(rep, tag, g, out, NROOTS, direction=d):
            rep.check(tag + " searches found", False, "no search checked")
        with h5py.File(out, "r") as f:
            v = f.attrs["rules_off"]
            rep.eq(tag + " rules_off recorded", v.decode() if isinstance(v, bytes) else v, recorded)
        if d == "auto":  # bfs-report tells the variant apart: label and JSON
            r = b2ref.run(1, "bfs-report", out, "--unvalidated", "--format", "json", check=False)
            if rep.check(tag + " bfs-report runs", r.returncode == 0, r.stderr[-300:]):
                run = json.loads(r.stdout)["runs"][0]
                rep.eq(tag + " bfs-report rules_off", run["rules_off"], recorded)
                rep.check(tag + " bfs-report label", run["label"].endswith("rules-off=" + recorded), run["label"])
        os.unlink(out)

# none off: recorded as ""
out = os.path.join(tmp, "rules-none.h5")
p = b2ref.run(2, "bfs-gpu", os.path.join(tmp, "rules-rmat10.1x2.h5"), "--backend", "cpu", "-n", 1,
              "-o", out, check=False, env=env)
if rep.check("no --rule-off runs", p.returncode == 0, p.stderr[-300:]):
    with h5py.File(out, "r") as f:
        v = f.attrs["rules_off"]
        rep.eq("no --rule-off: rules_off empty", v.decode() if isinstance(v, bytes) else v, "")
    os.unlink(out)
p = b2ref.run(1, "bfs-gpu", os.path.join(tmp, "rules-rmat10.1x2.h5"), "--rule-off", "own_rows",
              "-o", out, check=False, env=env)
rep.eq("--rule-off own_rows: exit 2", p.returncode, 2)
rep.check("--rule-off own_rows: names the rule and the choices",
          "'own_rows'" in p.stderr and "own-rows" in p.stderr, p.stderr[-300:])
rep.check("--rule-off own_rows: no output", not os.path.exists(out))
sys.exit(1 if rep.failed else 0)
