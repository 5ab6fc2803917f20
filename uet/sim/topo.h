/* Topologies: hosts and switches joined by links (link.h), and the
 * routing of a frame at a switch.
 *
 * Every topology here is a tree of host ranges, which makes routing a
 * little arithmetic instead of tables: a switch's hosts below it are
 * [lo, hi), spread evenly over its ndown down links (per_down each); a
 * frame for one of them goes down the one link toward it, any other goes
 * up one of the remaining links, chosen by a hash of (src, dst, UDP ports)
 * salted per switch, the way ECMP hashes the 5-tuple. The UDP source port
 * carries the engine's entropy value, so k up links give a PDC k paths.
 *
 *  star       one switch, `hosts` hosts (incast)
 *  leafspine  `leaves` leaves of `leaf_hosts` hosts, each leaf linked to
 *             each of `spines` spines: `spines` paths between leaves
 *             (a 2-tier k-ary fat tree is leaves k, leaf_hosts k/2,
 *             spines k/2)
 *  fattree    3-tier k-ary fat tree: k pods of k/2 edge and k/2
 *             aggregation switches, (k/2)^2 cores, k^3/4 hosts; (k/2)^2
 *             paths between pods (k = 8: 128 hosts, 16 paths)
 *
 * Hosts are nodes 0..hosts-1, host i is node i; its NIC is link
 * nodes[i].first, and host_in[i] the last hop into it.
 */
#ifndef UET_SIM_TOPO_H
#define UET_SIM_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"
#include "link.h"

#define UET_TOPO_NONE	UINT32_MAX

enum uet_topo_kind {
	UET_TOPO_STAR,
	UET_TOPO_LEAFSPINE,
	UET_TOPO_FATTREE,
};

struct uet_topo_spec {
	enum uet_topo_kind kind;
	unsigned hosts;				/* star */
	unsigned leaves, leaf_hosts, spines;	/* leafspine */
	unsigned k;				/* fattree */
};

struct uet_node {
	bool host;
	uint8_t tier;		/* 0 host, 1 ToR/leaf/edge, 2 spine/agg, 3 core */
	uint32_t first, deg;	/* its outgoing links */
	uint32_t ndown;		/* the first ndown go down, the rest up */
	uint32_t lo, hi;	/* hosts below */
	uint32_t per_down;	/* hosts per down link */
	uint64_t salt;		/* of its ECMP hash */
};

struct uet_topo {
	struct uet_node *nodes;
	uint32_t nnodes;
	struct uet_link *links;
	uint32_t nlinks;
	uint32_t nhosts;
	uint32_t *host_in;	/* link into host i */
	unsigned hops;		/* links on the longest host-to-host path */
};

/* Build spec with host NICs configured as nic and switch ports as sw;
 * seed salts the hashes. 0, or UET_ERR_INVAL for a spec that makes no
 * tree (too few hosts, odd k, ...). */
int uet_topo_build(struct uet_topo *t, const struct uet_topo_spec *spec,
		   const struct uet_link_cfg *nic,
		   const struct uet_link_cfg *sw, uint64_t seed);
void uet_topo_fini(struct uet_topo *t);
/* Hosts spec builds (0 if invalid). */
uint32_t uet_topo_hosts(const struct uet_topo_spec *spec);
/* The link switch n forwards f on, or UET_TOPO_NONE. */
uint32_t uet_topo_route(const struct uet_topo *t, const struct uet_node *n,
			const struct uet_frame *f);
/* The ECMP hash of f at a switch with this salt. */
uint64_t uet_topo_hash(uint64_t salt, const struct uet_frame *f);
/* Scale both directions of link i's cable to factor of its rate and
 * buffers (a degraded link: factor 0.25). */
void uet_topo_degrade(struct uet_topo *t, uint32_t i, double factor);
/* Degrade n distinct switch-to-switch cables picked with rng; returns how
 * many there were to pick from (fewer than n: all of them). */
uint32_t uet_topo_degrade_random(struct uet_topo *t, unsigned n,
				 double factor, uint64_t *rng);
const char *uet_topo_name(enum uet_topo_kind kind);

#endif
