#!/usr/bin/env bash
# pipeline.mk end to end: R-MAT and a SNAP graph on grids 1x1 and 2x2, the
# caching rules (make -q, what a GRID or NROOTS change reruns), failed stages
# leaving nothing behind, sweeps, the demo, and the report's numbers against an
# independent computation from the BFS, validation and edge files.
source "$(dirname "$0")/lib.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
PROGS="rmat-gen snap-import partition2d bfs-gpu bfs-validate bfs-report"
missing=""
for p in $PROGS; do [ -x "$B2_BIN/$p" ] || missing="$missing $p"; done
if [ -n "$missing" ]; then
  fail pipeline_programs "missing in $B2_BIN:$missing (the pipeline needs every stage; build them with make)"
  exit 1
fi
ok pipeline_programs

D=$T/data; RS=$T/results
# four ranks share two cores here: one thread each keeps the runs short
export OMP_NUM_THREADS=1
P() { make --no-print-directory -f "$top/pipeline.mk" BIN="$B2_BIN" DATA="$D" RESULTS="$RS" \
        MPIEXEC="$B2_MPIEXEC" BACKEND=cpu NROOTS=3 EF=8 "$@"; }
SNAP=$B2_DATA/snap/ca-GrQc.txt
# a missing input is a failure, not a skip (tests/data is part of the repository)
if [ -s "$SNAP" ]; then ok snap_input; else fail snap_input "$SNAP is missing or empty"; fi
SC=10

# check_run NAME BFS VALID EDGES TXT JSON: the report's numbers against numpy
check_run() { python3 "$top/tests/pipeline_check.py" "$@"; }

# ---- R-MAT on 1x1 and 2x2 ------------------------------------------------------
base=rmat-s$SC-e8
if P SCALE=$SC GRID=1x1 all >"$T/r1.out" 2>&1; then ok rmat_1x1_all; else fail rmat_1x1_all "$(tail -5 "$T/r1.out")"; fi
run1=$RS/$base.g1x1.n3.cpu
miss=""
for f in $D/$base.h5 $D/$base.g1x1.h5 $run1.bfs.h5 $run1.valid.h5 $run1.txt $run1.json $run1.svg/teps.svg; do
  [ -e "$f" ] || miss="$miss $f"
done
[ -z "$miss" ] && ok rmat_outputs_named_by_parameters || fail rmat_outputs_named_by_parameters "missing$miss"
grep -q 'harmonic_mean_TEPS' "$T/r1.out" && ok rmat_report_printed || fail rmat_report_printed "$(tail -3 "$T/r1.out")"
check_run rmat_1x1 $run1.bfs.h5 $run1.valid.h5 $D/$base.h5 $run1.txt $run1.json

if P SCALE=$SC GRID=1x1 -q all; then ok make_q_after_full_run; else fail make_q_after_full_run "make -q exits $?"; fi
n=$(P SCALE=$SC GRID=1x1 -n all | grep -c "$B2_BIN/")
[ "$n" = 0 ] && ok make_n_nothing_to_do || fail make_n_nothing_to_do "$n commands would run"
P SCALE=$SC GRID=1x1 all >"$T/again.out" 2>&1
grep -q "$B2_BIN/" "$T/again.out" && fail second_run_reruns_nothing "$(cat "$T/again.out")" || ok second_run_reruns_nothing

# GRID change: partition on, not gen; make -n shows exactly that
P SCALE=$SC GRID=2x2 -n all >"$T/n22.out" 2>&1
if ! grep -q rmat-gen "$T/n22.out" && grep -q partition2d "$T/n22.out" && grep -q "bfs-gpu" "$T/n22.out" \
   && grep -q -- "-n 4 $B2_BIN/bfs-gpu" "$T/n22.out"; then ok grid_change_plan
else fail grid_change_plan "$(cat "$T/n22.out")"; fi
gen_mtime=$(stat -c %Y.%y "$D/$base.h5")
if P SCALE=$SC GRID=2x2 all >"$T/r22.out" 2>&1; then ok rmat_2x2_all; else fail rmat_2x2_all "$(tail -5 "$T/r22.out")"; fi
[ "$(stat -c %Y.%y "$D/$base.h5")" = "$gen_mtime" ] && ok grid_change_keeps_graph || fail grid_change_keeps_graph "edge file rewritten"
grep -q rmat-gen "$T/r22.out" && fail grid_change_no_gen "$(grep rmat-gen "$T/r22.out")" || ok grid_change_no_gen
run22=$RS/$base.g2x2.n3.cpu
check_run rmat_2x2 $run22.bfs.h5 $run22.valid.h5 $D/$base.h5 $run22.txt $run22.json
grep -q '^num_mpi_processes: *4$' $run22.txt && ok rmat_2x2_four_ranks || fail rmat_2x2_four_ranks "$(grep num_mpi $run22.txt)"

# NROOTS change: from bfs on
P SCALE=$SC GRID=2x2 NROOTS=5 -n all >"$T/nr.out" 2>&1
if ! grep -q -e rmat-gen -e partition2d "$T/nr.out" && grep -q bfs-gpu "$T/nr.out" && grep -q bfs-validate "$T/nr.out"; then
  ok nroots_change_plan; else fail nroots_change_plan "$(cat "$T/nr.out")"; fi

# a failing stage leaves nothing make could take as done
if P SCALE=$SC GRID=2x2 NROOTS=6 BFS_FLAGS="--bitmap bogus" bfs >"$T/bad.out" 2>&1; then
  fail failed_stage_fails "make succeeded"
else ok failed_stage_fails; fi
[ ! -e "$RS/$base.g2x2.n6.cpu.bfs.h5" ] && ! compgen -G "$RS/.*tmp*" >/dev/null && ok failed_stage_leaves_nothing \
  || fail failed_stage_leaves_nothing "$(ls -a "$RS")"
P SCALE=$SC GRID=2x2 NROOTS=6 -q bfs && fail failed_stage_not_up_to_date "make -q says up to date" || ok failed_stage_not_up_to_date

# a missing program is named
if P SCALE=$SC GRID=1x1 BIN="$T/nobin" all >"$T/nobin.out" 2>&1; then fail missing_program_named "make succeeded"
else grep -q "nobin/rmat-gen is missing: build it" "$T/nobin.out" && ok missing_program_named || fail missing_program_named "$(cat "$T/nobin.out")"; fi

# a malformed grid is refused before anything runs
if P SCALE=$SC GRID=2by2 all >"$T/grid.out" 2>&1; then fail bad_grid_refused "make succeeded"
else grep -q "grid '2by2' is not RxC" "$T/grid.out" && ok bad_grid_refused || fail bad_grid_refused "$(cat "$T/grid.out")"; fi

# ---- options are part of what makes a file current (issue 32) --------------------------
# a BFS option: a new result under another name, the old one untouched
old_bfs=$(sha256sum <"$run1.bfs.h5")
if P SCALE=$SC GRID=1x1 BFS_FLAGS="--direction top-down" all >"$T/td.out" 2>&1; then ok bfs_flags_all; else fail bfs_flags_all "$(tail -5 "$T/td.out")"; fi
grep -q -- "$B2_BIN/bfs-gpu .*--direction top-down" "$T/td.out" && ok bfs_flags_rerun_search || fail bfs_flags_rerun_search "$(cat "$T/td.out")"
grep -q -e "$B2_BIN/rmat-gen" -e "$B2_BIN/partition2d" "$T/td.out" && fail bfs_flags_keep_graph "$(grep -e "$B2_BIN/rmat-gen" -e "$B2_BIN/partition2d" "$T/td.out")" || ok bfs_flags_keep_graph
tdb=$(ls "$RS"/$base.g1x1.n3.cpu.b*.bfs.h5 2>/dev/null | head -1)
[ -n "$tdb" ] && [ "$(python3 -c "import h5py,sys; print(h5py.File(sys.argv[1],'r').attrs['direction'].decode())" "$tdb")" = top-down ] \
  && ok bfs_flags_own_file || fail bfs_flags_own_file "$(ls "$RS")"
[ "$(sha256sum <"$run1.bfs.h5")" = "$old_bfs" ] && ok bfs_flags_old_result_kept || fail bfs_flags_old_result_kept "rewritten"
grep -q '"direction": *"top-down"' "${tdb%.bfs.h5}.json" 2>/dev/null && ok bfs_flags_report_is_new || fail bfs_flags_report_is_new "$(ls "$RS")"
P SCALE=$SC GRID=1x1 BFS_FLAGS="--direction top-down" -q all && ok bfs_flags_make_q || fail bfs_flags_make_q "not up to date"
P SCALE=$SC GRID=1x1 -q all && ok no_flags_still_up_to_date || fail no_flags_still_up_to_date "not up to date"
# the roots' rule: R-MAT keeps Graph500's rule unless ROOTS says otherwise, named apart
if P SCALE=$SC GRID=1x1 ROOTS=largest-component all >"$T/lc.out" 2>&1; then ok roots_lc_all; else fail roots_lc_all "$(tail -5 "$T/lc.out")"; fi
lcb=$RS/$base.g1x1.n3.lc.cpu.bfs.h5
[ -e "$lcb" ] && [ "$(python3 -c "import h5py,sys; print(h5py.File(sys.argv[1],'r').attrs['roots_from'].decode())" "$lcb")" = largest-component ] \
  && ok roots_lc_own_file || fail roots_lc_own_file "$(ls "$RS")"
grep -q "pipeline.mk: roots from the largest component (ROOTS=largest-component: not Graph500's rule)" "$T/lc.out" \
  && ok roots_lc_said || fail roots_lc_said "$(grep pipeline.mk "$T/lc.out")"
[ "$(python3 -c "import h5py,sys; print(h5py.File(sys.argv[1],'r').attrs['roots_from'].decode())" "$run1.bfs.h5")" = any ] \
  && grep -q "pipeline.mk: roots anywhere (Graph500's rule)" "$T/r1.out" && ok rmat_roots_any_default || fail rmat_roots_any_default "$(grep pipeline.mk "$T/r1.out")"
# every stage's options: the stage and what follows it are remade, named apart
for st in GEN:rmat-gen:--initiator=0.55,0.2,0.2 PARTITION:partition2d:--mem=64M VALIDATE:bfs-validate:--read-rows=1000; do
  var=${st%%:*}; rest=${st#*:}; prog=${rest%%:*}; flag=${rest#*:}
  P SCALE=$SC GRID=1x1 ${var}_FLAGS="$flag" -n all >"$T/fl.out" 2>&1
  grep -q -- "$B2_BIN/$prog.*$flag" "$T/fl.out" && grep -q "$B2_BIN/bfs-report" "$T/fl.out" \
    && ok "${var,,}_flags_remake" || fail "${var,,}_flags_remake" "$(cat "$T/fl.out")"
done
P SCALE=$SC GRID=1x1 GEN_FLAGS="--stats -v" -q all && ok print_only_flags_reuse || fail print_only_flags_reuse "remade for --stats"
# a named variant
P SCALE=$SC GRID=1x1 VARIANT=try1 -n bfs | grep -q -- "-o $RS/$base.g1x1.n3.cpu.try1.bfs.h5" && ok variant_named \
  || fail variant_named "$(P SCALE=$SC GRID=1x1 VARIANT=try1 -n bfs)"
# --append through REPORT_FLAGS: one row per run, once
tab=$T/campaign.csv
P SCALE=$SC GRID=1x1 REPORT_FLAGS="--append $tab" all >"$T/ap.out" 2>&1 || fail report_flags_append_all "$(tail -3 "$T/ap.out")"
P SCALE=$SC GRID=1x1 REPORT_FLAGS="--append $tab" all >"$T/ap2.out" 2>&1
[ "$(tail -n +2 "$tab" | wc -l)" = 1 ] && ok report_flags_append_one_row || fail report_flags_append_one_row "$(cat "$tab")"
# quiet: validation and provenance once per run
[ "$(grep -c '^# validation ' "$T/r1.out")" = 1 ] && ! grep -q 'searches: .* passed' "$T/r1.out" \
  && ok validation_said_once || fail validation_said_once "$(grep -e validation -e passed "$T/r1.out")"
[ "$(grep -c '^#   git_commit ' "$T/r1.out")" = 1 ] && ok provenance_said_once || fail provenance_said_once "$(grep -c git_commit "$T/r1.out")"

# ---- a SNAP graph on 1x1 and 2x2 ----------------------------------------------------
for g in 1x1 2x2; do
  if P GRAPH="$SNAP" GRID=$g all >"$T/s$g.out" 2>&1; then ok snap_${g}_all; else fail snap_${g}_all "$(tail -5 "$T/s$g.out")"; fi
  se=$(ls "$D"/ca-GrQc.f????????.h5 2>/dev/null | head -1); sn=$(basename "${se:-none}" .h5)
  r=$RS/$sn.g$g.n3.cpu
  check_run snap_$g $r.bfs.h5 $r.valid.h5 "$se" $r.txt $r.json
done
grep -c snap-import "$T/s2x2.out" | grep -q '^0$' && ok snap_import_once || fail snap_import_once "imported again"
P GRAPH="$SNAP" GRID=2x2 -q all && ok snap_make_q || fail snap_make_q "not up to date"

# the sanitizer pass stops here: the rest reruns the same programs
[ "$B2_SAN" = 1 ] && exit 0

# ---- sweep and weak scaling: one comparison report ------------------------------------
if P GRIDS="1x1 1x2" SCALES="9 10" sweep >"$T/sweep.out" 2>&1; then ok sweep_runs; else fail sweep_runs "$(tail -5 "$T/sweep.out")"; fi
sw=$RS/sweep-rmat-s9_10-e8-g1x1_1x2.n3.cpu.txt
rows=$(sed -n '/^== comparison/,/^$/p' "$sw" 2>/dev/null | grep -c ' cpu ')
[ "$rows" = 4 ] && ok sweep_comparison_rows || fail sweep_comparison_rows "$rows rows in $sw"
grep -q '^== strong scaling' "$sw" && ok sweep_strong_table || fail sweep_strong_table "none"
# the terminal gets the tables, not every run's details
grep -q '^== comparison' "$T/sweep.out" && ! grep -q '^== run ' "$T/sweep.out" && ok sweep_prints_tables \
  || fail sweep_prints_tables "$(tail -5 "$T/sweep.out")"
P GRIDS="1x1 1x2" SCALES="9 10" -q sweep && ok sweep_make_q || fail sweep_make_q "not up to date"
if P GRIDS="1x1 1x2" SCALE=9 weak >"$T/weak.out" 2>&1; then ok weak_runs; else fail weak_runs "$(tail -5 "$T/weak.out")"; fi
grep -q "$B2_BIN/bfs-gpu" "$T/weak.out" && fail weak_reuses_sweep_runs "reran a search" || ok weak_reuses_sweep_runs
wk=$RS/weak-rmat-s9-e8-g1x1_1x2.n3.cpu.txt
sed -n '/^== weak scaling/,/^$/p' "$wk" | awk 'NR>2 && NF && $1 !~ /^[(]/ {print $1, $3}' | tr '\n' ' ' >"$T/weak.rows"
[ "$(cat "$T/weak.rows")" = "1 9 2 10 " ] && ok weak_scale_per_doubling || fail weak_scale_per_doubling "$(cat "$T/weak.rows")"

# ---- the demo (small) and its guard -----------------------------------------------------
if make --no-print-directory -f "$top/pipeline.mk" BIN="$B2_BIN" DATA="$D" RESULTS="$RS" DEMO_SCALE=9 DEMO_NROOTS=2 demo >"$T/demo.out" 2>&1 \
   && grep -q 'harmonic_mean_TEPS' "$T/demo.out" && grep -q 'degree distribution' "$T/demo.out"; then ok demo_small
else fail demo_small "$(tail -5 "$T/demo.out")"; fi
mkdir -p "$T/partbin"; ln -sf "$B2_BIN/rmat-gen" "$T/partbin/rmat-gen"
if make --no-print-directory -f "$top/pipeline.mk" BIN="$T/partbin" DATA="$D" RESULTS="$RS" DEMO_SCALE=9 demo >"$T/demo2.out" 2>&1 \
   && grep -q 'partition2d is not built yet' "$T/demo2.out"; then ok demo_says_what_is_missing
else fail demo_says_what_is_missing "$(tail -3 "$T/demo2.out")"; fi
exit 0
