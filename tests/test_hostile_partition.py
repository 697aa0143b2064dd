"""tests/test_hostile_partition.py — partition2d sizes its buffers from the
input, not from its whole memory budget, on 1 and 2 ranks: a 16-vertex
graph under a 400 MB address-space limit (ulimit -v; the release build
only: ASan's shadow memory needs terabytes of address space) gives the same
partition as without the limit; on every build, -v's store holds at most
2 P (M/P + 1) keys and a round at most M/P + 1 tuples (the default budget
is gigabytes); and a failure to get memory under the default budget does
not name --mem, which was not given."""
import os, re, resource
import numpy as np
import h5py
from b2ref import Report, BIN, TMP, MPIEXEC, SAN, run_bounded, write_edges

rep = Report()
T = TMP
LIMIT = 120


def run(np_, args, vlimit=None):
    c = [os.path.join(BIN, "partition2d")] + [str(a) for a in args]
    c = (MPIEXEC.split() + ["-n", str(np_)] + c) if np_ > 1 else c
    return run_bounded(c, LIMIT, rlimit=None if vlimit is None else (resource.RLIMIT_AS, vlimit))


def same(a, b):
    with h5py.File(a, "r") as x, h5py.File(b, "r") as y:
        names = []
        x.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
        return len(names) > 0 and all(n in y and np.array_equal(x[n][()], y[n][()]) for n in names)


g = write_edges(T + "/g16.h5", 16, [(i, (5 * i + 1) % 16) for i in range(16)] + [(3, 3), (0, 15)])
M = 18
for np_ in (1, 2):
    grid = "1x%d" % np_
    ref = T + "/ref%d.h5" % np_
    rc, _, err = run(np_, ["-v", "--grid", grid, g, "-o", ref])
    n = "16 vertices (%d rank%s)" % (np_, "s" if np_ > 1 else "")
    rep.check(n + ": exit 0", rc == 0, err[-300:])
    m = re.search(r"rounds of up to (\d+) tuples per rank; store of (\d+) keys per rank", err)
    if rep.check(n + ": -v tells the store", m is not None, err[-500:]):
        t, s = int(m.group(1)), int(m.group(2))
        rep.check(n + ": a round of at most M/P + 1 tuples", t <= M // np_ + 1, "%d tuples" % t)
        rep.check(n + ": a store of at most 2 P (M/P + 1) keys", s <= 2 * np_ * (M // np_ + 1), "%d keys" % s)
    if SAN:
        continue
    o = T + "/lim%d.h5" % np_
    rc, _, err = run(np_, ["--grid", grid, g, "-o", o], vlimit=400 << 20)
    rep.check(n + " under ulimit -v 400 MB: exit 0", rc == 0, "exit %s: %s" % (rc, err[-300:]))
    rep.check(n + " under ulimit -v 400 MB: does not name --mem", "--mem" not in err, err[-300:])
    if rc == 0:
        rep.check(n + " under ulimit -v 400 MB: the same partition", same(ref, o))
