"""tests/b2ref.py — independent serial references for the tests: reading
bfs2d files with h5py, symmetrizing edge lists, plain BFS, and the 2D ownership
rule of docs/DESIGN.md written straight from its formulas."""
import hashlib, signal
import os, subprocess, sys
import numpy as np
import h5py

BIN = os.environ.get("B2_BIN") or os.path.join(os.path.dirname(__file__), "..", "bin")
TMP = os.environ.get("B2_TMP") or "/tmp"
DATA = os.environ.get("B2_DATA") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
MPIEXEC = os.environ.get("B2_MPIEXEC", "mpiexec")
SAN = os.environ.get("B2_SAN", "0") == "1"

class Report:
    """Prints "ok NAME" / "FAIL NAME: why" lines for tests/run.sh."""
    def __init__(self):
        self.failed = 0
    def check(self, name, cond, why=""):
        if cond:
            print("ok", name, flush=True)
        else:
            self.failed += 1
            print("FAIL %s: %s" % (name, why), flush=True)
        return cond
    def eq(self, name, got, want):
        if isinstance(got, np.ndarray) or isinstance(want, np.ndarray):
            good = np.array_equal(np.asarray(got), np.asarray(want))
            why = "arrays differ" if not good else ""
            if not good:
                g, w = np.asarray(got), np.asarray(want)
                if g.shape != w.shape:
                    why = "shapes %s != %s" % (g.shape, w.shape)
                else:
                    idx = np.flatnonzero(g.ravel() != w.ravel())
                    why = "%d elements differ, first at %d: %s != %s" % (len(idx), idx[0], g.ravel()[idx[0]], w.ravel()[idx[0]])
            return self.check(name, good, why)
        return self.check(name, got == want, "got %r, want %r" % (got, want))

def run(np_, prog, *args, check=True, **kw):
    """Runs PROG from BIN on np_ ranks; returns CompletedProcess."""
    cmd = [os.path.join(BIN, prog)] + [str(a) for a in args]
    if np_ > 1:
        cmd = MPIEXEC.split() + ["-n", str(np_)] + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if check and p.returncode != 0:
        raise RuntimeError("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return p

# ---- test inputs (tests/data) ----------------------------------------------
# A missing input is a FAIL, never a skip: a test that quietly tests nothing
# looks like a test that passed.
SNAP_DIR = os.path.join(DATA, "snap")

def run_bounded(cmd, limit, env=None, rlimit=None):
    """(exit code, stdout, stderr) of cmd; the exit code is None when it ran
    past `limit` seconds: its process group is killed, so a hang is a
    result the test can assert on, not a stuck test. rlimit: (resource,
    value) set in the child first (a `ulimit` for the whole job)."""
    pre = None
    if rlimit is not None:
        import resource
        pre = lambda: resource.setrlimit(rlimit[0], (rlimit[1], rlimit[1]))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, start_new_session=True, preexec_fn=pre)
    try:
        out, err = p.communicate(timeout=limit)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out, err


def cmd_of(np_, prog, args):
    """The command line of PROG from BIN on np_ ranks (np_ = 1: no mpiexec)."""
    c = [os.path.join(BIN, prog)] + [str(a) for a in args]
    return (MPIEXEC.split() + ["-n", str(np_)] + c) if np_ > 1 else c


def run_np_bounded(np_, prog, args, limit, env=None):
    """(exit code or None on a timeout, stderr, stdout) of PROG on np_ ranks."""
    rc, out, err = run_bounded(cmd_of(np_, prog, args), limit, env)
    return rc, err, out


def digest(path):
    """sha256 of a file's bytes: inputs are compared before and after."""
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def need_input(rep, path):
    """One assertion: path is a non-empty regular file. Returns whether it is."""
    ok = os.path.isfile(path) and os.path.getsize(path) > 0
    rep.check("input %s present" % os.path.basename(path), ok,
              "%s is missing or empty (tests/data is part of the repository; B2_DATA=%s)" % (path, DATA))
    return ok

def snap_table():
    """The table of tests/data/snap/README.md: file -> dict(page, bytes,
    header_nodes, header_edges (None where the file has no header),
    vertices, tuples). {} when the README cannot be read."""
    rows = {}
    try:
        text = open(os.path.join(SNAP_DIR, "README.md"), encoding="utf-8").read()
    except OSError:
        return rows
    num = lambda s: None if s in ("—", "-") else int(s)
    for line in text.splitlines():
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) >= 7 and c[2].isdigit():
            rows[c[0]] = dict(page=c[1], bytes=int(c[2]), header_nodes=num(c[3]), header_edges=num(c[4]),
                              vertices=int(c[5]), tuples=int(c[6]))
    return rows

def snap_files(rep):
    """Paths of the SNAP test graphs the README lists, in name order, each
    checked present and non-empty (FAIL otherwise); only present ones are
    returned. An empty or unreadable table is a FAIL too."""
    table = snap_table()
    rep.check("SNAP test graphs listed in %s" % os.path.join(SNAP_DIR, "README.md"), len(table) > 0,
              "no table of SNAP files found (B2_DATA=%s)" % DATA)
    return [os.path.join(SNAP_DIR, f) for f in sorted(table) if need_input(rep, os.path.join(SNAP_DIR, f))]

def read_edges(path):
    """(N, tuples int64 [M,2], attrs dict)."""
    with h5py.File(path, "r") as f:
        return int(f.attrs["num_vertices"]), f["edges"][...], dict(f.attrs)

def undirected_csr(n, tuples):
    """Symmetrized, deduplicated, self-loop-free adjacency as CSR (ptr, idx)."""
    u, v = tuples[:, 0].astype(np.int64), tuples[:, 1].astype(np.int64)
    keep = u != v
    u, v = u[keep], v[keep]
    a = np.concatenate([u, v]); b = np.concatenate([v, u])
    key = np.unique(a * n + b)
    a, b = key // n, key % n
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.add.at(ptr, a + 1, 1)
    return np.cumsum(ptr), b

def bfs_levels(n, ptr, idx, root):
    """Plain serial level-synchronous BFS: level per vertex, -1 unreached."""
    level = np.full(n, -1, dtype=np.int64)
    level[root] = 0
    front = np.array([root], dtype=np.int64)
    d = 0
    while len(front):
        d += 1
        starts, ends = ptr[front], ptr[front + 1]
        lens = ends - starts
        if lens.sum() == 0:
            break
        # gather all neighbour lists: position k of the concatenation
        off = np.repeat(starts - (np.cumsum(lens) - lens), lens)
        nb = idx[off + np.arange(lens.sum())]
        nb = np.unique(nb)
        nb = nb[level[nb] < 0]
        level[nb] = d
        front = nb
    return level

def levels_from_pred(pred, root):
    """Levels implied by a predecessor array (-1 unreached); None if not a tree."""
    n = len(pred)
    level = np.full(n, -1, dtype=np.int64)
    level[root] = 0
    reached = np.flatnonzero(pred >= 0)
    for v in reached:
        path = []
        x = v
        while level[x] < 0:
            path.append(x)
            x = pred[x]
            if len(path) > n:
                return None
        for k, y in enumerate(reversed(path)):
            level[y] = level[x] + k + 1
    return level

# ---- docs/DESIGN.md's 2D ownership ------------------------------------------
def block_size(n, r, c):
    return -(-n // (r * c))

def vertex_owner(v, n, r, c):
    """(i, j) of the rank owning vertex v: P(i,j) owns block j*R + i."""
    b = block_size(n, r, c)
    blk = v // b
    return blk % r, blk // r

def edge_owner(u, v, n, r, c):
    """(i, j) storing edge u->v (u the CSC column, v the row)."""
    b = block_size(n, r, c)
    return (v // b) % r, u // (b * r)

# ---- common/b2.h's counter-based mixing, for fingerprints ---------------
M64 = (1 << 64) - 1
def _mix64(z):
    z = np.asarray(z, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xbf58476d1ce4e5b9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94d049bb133111eb)
        return z ^ (z >> np.uint64(31))

def fingerprint(tuples, row0=0):
    """The edge-file fingerprint of common/b2.h: sum over rows r of
    b2_fp_tuple(r, u, v) mod 2^64, written again from its definition."""
    tuples = np.asarray(tuples, dtype=np.int64)
    r = np.arange(row0, row0 + len(tuples), dtype=np.uint64)
    u = tuples[:, 0].astype(np.uint64)
    v = tuples[:, 1].astype(np.uint64)
    with np.errstate(over="ignore"):
        h = _mix64(_mix64(r + np.uint64(0x3c6ef372fe94f82b)) ^ _mix64(u + np.uint64(0xa54ff53a5f1d36f1))
                   ^ (v * np.uint64(0x9e3779b97f4a7c15)))
        return int(h.sum(dtype=np.uint64))  # numpy's uint64 sum wraps mod 2^64

def rng_at(key, i):
    """b2_rng_at of common/b2.h, for Python ints."""
    return int(_mix64(np.uint64((key + (i + 1) * 0x9e3779b97f4a7c15) & M64)))

def rng_key(seed, stream):
    """b2_rng_key of common/b2.h, for Python ints."""
    a = int(_mix64(np.uint64((seed ^ 0x6a09e667f3bcc909) & M64)))
    c = int(_mix64(np.uint64((stream + 0xbb67ae8584caa73b) & M64)))
    return int(_mix64(np.uint64((a + c) & M64)))

# ---- writing bfs2d files from the tests, as docs/FORMATS.md says --------
def put_str(obj, name, val):
    """A fixed-length, NUL-terminated string attribute (FORMATS.md)."""
    b = val.encode() if isinstance(val, str) else val
    obj.attrs[name] = np.array(b, dtype="S%d" % (len(b) + 1))

def write_edges(path, n, tuples, directed=0, fp=None, fmt="bfs2d-edges", num_edges=None,
                created_by="tests"):
    """An edge file; fp / fmt / num_edges override the true values (to make
    bad files)."""
    tuples = np.asarray(tuples, dtype=np.int64).reshape(-1, 2)
    with h5py.File(path, "w") as f:
        if len(tuples):
            f.create_dataset("edges", data=tuples, chunks=(min(len(tuples), 1 << 16), 2))
        else:
            f.create_dataset("edges", shape=(0, 2), dtype=np.int64)
        put_str(f, "format", fmt)
        f.attrs["format_version"] = np.int64(1)
        put_str(f, "created_by", created_by)
        f.attrs["num_vertices"] = np.int64(n)
        f.attrs["num_edges"] = np.int64(len(tuples) if num_edges is None else num_edges)
        f.attrs["directed"] = np.int64(directed)
        f.attrs["fingerprint"] = np.uint64(fingerprint(tuples) if fp is None else fp)
    return path
