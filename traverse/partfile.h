/* partfile.h — bfs-gpu's reading of a partition file (FORMATS.md
 * "Partition file"): this rank's CSC block and its vertices' degrees, every
 * statement the searches rely on checked first. */
#ifndef B2_TRAVERSE_PARTFILE_H
#define B2_TRAVERSE_PARTFILE_H

#include <stdint.h>
#include "backend.h"

/* What the partition file says about the whole graph. */
typedef struct pinfo {
	int64_t R, C, N, b, M;
	char *edges_file;
	uint64_t fingerprint;
	int has_scale, has_ef, has_gt, has_pt;
	int64_t scale, ef;
	double gen_time, part_time;
} pinfo;

/* Collective: reads this rank's share of the partition file at path into g
 * (arrays the caller frees) and what the file says of the whole graph into
 * pi (pi->edges_file the caller frees). Bad data is exit 3, named by file,
 * dataset and place. */
int b2_read_partition(b2_graph *g, pinfo *pi, const char *path);

#endif
