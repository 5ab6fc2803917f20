/* Unit tests of the PDS building blocks: PSN arithmetic, the timer heap,
 * the retransmit ring, receive tracking, the NACK classes, config checks. */
#include <criterion/criterion.h>
#include <string.h>

#include "uet/fep.h"

#include "acktr.h"
#include "heap.h"
#include "nack.h"
#include "psn.h"
#include "rtb.h"
#include "../fixtures/pds_test_util.h"

Test(psn, serial_compare_across_wrap)
{
	cr_assert(uet_psn_lt(0xFFFFFFFFu, 0));
	cr_assert(uet_psn_gt(0, 0xFFFFFFFFu));
	cr_assert(uet_psn_le(5, 5));
	cr_assert_not(uet_psn_lt(5, 5));
	cr_assert_eq(uet_psn_diff(2, 0xFFFFFFFEu), 4);
	cr_assert_eq(uet_psn_diff(0xFFFFFFFEu, 2), -4);
	cr_assert_eq(uet_psn_max(0xFFFFFFF0u, 3), 3);
	cr_assert(uet_psn_in(1, 0xFFFFFFFFu, 3));
	cr_assert_not(uet_psn_in(3, 0xFFFFFFFFu, 3));
}

Test(heap, pops_in_deadline_order)
{
	struct uet_heap h;
	struct uet_heap_node nd[50];
	uet_time last = 0;
	unsigned i, popped = 0;

	cr_assert_eq(uet_heap_init(&h, 50), 0);
	for (i = 0; i < 50; i++) {
		uet_heap_node_init(&nd[i]);
		uet_heap_set(&h, &nd[i], (i * 7919u) % 101 + 1);
	}
	/* Move some, remove some. */
	uet_heap_set(&h, &nd[3], 1000);
	uet_heap_set(&h, &nd[4], 0);
	uet_heap_set(&h, &nd[5], UET_TIME_NONE);
	cr_assert_eq(nd[5].idx, UET_HEAP_NONE);
	cr_assert_eq(uet_heap_top(&h), &nd[4]);
	while (uet_heap_top(&h)) {
		struct uet_heap_node *t = uet_heap_top(&h);

		cr_assert_geq(t->key, last);
		last = t->key;
		uet_heap_set(&h, t, UET_TIME_NONE);
		popped++;
	}
	cr_assert_eq(popped, 49);
	cr_assert_eq(last, 1000);
	uet_heap_fini(&h);
}

Test(rtb, ring_across_psn_wrap)
{
	struct uet_rtb_ent ents[4];
	struct uet_rtb rtb;
	uint32_t psn;
	int i;

	uet_rtb_init(&rtb, ents, 4, 0xFFFFFFFEu);
	for (i = 0; i < 4; i++)
		cr_assert_not_null(uet_rtb_add(&rtb));
	cr_assert_null(uet_rtb_add(&rtb), "ring of 4 took a fifth");
	cr_assert_eq(rtb.next, 2);
	cr_assert(uet_rtb_holds(&rtb, 0xFFFFFFFFu));
	cr_assert(uet_rtb_holds(&rtb, 1));
	cr_assert_not(uet_rtb_holds(&rtb, 2));
	/* Distinct slots on both sides of the wrap. */
	cr_assert_neq(uet_rtb_get(&rtb, 0xFFFFFFFFu), uet_rtb_get(&rtb, 0));
	uet_rtb_get(&rtb, 0)->fl |= UET_RTB_ACKED;
	cr_assert_eq(uet_rtb_slide(&rtb), 0, "slid over an unacked PSN");
	uet_rtb_get(&rtb, 0xFFFFFFFEu)->fl |= UET_RTB_ACKED;
	uet_rtb_get(&rtb, 0xFFFFFFFFu)->fl |= UET_RTB_ACKED;
	cr_assert_eq(uet_rtb_slide(&rtb), 3);
	cr_assert_eq(rtb.base, 1);
	cr_assert_not_null(uet_rtb_add(&rtb));
	uet_rtb_get(&rtb, 2)->fl |= UET_RTB_DUE;
	rtb.ndue = 1;
	cr_assert(uet_rtb_first_due(&rtb, &psn));
	cr_assert_eq(psn, 2);
}

Test(rtb, next_timer_is_a_bound_that_tighten_makes_exact)
{
	struct uet_rtb_ent ents[16], *e[10];
	struct uet_rtb rtb;
	unsigned i;

	uet_rtb_init(&rtb, ents, 16, 100);
	cr_assert_eq(uet_rtb_next_timer(&rtb), UET_TIME_NONE);
	for (i = 0; i < 10; i++) {
		e[i] = uet_rtb_add(&rtb);
		uet_rtb_set_timer(&rtb, e[i], 100 + 10 * i);
	}
	cr_assert_eq(uet_rtb_next_timer(&rtb), 100);
	/* ten in use: stopping the earliest leaves the bound, no walk */
	uet_rtb_set_timer(&rtb, e[0], UET_TIME_NONE);
	uet_rtb_set_timer(&rtb, e[1], 500);
	cr_assert_eq(uet_rtb_next_timer(&rtb), 100);
	cr_assert_eq(uet_rtb_tighten(&rtb), 120);
	cr_assert_eq(uet_rtb_next_timer(&rtb), 120);
	/* an earlier timer lowers it at once */
	uet_rtb_set_timer(&rtb, e[9], 50);
	cr_assert_eq(uet_rtb_next_timer(&rtb), 50);
	/* acknowledged entries do not count */
	e[9]->fl |= UET_RTB_ACKED;
	cr_assert_eq(uet_rtb_tighten(&rtb), 120);
}

Test(rtb, a_short_ring_stays_exact)
{
	struct uet_rtb_ent ents[8];
	struct uet_rtb rtb;
	struct uet_rtb_ent *a, *b;

	uet_rtb_init(&rtb, ents, 8, 100);
	a = uet_rtb_add(&rtb);
	b = uet_rtb_add(&rtb);
	uet_rtb_set_timer(&rtb, a, 50);
	uet_rtb_set_timer(&rtb, b, 30);
	cr_assert_eq(uet_rtb_next_timer(&rtb), 30);
	/* two in use: walked at once, no wake for a stopped timer */
	uet_rtb_set_timer(&rtb, b, UET_TIME_NONE);
	cr_assert_eq(uet_rtb_next_timer(&rtb), 50);
	uet_rtb_set_timer(&rtb, a, 70);
	cr_assert_eq(uet_rtb_next_timer(&rtb), 70);
	uet_rtb_set_timer(&rtb, a, UET_TIME_NONE);
	cr_assert_eq(uet_rtb_next_timer(&rtb), UET_TIME_NONE);
}

Test(acktr, cack_sack_and_gtd_across_wrap)
{
	uint64_t bits[UET_ACKTR_BUF_WORDS];
	struct uet_gtd_pool pool;
	struct uet_acktr a;
	struct uet_ses_reply rsp;
	unsigned gaps;
	uint32_t s = 0xFFFFFFFEu;	/* start: PSNs wrap after two */

	memset(&rsp, 0, sizeof(rsp));
	cr_assert_eq(uet_acktr_pool_init(&pool, 2), 0);
	uet_acktr_init(&a, bits, s);
	cr_assert_eq(a.cack, s - 1);
	cr_assert_eq(uet_acktr_classify(&a, s, false), UET_ACKTR_NEW);
	cr_assert_eq(uet_acktr_classify(&a, s - 5, false), UET_ACKTR_DUP);
	cr_assert_eq(uet_acktr_classify(&a, s + UET_ACKTR_RANGE, false),
		     UET_ACKTR_OOR);
	cr_assert_eq(uet_acktr_classify(&a, s - 1 - UET_ACKTR_RANGE, false),
		     UET_ACKTR_OOR);
	/* s+2 (= 0) and s+3 arrive first: holes, SACK bits 2 and 3. */
	cr_assert_not(uet_acktr_mark(&a, s + 2));
	cr_assert_not(uet_acktr_mark(&a, s + 3));
	cr_assert_eq(uet_acktr_advance(&a), 0);
	cr_assert(uet_acktr_holes(&a));
	cr_assert_eq(uet_acktr_sack(&a, a.cack + 1, &gaps), 0xCull);
	cr_assert_eq(gaps, 2);
	cr_assert_eq(uet_acktr_classify(&a, s + 2, false), UET_ACKTR_DUP);
	/* ROD would refuse s+1 before s. */
	cr_assert_eq(uet_acktr_classify(&a, s + 1, true), UET_ACKTR_DUP,
		     "ROD: below max is a duplicate");
	/* s is kept (guaranteed): CACK stops before it. */
	cr_assert(uet_acktr_mark(&a, s), "filling a hole is reported");
	rsp.data_len = 3;
	memcpy(rsp.data, "abc", 3);
	cr_assert_not_null(uet_acktr_keep(&a, &pool, s, &rsp));
	cr_assert_eq(uet_acktr_gtd(&a, s)->reply.data_len, 3);
	cr_assert_arr_eq(uet_acktr_gtd(&a, s)->reply.data, "abc", 3);
	uet_acktr_mark(&a, s + 1);
	cr_assert_eq(uet_acktr_advance(&a), 0, "CACK passed a kept response");
	cr_assert_eq(a.cack, s - 1);
	cr_assert_eq(uet_acktr_clear(&a, &pool, s + 7), 0,
		     "a CLEAR above what arrived counts");
	cr_assert_eq(uet_acktr_clear(&a, &pool, s), 4);
	cr_assert_eq(a.cack, s + 3);
	cr_assert_eq(a.cack, 1u, "CACK wrapped");
	cr_assert_eq(pool.nfree, 2, "the kept response went back");
	cr_assert_not(uet_acktr_holes(&a));
	uet_acktr_pool_fini(&pool);
}

/* An ACK's SACK bitmap starts after CACK, unless the PSN the ACK is
 * about lies beyond its 64 bits: then it ends there (acktr.h). */
Test(acktr, sack_reaches_the_acked_psn)
{
	uint64_t bits[UET_ACKTR_BUF_WORDS];
	struct uet_acktr a;
	unsigned gaps;
	uint32_t s = 0xFFFFFFF0u;	/* the bitmap wraps */

	uet_acktr_init(&a, bits, s);
	cr_assert_not(uet_acktr_mark(&a, s + 2));
	cr_assert_not(uet_acktr_mark(&a, s + 70));
	cr_assert_eq(uet_acktr_advance(&a), 0);
	cr_assert_eq(uet_acktr_sack_base(&a, s + 2), s);
	cr_assert_eq(uet_acktr_sack_base(&a, s + 63), s);
	cr_assert_eq(uet_acktr_sack_base(&a, s + 64), s + 1);
	cr_assert_eq(uet_acktr_sack_base(&a, s + 70), s + 7);
	cr_assert_eq(uet_acktr_sack(&a, s, &gaps), 1ull << 2);
	cr_assert_eq(gaps, 2);
	cr_assert_eq(uet_acktr_sack(&a, s + 7, &gaps), 1ull << 63);
	cr_assert_eq(gaps, 63);
}

Test(acktr, rod_expects_in_order)
{
	uint64_t bits[UET_ACKTR_BUF_WORDS];
	struct uet_acktr a;

	uet_acktr_init(&a, bits, 1000);
	cr_assert_eq(uet_acktr_classify(&a, 1001, true), UET_ACKTR_OOO);
	cr_assert_eq(uet_acktr_classify(&a, 1000, true), UET_ACKTR_NEW);
	uet_acktr_mark(&a, 1000);
	uet_acktr_advance(&a);
	cr_assert_eq(uet_acktr_expected(&a), 1001);
	cr_assert_eq(uet_acktr_classify(&a, 1001, true), UET_ACKTR_NEW);
	cr_assert_eq(uet_acktr_classify(&a, 1000, true), UET_ACKTR_DUP);
}

Test(nack, classes_follow_the_table)
{
	static const struct {
		uint8_t code;
		enum uet_nack_class cls;
	} tab[] = {
		{ UET_NACK_TRIMMED, UET_NACK_RESEND },
		{ UET_NACK_TRIMMED_LASTHOP, UET_NACK_RESEND },
		{ UET_NACK_PKT_NOT_RCVD, UET_NACK_RESEND },
		{ UET_NACK_NO_PDC_AVAIL, UET_NACK_BACKOFF },
		{ UET_NACK_NO_SES_MSG_AVAIL, UET_NACK_BACKOFF },
		{ UET_NACK_NO_GTD_DEL_AVAIL, UET_NACK_BACKOFF },
		{ UET_NACK_PSN_OOR_WINDOW, UET_NACK_BACKOFF },
		{ UET_NACK_ROD_OOO, UET_NACK_REWIND },
		{ UET_NACK_RCVD_SES_PROCG, UET_NACK_IGNORE },
		{ UET_NACK_INV_DPDCID, UET_NACK_FATAL },
		{ UET_NACK_PDC_HDR_MISMATCH, UET_NACK_FATAL },
		{ UET_NACK_INVALID_SYN, UET_NACK_FATAL },
		{ UET_NACK_PDC_MODE_MISMATCH, UET_NACK_FATAL },
		{ UET_NACK_CLOSING, UET_NACK_FATAL },
		{ UET_NACK_CLOSING_IN_ERR, UET_NACK_FATAL },
		{ UET_NACK_UNEXP_EVENT, UET_NACK_FATAL },
		{ UET_NACK_NEW_START_PSN, UET_NACK_FATAL },
		{ 0x77, UET_NACK_FATAL },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		cr_assert_eq(uet_nack_class(tab[i].code), tab[i].cls,
			     "code 0x%x", tab[i].code);
}

static void noop_complete(void *u, const struct uet_completion *c)
{
	(void)u;
	(void)c;
}

static void zero_rand(void *u, void *b, size_t n)
{
	(void)u;
	memset(b, 0, n);
}

Test(fep, open_refuses_bad_configs)
{
	struct uet_callbacks cb = { .complete = noop_complete,
				    .rand = zero_rand };
	struct uet_fep_config good = t_cfg(), c;
	struct uet_fep *f = NULL;

	cr_assert_eq(uet_fep_open(&f, &good, &cb, NULL, 0), 0);
	uet_fep_close(f);
	c = good; c.window = 0;
	cr_assert_eq(uet_fep_open(&f, &c, &cb, NULL, 0), UET_ERR_INVAL);
	c = good; c.window = 4097;	/* beyond the 12-bit psn_offset */
	cr_assert_eq(uet_fep_open(&f, &c, &cb, NULL, 0), UET_ERR_INVAL);
	c = good; c.pdc_max = 0;
	cr_assert_eq(uet_fep_open(&f, &c, &cb, NULL, 0), UET_ERR_INVAL);
	c = good; c.rto_max = c.rto_min - 1;
	cr_assert_eq(uet_fep_open(&f, &c, &cb, NULL, 0), UET_ERR_INVAL);
	c = good; c.entropy_count = 0;
	cr_assert_eq(uet_fep_open(&f, &c, &cb, NULL, 0), UET_ERR_INVAL);
	c = good; c.ack_every = 0;
	cr_assert_eq(uet_fep_open(&f, &c, &cb, NULL, 0), UET_ERR_INVAL);
	cb.rand = NULL;
	cr_assert_eq(uet_fep_open(&f, &good, &cb, NULL, 0), UET_ERR_INVAL);
}

Test(fep, default_config_bounds_failure_time)
{
	struct uet_fep_config c;
	uet_time sum = 0, rto;
	unsigned i;

	uet_fep_config_default(&c);
	rto = c.rto_min;
	for (i = 0; i <= c.max_retx; i++) {
		sum += rto < c.rto_max ? rto : c.rto_max;
		rto *= 2;
	}
	/* A dead peer must turn into errors within a few seconds. */
	cr_assert_leq(sum, 5 * UET_SEC, "retry span %lu ns",
		      (unsigned long)sum);
	cr_assert_geq(sum, 500 * UET_MSEC);
	cr_assert_leq(c.window, 4096u);
}
