/* uet_reasm: completion exactly when every byte is there, in any order,
 * duplicates not counted. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "uet/err.h"
#include "uet/rand.h"

#include "reasm.h"

Test(reasm, in_order)
{
	struct uet_reasm r;

	uet_reasm_init(&r, 10);
	cr_assert_not(uet_reasm_done(&r));
	cr_assert_eq(uet_reasm_add(&r, 0, 4), 1);
	cr_assert_eq(uet_reasm_add(&r, 4, 4), 1);
	cr_assert_not(uet_reasm_done(&r));
	cr_assert_eq(uet_reasm_add(&r, 8, 2), 1);
	cr_assert(uet_reasm_done(&r));
	cr_assert_null(r.bits, "in-order arrival needs no bitmap");
	uet_reasm_fini(&r);
}

Test(reasm, reverse_last_first)
{
	struct uet_reasm r;

	uet_reasm_init(&r, 10);
	cr_assert_eq(uet_reasm_add(&r, 8, 2), 1);
	cr_assert_not(uet_reasm_done(&r));
	cr_assert_eq(uet_reasm_add(&r, 8, 2), 0, "last packet twice");
	cr_assert_eq(uet_reasm_add(&r, 4, 4), 1);
	cr_assert_not(uet_reasm_done(&r));
	cr_assert_eq(uet_reasm_add(&r, 4, 4), 0, "gap packet twice");
	cr_assert_eq(uet_reasm_add(&r, 0, 4), 1);
	cr_assert(uet_reasm_done(&r));
	cr_assert_eq(r.got, 10);
	cr_assert_eq(uet_reasm_add(&r, 0, 4), 0);
	uet_reasm_fini(&r);
}

Test(reasm, random_order_with_duplicates)
{
	enum { SEG = 7, N = 1000, TOTAL = SEG * (N - 1) + 3 };
	unsigned order[2 * N];
	struct uet_reasm r;
	unsigned i, news = 0;
	uint64_t rs = 12345;

	for (i = 0; i < N; i++)
		order[i] = order[N + i] = i;
	uet_rand_shuffle(&rs, order, 2 * N);
	uet_reasm_init(&r, TOTAL);
	for (i = 0; i < 2 * N; i++) {
		uint32_t off = order[i] * SEG;
		uint32_t len = order[i] == N - 1 ? 3 : SEG;
		int ret = uet_reasm_add(&r, off, len);

		cr_assert(ret == 0 || ret == 1);
		news += (unsigned)ret;
		/* Done exactly when the N-th distinct packet arrived. */
		cr_assert_eq(uet_reasm_done(&r), news == N, "at step %u", i);
	}
	cr_assert_eq(news, N);
	cr_assert_eq(r.got, TOTAL);
	uet_reasm_fini(&r);
}

Test(reasm, empty_message)
{
	struct uet_reasm r;

	uet_reasm_init(&r, 0);
	cr_assert_not(uet_reasm_done(&r));
	cr_assert_eq(uet_reasm_add(&r, 0, 0), 1);
	cr_assert(uet_reasm_done(&r));
	cr_assert_eq(uet_reasm_add(&r, 0, 0), 0);
	uet_reasm_init(&r, 5);
	cr_assert_eq(uet_reasm_add(&r, 0, 0), UET_ERR_INVAL);
}

Test(reasm, out_of_range)
{
	struct uet_reasm r;

	uet_reasm_init(&r, 10);
	cr_assert_eq(uet_reasm_add(&r, 8, 4), UET_ERR_INVAL);
	cr_assert_eq(uet_reasm_add(&r, 11, 0), UET_ERR_INVAL);
	cr_assert_eq(r.got, 0);
	cr_assert_not(uet_reasm_done(&r));
}

Test(reasm, off_grid_sender_still_completes)
{
	struct uet_reasm r;

	/* Unequal segments: tracked loosely, complete on the byte count. */
	uet_reasm_init(&r, 12);
	cr_assert_eq(uet_reasm_add(&r, 0, 4), 1);
	cr_assert_eq(uet_reasm_add(&r, 4, 5), 1);
	cr_assert(r.loose);
	cr_assert_not(uet_reasm_done(&r));
	cr_assert_eq(uet_reasm_add(&r, 9, 3), 1);
	cr_assert(uet_reasm_done(&r));
	uet_reasm_fini(&r);
}

Test(reasm, last_longer_than_segment_is_off_grid)
{
	struct uet_reasm r;

	uet_reasm_init(&r, 30);
	cr_assert_eq(uet_reasm_add(&r, 10, 20), 1);
	cr_assert_eq(uet_reasm_add(&r, 0, 10), 1);
	cr_assert(r.loose);
	cr_assert(uet_reasm_done(&r));
	uet_reasm_fini(&r);
}

/* uet_reasm_free: the bytes from an offset on the grid that have not
 * arrived, up to the next that has (or the end, or max). */
Test(reasm, free_runs_to_what_arrived)
{
	struct uet_reasm r;

	uet_reasm_init(&r, 100);
	cr_assert_eq(uet_reasm_free(&r, 0, 100), 0, "segment not known");
	cr_assert_eq(uet_reasm_add(&r, 0, 10), 1);
	cr_assert_eq(uet_reasm_free(&r, 10, 1000), 90);
	cr_assert_eq(uet_reasm_free(&r, 10, 30), 30);
	cr_assert_eq(uet_reasm_free(&r, 0, 30), 0, "arrived");
	cr_assert_eq(uet_reasm_free(&r, 15, 30), 0, "off the grid");
	cr_assert_eq(uet_reasm_add(&r, 50, 10), 1);	/* a gap: a bitmap */
	cr_assert_eq(uet_reasm_free(&r, 10, 1000), 40);
	cr_assert_eq(uet_reasm_free(&r, 50, 1000), 0);
	cr_assert_eq(uet_reasm_free(&r, 60, 1000), 40);
	cr_assert_eq(uet_reasm_add(&r, 90, 10), 1);	/* the last */
	cr_assert_eq(uet_reasm_free(&r, 60, 1000), 30);
	cr_assert_eq(uet_reasm_free(&r, 90, 1000), 0);
	cr_assert_eq(uet_reasm_free(&r, 100, 1000), 0, "the end");
	uet_reasm_fini(&r);
}

Test(reasm, free_ends_at_a_short_last_packet)
{
	struct uet_reasm r;

	uet_reasm_init(&r, 95);
	cr_assert_eq(uet_reasm_add(&r, 0, 10), 1);
	cr_assert_eq(uet_reasm_free(&r, 80, 1000), 15);
	cr_assert_eq(uet_reasm_free(&r, 90, 1000), 5);
	cr_assert_eq(uet_reasm_add(&r, 90, 5), 1);
	cr_assert_eq(uet_reasm_free(&r, 80, 1000), 10);
	uet_reasm_fini(&r);
}

Test(reasm, free_is_nothing_when_tracking_is_loose)
{
	struct uet_reasm r;

	uet_reasm_init(&r, 100);
	cr_assert_eq(uet_reasm_add(&r, 0, 10), 1);
	cr_assert_eq(uet_reasm_add(&r, 10, 7), 1);	/* off the grid */
	cr_assert(r.loose);
	cr_assert_eq(uet_reasm_free(&r, 20, 1000), 0);
	uet_reasm_fini(&r);
}
