"""tests/reportlib.py — BFS and validation files written with h5py exactly
as docs/FORMATS.md describes them, for the bfs-report tests."""
import math, os, subprocess, uuid
import numpy as np
import h5py
from b2ref import BIN

PHASES = ["expand exchange", "frontier expansion", "fold exchange", "frontier update",
          "termination test", "predecessor resolution"]
RULES = ["pass", "root", "tree", "levels", "edges", "reached", "nedge"]

def _strtype(width):
    t = h5py.h5t.C_S1.copy()
    t.set_size(width)
    t.set_strpad(h5py.h5t.STR_NULLTERM)
    return h5py.Datatype(t)

def sattr(obj, name, s):
    """FORMATS.md's string: fixed-length, NUL-terminated H5T_C_S1."""
    b = s.encode()
    obj.attrs.create(name, np.array(b, dtype="S%d" % (len(b) + 1)), dtype=_strtype(len(b) + 1))

def sattrv(obj, name, items):
    w = max(len(x) for x in items) + 1
    obj.attrs.create(name, np.array([x.encode() for x in items], dtype="S%d" % w), dtype=_strtype(w))

def write_bfs(path, times, nedge, roots=None, N=1024, M=16384, grid=(1, 1), backend="cpu",
              gpus=0, fp=0x1234abcd, scale=10, ef=16, edges_file="data/g.h5", seed=1,
              phase=None, frontier=None, gen_time=0.5, load_time=0.25, fmt="bfs2d-bfs",
              run_id="new"):
    """run_id: "new" draws one (as bfs-gpu does), None writes none (older files)."""
    K = len(times)
    rng = np.random.default_rng(K + len(path))
    if roots is None:
        roots = np.arange(K, dtype=np.int64) * 7 % N
    if phase is None:
        phase = rng.uniform(0.001, 0.01, size=(K, 6))
    if frontier is None:
        frontier = np.zeros((K, 5), dtype=np.int64)
        for k in range(K):
            frontier[k, :4] = [1, 10 + k, 300 + 3 * k, 50 - k]
    with h5py.File(path, "w") as f:
        sattr(f, "format", fmt)
        f.attrs["format_version"] = np.int64(1)
        sattr(f, "created_by", "test_report")
        f["roots"] = np.asarray(roots, dtype=np.int64)
        f["time"] = np.asarray(times, dtype=np.float64)
        f["nedge"] = np.asarray(nedge, dtype=np.int64)
        f["visited"] = np.full(K, 100, dtype=np.int64)
        f["phase_time"] = np.asarray(phase, dtype=np.float64).reshape(K, 6)
        f["frontier_size"] = np.asarray(frontier, dtype=np.int64)
        f["kept"] = np.arange(K, dtype=np.int64)
        f["pred"] = np.full((K, N), -1, dtype=np.int64)
        sattr(f, "partition_file", "data/g.g%dx%d.h5" % grid)
        sattr(f, "edges_file", edges_file)
        f.attrs["edges_fingerprint"] = np.uint64(fp)
        for k, v in (("num_vertices", N), ("num_input_edges", M), ("grid_rows", grid[0]),
                     ("grid_cols", grid[1]), ("num_ranks", grid[0] * grid[1]), ("num_gpus", gpus),
                     ("nroots", K), ("edges_per_thread", 1)):
            f.attrs[k] = np.int64(v)
        if scale is not None:
            f.attrs["scale"] = np.int64(scale)
            f.attrs["edgefactor"] = np.int64(ef)
            f.attrs["generation_time"] = np.float64(gen_time)
        sattr(f, "backend", backend)
        sattr(f, "devices", "%d x Test GPU" % gpus if gpus else "cpu")
        f.attrs["seed"] = np.uint64(seed)
        sattr(f, "bitmap", "auto")
        sattr(f, "exchange", "expand none, fold mpi")
        sattrv(f, "phase_names", PHASES)
        f.attrs["partition_time"] = np.float64(0.125)
        f.attrs["load_time"] = np.float64(load_time)
        if run_id == "new":
            run_id = uuid.uuid4().hex
        if run_id is not None:
            sattr(f, "run_id", run_id)
    return path

def write_valid(path, bfs_path, passed=None, rule=None, vtime=None, nedge=None, search=None,
                fp=None, root=None, run_id="copy"):
    """run_id: "copy" names the BFS file's run (as bfs-validate does), None none."""
    with h5py.File(bfs_path, "r") as b:
        K = len(b["roots"])
        roots = b["roots"][...]
        bnedge = b["nedge"][...]
        bfp = int(b.attrs["edges_fingerprint"])
        if run_id == "copy":
            run_id = b.attrs["run_id"].decode() if "run_id" in b.attrs else None
    search = np.arange(K) if search is None else np.asarray(search)
    Kp = len(search)
    passed = np.ones(Kp, dtype=np.int64) if passed is None else np.asarray(passed, dtype=np.int64)
    rule = np.where(passed == 1, 0, 2) if rule is None else np.asarray(rule)
    vtime = np.linspace(0.5, 1.5, Kp) if vtime is None else np.asarray(vtime)
    with h5py.File(path, "w") as f:
        sattr(f, "format", "bfs2d-validation")
        f.attrs["format_version"] = np.int64(1)
        sattr(f, "created_by", "test_report")
        f["search"] = search.astype(np.int64)
        f["root"] = (roots[search] if root is None else np.asarray(root)).astype(np.int64)
        f["passed"] = passed
        f["rule"] = rule.astype(np.int64)
        f["example_vertex"] = np.where(passed == 1, -1, 5).astype(np.int64)
        f["nedge"] = (bnedge[search] if nedge is None else np.asarray(nedge)).astype(np.int64)
        f["time"] = vtime.astype(np.float64)
        sattr(f, "bfs_file", bfs_path)
        sattr(f, "edges_file", "data/g.h5")
        f.attrs["edges_fingerprint"] = np.uint64(bfp if fp is None else fp)
        f.attrs["num_searches"] = np.int64(Kp)
        f.attrs["num_passed"] = np.int64(passed.sum())
        f.attrs["num_failed"] = np.int64(Kp - passed.sum())
        sattrv(f, "rule_names", RULES)
        if run_id is not None:
            sattr(f, "bfs_run_id", run_id)
    return path

def report(*args):
    cmd = [os.path.join(BIN, "bfs-report")] + [str(a) for a in args]
    return subprocess.run(cmd, capture_output=True, text=True)

def close(a, b, rel):
    if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
        return (isinstance(a, float) and math.isnan(a)) and (isinstance(b, float) and math.isnan(b))
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)

