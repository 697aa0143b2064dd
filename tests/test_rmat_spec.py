"""rmat-gen against docs/FORMATS.md: the generator rewritten in numpy from
that page alone must give the same /edges, and a pinned graph must not change
between builds (release, sanitizer, AVX-512/AVX2/generic code paths)."""
import math, os
import numpy as np
import h5py
from b2ref import Report, run, TMP, _mix64

t = Report()
U = np.uint64
GAMMA = U(0x9e3779b97f4a7c15)

def rng_key(seed, stream):
    return int(_mix64(U(int(_mix64(U(seed ^ 0x6a09e667f3bcc909))) + int(_mix64(U(stream + 0xbb67ae8584caa73b))) & (2**64 - 1))))

def rng_at(key, i):
    with np.errstate(over="ignore"):
        return _mix64(U(key) + (np.asarray(i, dtype=U) + U(1)) * GAMMA)

def spec_edges(scale, ef, seed, init=(0.57, 0.19, 0.19), relabel=True):
    m = ef << scale
    # 1. order
    ko = rng_key(seed, 3)
    keys = [int(rng_at(ko, r)) for r in range(4)]
    h = 1
    while h < 63 and (1 << (2 * h)) < m:
        h += 1
    mh = U((1 << h) - 1)
    def feistel(x):
        l, r = x >> U(h), x & mh
        with np.errstate(over="ignore"):
            for k in keys:
                f = (r ^ U(k)) * GAMMA
                l, r = r, l ^ ((f ^ (f >> U(29))) & mh)
        return (l << U(h)) | r
    p = np.arange(m, dtype=U)
    if relabel:
        q = feistel(p)
        while (q >= U(m)).any():
            bad = q >= U(m)
            q[bad] = feistel(q[bad])
    else:
        q = p
    # 2. Kronecker samples
    thr, c = [], 0.0
    for a in init:
        c += a
        thr.append(U(math.ceil(c * 2.0**32)))
    s = rng_at(rng_key(seed, 1), q)
    u = np.zeros(m, dtype=U); v = np.zeros(m, dtype=U)
    for t_ in range((scale + 1) // 2):
        with np.errstate(over="ignore"):
            x = _mix64(s + U(t_ + 1) * GAMMA)
        for half, lvl in ((x & U(0xffffffff), 2 * t_), (x >> U(32), 2 * t_ + 1)):
            if lvl >= scale:
                break
            k = (half >= thr[0]).astype(U) + (half >= thr[1]) + (half >= thr[2])
            u |= (k >> U(1)) << U(lvl)
            v |= (k & U(1)) << U(lvl)
    # 3. relabelling
    if relabel:
        kr = rng_key(seed, 2)
        mask, sh = U((1 << scale) - 1), U((scale + 1) // 2)
        mul = [int(rng_at(kr, 2 * r)) | 1 for r in range(3)]
        add = [int(rng_at(kr, 2 * r + 1)) for r in range(3)]
        def sigma(x):
            with np.errstate(over="ignore"):
                for r in range(3):
                    x = (x * U(mul[r]) + U(add[r])) & mask
                    x ^= x >> sh
            return x
        u, v = sigma(u), sigma(v)
    return np.stack([u, v], axis=1).astype(np.int64)

for scale, ef, seed, extra in ((9, 4, 1, []), (8, 3, 12345, []), (7, 5, 2, ["--no-relabel"]),
                               (10, 2, 9, ["--initiator", "0.45,0.25,0.15"])):
    out = os.path.join(TMP, "spec.h5")
    run(1, "rmat-gen", "-q", "-s", scale, "-e", ef, "--seed", seed, *extra, "-o", out)
    with h5py.File(out, "r") as f:
        got = f["edges"][...]
    init = (0.45, 0.25, 0.15) if "--initiator" in extra else (0.57, 0.19, 0.19)
    want = spec_edges(scale, ef, seed, init, relabel="--no-relabel" not in extra)
    t.eq("FORMATS.md rewritten in numpy gives /edges of -s %d -e %d --seed %d %s" % (scale, ef, seed, " ".join(extra)), got, want)

# pinned: the output of a fixed command, on whatever code path this build takes
out = os.path.join(TMP, "pin.h5")
run(2, "rmat-gen", "-q", "-s", 11, "-e", 4, "--seed", 5, "-o", out)
with h5py.File(out, "r") as f:
    t.eq("pinned fingerprint of -s 11 -e 4 --seed 5", int(f.attrs["fingerprint"]), 5854417459044392641)
raise SystemExit(1 if t.failed else 0)
