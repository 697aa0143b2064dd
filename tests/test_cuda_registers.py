"""test_cuda_registers.py — the CUDA kernels launched on blocks_for's grid
(2048 / TPB blocks an SM, traverse/cuda/common.cuh) fit on the SMs at once:
each takes at most 32 registers a thread and spills none, as ptxas reports
compiling every traverse/cuda/*.cu with the build's compiler and flags
(`make print-nvcc`). A kernel that takes more runs the blocks left over as
a second wave, each with a whole block's share of the work. The exceptions
launch on grids of their own: k_expand (expand_grids, from the occupancy
API) and k_scan1 (one block). Prints SKIP where the build finds no nvcc."""
import glob, os, re, shlex, subprocess, sys, tempfile
from b2ref import Report

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OWN_GRID = {"k_expand", "k_scan1"}

if os.environ.get("B2_SAN") == "1":
    print("SKIP CUDA kernels' registers under the sanitizer build: the release pass checks the same sources")
    sys.exit(0)
rep = Report()
mk = subprocess.run(["make", "-s", "--no-print-directory", "-C", TOP, "print-nvcc"], capture_output=True, text=True)
if not rep.check("make print-nvcc", mk.returncode == 0, mk.stderr.strip()[-300:]):
    sys.exit(1)
nvcc = shlex.split(mk.stdout)
if not nvcc:
    print("SKIP CUDA kernels' registers: the build finds no nvcc (no CUDA toolkit)")
    sys.exit(0)
kernels = {}  # name (template arguments aside) -> [(registers, spill bytes), ...]
with tempfile.TemporaryDirectory() as tmp:
    for src in sorted(glob.glob(os.path.join(TOP, "traverse", "cuda", "*.cu"))):
        p = subprocess.run(nvcc + ["-c", "-Xptxas", "-v", "-o", os.path.join(tmp, "k.o"), src],
                           cwd=TOP, capture_output=True, text=True)
        if not rep.check("nvcc -c %s" % os.path.basename(src), p.returncode == 0, p.stderr[-500:]):
            continue
        name = spill = None
        for line in p.stderr.splitlines():
            m = re.search(r"Compiling entry function '_Z(\d+)(\w+)'", line)
            if m:
                name = m.group(2)[:int(m.group(1))]
                continue
            m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
            if m:
                spill = int(m.group(1)) + int(m.group(2))
                continue
            m = re.search(r"Used (\d+) registers", line)
            if m and name:
                kernels.setdefault(name, []).append((int(m.group(1)), spill))
                name = spill = None

own = sorted(k for k in kernels if k.startswith("k_"))
# every kernel of traverse/cuda found: the parse read ptxas's report
defined = set()
for src in glob.glob(os.path.join(TOP, "traverse", "cuda", "*.cu")):
    defined |= set(re.findall(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+|GRID_STRIDE\s+)?(k_\w+)\s*\(",
                              open(src).read()))
rep.check("ptxas reported every kernel defined in traverse/cuda (%d)" % len(defined),
          len(defined) >= 25 and defined <= set(own), "missing: %s" % sorted(defined - set(own)))
for k in own:
    if k in OWN_GRID:
        continue
    worst = max(r for r, _ in kernels[k])
    spills = max(s or 0 for _, s in kernels[k])
    rep.check("%s: at most 32 registers (%d) and no spills (%d bytes)" % (k, worst, spills),
              worst <= 32 and spills == 0)
print("%d kernels checked" % (len(own) - len(OWN_GRID & set(own))))
sys.exit(1 if rep.failed else 0)
