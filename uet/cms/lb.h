/* Entropy selection (UE 1.0 §3.6.16): which entropy value (EV), hence which
 * path, the next packet of a PDC takes, learnt from what came back.
 *
 * One policy per file behind uet_lb_ops (enum uet_lb_kind, cfg.lb):
 *	lb_single.c	one EV; another only after a timeout (ROD always)
 *	lb_oblivious.c	every EV once per pass in a re-randomized order
 *	lb_reps.c	recycle EVs whose ACKs came back clean (REPS)
 *	lb_bitmap.c	the oblivious walk, skipping penalized EVs (a penalty
 *			per bad news, a level learnt from repeated ones)
 *	lb_mixed.c	recycled EVs first, the bitmap walk otherwise
 *
 * PDS (../pds/ini.c) feeds every signal with the EV of the packet it
 * concerns: a clean ACK, an ECN mark, a trim, an inferred loss, an RTO.
 * Path-aware state covers UET_LB_EV_MAX values; more are not sprayed.
 * Sans-I/O: time comes in, randomness from a seed.
 */
#ifndef UET_CMS_LB_H
#define UET_CMS_LB_H

#include <stdbool.h>
#include <stdint.h>

#include "uet/fep.h"
#include "uet/time.h"

#define UET_LB_EV_MAX	256u
#define UET_LB_RING	8u		/* REPS: EVs kept for reuse */
#define UET_LB_PEN_MAX	15u		/* bitmap: a retired EV's penalty */
#define UET_LB_NONE	0xffffu		/* no EV (SYN packets: home port) */

/* What the network said about a packet sent on an EV. */
enum uet_lb_sig {
	UET_LB_ACK = 0,		/* acknowledged, no ECN mark */
	UET_LB_ECN,		/* acknowledged with CE (ACK flag M) */
	UET_LB_TRIM,		/* NACKed trimmed on the way */
	UET_LB_LOSS,		/* inferred lost from later ones' SACKs */
	UET_LB_TIMEOUT,		/* its RTO fired */
};

struct uet_lb;

struct uet_lb_ops {
	const char *name;
	uint16_t (*next)(struct uet_lb *lb, uet_time now);
	void (*feed)(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
		     uet_time now);
};

struct uet_lb {
	const struct uet_lb_ops *ops;
	uint16_t count;			/* EVs in use: [0, count) */
	uint16_t pow2;			/* smallest power of two >= count */
	uint16_t run, used, cur;	/* runs of new packets on one EV */
	bool trimming;			/* the fabric trims: losses are paths */
	uint64_t rng;			/* uet/rand.h state */
	uet_time hold;			/* REPS freeze after a timeout */
	/* The walk (oblivious, bitmap): (idx ^ xor) over pow2, then
	 * values beyond count skipped; xor redrawn at each wrap. */
	uint16_t idx, xor_;
	/* REPS: EVs that came back clean, oldest at head. */
	uint16_t ring[UET_LB_RING];
	uint8_t head, n, cyc;
	uet_time freeze_until;
	/* Bitmap: penalty per EV, skipped (and decremented) while > 0.
	 * Single: nonzero for an EV that timed out. */
	uint8_t pen[UET_LB_EV_MAX];
	/* Bitmap: the passes each use of an EV is followed by, learnt in
	 * quarters of a pass: bad news raises it, a clean ACK lowers it. */
	uint8_t lvl[UET_LB_EV_MAX];
	uint16_t good;			/* EV of the last clean ACK, level 0 */
	/* Packets in flight per EV (PDS keeps it: uet_lb_sent, _landed).
	 * With conserve the bitmap walk passes over an EV whose last run
	 * has not all come back: each path then carries what its own
	 * round trips clock out, a slow one less (a fabric that does not
	 * mark, cfg.lb_delay). */
	uint8_t flight[UET_LB_EV_MAX];
	bool conserve;
	/* Conserve: an EV that lost a packet sits out until susp (us,
	 * compared wrap-safe), hold / 8 at first, twice as long for each
	 * loss in a row (at most 64 times); a clean ACK ends the row. A
	 * penalty counts visits, and the walk visits many EVs per pick
	 * when most are busy: a dead path's EVs were back within a
	 * window (uet/cms/README.md). */
	uint32_t susp[UET_LB_EV_MAX];
	uint8_t susp_row[UET_LB_EV_MAX];
	/* Bitmap with conserve: the pick is on probation (back from
	 * sitting out, no clean ACK since), so its run is one packet.
	 * no_probe: the pick may not be on probation: a resend (the
	 * oldest packet, which holds the window's far end), or a PDC's
	 * last packet for now (nothing after it would show it lost). */
	bool probation, no_probe;
	uint16_t probe_ev;		/* of the PDC's last liveness probe */
	/* Counters (stats, tests). */
	uint32_t recycled, skipped, retired, saturated;
};

extern const struct uet_lb_ops uet_lb_single_ops, uet_lb_oblivious_ops,
	uet_lb_reps_ops, uet_lb_bitmap_ops, uet_lb_mixed_ops;

/* kind: enum uet_lb_kind (UET_LB_DEFAULT picks the default); count EVs (path-
 * aware kinds use at most UET_LB_EV_MAX), run new packets per EV (0 = 1),
 * hold: how long REPS keeps to known EVs after a timeout. */
void uet_lb_init(struct uet_lb *lb, uint8_t kind, uint16_t count,
		 uint16_t run, bool trimming, uet_time hold, uint32_t seed);

/* The EV of the next new packet. */
uint16_t uet_lb_next(struct uet_lb *lb, uet_time now);

/* New packets the run under way still takes: a whole run when none is
 * (the next new packet starts one). */
static inline uint16_t uet_lb_run_left(const struct uet_lb *lb)
{
	return lb->used && lb->used < lb->run ? lb->run - lb->used : lb->run;
}

/* The EV of a resend of a packet last sent on lost (UET_LB_NONE if none):
 * with trimming, the EV of the latest clean ACK if no bad news came since
 * (bitmap, mixed), else the policy's pick; never lost itself while
 * another exists. */
uint16_t uet_lb_resend(struct uet_lb *lb, uint16_t lost, uet_time now);

void uet_lb_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig,
		 uet_time now);

/* May a new packet take ev, chosen outside the policy (PDS: a one-packet
 * message sharing a socket with the ACK it carries)? Never under single
 * (ROD keeps one path), nor an EV the policy penalized or suspended. */
bool uet_lb_may_take(const struct uet_lb *lb, uint16_t ev, uet_time now);

/* The EV an ACK about a packet that came on ev goes back on, for the PDC
 * of this lb (ours to the same peer): ev unless packets of ours were
 * lost on it lately (sitting out a loss, or retired), else the EV of
 * the latest clean ACK if the policy takes it, else the next one it
 * would take. Marks alone steer nothing. Over UDP an EV picks the
 * socket an ACK leaves from, hence its path; the request's path says
 * nothing of it (docs/choices.md §3.7). */
uint16_t uet_lb_steer(const struct uet_lb *lb, uint16_t ev, uet_time now);

/* A packet left on ev; one sent on ev is no longer in flight. */
void uet_lb_sent(struct uet_lb *lb, uint16_t ev);
void uet_lb_landed(struct uet_lb *lb, uint16_t ev);

/* enum uet_lb_kind by name ("single", "oblivious", "reps", "bitmap", "mixed"),
 * -1 if none; and back. */
int uet_lb_parse(const char *name);
const char *uet_lb_name(uint8_t kind);

/* Shared by the policies (lb.c). */
uint32_t uet_lb_rand(struct uet_lb *lb);
uint16_t uet_lb_walk(struct uet_lb *lb);	/* next EV of the walk */
void uet_lb_reps_push(struct uet_lb *lb, uint16_t ev);
int uet_lb_reps_pop(struct uet_lb *lb, uet_time now);	/* -1: none */
uint16_t uet_lb_bitmap_pick(struct uet_lb *lb, uet_time now);
/* Conserve: ev sits out a suspension at now. */
bool uet_lb_suspended(const struct uet_lb *lb, uint16_t ev, uet_time now);
void uet_lb_bitmap_feed(struct uet_lb *lb, uint16_t ev, enum uet_lb_sig sig);

#endif
