"""tests/test_hostile_gzip.py — snap-import reads a gzip file of several
members whatever byte of its 1 MiB read buffer a member ends on, on 1 and 2
ranks: members built byte-exact (stored deflate blocks, the header padded
with an FEXTRA field) end at the buffer's size and at -2..+2 of it, and of
twice it; an empty member comes between, a line runs across two members.
Each import equals the import of the same text unzipped (its edges, ids and
attributes), and has as many tuples as the text has lines. Bytes after the
last member that are not a member (one byte right at the buffer's end, two
bytes, a byte past it) are exit 3 "unexpected data after the end"."""
import os, struct, zlib
import numpy as np
import h5py
from b2ref import Report, BIN, TMP, MPIEXEC, run_bounded

rep = Report()
T = TMP
CAP = 1 << 20  # snap-import's gzip read buffer (gen/snap_read.c)
LIMIT = 180


def run(np_, *args):
    c = [os.path.join(BIN, "snap-import")] + [str(a) for a in args]
    return run_bounded((MPIEXEC.split() + ["-n", str(np_)] + c) if np_ > 1 else c, LIMIT)


def member(data, size=None):
    """One gzip member of data, stored; exactly `size` bytes when given."""
    c = zlib.compressobj(0, zlib.DEFLATED, -15)
    raw = c.compress(data) + c.flush()
    trailer = struct.pack("<II", zlib.crc32(data) & 0xffffffff, len(data) & 0xffffffff)
    if size is None:
        return b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff" + raw + trailer
    xlen = size - 12 - len(raw) - 8
    assert 0 <= xlen <= 65535, xlen
    head = b"\x1f\x8b\x08\x04\x00\x00\x00\x00\x00\xff" + struct.pack("<H", xlen) + b"\0" * xlen
    m = head + raw + trailer
    assert len(m) == size
    return m


def text(first, n):
    return "".join("%d %d\n" % (first + i, (first + i) * 7 % 1000 + 1) for i in range(n)).encode()


def load(path):
    with h5py.File(path, "r") as f:
        return f["edges"][()], (f["vertex_ids"][()] if "vertex_ids" in f else None), \
            {k: int(f.attrs[k]) for k in ("fingerprint", "num_vertices", "num_edges", "directed")}


# the first member's text: about 40 KiB less than the buffer when stored
A = text(1, 110000)
while len(A) > CAP - 40000:
    A = A[:A.rindex(b"\n", 0, len(A) - 1) + 1]
B = text(200000, 100000)
while len(B) > CAP + 40000 - 30000 - 200:  # member(A) + member(B) about 2 CAP - 30000
    B = B[:B.rindex(b"\n", 0, len(B) - 1) + 1]
C = text(400000, 20000)
# a line cut in two: its first half ends member B', the rest starts C'
Bcut, Ccut = B + b"123", b"45 6\n" + C
plain = T + "/plain.txt"
with open(plain, "wb") as f:
    f.write(A + B + C)
ref = T + "/plain.h5"
rc, _, err = run(1, plain, "-o", ref)
ok = rep.check("reference import of the text", rc == 0, err[-300:])
lines = (A + B + C).count(b"\n")
plain_cut = T + "/plain_cut.txt"
with open(plain_cut, "wb") as f:
    f.write(A + Bcut + Ccut)
ref_cut = T + "/plain_cut.h5"
rc, _, err = run(1, plain_cut, "-o", ref_cut)
ok &= rep.check("reference import of the text with a cut line", rc == 0, err[-300:])
if ok:
    ea, _, aa = load(ref)
    rep.eq("reference: one tuple a line", aa["num_edges"], lines)

cases = []
for d in (-2, -1, 0, 1, 2):
    cases.append(("A ends at CAP%+d" % d, member(A, CAP + d) + member(b"") + member(B) + member(C), ref))
    # B fills up to 2 CAP + d: its header pads the rest
    a = member(A)
    cases.append(("B ends at 2 CAP%+d" % d, a + member(B, 2 * CAP + d - len(a)) + member(C), ref))
cases.append(("a line across two members, A at CAP", member(A, CAP) + member(Bcut) + member(Ccut), ref_cut))
cases.append(("empty member at CAP-1..CAP+9", member(A, CAP - 1) + member(b"") + member(b"") +
              member(B) + member(C), ref))

for name, data, r in cases:
    gz = T + "/multi.txt.gz"
    with open(gz, "wb") as f:
        f.write(data)
    er, ir, ar = load(r)
    for np_ in (1, 2):
        o = T + "/multi%d.h5" % np_
        rc, _, err = run(np_, gz, "-o", o)
        n = "%s (%d rank%s)" % (name, np_, "s" if np_ > 1 else "")
        if not rep.check(n + ": exit 0", rc == 0, "exit %s: %s" % (rc, err[-300:])):
            continue
        e, i, a = load(o)
        rep.eq(n + ": edges as the text's", e, er)
        if ir is not None:
            rep.eq(n + ": vertex ids as the text's", i, ir)
        rep.eq(n + ": attributes as the text's", a, ar)
        os.unlink(o)

# bytes after the last member that do not make one
tails = {"one byte at CAP": (member(A, CAP - 1), b"\x1f"),
         "two bytes after a member ending at CAP": (member(A, CAP), b"xy"),
         "a byte past CAP": (member(A, CAP + 1), b"\0")}
for name, (m, tail) in tails.items():
    gz = T + "/tail.txt.gz"
    with open(gz, "wb") as f:
        f.write(m + tail)
    for np_ in (1, 2):
        o = T + "/tail.h5"
        rc, _, err = run(np_, gz, "-o", o)
        n = "%s (%d rank%s)" % (name, np_, "s" if np_ > 1 else "")
        rep.check(n + ": exit 3", rc == 3, "exit %s: %s" % (rc, err[-300:]))
        rep.check(n + ": names the file and why", gz in err and "after the end" in err, err[-300:])
        rep.check(n + ": no output", not os.path.exists(o))
