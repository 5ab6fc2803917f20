/* The link model: serialisation and propagation times to the
 * picosecond, strict priority, and the queue thresholds (ECN band,
 * trimming, tail drop, the priority queue's own limit). */
#include <criterion/criterion.h>
#include <string.h>

#include "uet/net.h"

#include "frame.h"
#include "link.h"

static struct uet_frame_pool pool;

static void setup(void)
{
	uet_frame_pool_init(&pool, 9000);
}

static void teardown(void)
{
	uet_frame_pool_fini(&pool);
}

TestSuite(link, .init = setup, .fini = teardown);

static struct uet_frame *frame(uint32_t len, bool hi, uint8_t ecn)
{
	struct uet_frame *f = uet_frame_alloc(&pool, len);

	f->len = len;
	f->hi = hi;
	f->ecn = ecn;
	return f;
}

static const struct uet_link_cfg g400 = {
	.bps = 400000000000ull, .prop = UET_PS_US, .framing = 48,
};

Test(link, serialisation_exact)
{
	struct uet_link_cfg c = g400;

	/* 400 Gb/s: 20 ps a byte, exactly. */
	cr_assert_eq(uet_link_ser(&c, 4152), (4152 + 48) * 20);
	cr_assert_eq(uet_link_ser(&c, 64), (64 + 48) * 20);
	c.bps = 100000000000ull;	/* degraded to 25%: 80 ps */
	cr_assert_eq(uet_link_ser(&c, 4152), (4152 + 48) * 80);
	/* A rate that does not divide: rounded up, never faster. */
	c.bps = 3;
	c.framing = 0;
	cr_assert_eq(uet_link_ser(&c, 1), 2666666666667ull);
}

Test(link, back_to_back_frames_leave_on_time)
{
	struct uet_link l;
	uint64_t rng = 1;
	uet_ps t = 5000, done, ser = (4152 + 48) * 20;
	int i;

	uet_link_init(&l, &g400, 0, 1);
	for (i = 0; i < 3; i++)
		cr_assert_eq(uet_link_offer(&l, frame(4152, false, 0), t),
			     UET_LINK_QUEUED);
	cr_assert_eq(uet_link_queued(&l), 3 * (4152 + 48));
	/* Each frame's last bit leaves ser after the previous one's; the
	 * caller adds prop for its arrival at the far end. */
	for (i = 1; i <= 3; i++) {
		struct uet_frame *f;

		done = uet_link_start(&l, t, &rng);
		cr_assert_eq(done, 5000 + i * ser);
		cr_assert_eq(uet_link_start(&l, t, &rng), UET_PS_NONE,
			     "busy: one frame on the wire");
		t = done;
		f = uet_link_finish(&l, t);
		cr_assert_eq(t + l.cfg.prop, 5000 + i * ser + UET_PS_US);
		uet_frame_free(&pool, f);
	}
	cr_assert_eq(uet_link_queued(&l), 0);
	cr_assert_eq(l.tx_frames, 3);
	/* Occupancy: 3, 2, 1 frames for one ser each. */
	cr_assert_float_eq(l.area, (double)(6 * (4152 + 48)) * (double)ser,
			   1e-3);
}

Test(link, priority_queue_goes_first)
{
	struct uet_link l;
	uint64_t rng = 1;
	struct uet_frame *d = frame(4152, false, 0), *a = frame(44, true, 0);
	struct uet_frame *f;

	uet_link_init(&l, &g400, 0, 1);
	uet_link_offer(&l, d, 0);
	uet_link_offer(&l, frame(4152, false, 0), 0);
	uet_link_start(&l, 0, &rng);		/* d on the wire */
	uet_link_offer(&l, a, 0);
	f = uet_link_finish(&l, 100000);
	cr_assert_eq(f, d);
	uet_frame_free(&pool, f);
	uet_link_start(&l, 100000, &rng);
	f = uet_link_finish(&l, 200000);
	cr_assert_eq(f, a, "the ACK overtakes queued data");
	uet_frame_free(&pool, f);
}

/* A switch port: 10 KB data queue, 300 B priority queue, framing 0. */
static void port(struct uet_link *l, bool trim)
{
	struct uet_link_cfg c = g400;

	c.framing = 0;
	c.lo_max = 10000;
	c.hi_max = 300;
	c.trim = trim;
	c.trim_len = 64;
	uet_link_init(l, &c, 0, 1);
}

Test(link, trims_above_the_buffer)
{
	struct uet_link l;
	struct uet_frame *f;
	int i;

	port(&l, true);
	for (i = 0; i < 10; i++)
		cr_assert_eq(uet_link_offer(&l, frame(1000, false, 0), 0),
			     UET_LINK_QUEUED, "frame %d fits", i);
	f = frame(1000, false, 0);
	cr_assert_eq(uet_link_offer(&l, f, 0), UET_LINK_TRIMMED);
	cr_assert(f->trimmed && f->hi);
	cr_assert_eq(f->len, 64);
	cr_assert_eq(l.lo_bytes, 10000);
	cr_assert_eq(l.hi_bytes, 64);
	/* The priority queue has its own limit: 4 headers fit in 300 B. */
	for (i = 0; i < 3; i++)
		cr_assert_eq(uet_link_offer(&l, frame(1000, false, 0), 0),
			     UET_LINK_TRIMMED);
	f = frame(1000, false, 0);
	cr_assert_eq(uet_link_offer(&l, f, 0), UET_LINK_DROPPED);
	uet_frame_free(&pool, f);
	/* Nothing to cut from a packet already header-sized: dropped. */
	f = frame(60, false, 0);
	cr_assert_eq(uet_link_offer(&l, f, 0), UET_LINK_DROPPED);
	uet_frame_free(&pool, f);
	cr_assert_eq(l.trims, 4);
	cr_assert_eq(l.drops_hi, 1);
	cr_assert_eq(l.drops_lo, 1);
}

Test(link, tail_drops_without_trimming)
{
	struct uet_link l;
	struct uet_frame *f;
	int i;

	port(&l, false);
	for (i = 0; i < 10; i++)
		uet_link_offer(&l, frame(1000, false, 0), 0);
	f = frame(1000, false, 0);
	cr_assert_eq(uet_link_offer(&l, f, 0), UET_LINK_DROPPED);
	cr_assert_not(f->trimmed);
	uet_frame_free(&pool, f);
	cr_assert_eq(l.drops_lo, 1);
	cr_assert_eq(l.trims, 0);
	/* Control still gets through, ahead of the data. */
	cr_assert_eq(uet_link_offer(&l, frame(44, true, 0), 0),
		     UET_LINK_QUEUED);
}

/* Queue n frames of 1000 B, then send them all; which were marked. */
static unsigned mark_run(uint64_t *rng, unsigned n, uint8_t ecn, bool *marked)
{
	struct uet_link_cfg c = g400;
	struct uet_link l;
	unsigned i, cnt = 0;
	uet_ps t = 0;

	c.framing = 0;
	c.ecn_min = 10000;
	c.ecn_max = 20000;
	uet_link_init(&l, &c, 0, 1);
	for (i = 0; i < n; i++)
		uet_link_offer(&l, frame(1000, false, ecn), 0);
	for (i = 0; i < n; i++) {
		struct uet_frame *f;

		t = uet_link_start(&l, t, rng);
		f = uet_link_finish(&l, t);
		marked[i] = f->ecn == UET_ECN_CE;
		cnt += marked[i];
		uet_frame_free(&pool, f);
	}
	return cnt;
}

Test(link, ecn_band)
{
	bool marked[30];
	uint64_t rng = 3;
	unsigned i, run, band[30] = { 0 };

	/* Frame i has (29 - i) KB behind it when it starts. */
	for (run = 0; run < 2000; run++) {
		mark_run(&rng, 30, UET_ECN_ECT0, marked);
		for (i = 0; i < 30; i++) {
			unsigned behind = (29 - i) * 1000;

			if (behind >= 20000)
				cr_assert(marked[i], "above max: always");
			if (behind <= 10000)
				cr_assert_not(marked[i], "below min: never");
			band[i] += marked[i];
		}
	}
	/* In the band the share rises linearly: 15 KB behind is half. */
	for (i = 10; i < 19; i++) {
		double want = ((29.0 - i) * 1000 - 10000) / 10000;
		double got = band[i] / 2000.0;

		cr_assert(got > want - 0.05 && got < want + 0.05,
			  "frame %u: %.3f marked, want %.3f", i, got, want);
	}
	/* Not ECN-capable: never marked, whatever the queue. */
	cr_assert_eq(mark_run(&rng, 30, UET_ECN_NOT_ECT, marked), 0);
}
