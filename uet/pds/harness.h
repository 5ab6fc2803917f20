/* A deterministic driver for engine tests: up to UET_HARNESS_MAX feps on
 * one mem net (include/uet/mem.h) under one fake clock.
 *
 *	struct uet_harness h;
 *	uet_harness_init(&h, 2, &cfg, &mcfg, seed);  // 10.0.0.(i+1):4793
 *	uet_fep_post(h.node[0].fep, &op, h.now);
 *	uet_harness_run(&h, done, arg, h.now + 5 * UET_SEC);
 *	uet_harness_fini(&h);
 *
 * uet_harness_step advances the clock to the earliest event (the minimum
 * of every fep's next timeout and the net's next delivery), hands every
 * ready packet to its fep, runs the timeouts that are due, and drains
 * every fep's poll_tx into the net. Nothing depends on the wall clock.
 *
 * Hooks (optional, set in the struct after init):
 *  - on_complete(h, node, c): every completion of a fep;
 *  - on_tx(h, node, pi, pkt, len): every packet a fep sends, before the
 *    net sees it; return false to drop it (counted in hook_drops);
 *  - on_rx(h, node, pi, pkt, len, rc): every packet handed to a fep, with
 *    what uet_fep_recv returned;
 *  - on_trace(h, node, dir, pi, pkt, len): the fep's callbacks.trace.
 * Each node's callbacks.rand is a seeded xorshift (seed + node index), so
 * start PSNs and PDC ids are reproducible. The fep's `user` is the node.
 * Ports spray like the UDP port with its default k (uet/mem.h Addresses:
 * UET_HARNESS_SPRAY_BITS unless mcfg names its own spray_bits), so only
 * packets sent with info.home show a node's home address.
 * Impairments: uet_mem_port_set_impair(h.node[i].port, &imp) shapes the
 * link *into* node i.
 */
#ifndef UET_PDS_HARNESS_H
#define UET_PDS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/fep.h"
#include "uet/mem.h"

#define UET_HARNESS_MAX		4
#define UET_HARNESS_PORT	4793
#define UET_HARNESS_PKT_MAX	9216
#define UET_HARNESS_SPRAY_BITS	3

struct uet_harness;

struct uet_harness_node {
	struct uet_harness *h;
	unsigned idx;
	struct uet_fep *fep;		/* NULL once uet_harness_kill'ed */
	struct uet_net *port;
	struct uet_addr addr;
	struct uet_fep_config cfg;
	uint64_t rand_state;
	uint64_t tx, rx;		/* packets through the harness */
	int tx_err;			/* last negative poll_tx result */
};

struct uet_harness {
	struct uet_mem_net *net;
	uet_time now;
	unsigned n;
	struct uet_harness_node node[UET_HARNESS_MAX];
	void (*on_complete)(struct uet_harness *h, unsigned node,
			    const struct uet_completion *c);
	bool (*on_tx)(struct uet_harness *h, unsigned node,
		      const struct uet_pkt_info *pi, const uint8_t *pkt,
		      size_t len);
	void (*on_rx)(struct uet_harness *h, unsigned node,
		      const struct uet_pkt_info *pi, const uint8_t *pkt,
		      size_t len, int rc);
	/* callbacks.trace of every fep (dir 0 in, 1 out); NULL: none. */
	void (*on_trace)(struct uet_harness *h, unsigned node, int dir,
			 const struct uet_pkt_info *pi, const uint8_t *pkt,
			 size_t len);
	void *arg;			/* for the hooks */
	uint64_t hook_drops;
	uint64_t steps;
	uint64_t same_time;		/* steps since the clock last moved */
	bool stuck;			/* the clock stopped moving: a bug */
};

/* The address of node i. */
struct uet_addr uet_harness_addr(unsigned i);
/* n feps, each with cfg (NULL: uet_fep_config_default) and its own local
 * address, job 1, pid/ri 0; mcfg NULL: a perfect net. 0 or UET_ERR_*. */
int uet_harness_init(struct uet_harness *h, unsigned n,
		     const struct uet_fep_config *cfg,
		     const struct uet_mem_config *mcfg, uint64_t seed);
/* Like init, with one config per node (cfgs[i]; local is filled in). */
int uet_harness_init_each(struct uet_harness *h, unsigned n,
			  const struct uet_fep_config *cfgs,
			  const struct uet_mem_config *mcfg, uint64_t seed);
void uet_harness_fini(struct uet_harness *h);
/* Close node i's fep and port: a peer that died (packets to it vanish). */
void uet_harness_kill(struct uet_harness *h, unsigned i);
/* Open a fresh fep and port for a killed node i, at its address and with
 * its config: a peer that restarted and remembers nothing. 0 or
 * UET_ERR_*. */
int uet_harness_revive(struct uet_harness *h, unsigned i);

/* Send everything every fep has now. */
void uet_harness_flush(struct uet_harness *h);
/* One event no later than limit; false when there is none. */
bool uet_harness_step(struct uet_harness *h, uet_time limit);
/* Step until done(h, arg) (NULL: until quiet) or limit; true if done
 * (or, without done, if everything went quiet before limit). */
bool uet_harness_run(struct uet_harness *h,
		     bool (*done)(struct uet_harness *h, void *arg), void *arg,
		     uet_time limit);
/* Hand a packet to node i's fep as if it came from pi->src. */
int uet_harness_inject(struct uet_harness *h, unsigned i,
		       const struct uet_pkt_info *pi, const uint8_t *pkt,
		       size_t len);

#endif
