# pipeline.mk — the bfs2d chain driven by make (docs/DESIGN.md "The make pipeline").
#
#   make -f pipeline.mk [SCALE=16 EF=16 SEED=1 | GRAPH=file] GRID=RxC NP=1 \
#        NROOTS=64 BACKEND=auto ROOTS=any|largest-component VARIANT=NAME \
#        MPIEXEC=mpiexec  gen|partition|bfs|validate|report|all
#   make -f pipeline.mk GRIDS="1x1 1x2 2x2" SCALES="16 17 18" sweep
#   make -f pipeline.mk GRIDS="1x1 1x2 2x2" SCALE=16 weak    (scale +1 per doubling of ranks)
#   make -f pipeline.mk demo        (the whole chain on a small default; `make demo`)
#   make -f pipeline.mk help
#
# Every stage is a file target named by its parameters, so a finished stage is
# never rerun and changing one parameter reruns only what depends on it:
#   data/rmat-s16-e16.h5                         rmat-gen        (SCALE, EF, SEED)
#   data/NAME.fXXXXXXXX.h5                       snap-import     (GRAPH=path/NAME.txt[.gz]|.mtx)
#   data/rmat-s16-e16.g2x2.h5                    partition2d     (+ GRID)
#   results/rmat-s16-e16.g2x2.n64.auto.bfs.h5    bfs-gpu         (+ NROOTS, BACKEND, ROOTS)
#   results/rmat-s16-e16.g2x2.n64.auto.valid.h5  bfs-validate
#   results/rmat-s16-e16.g2x2.n64.auto.txt       bfs-report (+ .json and the .svg/ plots)
# An imported graph's names carry .fXXXXXXXX, the checksum of the input's
# resolved path, device, inode, size and time: two inputs of one name (or one
# path rewritten) never share a file. A GRAPH that is already an edge file
# (.h5) is used as it is, its partitions named the same way. Roots come from
# the largest component for an imported graph (ROOTS=any for Graph500's rule,
# the R-MAT default). A stage's extra
# options (GEN_FLAGS ... REPORT_FLAGS) are part of its name, as a tag of
# their checksum (.g1a2b3c4d for GEN_FLAGS, .p, .b, .v, .r for the others),
# so a result made with other options is never taken for this one;
# VARIANT=NAME adds .NAME to the results' names and bfs-gpu --variant NAME,
# to tell variants apart. Options that the variables set (-n, --backend,
# --seed, --roots, --variant, -o, ...) are refused in the FLAGS. A stage's
# output made from other edges than its input's (the files' edges
# fingerprints) is made again, and so is a report whose side outputs (.json,
# .svg/) are missing. The programs write their outputs atomically and
# .DELETE_ON_ERROR removes a report that failed half-way, so an interrupted
# stage leaves nothing that make could take as done.

PIPELINE := $(abspath $(lastword $(MAKEFILE_LIST)))

SCALE   ?= 16
EF      ?= 16
SEED    ?= 1
GRAPH   ?=
GRID    ?= 1x1
NP      ?= 1
NROOTS  ?= 64
BACKEND ?= auto
# the roots' rule: largest-component for an imported graph, any for R-MAT
ROOTS   ?=
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

# ---- the variables, checked before anything runs ---------------------------
# Values go into file names, make's targets and the commands as they are:
# a character that make or the shell would read (quote, backslash, $, space,
# :, %, #, and / in a name) would give files that are not make's targets, so
# stages would rerun forever. Values are read raw ($(value)), never expanded.
ifeq ($(filter grouped-target,$(.FEATURES)),)
  $(error pipeline.mk: GNU make 4.3 or later is needed (grouped targets); this is $(MAKE_VERSION))
endif
, := ,
name_chars := a b c d e f g h i j k l m n o p q r s t u v w x y z \
  A B C D E F G H I J K L M N O P Q R S T U V W X Y Z 0 1 2 3 4 5 6 7 8 9 . _ + -
digits     := 0 1 2 3 4 5 6 7 8 9
# strip_chars TEXT,CHARS: TEXT without any of CHARS (empty: TEXT is made of them)
strip_chars = $(if $(2),$(call strip_chars,$(subst $(firstword $(2)),,$(1)),$(wordlist 2,$(words $(2)),$(2))),$(1))
# made_of VAR,CHARS: y when VAR's raw value is one word of CHARS only
made_of = $(if $(filter 1,$(words $(value $(1)))),$(if $(call strip_chars,$(value $(1)),$(2)),,y))
# check_var VAR,CHARS,WHAT: stop when VAR is not a word of CHARS
check_var = $(if $(call made_of,$(1),$(2)),,$(error pipeline.mk: $(1)='$(value $(1))' is not $(3)))
$(foreach v,SCALE EF SEED NROOTS NP,$(call check_var,$(v),$(digits),a number))
ifneq ($(strip $(value VARIANT)),)
  $(call check_var,VARIANT,$(name_chars),a variant name: 1 to 64 letters$(,) digits or ._+- (it becomes part of file names))
  ifneq ($(shell printf %s '$(value VARIANT)' | wc -c | awk '$$1 > 64'),)
    $(error pipeline.mk: VARIANT='$(value VARIANT)' is longer than 64 characters)
  endif
endif
$(foreach v,BACKEND,$(if $(filter auto cuda cpu,$(value $(v))),,$(error pipeline.mk: BACKEND='$(value BACKEND)' is not auto$(,) cuda or cpu)))
ifneq ($(strip $(value ROOTS)),)
  $(if $(filter any largest-component,$(value ROOTS)),,$(error pipeline.mk: ROOTS='$(value ROOTS)' is not any or largest-component))
endif
$(foreach s,$(SCALES),$(if $(call strip_chars,$(s),$(digits)),$(error pipeline.mk: SCALES has '$(s)'$(,) not a number)))
# a grid is RxC with R, C >= 1: said before any shell arithmetic on it
is_grid = $(and $(filter 2,$(words $(subst x, ,$(1)))),$(if $(call strip_chars,$(1),$(digits) x),,y),$(if $(filter 0%,$(subst x, ,$(1))),,y),$(if $(filter x% %x,$(1)),,y))
$(foreach g,$(value GRID) $(value GRIDS),$(if $(call is_grid,$(g)),,\
  $(error pipeline.mk: grid '$(g)' is not RxC (for example GRID=2x2))))
# file and directory names: the characters a path may have here
path_chars := $(name_chars) / @ , =
$(foreach v,BIN DATA RESULTS,$(call check_var,$(v),$(path_chars),a directory make can use (letters$(,) digits$(,) ._+-/@$(,)=)))
ifneq ($(strip $(value GRAPH)),)
  $(call check_var,GRAPH,$(path_chars),a file name make can use (letters$(,) digits$(,) ._+-/@$(,)=: link the file under such a name))
endif

# Options the variables set, refused in a stage's FLAGS (the names would not
# say what ran), one FLAGS:VAR:SHORT:LONG a word (VAR -o: the pipeline's
# own option). A long option may be abbreviated (getopt), a short one
# clustered behind -q, -v.
OPT_OWNERS := \
  BFS_FLAGS:NROOTS:n:nroots BFS_FLAGS:BACKEND::backend BFS_FLAGS:SEED::seed \
  BFS_FLAGS:ROOTS::roots BFS_FLAGS:VARIANT::variant BFS_FLAGS:-o:o:output \
  GEN_FLAGS:SCALE:s:scale GEN_FLAGS:EF:e:edgefactor GEN_FLAGS:SEED::seed GEN_FLAGS:-o:o:output \
  IMPORT_FLAGS:-o:o:output PARTITION_FLAGS:GRID:g:grid PARTITION_FLAGS:-o:o:output \
  VALIDATE_FLAGS:-o:o:output REPORT_FLAGS:-o:o:output REPORT_FLAGS:--svg::svg \
  REPORT_FLAGS:--format::format
# opt_hits FLAGS-TEXT,SHORT,LONG: the words of FLAGS-TEXT that give the option
H := \#
opt_hits = $(shell for w in $(1); do case "$$w" in \
  (--?*) n=$${w%%=*}; n=$${n$(H)--}; case "$(3)" in ("$$n"*) printf '%s ' "$$w";; esac;; \
  (-?*) [ -n "$(2)" ] && [ "$$(printf %s "$${w$(H)-}" | sed 's/^[hVvq]*//' | cut -c1)" = "$(2)" ] && printf '%s ' "$$w";; \
  esac; done)
owner_msg = $(if $(filter -%,$(1)),the pipeline gives $(1) itself,$(1) sets it: give $(1)=... instead)
$(foreach o,$(OPT_OWNERS),$(eval _w := $(subst :, ,$(o)))\
  $(if $(strip $($(word 1,$(_w)))),$(eval _h := $(strip $(call opt_hits,$($(word 1,$(_w))),$(if $(word 4,$(_w)),$(word 3,$(_w))),$(lastword $(_w)))))\
  $(if $(_h),$(error pipeline.mk: $(word 1,$(_w)) has '$(_h)'$(,) but $(call owner_msg,$(word 2,$(_w)))))))

.DELETE_ON_ERROR:
.SUFFIXES:
.PHONY: all gen partition bfs validate report sweep weak demo help clean-results FORCE

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
  # which file GRAPH is, read from its inode alone (stat), never its contents:
  # the checksum of its resolved path, device, inode, size and modification
  # time, so another file of the same name, older or newer, is another graph
  GRAPH_ID := $(shell p=$$(realpath -e -- '$(GRAPH)' 2>/dev/null) && [ -f "$$p" ] && [ -r "$$p" ] && \
    { printf '%s\n' "$$p"; stat -c '%d %i %s %y' -- "$$p"; } | cksum | awk '{printf "%08x", $$1}')
  ifeq ($(GRAPH_ID),)
    ifneq ($(filter-out help clean-results,$(or $(MAKECMDGOALS),all)),)
      $(error pipeline.mk: GRAPH=$(GRAPH) is not a readable regular file)
    endif
  endif
  GRAPH_STEM := $(GRAPH_NAME).f$(GRAPH_ID)
  ifeq ($(suffix $(GRAPH)),.h5)
    edges_of = $(GRAPH)
    stem_of  = $(GRAPH_STEM)
  else
    edges_of = $(DATA)/$(GRAPH_STEM)$(IMPORT_TAG).h5
    stem_of  = $(notdir $(basename $(edges_of)))
  endif
  RTAG     := $(seedtag)
  ROOTS_RULE := $(or $(strip $(ROOTS)),largest-component)
  ROOTS_TAG  := $(if $(filter any,$(ROOTS_RULE)),.any)
else
  edges_of = $(DATA)/rmat-s$(1)-e$(EF)$(seedtag)$(GEN_TAG).h5
  stem_of  = $(notdir $(basename $(edges_of)))
  RTAG     :=
  ROOTS_RULE := $(or $(strip $(ROOTS)),any)
  ROOTS_TAG  := $(if $(filter largest-component,$(ROOTS_RULE)),.lc)
endif
# what the bfs stage says of its roots
ifeq ($(ROOTS_RULE),largest-component)
  ROOTS_SAY := roots from the largest component ($(if $(GRAPH),the default for an imported graph; ROOTS=any gives Graph500's rule,ROOTS=largest-component: not Graph500's rule))
else
  ROOTS_SAY := roots anywhere (Graph500's rule$(if $(GRAPH),; ROOTS=any: a root in a tiny component pulls the harmonic mean down))
endif
part_of  = $(DATA)/$(call stem_of,$(1)).g$(2)$(PART_TAG).h5
run_of   = $(RESULTS)/$(call stem_of,$(1)).g$(2)$(PART_TAG).n$(NROOTS)$(RTAG)$(ROOTS_TAG).$(BACKEND)$(BFS_TAG)
bfs_of   = $(call run_of,$(1),$(2)).bfs.h5
valid_of = $(call run_of,$(1),$(2))$(VALID_TAG).valid.h5
out_of   = $(call run_of,$(1),$(2))$(VALID_TAG)$(REPORT_TAG)
report_of = $(call out_of,$(1),$(2)).txt
# what one bfs-report run makes: the text, the JSON beside it, the plots
REPORT_SVGS := index.html teps.svg phases.svg scaling.svg frontier.svg report.json report.csv
report_files = $(1).txt $(1).json $(addprefix $(1).svg/,$(REPORT_SVGS))
series_files = $(1).txt $(addprefix $(1).svg/,$(REPORT_SVGS))

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
report: $(call report_files,$(call out_of,$(SCALE),$(GRID)))

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

# Where a stage reuses an output, the edges it was made from must be its
# input's: the partition's and the validation's edges_fingerprint against
# the edge file's fingerprint, the BFS file's against the partition's, the
# validation's bfs_run_id against the BFS file's run_id, and the report's
# JSON must name that run. An output that says otherwise is made again
# (FORCE), whatever its time; one whose attribute cannot be read is too.
H5DUMP := $(shell command -v h5dump 2>/dev/null)
# h5attr FILE,NAME: a root attribute's value (empty when FILE is absent)
h5attr = $(if $(and $(H5DUMP),$(wildcard $(1))),$(shell $(H5DUMP) -a '$(2)' '$(1)' 2>/dev/null | sed -n 's/^ *(0): *"\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p'))
# stale OUTPUT,ITS-VALUE,INPUT,INPUT-VALUE,NOUN,LABEL: FORCE (and a line
# saying why) when OUTPUT exists and INPUT's value is known and not OUTPUT's
stale = $(if $(and $(wildcard $(1)),$(4)),$(if $(filter-out $(4),$(or $(2),none)),$(info pipeline.mk: $(1) was made from another $(5) ($(6) $(or $(2),none)$(,) $(3) has $(4)): made again)FORCE))
efp_of = $(call h5attr,$(call edges_of,$(1)),fingerprint)
stale_part  = $(call stale,$(call part_of,$(1),$(2)),$(call h5attr,$(call part_of,$(1),$(2)),edges_fingerprint),$(call edges_of,$(1)),$(call efp_of,$(1)),graph,edges fingerprint)
stale_bfs   = $(call stale,$(call bfs_of,$(1),$(2)),$(call h5attr,$(call bfs_of,$(1),$(2)),edges_fingerprint),$(call part_of,$(1),$(2)),$(call h5attr,$(call part_of,$(1),$(2)),edges_fingerprint),graph,edges fingerprint)
stale_valid = $(call stale,$(call valid_of,$(1),$(2)),$(call h5attr,$(call valid_of,$(1),$(2)),edges_fingerprint),$(call edges_of,$(1)),$(call efp_of,$(1)),graph,edges fingerprint)$(call stale,$(call valid_of,$(1),$(2)),$(call h5attr,$(call valid_of,$(1),$(2)),bfs_run_id),$(call bfs_of,$(1),$(2)),$(call h5attr,$(call bfs_of,$(1),$(2)),run_id),run,run id)
# the run id the report's JSON names (its first "run_id")
json_run = $(if $(wildcard $(1)),$(shell sed -n 's/.*"run_id": *"\([0-9a-f]*\)".*/\1/p' '$(1)' | head -n 1))
stale_report = $(call stale,$(call out_of,$(1),$(2)).json,$(call json_run,$(call out_of,$(1),$(2)).json),$(call bfs_of,$(1),$(2)),$(call h5attr,$(call bfs_of,$(1),$(2)),run_id),run,run id)

# Every file one bfs-report run makes is a target of its rule (grouped), so a
# deleted plot or JSON is made again. With --append in REPORT_FLAGS, a run
# whose row the table already has is reported without --append.
# the table of --append T or --append=T, and REPORT_FLAGS without them
after_append = $(if $(filter --append,$(firstword $(1))),$(word 2,$(1)),$(if $(word 2,$(1)),$(call after_append,$(wordlist 2,$(words $(1)),$(1)))))
drop_append = $(if $(1),$(if $(filter --append,$(firstword $(1))),$(call drop_append,$(wordlist 3,$(words $(1)),$(1))),$(filter-out --append=%,$(firstword $(1))) $(call drop_append,$(wordlist 2,$(words $(1)),$(1)))))
APPEND_TABLE := $(firstword $(patsubst --append=%,%,$(filter --append=%,$(REPORT_FLAGS))) $(call after_append,$(REPORT_FLAGS)))
REPORT_FLAGS_NOAPPEND := $(strip $(call drop_append,$(REPORT_FLAGS)))
# report_flags BFS... (expanded in the recipe): REPORT_FLAGS, less --append
# when the table already has every run of the BFS files
report_flags = $(if $(APPEND_TABLE),$$(n=0; for b in $(1); do \
  r=$$(h5dump -a run_id "$$b" 2>/dev/null | sed -n 's/^ *(0): *"\(.*\)"$$/\1/p'); \
  [ -n "$$r" ] && [ -f '$(APPEND_TABLE)' ] && grep -q "$$r" '$(APPEND_TABLE)' || n=1; done; \
  if [ $$n = 0 ]; then echo "pipeline.mk: $(APPEND_TABLE) has these runs already: not appended again" >&2; \
  echo '$(REPORT_FLAGS_NOAPPEND)'; else echo '$(REPORT_FLAGS)'; fi),$(REPORT_FLAGS))

define RUN_RULES
$(call part_of,$(1),$(2)): $(call edges_of,$(1)) $(call stale_part,$(1),$(2)) | $(BIN)/partition2d
	@mkdir -p $$(@D)
	$(call launch,$(NP))$(BIN)/partition2d --grid $(2) $(PARTITION_FLAGS) $$< -o $$@
$(call bfs_of,$(1),$(2)): $(call part_of,$(1),$(2)) $(call stale_bfs,$(1),$(2)) | $(BIN)/bfs-gpu
	@mkdir -p $$(@D)
	@echo "pipeline.mk: $(ROOTS_SAY)"
	$(call launch,$(call ranks,$(2)))$(BIN)/bfs-gpu $$< -n $(NROOTS) --seed $(SEED) --backend $(BACKEND) --roots $(ROOTS_RULE) $(if $(VARIANT),--variant $(VARIANT) )$(BFS_FLAGS) -o $$@
$(call valid_of,$(1),$(2)): $(call edges_of,$(1)) $(call bfs_of,$(1),$(2)) $(call stale_valid,$(1),$(2)) | $(BIN)/bfs-validate
	$(call launch,$(NP))$(BIN)/bfs-validate -q $(VALIDATE_FLAGS) $(call edges_of,$(1)) $(call bfs_of,$(1),$(2)) -o $$@ >$$(basename $$@).log || { s=$$$$?; cat $$(basename $$@).log; exit $$$$s; }
$(call report_files,$(call out_of,$(1),$(2))) &: $(call bfs_of,$(1),$(2)) $(call valid_of,$(1),$(2)) $(call stale_report,$(1),$(2)) | $(BIN)/bfs-report
	$(BIN)/bfs-report $(call bfs_of,$(1),$(2)) $(call valid_of,$(1),$(2)) --svg $(call out_of,$(1),$(2)).svg $$(call report_flags,$(call bfs_of,$(1),$(2))) -o $(call out_of,$(1),$(2)).txt
	@$(call copy_json,$(call out_of,$(1),$(2)))
	@cat $(call out_of,$(1),$(2)).txt
endef
# One bfs-report run makes the text, the plots and the JSON (the plot
# directory's report.json, copied beside the text): REPORT_FLAGS such as
# --append act once per run.
copy_json = cp $(1).svg/report.json $(dir $(1)).$(notdir $(1)).json.tmp && mv -f $(dir $(1)).$(notdir $(1)).json.tmp $(1).json
FORCE:

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
pscale = $(word 1,$(subst :, ,$(1)))
pgrid  = $(word 2,$(subst :, ,$(1)))

$(foreach s,$(sort $(foreach p,$(PAIRS),$(call pscale,$(p)))),$(eval $(call EDGES_RULE,$(s))))
$(foreach p,$(PAIRS),$(eval $(call RUN_RULES,$(call pscale,$(p)),$(call pgrid,$(p)))))

# ---- sweeps: every run, then one comparison report -------------------------
sweep_list = $(foreach p,$(1),$(call bfs_of,$(call pscale,$(p)),$(call pgrid,$(p))) $(call valid_of,$(call pscale,$(p)),$(call pgrid,$(p))))
ALL_TAGS   := $(if $(GRAPH),$(IMPORT_TAG),$(GEN_TAG))$(PART_TAG)$(BFS_TAG)$(VALID_TAG)$(REPORT_TAG)
SWEEP_NAME := $(RESULTS)/sweep-$(if $(GRAPH),$(GRAPH_STEM),rmat-s$(subst $() ,_,$(strip $(SCALES)))-e$(EF)$(seedtag))-g$(subst $() ,_,$(strip $(GRIDS))).n$(NROOTS)$(RTAG)$(ROOTS_TAG).$(BACKEND)$(ALL_TAGS)
WEAK_NAME  := $(RESULTS)/weak-$(if $(GRAPH),$(GRAPH_STEM),rmat-s$(SCALE)-e$(EF)$(seedtag))-g$(subst $() ,_,$(strip $(GRIDS))).n$(NROOTS)$(RTAG)$(ROOTS_TAG).$(BACKEND)$(ALL_TAGS)

# the terminal gets the tables (the text report puts them first); the runs'
# details are in the file
show_tables = sed '/^== run /,$$d' $(1); echo "(each run's statistics and provenance: $(1))"
sweep: $(call series_files,$(SWEEP_NAME))
weak: $(call series_files,$(WEAK_NAME))
$(call series_files,$(SWEEP_NAME)) &: $(call sweep_list,$(SWEEP_PAIRS)) | $(BIN)/bfs-report
	$(BIN)/bfs-report $(call sweep_list,$(SWEEP_PAIRS)) --svg $(SWEEP_NAME).svg $(call report_flags,$(foreach p,$(SWEEP_PAIRS),$(call bfs_of,$(call pscale,$(p)),$(call pgrid,$(p))))) -o $(SWEEP_NAME).txt
	@$(call show_tables,$(SWEEP_NAME).txt)
$(call series_files,$(WEAK_NAME)) &: $(call sweep_list,$(WEAK_PAIRS)) | $(BIN)/bfs-report
	$(BIN)/bfs-report $(call sweep_list,$(WEAK_PAIRS)) --svg $(WEAK_NAME).svg $(call report_flags,$(foreach p,$(WEAK_PAIRS),$(call bfs_of,$(call pscale,$(p)),$(call pgrid,$(p))))) -o $(WEAK_NAME).txt
	@$(call show_tables,$(WEAK_NAME).txt)

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
	@sed -n '2,/^$$/p' $(PIPELINE) | sed 's/^# \{0,1\}//'

clean-results:
	rm -rf $(RESULTS)
