# report/: bfs-report (Graph500 statistics, comparison and scaling tables,
# JSON/CSV, SVG plots). One process, no CUDA.
PROGRAMS += bfs-report
bfs-report_SRCS := report/main.c report/load.c report/ranks.c report/labels.c report/stats.c report/output.c report/json.c report/csv.c report/baseline.c report/svg.c report/svgplots.c report/svgkit.c
