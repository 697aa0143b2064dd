/* transport.h — how the exchanges' data moves between ranks: one interface,
 * three implementations.
 *
 * A link is one exchange direction on one rank: the expand exchange along
 * the grid column, or the fold exchange along the grid row. On it a
 * transport does three things the level loop (search.c) asks for:
 *   - a round of messages (one to every peer, one from every peer),
 *   - the visited exchange of bottom-up levels (an allgather of the own
 *     visited blocks along the row),
 *   - the predecessor exchange after the levels (requests and answers).
 * Implementations:
 *   mpi   (mpi.c)   host-staged MPI point-to-point; every backend; CI's path.
 *   ipc   (ipc.c)   CUDA IPC between the GPUs of one node: the peers' memory
 *                   is mapped, messages are copied into the peers' receive
 *                   slots, the visited blocks and predecessors are read in
 *                   place. "pull": the same mapping, and the backend reads
 *                   the messages in place as well, GPUs signalling each
 *                   other through device flags (device levels).
 *   nccl  (nccl.c)  NCCL send/receive and allgather on the backend's
 *                   stream; MPI carries only start-up and control.
 * Device levels: when every link moves bitmaps device to device without the
 * host (pull, nccl), a level runs on the GPU with one host wait, and the
 * message sizes come from the termination test (every rank's frontier
 * size), not with the messages. Over NCCL's network messages go as lists
 * where smaller (b2_link_list): the expand exchange's frontiers, whose
 * sizes both sides know, and a fold's discoveries where both know a bound
 * (a count word, then at most the bound's entries; search.c).
 * Carrying the visited state: on a grid row of two ranks with device
 * levels, a bottom-up level's fold message is the sender's whole discovery
 * set (both blocks' bitmaps, one after the other, bw + 1 words each), and
 * the update ORs the peer's discoveries of its own block into the rank's
 * visited bitmap too. The row's visited state is then current, and a next
 * bottom-up level needs no visited exchange: the same bytes (C = 2), one
 * synchronisation fewer. Top-down levels do not carry (their successor is
 * mostly top-down too), so the first bottom-up level after them exchanges.
 * On a grid of one row a device-levels backend's bottom-up step finds only
 * vertices of the own block (backend.h device_levels), so the half of the
 * set that holds the receiver's block is empty: there the message is the
 * sender's own block alone (carrying == B2_CARRYING_OWN), half the bytes.
 * On a 1x2 grid B2_CARRY_EVERY=1 makes every level carry, so that, as
 * below, the predecessors need no exchange (an experiment for NCCL: for
 * pull, which reads the predecessors in place, it only costs).
 * Message levels on a grid row of two (MPI) carry it on every level: the
 * fold message also holds the sender's discoveries of its own block (a
 * list or a bitmap, whichever is smaller, so top-down levels add little),
 * and the receiver marks them visited (backend carry_in). The row's
 * visited state is then always current (the root is marked at the start),
 * and no bottom-up level exchanges it. Each rank then also knows what its
 * peer will ask for in the predecessor exchange (the rows it found that
 * the peer did not), so only the answers travel; on a 1x2 grid the CUDA
 * backend resolves them all from the levels, and nothing travels
 * (backend.h pred_local), with message and device levels alike. */
#ifndef B2_TRAVERSE_TRANSPORT_H
#define B2_TRAVERSE_TRANSPORT_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include "backend.h"

/* An environment switch of ours or NCCL's is on: NAME=1. */
static inline int b2_env_on(const char *name)
{
	const char *v = getenv(name);
	return v && !strcmp(v, "1");
}

/* --transport */
enum { B2_TP_AUTO, B2_TP_PULL, B2_TP_IPC, B2_TP_NCCL, B2_TP_MPI };

typedef struct b2_link b2_link;

typedef struct b2_link_ops {
	const char *name;   /* as the BFS file's `exchange` attribute says it */
	int mem;            /* where message data must lie (B2_MEM_) */
	int device_levels;  /* moves bitmaps without the host: levels may run on the device */
	int in_place;       /* the backend reads the peers' visited blocks and
	                       predecessors itself (backend peers()) */
	int carry;          /* can carry the visited state with the fold (above) */
	/* Collective over l->comm: sets up; *ok = 0 on every rank alike when
	 * this transport cannot serve the link (nothing is left open then). */
	int (*open)(b2_link *l, int *ok);
	/* One round: out[p] to peer p (p != me); afterwards l->in[p] describes
	 * what came from p. known NULL: the sizes travel with the messages.
	 * Else (device levels) every message is a bitmap of bmp_words(b) words
	 * (l->carrying: the sender's discovery set, 2 * (bmp_words(b) + 1)
	 * words, received at the slot's start; B2_CARRYING_OWN: the sender's
	 * own block, bmp_words(b) + 1 words, received where it lies in the
	 * set, at p * (bmp_words(b) + 1) in peer p's slot; b2_link_list: a
	 * list of known[p] words), sent when out[p].count != 0 and received
	 * when known[p] != 0 (< 0: size unknown, sent anyway), and in[] is
	 * left to the caller.
	 * Message levels with l->carrying: out[me] (the sender's own block's
	 * discoveries) goes to every peer with out[p], and arrives in
	 * l->carried[p]. */
	int (*round)(b2_link *l, const b2_msg *out, const int64_t *known);
	/* Allgather of `words` words per rank (not called when in_place). */
	int (*allgather)(b2_link *l, const uint32_t *send, uint32_t *recv, int64_t words);
	void (*close)(b2_link *l);
} b2_link_ops;

struct b2_link {
	const b2_link_ops *ops; /* NULL: one rank, no exchange */
	MPI_Comm comm;
	int n, me, dir;         /* ranks in comm, own rank there, B2_DIR_ */
	const b2_backend *be;
	void *bk;
	int64_t b, words;       /* block size; capacity of a message in words */
	int carry;              /* fold link: carries the visited state (above),
	                           B2_CARRY_: device levels on bottom-up levels
	                           (B2_CARRY_EVERY=1 on a 1x2 grid: every level),
	                           message levels on every level */
	int lists;              /* device levels' messages of a known size or bound go
	                           as lists where smaller (b2_link_list) */
	int carrying;           /* the last fold carried it, B2_CARRYING_ (the level
	                           loop sets this each level; the CUDA backend
	                           applies the same rule, cuda.cu carrying() and
	                           carrying_own()): no visited exchange */
	b2_msg *in;             /* [n] the messages of the last round */
	b2_msg *carried;        /* [n] message levels, carrying: what peer p carried */
	int64_t *hdr;           /* [2n] message headers out and in (b2_link_headers) */
	double bytes_sent;      /* message payload sent, for the statistics */
	double pred_time[5];    /* the last predecessor exchange's parts (s): requests,
	                           their round, answers, their round, resolution */
	void *impl;             /* the implementation's state */
};


extern const b2_link_ops b2_link_mpi, b2_link_ipc, b2_link_pull, b2_link_nccl;

/* NCCL can serve this run: built in and libnccl loadable (nccl.c). */
int b2_nccl_available(char *why, size_t n);

typedef struct b2_transport_opts {
	int kind;        /* B2_TP_ */
	int bitmaps;     /* bitmap messages allowed (--bitmap on or auto) */
	int gpus_shared; /* ranks share GPUs: no device levels (their waits would
	                    spin against a peer on the same GPU), no NCCL */
	int bottom_up;   /* bottom-up levels may run (they need the visited state) */
} b2_transport_opts;

/* Collective over MPI_COMM_WORLD: picks and opens the transports of the
 * expand link (over col) and the fold link (over row) as --transport says:
 * auto takes pull where every rank of an exchange shares a node, else NCCL
 * when available, else MPI; a named transport that cannot serve is an
 * error (B2_EUSAGE) saying why. *device_levels: the search runs its levels
 * on the device (backend.h). */
int b2_links_open(b2_link *expand, b2_link *fold, MPI_Comm col, MPI_Comm row,
                  const b2_backend *be, void *bk, int64_t b, const b2_transport_opts *o,
                  int *device_levels);
/* Collective: closes both (no rank frees memory a peer still maps). */
void b2_links_close(b2_link *expand, b2_link *fold);
/* "none" for a link of one rank, else its transport's name. */
const char *b2_link_name(const b2_link *l);

/* Collective: "expand X, fold Y" (the BFS file's `exchange`), names joined
 * by '+' where ranks' links differ; *nccl: some link is NCCL's. */
int b2_links_describe(const b2_link *expand, const b2_link *fold, char *buf, size_t n,
                      int *nccl);
/* The NCCL library's version code (e.g. 22809), 0 when none is loaded. */
int b2_nccl_version(void);

/* Collective over comm (n ranks): *yes = every rank of it is on this node. */
int b2_link_one_node(MPI_Comm comm, int n, int *yes);

/* Device levels: a message of n words (known to sender and receiver
 * alike: the expand exchange's frontier sizes come with the termination
 * test; a fold's bound too, search.c) goes as a list of n words, not the
 * bitmap, where the link says so and the list is smaller. NCCL's links do
 * where NCCL goes over its network (nccl.c): there bytes cost, not only
 * operations. */
static inline int b2_link_list(const b2_link *l, int64_t n)
{
	return l->lists && n >= 0 && n < b2_bmp_words(l->b);
}

/* For device transports whose sizes travel by MPI: one all-to-all of the
 * headers of out[] (size, and whether a bitmap); then l->in[p] = what
 * peer p sends, landing in slot0 + p * slotw. */
int b2_link_headers(b2_link *l, const b2_msg *out, uint32_t *slot0, int64_t slotw);

/* One round in message mode (sizes travel with the messages). */
int b2_link_round(b2_link *l, const b2_msg *out);
/* Bottom-up: the row peers' visited blocks into the backend (fold link);
 * nothing where the last fold carried them. */
int b2_link_visited(b2_link *l);
/* The deferred predecessors of the last search (fold link; C == 1 too).
 * carried_all: every fold of the search carried the visited state
 * (message levels), so no requests travel. */
int b2_link_preds(b2_link *l, int carried_all);

#endif
