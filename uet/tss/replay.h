/* Replay window over a source's TSC (docs/choices.md §11.5): the highest
 * TSC seen and a bitmap of the UET_REPLAY_SPAN below it. A sender's TSC
 * counts every packet it sends in the secure domain, to every destination,
 * and spraying reorders, so the span is wide; a packet older than the span
 * is refused as stale (PDS resends it, with a new TSC).
 */
#ifndef UET_TSS_REPLAY_H
#define UET_TSS_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#define UET_REPLAY_SPAN		4096u	/* TSCs below the highest */

struct uet_replay {
	uint64_t top;			/* highest TSC accepted */
	bool any;			/* top is valid */
	uint64_t bits[UET_REPLAY_SPAN / 64];	/* bit (tsc % SPAN): seen */
};

/* 0 when tsc may be accepted; UET_ERR_TSS_REPLAY when seen before,
 * UET_ERR_TSS_STALE when below the window. Checks only: call
 * uet_replay_accept once the packet has authenticated. */
int uet_replay_check(const struct uet_replay *w, uint64_t tsc);
void uet_replay_accept(struct uet_replay *w, uint64_t tsc);

#endif
