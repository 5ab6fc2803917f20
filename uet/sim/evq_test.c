/* The event heap runs events in time order, ties in scheduling order;
 * the deadline heap agrees with a brute-force minimum under random
 * updates. */
#include <criterion/criterion.h>

#include "uet/rand.h"

#include "evq.h"
#include "link.h"

Test(evq, time_order_ties_fifo)
{
	struct uet_evq q;
	struct uet_ev ev;
	uint64_t rng = 7, last_t = 0, last_a = 0;
	unsigned i, n = 0;

	uet_evq_init(&q);
	/* Many events on few distinct times: ties are the common case. */
	for (i = 0; i < 5000; i++)
		uet_evq_push(&q, uet_rand(&rng) % 16, 0, i, NULL);
	while (uet_evq_pop(&q, &ev)) {
		if (n) {
			cr_assert_geq(ev.t, last_t);
			if (ev.t == last_t)
				cr_assert_gt(ev.a, last_a, "FIFO among ties");
		}
		last_t = ev.t;
		last_a = ev.a;
		n++;
	}
	cr_assert_eq(n, 5000);
	cr_assert_eq(uet_evq_next(&q), UET_PS_NONE);
	uet_evq_fini(&q);
}

Test(evq, deadlines_match_brute_force)
{
	enum { IDS = 37 };
	uet_ps want[IDS];
	struct uet_tmq q;
	uint64_t rng = 11;
	unsigned i, step;

	uet_tmq_init(&q, IDS);
	for (i = 0; i < IDS; i++)
		want[i] = UET_PS_NONE;
	for (step = 0; step < 20000; step++) {
		uint32_t id = (uint32_t)(uet_rand(&rng) % IDS), got = 0;
		uint64_t r = uet_rand(&rng) % 8;
		uet_ps at = r == 0 ? UET_PS_NONE : uet_rand(&rng) % 1000;
		uet_ps best = UET_PS_NONE, t;

		uet_tmq_set(&q, id, at);
		want[id] = at;
		for (i = 0; i < IDS; i++)
			if (want[i] < best)
				best = want[i];
		t = uet_tmq_next(&q, &got);
		cr_assert_eq(t, best, "step %u", step);
		if (best != UET_PS_NONE)
			cr_assert_eq(want[got], best);
	}
	uet_tmq_fini(&q);
}
