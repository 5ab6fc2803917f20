/* uetsim: a fabric simulator that drives many real engine instances.
 *
 * The engine is sans-I/O (docs/architecture.md §2): packets in, packets out, time
 * passed in. So one event-driven process can run a fep per host of a
 * modelled fabric: links with rate and propagation delay, switch output
 * queues with a buffer, RED-like ECN marking and trimming or tail drop
 * (link.h), trees of switches with k equal-cost paths picked by a hash of
 * the entropy (topo.h). The simulator is the feps' driver loop (host.h),
 * the clock is a fake one in picoseconds (evq.h), and what it shows about
 * congestion control is what the provider would do.
 *
 *	struct uet_sim_config cfg;
 *	struct uet_sim *s;
 *	uet_sim_config_default(&cfg);		// 400G, 1 us hops, incast
 *	cfg.senders = 32;
 *	uet_sim_create(&s, &cfg);		// builds, opens feps, posts
 *	uet_sim_run(s);				// until every flow completes
 *	uet_report_result(s, &r);
 *	uet_sim_destroy(s);
 *
 * Single-threaded and deterministic: the same config and seed give the
 * same events, the same numbers.
 */
#ifndef UET_SIM_SIM_H
#define UET_SIM_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "uet/fep.h"

#include "evq.h"
#include "flow.h"
#include "frame.h"
#include "host.h"
#include "link.h"
#include "metric.h"
#include "topo.h"

enum uet_traffic {
	UET_TRAFFIC_INCAST,	/* senders 1..N -> host 0 */
	UET_TRAFFIC_PERM,	/* host i -> perm[i], a random derangement */
	UET_TRAFFIC_ONE,	/* host 0 -> the last host: a flow alone */
};

struct uet_sim_config {
	/* Fabric. */
	struct uet_topo_spec topo;	/* star hosts 0: senders + 1 */
	uint64_t link_bps;		/* every link */
	uet_ps hop;			/* propagation delay of every link */
	uint32_t payload;		/* payload bytes per full packet */
	uint32_t framing;		/* wire bytes per packet beyond UET's */
	uint32_t per_packet;		/* if set, framing is this less the
					 * UET headers: wire bytes beyond a
					 * full packet's payload */
	double buffer_bdp;		/* switch data queue, in BDP; 0: auto
					 * (1 with trimming, 5 without) */
	double hi_buffer_bdp;		/* switch priority queue, in BDP */
	double ecn_min_bdp, ecn_max_bdp; /* marking band; max 0: no ECN */
	bool trim;			/* trim (else tail-drop) at full queues */
	uint32_t trim_len;		/* UET bytes a trimmed packet keeps */
	unsigned degrade;		/* random switch-switch cables degraded */
	int32_t degrade_host;		/* this host's cable too; -1 none */
	double degrade_factor;		/* of rate and buffer */
	/* Traffic. */
	enum uet_traffic traffic;
	uint32_t senders;		/* incast */
	uint64_t size;			/* bytes per flow */
	uet_ps start;			/* every flow starts then */
	uet_ps start_jitter;		/* ... plus [0, this), seeded per flow */
	uet_ps tie_jitter;		/* every frame arrives [0, this) late:
					 * ties at a port break at random */
	/* Engine, per fep. */
	uint8_t cca;			/* enum uet_cca, passed through */
	unsigned window;		/* fixed window, packets; 0: one BDP */
	unsigned ack_every;
	uet_time ack_delay;
	uet_time rto_min;		/* 0: 4 base RTTs */
	uet_time rto_max;
	unsigned max_retx;
	uint16_t entropies, entropy_run;
	uint8_t lb;			/* enum uet_lb_kind: entropy selection */
	bool no_loss_infer;		/* RTO and NACKs only (cfg.loss_infer) */
	uet_time reorder_window;	/* cfg.reorder_window (0: engine's) */
	/* Run. */
	uint64_t seed;
	uet_ps limit;			/* simulated time cap */
	uet_ps sample;			/* queue sampling; 0: ideal / 2000 */
	uet_ps jain_window;		/* goodput windows; 0: ideal / 32 */
	int verify;			/* 1 on, 0 off, -1: if <= 512 MiB */
};

struct uet_sim {
	struct uet_sim_config cfg;
	/* Derived. */
	uint32_t mtu;			/* UET bytes of a full packet */
	uet_ps base_rtt;		/* unloaded RTT, longest path */
	uint64_t bdp;			/* wire bytes in flight at line rate */
	unsigned window;		/* fixed window in use */
	uet_ps ideal;			/* busiest host link at line rate */
	bool verify;
	/* State. */
	uet_ps now;
	uint64_t rng;
	struct uet_evq evq;
	struct uet_tmq tmq;
	struct uet_frame_pool pool;
	struct uet_topo topo;
	struct uet_host *hosts;
	uint32_t nhosts;
	struct uet_flow *flows;
	uint32_t nflows, flows_left;
	struct uet_flowmap map;
	uint8_t *pattern;		/* flows' data: size + 4 KiB random */
	uint8_t *sink;			/* shared receive buffer */
	struct uet_metric metric;
	uet_ps end;			/* when the run stopped */
	/* Counters. */
	uint64_t events, timeouts, delivered, no_route, loops;
	bool stuck;			/* a fep's deadline would not move */
	int open_err;			/* uet_fep_open refused the config */
	uint64_t fep_bytes;		/* heap the feps took at open */
	uint64_t fep_bytes_max;		/* ... the largest one (a receiver) */
	double wall;			/* seconds the run took */
};

/* What a run gives: the scenario table's row and more (report.c). */
struct uet_sim_result {
	uint32_t flows, completed, failed, verify_bad;
	uint32_t unfinished;		/* neither completed nor failed */
	bool verified;
	uet_ps first, last, ideal;	/* first and last completion; ideal */
	double ratio;			/* last / ideal */
	double q_avg_bdp, q_max_bdp;	/* watched (bottleneck) queue */
	double q_busiest_bdp;		/* largest average of any switch port */
	double busy;			/* watched wire's share until last */
	double idle_us, idle_tail_us;	/* ... idle, all and after first */
	uint32_t q_busiest;		/* ... that port's link */
	double jain_mean, jain_min;
	uint32_t jain_windows;
	double good_min, good_mean, good_max; /* per-flow goodput, Gb/s */
	uint64_t drops, trims, marks;	/* in switches */
	uint64_t retx, retx_rto, retx_nack, retx_sack, retx_tlp;
	uint64_t nacks, pdc_failed;
	uint64_t frames;		/* handed to links */
	uint64_t events;
	bool lost_for_good;		/* a flow failed, or its data is wrong */
};

void uet_sim_config_default(struct uet_sim_config *cfg);
/* Build the fabric, open a fep per host, post every receive and schedule
 * every send. 0, UET_ERR_INVAL (a config the simulator or the engine
 * refuses; s->open_err says the engine's answer). *sp is set either way
 * (destroy it). */
int uet_sim_create(struct uet_sim **sp, const struct uet_sim_config *cfg);
void uet_sim_destroy(struct uet_sim *s);
/* Run until every flow completed at both ends, or nothing is left to
 * happen, or cfg.limit. */
void uet_sim_run(struct uet_sim *s);

/* report.c: gather the results (verifies the data), print them. */
void uet_report_result(struct uet_sim *s, struct uet_sim_result *r);
/* The summary, human-readable. */
void uet_report_print(const struct uet_sim *s, const struct uet_sim_result *r,
		      FILE *out);
/* Every host's engine counters, one line each. */
void uet_report_hosts(const struct uet_sim *s, FILE *out);
/* One line of key=value pairs, for scripts. */
void uet_report_kv(const struct uet_sim *s, const struct uet_sim_result *r,
		   FILE *out);

/* For the modules: move a frame onto a link at s->now. */
void uet_sim_send(struct uet_sim *s, uint32_t link, struct uet_frame *f);

#endif
