/* Tests of the impairment decision (uet/impair.h): rates, masks, the
 * draws each packet takes, and the mark and trim actions. */
#include <criterion/criterion.h>

#include "uet/impair.h"
#include "uet/rand.h"

Test(impair, rates_come_out_near_what_was_asked)
{
	struct uet_impair o = { .drop_ppm = 200000, .dup_ppm = 50000,
				.mark_ppm = 10000 };
	unsigned drops = 0, dups = 0, marks = 0;
	uint64_t rng = 42;

	for (uint64_t i = 0; i < 100000; i++) {
		unsigned act = uet_impair_pick(&o, &rng, i);

		drops += !!(act & UET_IMPAIR_DROP);
		dups += !!(act & UET_IMPAIR_DUP);
		marks += !!(act & UET_IMPAIR_MARK);
		cr_assert_eq(act & (UET_IMPAIR_REORDER | UET_IMPAIR_TRIM), 0,
			     "a rate of 0 never acts");
	}
	/* 8 standard deviations either side */
	cr_assert(drops > 19000 && drops < 21000, "drops %u", drops);
	cr_assert(dups > 4450 && dups < 5550, "dups %u", dups);
	cr_assert(marks > 740 && marks < 1260, "marks %u", marks);
}

Test(impair, rate_of_one_always_rate_of_zero_never)
{
	struct uet_impair o = { .trim_ppm = UET_IMPAIR_PPM };
	uint64_t rng = 0;

	for (uint64_t i = 0; i < 1000; i++)
		cr_assert_eq(uet_impair_pick(&o, &rng, i), UET_IMPAIR_TRIM);
}

Test(impair, one_draw_per_rate_that_is_set)
{
	struct uet_impair o = { .dup_ppm = 1, .trim_ppm = 1 };
	uint64_t rng = 7, ref = 7;

	(void)uet_impair_pick(&o, &rng, 0);
	(void)uet_rand(&ref);
	(void)uet_rand(&ref);
	cr_assert_eq(rng, ref, "two rates set, two draws");
}

/* A mask takes no draw: a packet it picks leaves the random stream of
 * the packets after it as it was. */
Test(impair, masks_are_exact_and_draw_nothing)
{
	struct uet_impair with = { .drop_ppm = 300000, .reorder_mask = 0x5 };
	struct uet_impair without = { .drop_ppm = 300000 };
	uint64_t r1 = 9, r2 = 9;

	for (uint64_t seq = 0; seq < 256; seq++) {
		unsigned a = uet_impair_pick(&with, &r1, seq);
		unsigned b = uet_impair_pick(&without, &r2, seq);
		bool masked = (seq % 64) == 0 || (seq % 64) == 2;

		cr_assert_eq(!!(a & UET_IMPAIR_REORDER), masked, "seq %llu",
			     (unsigned long long)seq);
		cr_assert_eq(a & UET_IMPAIR_DROP, b & UET_IMPAIR_DROP);
	}
	cr_assert_eq(r1, r2);
}

Test(impair, a_seed_repeats_a_run)
{
	struct uet_impair o = { .drop_ppm = 100000, .dup_ppm = 100000,
				.reorder_ppm = 100000 };
	uint64_t a = 3, b = 3, c = 4;
	unsigned differ = 0;

	for (uint64_t i = 0; i < 1000; i++) {
		unsigned x = uet_impair_pick(&o, &a, i);

		cr_assert_eq(x, uet_impair_pick(&o, &b, i));
		differ += x != uet_impair_pick(&o, &c, i);
	}
	cr_assert_gt(differ, 0, "another seed, another run");
}

Test(impair, valid)
{
	struct uet_impair o = { .mark_ppm = UET_IMPAIR_PPM };

	cr_assert(uet_impair_valid(&o));
	o.mark_ppm++;
	cr_assert_not(uet_impair_valid(&o));
}

Test(impair, mark_only_ecn_capable)
{
	static const uint8_t in[] = { UET_ECN_NOT_ECT, UET_ECN_ECT1,
				      UET_ECN_ECT0, UET_ECN_CE };
	static const uint8_t out[] = { UET_ECN_NOT_ECT, UET_ECN_CE,
				       UET_ECN_CE, UET_ECN_CE };
	static const bool marked[] = { false, true, true, false };

	for (unsigned i = 0; i < 4; i++) {
		struct uet_pkt_info info = { .ecn = in[i] };

		cr_assert_eq(uet_impair_mark(&info), marked[i], "ecn %u",
			     in[i]);
		cr_assert_eq(info.ecn, out[i]);
	}
}

Test(impair, trim_keeps_the_head)
{
	struct uet_pkt_info info = { 0 };
	uint32_t len = 65;

	cr_assert(uet_impair_trim(&info, &len, 0));
	cr_assert_eq(len, UET_IMPAIR_TRIM_LEN_DEFAULT);
	cr_assert(info.trimmed);

	info.trimmed = false;
	len = 64;
	cr_assert_not(uet_impair_trim(&info, &len, 0), "nothing to cut");
	cr_assert_eq(len, 64);
	cr_assert_not(info.trimmed);

	len = 100;
	cr_assert(uet_impair_trim(&info, &len, 10));
	cr_assert_eq(len, 10);
}
