/* Sliding anti-replay window (the IPsec ESP shape, RFC 4303 §3.4.3). */
#include <string.h>

#include "uet/err.h"
#include "replay.h"

static bool replay_bit(const struct uet_replay *w, uint64_t tsc)
{
	uint64_t i = tsc % UET_REPLAY_SPAN;

	return w->bits[i / 64] >> (i % 64) & 1;
}

int uet_replay_check(const struct uet_replay *w, uint64_t tsc)
{
	if (!w->any || tsc > w->top)
		return 0;
	if (w->top - tsc >= UET_REPLAY_SPAN)
		return UET_ERR_TSS_STALE;
	return replay_bit(w, tsc) ? UET_ERR_TSS_REPLAY : 0;
}

void uet_replay_accept(struct uet_replay *w, uint64_t tsc)
{
	uint64_t i;

	if (!w->any) {
		memset(w->bits, 0, sizeof(w->bits));
		w->any = true;
		w->top = tsc;
	} else if (tsc > w->top) {
		/* Clear the slots the window slides over. */
		if (tsc - w->top >= UET_REPLAY_SPAN)
			memset(w->bits, 0, sizeof(w->bits));
		else
			for (uint64_t t = w->top + 1; t < tsc; t++) {
				i = t % UET_REPLAY_SPAN;
				w->bits[i / 64] &= ~(1ull << (i % 64));
			}
		w->top = tsc;
	}
	i = tsc % UET_REPLAY_SPAN;
	w->bits[i / 64] |= 1ull << (i % 64);
}
