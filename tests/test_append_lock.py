"""tests/test_append_lock.py — bfs-report --append's lock
(REPORT-FORMATS.md): a table of a legal name 250 to 255 bytes long gets
its rows (the lock's name is shortened, not refused), and two symbolic links
to one table share one lock and one table: both appends land in the file
they name, the links stay links, and nothing is left beside the table."""
import os, sys
from b2ref import Report, TMP
from reportlib import write_bfs, write_valid, report

R = Report()
T = os.path.join(TMP, "lock")
os.makedirs(T, exist_ok=True)
runs = []
for k in range(3):
    b, v = os.path.join(T, "r%d.bfs.h5" % k), os.path.join(T, "r%d.valid.h5" % k)
    write_bfs(b, [0.01, 0.02], [1000, 1000])
    write_valid(v, b)
    runs.append((b, v))


def rows(path):
    with open(path) as f:
        return f.read().splitlines()


def left_beside(d, keep):
    return sorted(set(os.listdir(d)) - set(keep))


for n in (250, 255):
    name = os.path.join(T, "t" * (n - 4) + ".csv")
    p = report(*runs[0], "--append", name)
    R.check("a %d-byte table name: appended (exit 0)" % n, p.returncode == 0, p.stderr[-300:])
    R.check("a %d-byte table name: header and one row" % n, os.path.exists(name) and len(rows(name)) == 2)
    R.eq("a %d-byte table name: no lock left beside it" % n,
         [x for x in os.listdir(T) if x.endswith(".lock") or x.startswith(".")], [])
    os.unlink(name)

d = os.path.join(T, "links")
os.makedirs(d, exist_ok=True)
target = os.path.join(d, "table.csv")
l1, l2 = os.path.join(d, "a.csv"), os.path.join(d, "b.csv")
os.symlink("table.csv", l1)
os.symlink(l1, l2)  # a chain: b -> a -> table
p1 = report(*runs[1], "--append", l1)
p2 = report(*runs[2], "--append", l2)
R.check("appends through two links: exit 0", p1.returncode == 0 and p2.returncode == 0, p1.stderr + p2.stderr)
R.check("the links stay links", os.path.islink(l1) and os.path.islink(l2))
R.check("both rows in the table the links name", os.path.exists(target) and len(rows(target)) == 3,
        str(rows(target)) if os.path.exists(target) else "no table")
R.eq("nothing left beside the table", left_beside(d, ["table.csv", "a.csv", "b.csv"]), [])
p = report(*runs[1], "--append", l2)
R.check("the same run through the other link: refused as already in the table (exit 2)",
        p.returncode == 2 and len(rows(target)) == 3, "exit %d" % p.returncode)
sys.exit(1 if R.failed else 0)
