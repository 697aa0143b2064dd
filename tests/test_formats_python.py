"""docs/FORMATS.md's Python reader and writer of the edge file, run as the
page prints it: a file it writes is accepted by partition2d (which checks the
fingerprint), it reads rmat-gen's output and agrees with the file's own
fingerprint, and the page's worked fingerprint example holds."""
import os, re, sys
import numpy as np
import h5py
import b2ref
from b2ref import Report, TMP

R = Report()
page = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "FORMATS.md")).read()
m = re.search(r"<!-- edge-file-python -->\s*```python\n(.*?)```", page, re.S)
R.check("formats_md_has_the_python_block", m is not None)
if m is None:
    sys.exit(1)
code = m.group(1)
R.check("python_block_is_short", len([l for l in code.splitlines() if l.strip()]) <= 30,
        "%d lines" % len(code.splitlines()))
ns = {}
exec(code, ns)
fingerprint, write_edges, read_edges = ns["fingerprint"], ns["write_edges"], ns["read_edges"]

# the page's numbers
R.eq("fingerprint_example_two_rows", fingerprint(np.array([[1, 2], [2, 0]], dtype=np.int64)), 0x0806e1e67446a90e)
R.eq("fingerprint_example_one_row", fingerprint(np.array([[1, 2]], dtype=np.int64)), 0xaa68533991f95306)
R.eq("fingerprint_empty", fingerprint(np.zeros((0, 2), dtype=np.int64)), 0)

# written by the page's writer, partitioned by partition2d (which recomputes the fingerprint)
edges = np.array([[0, 1], [1, 2], [2, 0], [3, 3], [1, 0], [4, 2]], dtype=np.int64)
py = os.path.join(TMP, "py.h5")
write_edges(py, edges, 6)
p = b2ref.run(1, "partition2d", "--grid", "1x2", py, "-o", os.path.join(TMP, "py.g1x2.h5"), check=False)
R.check("partition2d_accepts_python_written_file", p.returncode == 0, p.stderr)
with h5py.File(py, "r") as f:
    R.eq("python_file_fingerprint_is_b2ref", int(f.attrs["fingerprint"]), int(b2ref.fingerprint(edges)))

# reads what rmat-gen wrote, with its fingerprint
rm = os.path.join(TMP, "r.h5")
b2ref.run(1, "rmat-gen", "-s", 8, "-e", 4, "-o", rm, "-q")
e, n = read_edges(rm)
with h5py.File(rm, "r") as f:
    R.check("reader_reads_rmat_gen", n == 256 and np.array_equal(e, f["edges"][...]) and
            fingerprint(e) == int(f.attrs["fingerprint"]))
# and refuses a changed file
with h5py.File(py, "a") as f:
    f["edges"][0, 0] = 5
try:
    read_edges(py)
    R.check("reader_refuses_mismatch", False, "no error")
except AssertionError as ex:
    R.check("reader_refuses_mismatch", "fingerprint" in str(ex), str(ex))
sys.exit(1 if R.failed else 0)
