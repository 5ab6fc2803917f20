/* The TSS packet pipeline: what it seals opens only where it should, and
 * every refusal (tampering, replay, stale TSC or epoch, unknown domain,
 * wrong key slot, exhausted counter) is counted and delivers nothing.
 */
#include <string.h>

#include <criterion/criterion.h>

#include "uet/err.h"
#include "uet/wire.h"
#include "replay.h"
#include "tss.h"

#define CLEAR_LEN	100
#define CAP		256

static struct uet_addr addr4(uint8_t last, uint16_t port)
{
	struct uet_addr a = { .af = UET_AF_INET, .port = port,
			      .ip = { 10, 0, 0, last } };
	return a;
}

static struct uet_tss_cfg base_cfg(uint32_t ssi)
{
	struct uet_tss_cfg c = {
		.mode = UET_TSS_DIRECT, .sdi = 0x123456, .job = 42,
		.has_key = { true, false }, .ssi = ssi, .tsc_start = 1000,
	};

	for (int i = 0; i < UET_TSS_KEY_LEN; i++)
		c.key[0][i] = (uint8_t)(0x40 + i);
	return c;
}

static struct uet_tss *tss_open_cfg(const struct uet_tss_cfg *c, uint8_t ip)
{
	struct uet_tss *t = NULL;
	struct uet_addr l = addr4(ip, 4793);

	cr_assert_eq(uet_tss_new(&t, c, &l), 0);
	return t;
}

static void clear_pkt(uint8_t *p, unsigned seed)
{
	for (int i = 0; i < CLEAR_LEN; i++)
		p[i] = (uint8_t)(seed * 31 + i);
}

/* Seal a numbered clear packet from t toward 10.0.0.2. */
static size_t seal(struct uet_tss *t, uint8_t *buf, unsigned seed)
{
	struct uet_addr dst = addr4(2, 4793);
	ssize_t n;

	clear_pkt(buf, seed);
	n = uet_tss_seal(t, &dst, buf, CLEAR_LEN, CAP);
	cr_assert_eq(n, CLEAR_LEN + (ssize_t)uet_tss_overhead());
	return (size_t)n;
}

static ssize_t open_from(struct uet_tss *t, uint8_t src_ip,
			 const uint8_t *pkt, size_t len, uint8_t *out)
{
	struct uet_addr src = addr4(src_ip, 50000);

	return uet_tss_open(t, &src, pkt, len, out, 0);
}

Test(tss, seal_then_open)
{
	struct uet_tss_cfg ca = base_cfg(0xA1), cb = base_cfg(0xB2);
	struct uet_tss *a = tss_open_cfg(&ca, 1), *b = tss_open_cfg(&cb, 2);
	uint8_t pkt[CAP], clear[CAP], out[CAP];
	struct uet_tss_hdr h;
	struct uet_tss_stats st;
	size_t n = seal(a, pkt, 7);

	/* the header as sent: type 1, SSI present, our domain and counter */
	cr_assert_eq(pkt[0] >> 3, UET_PDS_TYPE_TSS);
	cr_assert_eq(uet_tss_hdr_decode(&h, pkt, n), UET_TSS_HDR_SSI_LEN);
	cr_assert(h.sp);
	cr_assert_eq(h.sdi, 0x123456);
	cr_assert_eq(h.ssi, 0xA1);
	cr_assert_eq(h.tsc, 1000);
	clear_pkt(clear, 7);
	cr_assert(memcmp(pkt + UET_TSS_HDR_SSI_LEN, clear, CLEAR_LEN) != 0,
		  "the payload travels encrypted");
	cr_assert_eq(open_from(b, 1, pkt, n, out), CLEAR_LEN);
	cr_assert_arr_eq(out, clear, CLEAR_LEN);
	/* the next packet takes the next counter value */
	n = seal(a, pkt, 8);
	cr_assert_eq(uet_tss_hdr_decode(&h, pkt, n), UET_TSS_HDR_SSI_LEN);
	cr_assert_eq(h.tsc, 1001);
	uet_tss_stats(a, &st);
	cr_assert_eq(st.out_auth_pkts, 2);
	uet_tss_stats(b, &st);
	cr_assert_eq(st.in_auth_pkts, 1);
	cr_assert_eq(st.sources, 1);
	uet_tss_free(a);
	uet_tss_free(b);
}

/* Every single-byte change of a sealed packet is refused, and the
 * refusals leave no trace: the original still opens afterwards. */
/* The fep's way: the clear packet built after the header's room. */
Test(tss, seal_in_place)
{
	struct uet_tss_cfg ca = base_cfg(0xA1), cb = base_cfg(0xB2);
	struct uet_tss *a = tss_open_cfg(&ca, 1), *b = tss_open_cfg(&cb, 2);
	struct uet_addr dst = addr4(2, 4793);
	uint8_t pkt[CAP], out[CAP], clear[CAP];
	ssize_t n;

	clear_pkt(clear, 9);
	memcpy(pkt + uet_tss_headroom(), clear, CLEAR_LEN);
	n = uet_tss_seal_in_place(a, &dst, pkt, CLEAR_LEN, CAP);
	cr_assert_eq(n, CLEAR_LEN + (ssize_t)uet_tss_overhead());
	cr_assert_eq(open_from(b, 1, pkt, (size_t)n, out), CLEAR_LEN);
	cr_assert_arr_eq(out, clear, CLEAR_LEN);
	uet_tss_free(a);
	uet_tss_free(b);
}

/* A capture reader opens what passed between any two addresses, as
 * often as it likes, and leaves no trace. */
Test(tss, peek_without_state)
{
	struct uet_tss_cfg ca = base_cfg(0xA1), cb = base_cfg(0xB2);
	struct uet_tss *a, *d;
	struct uet_addr src = addr4(1, 50000), dst = addr4(2, 4793);
	uint8_t pkt[CAP], out[CAP], clear[CAP];
	struct uet_tss_hdr h;
	struct uet_tss_stats st;
	size_t n;

	for (int m = 0; m < 2; m++) {
		ca.mode = cb.mode = m ? UET_TSS_CLUSTER : UET_TSS_DIRECT;
		a = tss_open_cfg(&ca, 1);
		d = tss_open_cfg(&cb, 77);	/* a bystander's address */
		n = seal(a, pkt, 5);
		clear_pkt(clear, 5);
		for (int i = 0; i < 2; i++) {
			cr_assert_eq(uet_tss_peek(d, &src, &dst, pkt, n, out,
						  &h), CLEAR_LEN);
			cr_assert_arr_eq(out, clear, CLEAR_LEN);
			cr_assert_eq(h.ssi, 0xA1);
		}
		/* the addresses are authenticated: swapped, refused */
		cr_assert_eq(uet_tss_peek(d, &dst, &src, pkt, n, out, &h),
			     UET_ERR_TSS_AUTH);
		uet_tss_stats(d, &st);
		cr_assert_eq(st.in_auth_pkts + st.in_auth_fail_pkts +
			     st.in_replay_pkts + st.sources, 0);
		uet_tss_free(a);
		uet_tss_free(d);
	}
}

Test(tss, every_byte_tampered_is_refused)
{
	struct uet_tss_cfg ca = base_cfg(0xA1), cb = base_cfg(0xB2);
	struct uet_tss *a = tss_open_cfg(&ca, 1), *b = tss_open_cfg(&cb, 2);
	uint8_t pkt[CAP], bad[CAP], out[CAP];
	struct uet_tss_stats st;
	size_t n = seal(a, pkt, 3);

	for (size_t i = 0; i < n; i++) {
		memcpy(bad, pkt, n);
		bad[i] ^= 0x01;
		cr_assert_lt(open_from(b, 1, bad, n, out), 0, "byte %zu", i);
	}
	/* truncated: the ICV cut */
	for (size_t cut = 1; cut <= 17; cut += 8)
		cr_assert_lt(open_from(b, 1, pkt, n - cut, out), 0);
	/* another source address: the AAD binds the IP addresses */
	cr_assert_eq(open_from(b, 9, pkt, n, out), UET_ERR_TSS_AUTH);
	uet_tss_stats(b, &st);
	cr_assert_eq(st.in_auth_pkts, 0);
	cr_assert_eq(st.sources, 0, "unauthenticated bytes make no state");
	cr_assert_gt(st.in_auth_fail_pkts, 100);
	cr_assert_eq(open_from(b, 1, pkt, n, out), CLEAR_LEN);
	uet_tss_free(a);
	uet_tss_free(b);
}

Test(tss, replay_and_reorder)
{
	struct uet_tss_cfg ca = base_cfg(0xA1), cb = base_cfg(0xB2);
	struct uet_tss *a = tss_open_cfg(&ca, 1), *b = tss_open_cfg(&cb, 2);
	static uint8_t pkts[UET_REPLAY_SPAN + 2][CAP];
	uint8_t out[CAP];
	struct uet_tss_stats st;
	size_t n = 0;

	for (unsigned i = 0; i < UET_REPLAY_SPAN + 2; i++)
		n = seal(a, pkts[i], i);
	/* out of order inside the window: accepted once each */
	cr_assert_eq(open_from(b, 1, pkts[10], n, out), CLEAR_LEN);
	cr_assert_eq(open_from(b, 1, pkts[3], n, out), CLEAR_LEN);
	cr_assert_eq(open_from(b, 1, pkts[3], n, out), UET_ERR_TSS_REPLAY);
	cr_assert_eq(open_from(b, 1, pkts[10], n, out), UET_ERR_TSS_REPLAY);
	/* far ahead: packets below the window are late now */
	cr_assert_eq(open_from(b, 1, pkts[UET_REPLAY_SPAN + 1], n, out),
		     CLEAR_LEN);
	cr_assert_eq(open_from(b, 1, pkts[0], n, out), UET_ERR_TSS_STALE);
	cr_assert_eq(open_from(b, 1, pkts[2], n, out), CLEAR_LEN,
		     "the oldest TSC still inside the window");
	uet_tss_stats(b, &st);
	cr_assert_eq(st.in_replay_pkts, 2);
	cr_assert_eq(st.in_late_pkts, 1);
	cr_assert_eq(st.in_auth_pkts, 4);
	uet_tss_free(a);
	uet_tss_free(b);
}

Test(tss, unknown_domain_and_missing_key_slot)
{
	struct uet_tss_cfg ca = base_cfg(0xA1), cb = base_cfg(0xB2);
	struct uet_tss *a = tss_open_cfg(&ca, 1), *b;
	uint8_t pkt[CAP], out[CAP], k1[UET_TSS_KEY_LEN];
	struct uet_tss_stats st;
	size_t n;

	cb.sdi = 0x123457;
	b = tss_open_cfg(&cb, 2);
	n = seal(a, pkt, 1);
	cr_assert_eq(open_from(b, 1, pkt, n, out), UET_ERR_TSS_SDI);
	uet_tss_stats(b, &st);
	cr_assert_eq(st.in_errored_pkts, 1);
	uet_tss_free(b);
	/* the sender moves to AN 1, which the receiver does not have */
	cb = base_cfg(0xB2);
	b = tss_open_cfg(&cb, 2);
	memset(k1, 0x77, sizeof(k1));
	cr_assert_eq(uet_tss_rotate(a, 1, k1), 0);
	n = seal(a, pkt, 2);
	cr_assert_eq(open_from(b, 1, pkt, n, out), UET_ERR_TSS_SDI);
	/* installed there too: opens, and AN 0 keeps working meanwhile */
	cr_assert_eq(uet_tss_rotate(b, 1, k1), 0);
	cr_assert_eq(open_from(b, 1, pkt, n, out), CLEAR_LEN);
	uet_tss_free(a);
	ca = base_cfg(0xA3);
	a = tss_open_cfg(&ca, 1);
	n = seal(a, pkt, 3);
	cr_assert_eq(open_from(b, 1, pkt, n, out), CLEAR_LEN);
	uet_tss_free(a);
	uet_tss_free(b);
}

Test(tss, counter_exhaustion)
{
	struct uet_tss_cfg ca = base_cfg(0xA1);
	struct uet_addr dst = addr4(2, 4793);
	struct uet_tss *a;
	uint8_t pkt[CAP];
	struct uet_tss_stats st;

	ca.tsc_start = UET_TSS_TSC_MAX - 2;
	a = tss_open_cfg(&ca, 1);
	seal(a, pkt, 1);
	seal(a, pkt, 2);
	clear_pkt(pkt, 3);
	cr_assert_eq(uet_tss_seal(a, &dst, pkt, CLEAR_LEN, CAP),
		     UET_ERR_TSS_EXHAUSTED);
	cr_assert_eq(uet_tss_seal(a, &dst, pkt, CLEAR_LEN, CAP),
		     UET_ERR_TSS_EXHAUSTED);
	uet_tss_stats(a, &st);
	cr_assert_eq(st.out_auth_pkts, 2);
	cr_assert_eq(st.out_invoke_fail, 2);
	uet_tss_free(a);
}

Test(tss, epochs)
{
	struct uet_tss_cfg ca = base_cfg(0xA1), cb = base_cfg(0xB2);
	struct uet_tss *a, *b;
	uint8_t pkt[CAP], out[CAP];
	size_t n;

	cb.epoch = 20;
	b = tss_open_cfg(&cb, 2);
	ca.epoch = 2;		/* 18 behind, lifetime 16 */
	a = tss_open_cfg(&ca, 1);
	n = seal(a, pkt, 1);
	cr_assert_eq(open_from(b, 1, pkt, n, out), UET_ERR_TSS_STALE);
	uet_tss_free(a);
	ca.epoch = 5;
	a = tss_open_cfg(&ca, 1);
	n = seal(a, pkt, 1);
	cr_assert_eq(open_from(b, 1, pkt, n, out), CLEAR_LEN);
	uet_tss_free(a);
	/* the same source moves to a newer epoch and its counter restarts:
	 * a fresh window, not a replay; the old epoch is then late */
	ca.epoch = 6;
	ca.tsc_start = 0;
	a = tss_open_cfg(&ca, 1);
	n = seal(a, pkt, 1);
	cr_assert_eq(open_from(b, 1, pkt, n, out), CLEAR_LEN);
	uet_tss_free(a);
	ca.epoch = 5;
	ca.tsc_start = 5000;
	a = tss_open_cfg(&ca, 1);
	n = seal(a, pkt, 1);
	cr_assert_eq(open_from(b, 1, pkt, n, out), UET_ERR_TSS_STALE);
	uet_tss_free(a);
	uet_tss_free(b);
}

Test(tss, cluster_mode_per_source_keys)
{
	struct uet_tss_cfg ca = base_cfg(0xA1), cb = base_cfg(0xB2);
	struct uet_tss *a, *b, *d;
	uint8_t pkt[CAP], out[CAP], clear[CAP];
	struct uet_tss_stats st;
	size_t n;

	ca.mode = cb.mode = UET_TSS_CLUSTER;
	ca.rekey_shift = cb.rekey_shift = 3;	/* a new key every 8 TSCs */
	ca.tsc_start = 0;
	a = tss_open_cfg(&ca, 1);
	b = tss_open_cfg(&cb, 2);
	for (unsigned i = 0; i < 40; i++) {
		n = seal(a, pkt, i);
		clear_pkt(clear, i);
		cr_assert_eq(open_from(b, 1, pkt, n, out), CLEAR_LEN, "%u", i);
		cr_assert_arr_eq(out, clear, CLEAR_LEN);
	}
	uet_tss_stats(a, &st);
	cr_assert_eq(st.keys_derived, 5, "one per 8 packets sent");
	uet_tss_stats(b, &st);
	cr_assert_eq(st.keys_derived, 5, "cached per source");
	/* the domain key itself does not open cluster traffic */
	cb.mode = UET_TSS_DIRECT;
	d = tss_open_cfg(&cb, 2);
	cr_assert_eq(open_from(d, 1, pkt, n, out), UET_ERR_TSS_AUTH);
	uet_tss_free(a);
	uet_tss_free(b);
	uet_tss_free(d);
}

/* Windows are bounded: a flood of sources reuses the oldest. */
Test(tss, bounded_sources)
{
	struct uet_tss_cfg cb = base_cfg(0xB2);
	struct uet_tss *b;
	uint8_t pkt[CAP], out[CAP];
	struct uet_tss_stats st;

	cb.max_sources = 4;
	b = tss_open_cfg(&cb, 2);
	for (uint32_t s = 1; s <= 10; s++) {
		struct uet_tss_cfg ca = base_cfg(s);
		struct uet_tss *a = tss_open_cfg(&ca, 1);
		size_t n = seal(a, pkt, s);

		cr_assert_eq(open_from(b, 1, pkt, n, out), CLEAR_LEN);
		uet_tss_free(a);
	}
	uet_tss_stats(b, &st);
	cr_assert_eq(st.sources, 4);
	cr_assert_eq(st.in_auth_pkts, 10);
	uet_tss_free(b);
}

Test(tss, binding_and_bypass_counted)
{
	struct uet_tss_cfg cb = base_cfg(0xB2);
	struct uet_tss *b = tss_open_cfg(&cb, 2);
	struct uet_tss_stats st;

	cr_assert(uet_tss_bound(b, 42));
	cr_assert_not(uet_tss_bound(b, 43));
	uet_tss_bypass(b);
	uet_tss_stats(b, &st);
	cr_assert_eq(st.in_binding_failure_pkts, 1);
	cr_assert_eq(st.in_bypass_pkts, 1);
	uet_tss_free(b);
}

Test(tss, bad_configuration)
{
	struct uet_tss_cfg c = base_cfg(1);
	struct uet_addr l = addr4(1, 4793);
	struct uet_tss *t = NULL;

	c.sdi = 1u << 24;
	cr_assert_eq(uet_tss_new(&t, &c, &l), UET_ERR_INVAL);
	c = base_cfg(1);
	c.an = 1;		/* no key in slot 1 */
	cr_assert_eq(uet_tss_new(&t, &c, &l), UET_ERR_INVAL);
	c = base_cfg(1);
	c.mode = UET_TSS_OFF;
	cr_assert_eq(uet_tss_new(&t, &c, &l), UET_ERR_INVAL);
	cr_assert_null(t);
}
