/* transport.h — how the exchanges' data moves between ranks: one seam,
 * one table of implementations.
 *
 * A link is one exchange direction on one rank: the expand exchange along
 * the grid column, or the fold exchange along the grid row. A transport
 * owns what travels on its links:
 *   - a round of messages (one to every peer, one from every peer),
 *   - the row's visited state before a bottom-up level (visited),
 *   - the deferred predecessors after the levels (preds).
 * It says where its message buffers must lie (mem) and what it can do (the
 * flags below); the level plan (plan.h) decides from those what a level
 * does, and the backend puts its messages where the transport said.
 * Implementations, one file each, listed in b2_transports (transport.c):
 *   ipc   (ipc.c)   CUDA IPC between the GPUs of one node: the peers' memory
 *                   is mapped, messages are copied into the peers' receive
 *                   slots, the visited blocks and predecessors are read in
 *                   place. Its device-levels form, pull, reads the messages
 *                   in place as well, the GPUs signalling each other through
 *                   device flags.
 *   nccl  (nccl.c)  NCCL send/receive and allgather on the backend's
 *                   stream; MPI carries only start-up and control.
 *   mpi   (mpi.c)   host-staged MPI point-to-point; every backend.
 * Adding a transport: its own file defining a b2_link_ops, and one entry in
 * b2_transports. */
#ifndef B2_TRAVERSE_TRANSPORT_H
#define B2_TRAVERSE_TRANSPORT_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "backend.h"

struct b2_plan_caps;
typedef struct b2_link b2_link;

typedef struct b2_link_ops {
	const char *name;   /* as the BFS file's `exchange` attribute says it */
	int mem;            /* where message data must lie (B2_MEM_) */
	int needs_device;   /* a device backend only */
	int one_node;       /* every rank of the link on one node */
	int gpu_per_rank;   /* not where ranks share a GPU (--test-shared-gpus aside) */
	int device_levels;  /* moves bitmaps without the host: levels may run on the device */
	int in_place;       /* the backend reads the peers' visited blocks and
	                       predecessors itself (backend peers()) */
	int carry;          /* can carry the visited state with the fold */
	int in_place_lists; /* device levels: the readers take a frontier list its
	                       owner's update wrote in place (plan.h FRONT_LISTS) */
	/* the form it takes when the levels run on the device (NULL: itself) */
	const struct b2_link_ops *with_device_levels;
	/* NULL, or whether this process can use it (a library to load) */
	int (*available)(char *why, size_t n);
	/* Collective over l->comm: sets up; *ok = 0 on every rank alike when
	 * this transport cannot serve the link (nothing is left open then). */
	int (*open)(b2_link *l, int *ok);
	/* One round: out[p] to peer p (p != me). expect NULL: the sizes travel
	 * with the messages, and afterwards l->in[p] describes what came from
	 * p. Else (device levels) expect[p] is what p sends, as the plan fixed
	 * it: nothing (count 0), a list of `count` words, or a bitmap of
	 * bmp_words(b) words (l->carrying: the sender's discovery set, 2 *
	 * (bmp_words(b) + 1) words, received at the slot's start); out[p] is
	 * sent when its count is not 0, and in[] is left
	 * to the caller. Message levels with l->carrying: out[me] (the
	 * sender's own block's discoveries) goes to every peer with out[p],
	 * and arrives in l->carried[p]. */
	int (*round)(b2_link *l, const b2_msg *out, const b2_msg *expect);
	/* Allgather of `words` words per rank. */
	int (*allgather)(b2_link *l, const uint32_t *send, uint32_t *recv, int64_t words);
	/* Bottom-up: the row peers' visited blocks into the backend (fold). */
	int (*visited)(b2_link *l);
	/* The deferred predecessors of the last search (fold link). answers:
	 * every fold carried the visited state, so no requests travel. */
	int (*preds)(b2_link *l, int answers);
	void (*close)(b2_link *l);
} b2_link_ops;

struct b2_link {
	const b2_link_ops *ops; /* NULL: one rank, no exchange */
	MPI_Comm comm;
	int n, me, dir;         /* ranks in comm, own rank there, B2_DIR_ */
	const b2_backend *be;
	void *bk;
	int64_t b, words;       /* block size; capacity of a message in words */
	int lists;              /* over a network where bytes cost: device levels'
	                           messages of a known size go as lists
	                           where smaller (the plan decides) */
	int carrying;           /* what this level's fold carries (B2_CARRYING_,
	                           the plan's) */
	int test_shared;        /* --test-shared-gpus with ranks sharing a GPU */
	b2_msg *in;             /* [n] the messages of the last round */
	b2_msg *carried;        /* [n] message levels, carrying: what peer p carried */
	int64_t *hdr;           /* [2n] message headers out and in (b2_link_headers) */
	double bytes_sent;      /* message payload sent, for the statistics */
	double pred_time[5];    /* the last predecessor exchange's parts (s): requests,
	                           their round, answers, their round, resolution */
	void *impl;             /* the implementation's state */
};

extern const b2_link_ops b2_link_mpi, b2_link_ipc, b2_link_pull, b2_link_nccl;

/* --transport */
enum { B2_TP_AUTO, B2_TP_PULL, B2_TP_IPC, B2_TP_NCCL, B2_TP_MPI };

typedef struct b2_transport_opts {
	int kind;        /* B2_TP_ */
	int bitmaps;     /* bitmap messages allowed (--bitmap on or auto) */
	int gpus_shared; /* ranks share GPUs: no device levels (their waits would
	                    spin against a peer on the same GPU), no NCCL */
	int test_shared; /* --test-shared-gpus: pull and nccl all the same */
} b2_transport_opts;

/* Collective over MPI_COMM_WORLD: picks and opens the transports of the
 * expand link (over col) and the fold link (over row) as --transport says:
 * auto takes the first of b2_transports that can serve each exchange (ipc
 * where every rank of it shares a node, else NCCL when available, else
 * MPI); a named transport that cannot serve is an error (B2_EUSAGE) saying
 * why. *caps: what the two can do, agreed by every rank, for the plan. */
int b2_links_open(b2_link *expand, b2_link *fold, MPI_Comm col, MPI_Comm row,
                  const b2_backend *be, void *bk, int64_t b, const b2_transport_opts *o,
                  struct b2_plan_caps *caps);
/* Collective: closes both (no rank frees memory a peer still maps). */
void b2_links_close(b2_link *expand, b2_link *fold);

/* Collective: "expand X, fold Y" (the BFS file's `exchange`), names joined
 * by '+' where ranks' links differ; *nccl: some link is NCCL's. */
int b2_links_describe(const b2_link *expand, const b2_link *fold, char *buf, size_t n,
                      int *nccl);
/* NCCL can serve this run: built in and libnccl loadable (nccl.c); the
 * library's version code (e.g. 22809), 0 when none is loaded. */
int b2_nccl_available(char *why, size_t n);
int b2_nccl_version(void);

/* Collective over comm (n ranks): *yes = every rank of it is on this node. */
int b2_link_one_node(MPI_Comm comm, int n, int *yes);

/* For device transports whose sizes travel by MPI: one all-to-all of the
 * headers of out[] (size, and whether a bitmap); then l->in[p] = what
 * peer p sends, landing in slot0 + p * slotw. */
int b2_link_headers(b2_link *l, const b2_msg *out, uint32_t *slot0, int64_t slotw);

/* Where the link's messages lie: its transport's memory (host for a link
 * of one rank, which moves none). */
static inline int b2_link_mem(const b2_link *l)
{
	return l->ops ? l->ops->mem : B2_MEM_HOST;
}

/* One round in message mode (sizes travel with the messages). */
int b2_link_round(b2_link *l, const b2_msg *out);
/* What transports that move the data share: the visited state by their
 * allgather, the predecessors by two rounds (requests, answers). */
int b2_link_visited_gather(b2_link *l);
int b2_link_preds_exchange(b2_link *l, int answers);
/* Transports whose backend reads the peers in place: nothing moves. */
int b2_link_visited_in_place(b2_link *l);
int b2_link_preds_in_place(b2_link *l, int answers);

#endif
