#!/usr/bin/env bash
# pipeline.mk's campaign rules: an imported graph's files named by which
# input file it is (two inputs of one name never share a file), outputs made
# from other edges or another run made again, the report's side outputs as
# targets, variables checked before anything runs (VARIANT, options in the
# FLAGS that a variable sets), NROOTS 64 and the roots' rule by default.
source "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
for p in rmat-gen snap-import partition2d bfs-gpu bfs-validate bfs-report; do
  [ -x "$B2_BIN/$p" ] || { fail campaign_programs "missing $B2_BIN/$p (build them with make)"; exit 1; }
done
ok campaign_programs
# make's rules are the same whatever the build, and the programs run here as
# in test_pipeline, whose sanitizer pass covers them
[ "$B2_SAN" = 1 ] && exit 0

D=$T/data; RS=$T/results
export OMP_NUM_THREADS=1
P() { make --no-print-directory -f "$top/pipeline.mk" BIN="$B2_BIN" DATA="$D" RESULTS="$RS" \
        MPIEXEC="$B2_MPIEXEC" BACKEND=cpu EF=8 "$@"; }
attr() { python3 -c "import h5py,sys; v=h5py.File(sys.argv[1],'r').attrs[sys.argv[2]]; print(v.decode() if isinstance(v,bytes) else v)" "$@" 2>/dev/null; }
check_run() { python3 "$top/tests/pipeline_check.py" "$@"; }
# graph_matches NAME EDGES TEXT: the edge file holds TEXT's graph (SNAP: # comments,
# two ids a line; vertices = distinct ids, tuples = lines), counted here from the text
graph_matches() {
  python3 - "$@" <<'EOF'
import sys, h5py
name, edges, text = sys.argv[1:4]
ids, m = set(), 0
for line in open(text):
    if line.startswith("#") or not line.strip():
        continue
    u, v = line.split()[:2]
    ids.update((u, v)); m += 1
try:
    with h5py.File(edges, "r") as f:
        n, e = int(f.attrs["num_vertices"]), f["edges"].shape[0]
except OSError as x:
    print("FAIL %s: %s" % (name, x)); sys.exit(0)
print("ok %s" % name if (n, e) == (len(ids), m) else "FAIL %s: %s has %d vertices, %d tuples; %s %d, %d" % (name, edges, n, e, text, len(ids), m))
EOF
}
# nothing_written NAME: neither DATA nor RESULTS was created
# (then empties them for the next case)
nothing_written() {
  if [ -e "$T/none/data" ] || [ -e "$T/none/results" ]; then fail "$1" "$(ls -R "$T/none" | head -5)"; else ok "$1"; fi
  rm -rf "$T/none"; mkdir -p "$T/none"
}
Pnone() { make --no-print-directory -f "$top/pipeline.mk" BIN="$B2_BIN" DATA="$T/none/data" RESULTS="$T/none/results" \
            MPIEXEC="$B2_MPIEXEC" BACKEND=cpu EF=8 SCALE=8 "$@"; }
mkdir -p "$T/none"
cd "$T" || exit 1

# ---- two inputs of one file name ---------------------------------------------------------
# A: ca-GrQc as mysoc.txt; B: another graph under the same name, in another
# directory, older than A (as a tarball keeps times): B must not be taken for A
mkdir -p "$T/a" "$T/b"
cp "$B2_DATA/snap/ca-GrQc.txt" "$T/a/mysoc.txt"
cp "$B2_DATA/snap/as20000102.txt" "$T/b/mysoc.txt"; touch -d '2001-01-01 00:00' "$T/b/mysoc.txt"
P GRAPH="$T/a/mysoc.txt" NROOTS=4 all >"$T/a.out" 2>&1 && ok same_name_first_import || fail same_name_first_import "$(tail -5 "$T/a.out")"
ea=$(ls "$D"/mysoc.f????????.h5 2>/dev/null)
[ "$(echo "$ea" | wc -w)" = 1 ] && ok same_name_one_edge_file || fail same_name_one_edge_file "$(ls "$D")"
sum_a=$(sha256sum <"$ea")
P GRAPH="$T/b/mysoc.txt" NROOTS=4 all >"$T/b.out" 2>&1 && ok same_name_second_import || fail same_name_second_import "$(tail -5 "$T/b.out")"
grep -q "$B2_BIN/snap-import .*$T/b/mysoc.txt" "$T/b.out" && ok same_name_older_input_imported || fail same_name_older_input_imported "$(head -5 "$T/b.out")"
eb=$(ls "$D"/mysoc.f????????.h5 | grep -v "^$ea\$")
[ "$(echo "$eb" | wc -w)" = 1 ] && [ "$eb" != "$ea" ] && ok same_name_two_edge_files || fail same_name_two_edge_files "$(ls "$D")"
[ "$(sha256sum <"$ea")" = "$sum_a" ] && ok same_name_first_kept || fail same_name_first_kept "$ea rewritten"
graph_matches same_name_a_is_a "$ea" "$T/a/mysoc.txt"
graph_matches same_name_b_is_b "$eb" "$T/b/mysoc.txt"
for x in a b; do
  e=$([ $x = a ] && echo "$ea" || echo "$eb"); r=$RS/$(basename "$e" .h5).g1x1.n4.cpu
  check_run same_name_$x "$r.bfs.h5" "$r.valid.h5" "$e" "$r.txt" "$r.json"
  [ "$(attr "$r.bfs.h5" edges_fingerprint)" = "$(attr "$e" fingerprint)" ] && ok same_name_${x}_bfs_of_its_graph \
    || fail same_name_${x}_bfs_of_its_graph "$(attr "$r.bfs.h5" edges_fingerprint) vs $(attr "$e" fingerprint)"
done
# both stay current side by side
P GRAPH="$T/a/mysoc.txt" NROOTS=4 -q all && P GRAPH="$T/b/mysoc.txt" NROOTS=4 -q all && ok same_name_both_current \
  || fail same_name_both_current "one is not up to date"
# the same path rewritten with another graph (same name, older time): a new
# edge file, the first one left as it was
cp "$B2_DATA/snap/p2p-Gnutella08.txt" "$T/a/mysoc.txt"; touch -d '2001-01-01 00:00' "$T/a/mysoc.txt"
P GRAPH="$T/a/mysoc.txt" NROOTS=4 -q all && fail rewritten_input_not_current "make -q: up to date" || ok rewritten_input_not_current
P GRAPH="$T/a/mysoc.txt" NROOTS=4 gen >"$T/a2.out" 2>&1 || fail rewritten_input_import "$(tail -3 "$T/a2.out")"
[ "$(ls "$D"/mysoc.f????????.h5 | wc -l)" = 3 ] && [ "$(sha256sum <"$ea")" = "$sum_a" ] && ok rewritten_input_new_file \
  || fail rewritten_input_new_file "$(ls "$D")"
ec=$(ls -t "$D"/mysoc.f????????.h5 | head -1)
graph_matches rewritten_input_is_new_graph "$ec" "$T/a/mysoc.txt"

# ---- the default roots' rule and NROOTS ---------------------------------------------------
# an imported graph: 64 roots from the largest component, said and recorded
G=$B2_DATA/snap/as20000102.txt
P GRAPH="$G" -n all >"$T/def.n" 2>&1
grep -q -- "$B2_BIN/bfs-gpu .* -n 64 .*--roots largest-component.* -o $RS/as20000102.f[0-9a-f]\{8\}.g1x1.n64.cpu.bfs.h5" "$T/def.n" \
  && ok nroots_default_64_named || fail nroots_default_64_named "$(grep bfs-gpu "$T/def.n")"
if P GRAPH="$G" all >"$T/def.out" 2>&1; then ok default_run; else fail default_run "$(tail -5 "$T/def.out")"; fi
db=$(ls "$RS"/as20000102.f????????.g1x1.n64.cpu.bfs.h5 2>/dev/null | head -1)
[ "$(attr "$db" roots_from)" = largest-component ] && ok import_roots_largest_component || fail import_roots_largest_component "$(attr "$db" roots_from) in ${db:-no file}"
[ "$(attr "$db" nroots)" = 64 ] && [ "$(python3 -c "import h5py,sys; print(len(h5py.File(sys.argv[1],'r')['time']))" "$db")" = 64 ] \
  && ok nroots_default_64_searches || fail nroots_default_64_searches "nroots $(attr "$db" nroots)"
grep -q "pipeline.mk: roots from the largest component (the default for an imported graph; ROOTS=any gives Graph500's rule)" "$T/def.out" \
  && ok import_roots_said || fail import_roots_said "$(grep pipeline.mk "$T/def.out")"
# the largest component, counted here: every root's search reaches it all
python3 - "$db" "$(ls "$D"/as20000102.f????????.h5 | head -1)" <<'EOF'
import sys, h5py, numpy as np
bfs, edges = sys.argv[1:3]
with h5py.File(edges, "r") as f:
    e, n = f["edges"][...], int(f.attrs["num_vertices"])
parent = np.arange(n)
def find(x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]; x = parent[x]
    return x
for u, v in e:
    a, b = find(u), find(v)
    if a != b: parent[a] = b
comp = np.array([find(x) for x in range(n)])
big = np.bincount(comp).max()
with h5py.File(bfs, "r") as f:
    vis = f["visited"][...]
print("ok import_roots_in_largest_component" if (vis == big).all() else
      "FAIL import_roots_in_largest_component: visited %s, largest component %d" % (sorted(set(vis.tolist())), big))
EOF
# ROOTS=any: Graph500's rule for an imported graph, named apart
P GRAPH="$G" ROOTS=any NROOTS=4 -n bfs 2>&1 | grep -q -- "--roots any .*-o $RS/as20000102.f[0-9a-f]\{8\}.g1x1.n4.any.cpu.bfs.h5" \
  && ok import_roots_any_named || fail import_roots_any_named "$(P GRAPH="$G" ROOTS=any NROOTS=4 -n bfs 2>&1 | tail -2)"

# ---- outputs of other edges or another run are made again --------------------------------
SC=8
P SCALE=$SC NROOTS=3 all >"$T/r.out" 2>&1 && ok rmat_all || fail rmat_all "$(tail -5 "$T/r.out")"
re=$D/rmat-s$SC-e8.h5; rr=$RS/rmat-s$SC-e8.g1x1.n3.cpu
# another graph in the edge file's place, with an older time: make's times say
# "up to date", the fingerprints do not
run 1 rmat-gen -s $SC -e 8 --seed 7 -q -o "$T/other.h5" || fail other_graph "rmat-gen failed"
cp "$T/other.h5" "$re"; touch -d '2001-01-01 00:00' "$re"
P SCALE=$SC NROOTS=3 -q all >"$T/fp.q" 2>&1 && fail edges_changed_not_current "make -q: up to date" || ok edges_changed_not_current
grep -q "pipeline.mk: $D/rmat-s$SC-e8.g1x1.h5 was made from another graph" "$T/fp.q" && ok edges_changed_said || fail edges_changed_said "$(cat "$T/fp.q")"
P SCALE=$SC NROOTS=3 all >"$T/fp.out" 2>&1 || fail edges_changed_remade "$(tail -3 "$T/fp.out")"
grep -q "$B2_BIN/rmat-gen" "$T/fp.out" && fail edges_changed_keeps_graph "regenerated" || ok edges_changed_keeps_graph
grep -q "$B2_BIN/partition2d" "$T/fp.out" && grep -q "$B2_BIN/bfs-gpu" "$T/fp.out" && grep -q "$B2_BIN/bfs-validate" "$T/fp.out" \
  && ok edges_changed_remade || fail edges_changed_remade "$(grep "$B2_BIN" "$T/fp.out")"
check_run edges_changed "$rr.bfs.h5" "$rr.valid.h5" "$re" "$rr.txt" "$rr.json"
P SCALE=$SC NROOTS=3 -q all && ok edges_changed_then_current || fail edges_changed_then_current "not up to date"
# times that make takes as up to date: edge file, partition, then the BFS file
# below, all older than the validation and the report
old_times() { touch -d '2001-01-01 00:00' "$re"; touch -d '2001-01-02 00:00' "$D/rmat-s$SC-e8.g1x1.h5"; touch -d '2001-01-03 00:00' "$rr.bfs.h5"; }
# another run's BFS file in this one's place: validation and report again
P SCALE=$SC NROOTS=3 VARIANT=two all >"$T/v2.out" 2>&1 || fail variant_run "$(tail -3 "$T/v2.out")"
cp "$RS/rmat-s$SC-e8.g1x1.n3.cpu.two.bfs.h5" "$rr.bfs.h5"; old_times
P SCALE=$SC NROOTS=3 all >"$T/run.out" 2>&1 || fail other_run_remade "$(tail -3 "$T/run.out")"
grep -q "$rr.valid.h5 was made from another run" "$T/run.out" && grep -q "$B2_BIN/bfs-validate" "$T/run.out" \
  && grep -q "$B2_BIN/bfs-report" "$T/run.out" && ! grep -q "$B2_BIN/bfs-gpu" "$T/run.out" \
  && ok other_run_remade || fail other_run_remade "$(grep -e pipeline.mk -e "$B2_BIN" "$T/run.out")"
[ "$(attr "$rr.valid.h5" bfs_run_id)" = "$(attr "$rr.bfs.h5" run_id)" ] && grep -q "\"run_id\": *\"$(attr "$rr.bfs.h5" run_id)\"" "$rr.json" \
  && ok other_run_report_of_it || fail other_run_report_of_it "validation or JSON of another run"
# a BFS file of another graph in its place: the search again
cp "$RS/$(basename "$ea" .h5).g1x1.n4.cpu.bfs.h5" "$rr.bfs.h5"; old_times
P SCALE=$SC NROOTS=3 all >"$T/og.out" 2>&1 || fail other_graph_bfs_remade "$(tail -3 "$T/og.out")"
grep -q "$rr.bfs.h5 was made from another graph" "$T/og.out" && grep -q "$B2_BIN/bfs-gpu" "$T/og.out" \
  && ! grep -q "$B2_BIN/partition2d" "$T/og.out" && ok other_graph_bfs_remade || fail other_graph_bfs_remade "$(grep -e pipeline.mk -e "$B2_BIN" "$T/og.out")"
check_run other_graph_bfs "$rr.bfs.h5" "$rr.valid.h5" "$re" "$rr.txt" "$rr.json"

# ---- the report's side outputs are targets ---------------------------------------------------
for gone in "$rr.json" "$rr.svg/teps.svg" "$rr.svg/index.html" "$rr.svg"; do
  rm -rf "$gone"
  what=$(basename "$gone")
  P SCALE=$SC NROOTS=3 -q all && fail "side_output_${what}_stale" "make -q: up to date without $gone" || ok "side_output_${what}_stale"
  P SCALE=$SC NROOTS=3 all >"$T/side.out" 2>&1
  [ -s "$rr.json" ] && [ -s "$rr.svg/teps.svg" ] && [ -s "$rr.svg/index.html" ] && [ -s "$rr.svg/report.json" ] \
    && ok "side_output_${what}_remade" || fail "side_output_${what}_remade" "$(ls "$RS")"
  grep -q "$B2_BIN/bfs-validate" "$T/side.out" && fail "side_output_${what}_report_only" "validated again" || ok "side_output_${what}_report_only"
done
P SCALE=$SC NROOTS=3 -q all && ok side_outputs_then_current || fail side_outputs_then_current "not up to date"
# with --append: the run's row once, a deleted side output made again all the same
tab=$T/campaign.csv
P SCALE=$SC NROOTS=3 REPORT_FLAGS="--append $tab" all >"$T/ap.out" 2>&1 || fail append_run "$(tail -3 "$T/ap.out")"
apr=$(ls "$RS"/rmat-s$SC-e8.g1x1.n3.cpu.r????????.json 2>/dev/null | head -1)
rm -f "$apr"
P SCALE=$SC NROOTS=3 REPORT_FLAGS="--append $tab" all >"$T/ap2.out" 2>&1 && [ -s "$apr" ] \
  && ok append_side_output_remade || fail append_side_output_remade "$(tail -3 "$T/ap2.out")"
[ "$(tail -n +2 "$tab" | wc -l)" = 1 ] && ok append_row_once || fail append_row_once "$(tail -n +2 "$tab" | wc -l) rows"

# ---- VARIANT: a name, recorded; anything else refused before anything runs ---------------------
[ "$(attr "$RS/rmat-s$SC-e8.g1x1.n3.cpu.two.bfs.h5" variant)" = two ] && ok variant_recorded \
  || fail variant_recorded "$(attr "$RS/rmat-s$SC-e8.g1x1.n3.cpu.two.bfs.h5" variant)"
n=0
for v in 'a b' "a'b" 'a"b' 'a$b' 'a$(shell touch x)' 'a/b' 'a\b' 'a;b' 'a#b' 'a%b' 'a:b' "$(printf 'v%.0s' $(seq 65))" 'ü'; do
  n=$((n + 1))
  Pnone VARIANT="$v" all >"$T/var.out" 2>&1; rc=$?
  [ $rc -ne 0 ] && grep -q "pipeline.mk: VARIANT=" "$T/var.out" && ok "variant_refused_$n" || fail "variant_refused_$n" "[$v] exit $rc: $(tail -2 "$T/var.out")"
  nothing_written "variant_refused_${n}_nothing_written"
done
[ ! -e x ] && ok variant_not_expanded || fail variant_not_expanded "a \$(shell) in VARIANT ran"
Pnone VARIANT=ok.Name_1+2-3 -n bfs 2>&1 | grep -q -- "--variant ok.Name_1+2-3 .*-o $T/none/results/rmat-s8-e8.g1x1.n64.cpu.ok.Name_1+2-3.bfs.h5" \
  && ok variant_allowed_characters || fail variant_allowed_characters "$(Pnone VARIANT=ok.Name_1+2-3 -n bfs 2>&1 | tail -2)"

# ---- options in the FLAGS that a variable sets -------------------------------------------------
n=0
while IFS='|' read -r var flags want; do
  n=$((n + 1))
  Pnone "$var=$flags" all >"$T/fl.out" 2>&1; rc=$?
  [ $rc -ne 0 ] && grep -q "pipeline.mk: $var has '$want'" "$T/fl.out" && ok "flags_clash_$n" || fail "flags_clash_$n" "$var=$flags: exit $rc: $(tail -2 "$T/fl.out")"
  nothing_written "flags_clash_${n}_nothing_written"
done <<'EOF'
BFS_FLAGS|-n 32|-n
BFS_FLAGS|--nroots=32|--nroots=32
BFS_FLAGS|-qn32|-qn32
BFS_FLAGS|--backend cpu|--backend
BFS_FLAGS|--back=cuda|--back=cuda
BFS_FLAGS|--seed 5|--seed
BFS_FLAGS|--roots any|--roots
BFS_FLAGS|--variant x|--variant
BFS_FLAGS|-o f.h5|-o
GEN_FLAGS|-s 12|-s
GEN_FLAGS|--edgefactor=4|--edgefactor=4
PARTITION_FLAGS|--grid 2x2|--grid
REPORT_FLAGS|--format json|--format
EOF
Pnone BFS_FLAGS="-n 32" all 2>&1 | grep -q "NROOTS sets it: give NROOTS=" && ok flags_clash_names_variable || fail flags_clash_names_variable "$(Pnone BFS_FLAGS='-n 32' all 2>&1)"
# options the variables do not set still pass
Pnone BFS_FLAGS="--direction top-down -v" -n bfs 2>&1 | grep -q -- "--direction top-down -v -o" && ok flags_other_options_pass \
  || fail flags_other_options_pass "$(Pnone BFS_FLAGS='--direction top-down -v' -n bfs 2>&1 | tail -2)"
# other variables: numbers, backend, roots, a path make can take
n=0
for a in NROOTS=1e3 NROOTS=-1 SCALE=x EF= BACKEND=gpu ROOTS=lc GRID=0x2 'GRID=2x' "GRAPH=$T/a b.txt" "GRAPH=$T/none.txt"; do
  n=$((n + 1))
  Pnone "$a" all >"$T/bad.out" 2>&1 && fail "bad_variable_$n" "[$a] make succeeded" \
    || { grep -q "pipeline.mk: " "$T/bad.out" && ok "bad_variable_$n" || fail "bad_variable_$n" "[$a] $(tail -2 "$T/bad.out")"; }
  nothing_written "bad_variable_${n}_nothing_written"
done
exit 0
