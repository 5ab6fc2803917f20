/* One direction of a cable and the output queue in front of it: a switch
 * egress port, or a host's NIC.
 *
 * Two queues share the wire under strict priority, as in a UET switch
 * (UE 1.0 §3.6.17) and htsim's composite queue: `lo` holds data (PDS requests),
 * `hi` holds control (ACK, NACK, CP) and trimmed headers. Bytes are wire
 * bytes: the UET packet plus cfg.framing. A queue's bytes include the
 * frame on the wire until its last bit has left.
 *
 * Admission (uet_link_offer), for a data frame when lo would exceed
 * lo_max: with cfg.trim it is cut to trim_len bytes of headers, marked
 * trimmed and joins hi ("forward at high priority"); without, it is
 * tail-dropped. A hi frame (a trimmed one included) beyond hi_max is
 * dropped. 0 means unlimited. Counters: trims (headers queued), drops_lo
 * (data dropped whole), drops_hi (the priority queue was full).
 *
 * ECN is decided when a data frame starts on the wire, on the bytes
 * queued behind it (the reference's dequeue marking): none below ecn_min,
 * always above ecn_max, between them with probability rising linearly
 * (RED-like). Only ECN-capable frames are marked (RFC 3168).
 *
 * The caller owns time: offer() queues, start() puts the next frame on an
 * idle wire and says when its last bit leaves, finish() takes it off then
 * (it arrives at the far end cfg.prop later). Nothing here schedules.
 */
#ifndef UET_SIM_LINK_H
#define UET_SIM_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "evq.h"
#include "frame.h"

struct uet_link_cfg {
	uint64_t bps;		/* bits per second */
	uet_ps prop;		/* propagation delay */
	uint32_t framing;	/* wire bytes beyond the UET packet */
	uint64_t lo_max;	/* data queue: trim or drop above; 0 = no limit */
	uint64_t hi_max;	/* priority queue: drop above; 0 = no limit */
	uint64_t ecn_min, ecn_max; /* marking band in bytes; ecn_max 0 = off */
	bool trim;		/* trim data frames instead of dropping */
	uint32_t trim_len;	/* UET bytes a trimmed frame keeps */
};

struct uet_fifo {
	struct uet_frame *head, *tail;
	uint32_t n;
};

struct uet_link {
	struct uet_link_cfg cfg;
	uint32_t from, to;	/* nodes */
	uint32_t rev;		/* the other direction of the cable */
	bool degraded;
	struct uet_fifo lo, hi;
	uint64_t lo_bytes, hi_bytes;
	struct uet_frame *busy;	/* on the wire */
	/* Queue occupancy over time: area = integral of bytes dt (byte ps). */
	double area;
	uet_ps area_at;
	uint64_t peak;		/* largest lo + hi seen */
	uint64_t bin_peak;	/* ... since the caller last reset it */
	/* Counters. */
	uint64_t tx_frames, tx_bytes;
	uint64_t drops_lo, drops_hi, trims, marks;
};

enum uet_link_verdict {
	UET_LINK_QUEUED,
	UET_LINK_TRIMMED,	/* queued, trimmed, in hi */
	UET_LINK_DROPPED,	/* the caller frees the frame */
};

void uet_link_init(struct uet_link *l, const struct uet_link_cfg *cfg,
		   uint32_t from, uint32_t to);
/* Wire time of a frame of len UET bytes, rounded up: a link never goes
 * faster than its rate. */
uet_ps uet_link_ser(const struct uet_link_cfg *cfg, uint32_t len);
/* Admit f at now (see above). */
enum uet_link_verdict uet_link_offer(struct uet_link *l, struct uet_frame *f,
				     uet_ps now);
/* If the wire is idle and a frame waits, put it on the wire: returns
 * when its last bit leaves, else UET_PS_NONE. rng: the run's PRNG state
 * (ECN draws). */
uet_ps uet_link_start(struct uet_link *l, uet_ps now, uint64_t *rng);
/* The frame on the wire is out: it leaves the queue and is returned. */
struct uet_frame *uet_link_finish(struct uet_link *l, uet_ps now);
/* Bytes queued now (both queues, the frame on the wire included). */
static inline uint64_t uet_link_queued(const struct uet_link *l)
{
	return l->lo_bytes + l->hi_bytes;
}
/* Bring the occupancy integral up to now. */
void uet_link_account(struct uet_link *l, uet_ps now);

#endif
