/* The simulator's clock and event queue.
 *
 * Time is integer picoseconds (uet_ps), not the engine's nanoseconds: at
 * 400 Gb/s a byte takes exactly 20 ps and a 4 KiB packet ~83 ns, so
 * serialisation times stay exact instead of accumulating rounding error
 * per packet, and 2^64 ps is still 213 days. The engine is handed
 * floor(ps / 1000) ns, which is monotonic because ps is.
 *
 * Events sit in a binary min-heap on (time, sequence): two events due in
 * the same picosecond run in the order they were scheduled, so a run is a
 * function of its inputs and seed only.
 */
#ifndef UET_SIM_EVQ_H
#define UET_SIM_EVQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/time.h"

typedef uint64_t uet_ps;
#define UET_PS_NONE	UINT64_MAX
#define UET_PS_NS	((uet_ps)1000)
#define UET_PS_US	((uet_ps)1000000)
#define UET_PS_MS	((uet_ps)1000000000)
#define UET_PS_SEC	((uet_ps)1000000000000ull)

static inline uet_time uet_ps_to_ns(uet_ps t)
{
	return t == UET_PS_NONE ? UET_TIME_NONE : t / UET_PS_NS;
}

static inline uet_ps uet_ns_to_ps(uet_time t)
{
	if (t == UET_TIME_NONE || t >= UET_PS_NONE / UET_PS_NS)
		return UET_PS_NONE;
	return t * UET_PS_NS;
}

struct uet_ev {
	uet_ps t;
	uint64_t seq;		/* scheduling order: ties run FIFO */
	void *p;		/* kind's payload (a frame) */
	uint32_t a;		/* kind's index (a link, a node) */
	uint32_t kind;
};

struct uet_evq {
	struct uet_ev *v;
	size_t n, cap;
	uint64_t seq;
	uint64_t pushed;	/* events ever scheduled */
};

void uet_evq_init(struct uet_evq *q);
void uet_evq_fini(struct uet_evq *q);
/* Schedule; the queue grows as needed (out of memory ends the program:
 * the simulator is a tool, not a library). */
void uet_evq_push(struct uet_evq *q, uet_ps t, uint32_t kind, uint32_t a,
		  void *p);
/* The earliest event into *ev; false when empty. */
bool uet_evq_pop(struct uet_evq *q, struct uet_ev *ev);

static inline uet_ps uet_evq_next(const struct uet_evq *q)
{
	return q->n ? q->v[0].t : UET_PS_NONE;
}

/* One deadline per owner (a host's fep): an indexed min-heap on (time,
 * id), so a deadline that moves is updated in place instead of leaving
 * stale events behind. */
struct uet_tmq {
	uint32_t *heap;		/* ids */
	uint32_t *pos;		/* id -> heap slot, or UINT32_MAX */
	uet_ps *at;		/* id -> deadline */
	uint32_t n, ids;
};

void uet_tmq_init(struct uet_tmq *q, uint32_t ids);
void uet_tmq_fini(struct uet_tmq *q);
/* Set id's deadline; UET_PS_NONE removes it. */
void uet_tmq_set(struct uet_tmq *q, uint32_t id, uet_ps at);

static inline uet_ps uet_tmq_next(const struct uet_tmq *q, uint32_t *id)
{
	if (!q->n)
		return UET_PS_NONE;
	*id = q->heap[0];
	return q->at[q->heap[0]];
}

/* The tool's allocator: never returns NULL. */
void *uet_sim_alloc(size_t n);
void *uet_sim_realloc(void *p, size_t n);

#endif
