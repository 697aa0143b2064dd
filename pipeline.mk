# pipeline.mk — the bfs2d chain driven by make (docs/DESIGN.md "The make pipeline").
#
#   make -f pipeline.mk [SCALE=16 EF=16 SEED=1 | GRAPH=file] GRID=RxC NP=1 \
#        NROOTS=16 BACKEND=auto MPIEXEC=mpiexec  gen|partition|bfs|validate|report|all
#   make -f pipeline.mk GRIDS="1x1 1x2 2x2" SCALES="16 17 18" sweep
#   make -f pipeline.mk GRIDS="1x1 1x2 2x2" SCALE=16 weak    (scale +1 per doubling of ranks)
#   make -f pipeline.mk demo        (the whole chain on a small default; `make demo`)
#   make -f pipeline.mk help
#
# Every stage is a file target named by its parameters, so a finished stage is
# never rerun and changing one parameter reruns only what depends on it:
#   data/rmat-s16-e16.h5                         rmat-gen        (SCALE, EF, SEED)
#   data/NAME.h5                                 snap-import     (GRAPH=path/NAME.txt[.gz]|.mtx)
#   data/rmat-s16-e16.g2x2.h5                    partition2d     (+ GRID)
#   results/rmat-s16-e16.g2x2.n16.auto.bfs.h5    bfs-gpu         (+ NROOTS, BACKEND)
#   results/rmat-s16-e16.g2x2.n16.auto.valid.h5  bfs-validate
#   results/rmat-s16-e16.g2x2.n16.auto.txt       bfs-report (+ .json and the .svg/ plots)
# A GRAPH that is already an edge file (.h5) is used as it is. A stage's extra
# options (GEN_FLAGS ... REPORT_FLAGS) are part of its name, as a tag of
# their checksum (.g1a2b3c4d for GEN_FLAGS, .p, .b, .v, .r for the others),
# so a result made with other options is never taken for this one;
# VARIANT=NAME adds .NAME to the results' names, to tell variants apart.
# The programs write their outputs atomically and .DELETE_ON_ERROR removes a
# report that failed half-way, so an interrupted stage leaves nothing that
# make could take as done.

PIPELINE := $(abspath $(lastword $(MAKEFILE_LIST)))

SCALE   ?= 16
EF      ?= 16
SEED    ?= 1
GRAPH   ?=
GRID    ?= 1x1
NP      ?= 1
NROOTS  ?= 16
BACKEND ?= auto
MPIEXEC ?= mpiexec
BIN     ?= bin
DATA    ?= data
RESULTS ?= results
# extra options per stage
GEN_FLAGS       ?=
IMPORT_FLAGS    ?=
PARTITION_FLAGS ?=
BFS_FLAGS       ?=
VALIDATE_FLAGS  ?=
REPORT_FLAGS    ?=
# a name for a variant of the results (their names get .VARIANT)
VARIANT ?=
# sweeps
GRIDS   ?= 1x1 1x2 2x2
SCALES  ?= $(SCALE)

.DELETE_ON_ERROR:
.SUFFIXES:
.PHONY: all gen partition bfs validate report sweep weak demo help clean-results

# ---- names ---------------------------------------------------------------
# The seed is part of a generated graph's name unless it is the default 1; for
# an imported graph it only changes the roots, so it goes into the results.
seedtag  = $(if $(filter 1,$(SEED)),,-seed$(SEED))
# ranks of a grid "RxC"
ranks    = $(shell echo $$(( $(subst x,*,$(1)) )))
# launcher for N ranks: nothing for one rank (every program runs without mpiexec).
# Several ranks on one machine share its cores: unless OMP_NUM_THREADS is set,
# each gets cores/N OpenMP threads (at least 1); oversubscribed OpenMP teams
# spin against each other and run ten times slower. On a cluster, set
# OMP_NUM_THREADS to the cores per rank of the compute nodes.
NCPU    := $(shell nproc 2>/dev/null || echo 1)
omp_for  = $(if $(OMP_NUM_THREADS),,OMP_NUM_THREADS=$(shell n=$$(( $(NCPU) / $(1) )); [ $$n -ge 1 ] || n=1; echo $$n) )
launch   = $(if $(filter 1,$(1)),,$(call omp_for,$(1))$(MPIEXEC) -n $(1) )

# A stage's options go into the names of what it makes, as a tag: a letter
# for the stage and the CRC of the options (cksum), so that a file made with
# other options is another file, never "up to date". Options that change only
# what is printed are left out.
PRINT_FLAGS := -v -q --verbose --quiet --progress --stats
flagtag  = $(if $(strip $(filter-out $(PRINT_FLAGS),$(2))),.$(1)$(shell printf '%s' '$(subst ','\'',$(strip $(filter-out $(PRINT_FLAGS),$(2))))' | cksum | awk '{printf "%08x", $$1}'))
GEN_TAG    := $(call flagtag,g,$(GEN_FLAGS))
IMPORT_TAG := $(call flagtag,i,$(IMPORT_FLAGS))
PART_TAG   := $(call flagtag,p,$(PARTITION_FLAGS))
BFS_TAG    := $(call flagtag,b,$(BFS_FLAGS))$(if $(strip $(VARIANT)),.$(strip $(VARIANT)))
VALID_TAG  := $(call flagtag,v,$(VALIDATE_FLAGS))
REPORT_TAG := $(call flagtag,r,$(REPORT_FLAGS))

ifneq ($(strip $(GRAPH)),)
  # ca-GrQc.txt.gz -> ca-GrQc (only the known suffixes go: names may have dots)
  GRAPH_NAME := $(notdir $(GRAPH))
  GRAPH_NAME := $(patsubst %.gz,%,$(GRAPH_NAME))
  GRAPH_NAME := $(foreach x,$(GRAPH_NAME),$(if $(filter .txt .mtx .tsv .el .h5,$(suffix $(x))),$(basename $(x)),$(x)))
  ifeq ($(suffix $(GRAPH)),.h5)
    edges_of = $(GRAPH)
  else
    edges_of = $(DATA)/$(GRAPH_NAME)$(IMPORT_TAG).h5
  endif
  RTAG     := $(seedtag)
else
  edges_of = $(DATA)/rmat-s$(1)-e$(EF)$(seedtag)$(GEN_TAG).h5
  RTAG     :=
endif
stem_of  = $(basename $(edges_of))
part_of  = $(DATA)/$(notdir $(call stem_of,$(1))).g$(2)$(PART_TAG).h5
run_of   = $(RESULTS)/$(notdir $(call stem_of,$(1))).g$(2)$(PART_TAG).n$(NROOTS)$(RTAG).$(BACKEND)$(BFS_TAG)
bfs_of   = $(call run_of,$(1),$(2)).bfs.h5
valid_of = $(call run_of,$(1),$(2))$(VALID_TAG).valid.h5
out_of   = $(call run_of,$(1),$(2))$(VALID_TAG)$(REPORT_TAG)
report_of = $(call out_of,$(1),$(2)).txt

EDGES  := $(call edges_of,$(SCALE))
PART   := $(call part_of,$(SCALE),$(GRID))
BFS    := $(call bfs_of,$(SCALE),$(GRID))
VALID  := $(call valid_of,$(SCALE),$(GRID))
REPORT := $(call report_of,$(SCALE),$(GRID))

all: report
gen: $(EDGES)
partition: $(PART)
bfs: $(BFS)
validate: $(VALID)
report: $(REPORT)

# ---- rules, generated per scale and per (scale, grid) ----------------------
# A missing program is an order-only prerequisite: its absence stops make with
# a clear message, while rebuilding it does not make finished stages stale.
$(BIN)/%:
	@echo "pipeline.mk: $@ is missing: build it with 'make' (or the stage that provides it is not written yet)" >&2; exit 2

define EDGES_RULE
ifeq ($(strip $(GRAPH)),)
$(call edges_of,$(1)): | $(BIN)/rmat-gen
	@mkdir -p $$(@D)
	$(call launch,$(NP))$(BIN)/rmat-gen -s $(1) -e $(EF) --seed $(SEED) $(GEN_FLAGS) -o $$@
else ifneq ($(suffix $(GRAPH)),.h5)
$(call edges_of,$(1)): $(GRAPH) | $(BIN)/snap-import
	@mkdir -p $$(@D)
	$(call launch,$(NP))$(BIN)/snap-import $(IMPORT_FLAGS) $$< -o $$@
endif
endef

define RUN_RULES
$(call part_of,$(1),$(2)): $(call edges_of,$(1)) | $(BIN)/partition2d
	@mkdir -p $$(@D)
	$(call launch,$(NP))$(BIN)/partition2d --grid $(2) $(PARTITION_FLAGS) $$< -o $$@
$(call bfs_of,$(1),$(2)): $(call part_of,$(1),$(2)) | $(BIN)/bfs-gpu
	@mkdir -p $$(@D)
	$(call launch,$(call ranks,$(2)))$(BIN)/bfs-gpu $$< -n $(NROOTS) --seed $(SEED) --backend $(BACKEND) $(BFS_FLAGS) -o $$@
$(call valid_of,$(1),$(2)): $(call edges_of,$(1)) $(call bfs_of,$(1),$(2)) | $(BIN)/bfs-validate
	$(call launch,$(NP))$(BIN)/bfs-validate -q $(VALIDATE_FLAGS) $$^ -o $$@ >$$(basename $$@).log || { s=$$$$?; cat $$(basename $$@).log; exit $$$$s; }
$(call report_of,$(1),$(2)): $(call bfs_of,$(1),$(2)) $(call valid_of,$(1),$(2)) | $(BIN)/bfs-report
	$(BIN)/bfs-report $$^ --svg $(call out_of,$(1),$(2)).svg $(REPORT_FLAGS) -o $$@
	@$(call copy_json,$(call out_of,$(1),$(2)))
	@cat $$@
endef
# One bfs-report run makes the text, the plots and the JSON (the plot
# directory's report.json, copied beside the text): REPORT_FLAGS such as
# --append act once per run.
copy_json = cp $(1).svg/report.json $(dir $(1)).$(notdir $(1)).json.tmp && mv -f $(dir $(1)).$(notdir $(1)).json.tmp $(1).json

# the (scale, grid) pairs this invocation needs: the single run, the sweep's
# product, and the weak-scaling diagonal (scale + log2 ranks)
log2     = $(shell n=$(1); l=0; while [ $$n -gt 1 ]; do n=$$((n/2)); l=$$((l+1)); done; echo $$l)
ifneq ($(strip $(GRAPH)),)
  SWEEP_PAIRS := $(foreach g,$(GRIDS),$(SCALE):$(g))
  WEAK_PAIRS  := $(SWEEP_PAIRS)
else
  SWEEP_PAIRS := $(foreach s,$(SCALES),$(foreach g,$(GRIDS),$(s):$(g)))
  ifneq ($(filter weak,$(MAKECMDGOALS)),)
    WEAK_PAIRS := $(foreach g,$(GRIDS),$(shell echo $$(( $(SCALE) + $(call log2,$(call ranks,$(g))) ))):$(g))
  endif
endif
PAIRS := $(SCALE):$(GRID)
ifneq ($(filter sweep,$(MAKECMDGOALS)),)
  PAIRS += $(SWEEP_PAIRS)
endif
ifneq ($(filter weak,$(MAKECMDGOALS)),)
  PAIRS += $(WEAK_PAIRS)
endif
PAIRS := $(sort $(PAIRS))
# a grid is RxC with R, C >= 1: say so before any shell arithmetic on it
$(foreach p,$(PAIRS),$(if $(shell echo '$(lastword $(subst :, ,$(p)))' | grep -Eq '^[1-9][0-9]*x[1-9][0-9]*$$' && echo y),,\
  $(error pipeline.mk: grid '$(lastword $(subst :, ,$(p)))' is not RxC (for example GRID=2x2))))
pscale = $(word 1,$(subst :, ,$(1)))
pgrid  = $(word 2,$(subst :, ,$(1)))

$(foreach s,$(sort $(foreach p,$(PAIRS),$(call pscale,$(p)))),$(eval $(call EDGES_RULE,$(s))))
$(foreach p,$(PAIRS),$(eval $(call RUN_RULES,$(call pscale,$(p)),$(call pgrid,$(p)))))

# ---- sweeps: every run, then one comparison report -------------------------
sweep_list = $(foreach p,$(1),$(call bfs_of,$(call pscale,$(p)),$(call pgrid,$(p))) $(call valid_of,$(call pscale,$(p)),$(call pgrid,$(p))))
ALL_TAGS   := $(if $(GRAPH),$(IMPORT_TAG),$(GEN_TAG))$(PART_TAG)$(BFS_TAG)$(VALID_TAG)$(REPORT_TAG)
SWEEP_NAME := $(RESULTS)/sweep-$(if $(GRAPH),$(GRAPH_NAME),rmat-s$(subst $() ,_,$(strip $(SCALES)))-e$(EF)$(seedtag))-g$(subst $() ,_,$(strip $(GRIDS))).n$(NROOTS)$(RTAG).$(BACKEND)$(ALL_TAGS)
WEAK_NAME  := $(RESULTS)/weak-$(if $(GRAPH),$(GRAPH_NAME),rmat-s$(SCALE)-e$(EF)$(seedtag))-g$(subst $() ,_,$(strip $(GRIDS))).n$(NROOTS)$(RTAG).$(BACKEND)$(ALL_TAGS)

# the terminal gets the tables (the text report puts them first); the runs'
# details are in the file
show_tables = sed '/^== run /,$$d' $(1); echo "(each run's statistics and provenance: $(1))"
sweep: $(SWEEP_NAME).txt
weak: $(WEAK_NAME).txt
$(SWEEP_NAME).txt: $(call sweep_list,$(SWEEP_PAIRS)) | $(BIN)/bfs-report
	$(BIN)/bfs-report $^ --svg $(SWEEP_NAME).svg $(REPORT_FLAGS) -o $@
	@$(call show_tables,$@)
$(WEAK_NAME).txt: $(call sweep_list,$(WEAK_PAIRS)) | $(BIN)/bfs-report
	$(BIN)/bfs-report $^ --svg $(WEAK_NAME).svg $(REPORT_FLAGS) -o $@
	@$(call show_tables,$@)

# ---- demo -----------------------------------------------------------------
# A small R-MAT graph through every stage that is built, on the grid and
# backend that fit this machine: one rank per GPU when there are GPUs
# (bfs-gpu --backend auto picks CUDA), else a 1x2 grid of CPU ranks.
DEMO_SCALE ?= 16
DEMO_EF    ?= 16
DEMO_NROOTS ?= 8
DEMO_GPUS  := $(shell nvidia-smi -L 2>/dev/null | grep -c '^GPU')
DEMO_GRID  ?= $(if $(filter 0,$(DEMO_GPUS)),1x2,$(if $(filter 1,$(DEMO_GPUS)),1x1,$(if $(filter 2 3,$(DEMO_GPUS)),1x2,$(if $(filter 4 5 6 7,$(DEMO_GPUS)),2x2,2x4))))
DEMO_ARGS  := SCALE=$(DEMO_SCALE) EF=$(DEMO_EF) SEED=1 GRAPH= GRID=$(DEMO_GRID) NROOTS=$(DEMO_NROOTS) BACKEND=auto NP=1 BIN=$(BIN) MPIEXEC="$(MPIEXEC)"
DEMO_PIPE  := $(MAKE) --no-print-directory -f $(PIPELINE) $(DEMO_ARGS)
DEMO_RUN   := $(RESULTS)/rmat-s$(DEMO_SCALE)-e$(DEMO_EF).g$(DEMO_GRID).n$(DEMO_NROOTS).auto

demo:
	@set -e; \
	missing=""; for p in rmat-gen partition2d bfs-gpu bfs-validate bfs-report; do \
	  [ -x $(BIN)/$$p ] || missing="$$missing $$p"; done; \
	echo "== bfs2d demo: R-MAT scale $(DEMO_SCALE), edgefactor $(DEMO_EF), grid $(DEMO_GRID), backend auto ($(DEMO_GPUS) GPU(s) seen), $(DEMO_NROOTS) roots"; \
	if [ ! -x $(BIN)/rmat-gen ]; then \
	  echo "demo: $(BIN)/rmat-gen is not built yet: nothing to run (missing:$$missing)"; exit 0; fi; \
	if $(DEMO_PIPE) -q gen; then echo "demo: $(DATA)/rmat-s$(DEMO_SCALE)-e$(DEMO_EF).h5 is already made (remove it to see the generator's statistics)"; \
	else $(DEMO_PIPE) GEN_FLAGS=--stats gen; fi; \
	for p in partition2d bfs-gpu bfs-validate bfs-report; do \
	  if [ ! -x $(BIN)/$$p ]; then \
	    echo "demo: $(BIN)/$$p is not built yet: the demo stops here (missing:$$missing)"; exit 0; fi; \
	  case $$p in partition2d) t=partition ;; bfs-gpu) t=bfs ;; bfs-validate) t=validate ;; bfs-report) t=report ;; esac; \
	  if [ $$t = report ] && $(DEMO_PIPE) -q report; then cat $(DEMO_RUN).txt; else $(DEMO_PIPE) $$t; fi; \
	done; \
	echo "== plots: $(DEMO_RUN).svg/ (open index.html or any .svg in a browser); JSON: $(DEMO_RUN).json"

help:
	@sed -n '2,25p' $(PIPELINE) | sed 's/^# \{0,1\}//'

clean-results:
	rm -rf $(RESULTS)
