/* Tests of the mem port: timing under the fake clock, each impairment
 * (exact and random), the bottleneck, the pool, and the port rules. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "uet/mem.h"

#define PKT_MAX 2048

/* Packets carry a 32-bit id up front and bytes derived from it after, so a
 * received packet can be checked byte for byte. */
static void fill(uint8_t *buf, size_t len, uint32_t id)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = i < 4 ? (uint8_t)(id >> (8 * i)) :
				 (uint8_t)(id * 31 + i);
}

static uint32_t id_of(const struct uet_net_msg *m)
{
	cr_assert_geq(m->len, 4);
	return (uint32_t)m->buf[0] | (uint32_t)m->buf[1] << 8 |
	       (uint32_t)m->buf[2] << 16 | (uint32_t)m->buf[3] << 24;
}

static void check_bytes(const struct uet_net_msg *m)
{
	uint8_t want[PKT_MAX];

	fill(want, m->len, id_of(m));
	cr_assert_arr_eq(m->buf, want, m->len, "bytes of packet %u", id_of(m));
}

static struct uet_addr a4(uint8_t host, uint16_t port)
{
	struct uet_addr a = { .af = UET_AF_INET, .port = port,
			      .ip = { 10, 0, 0, host } };
	return a;
}

static struct uet_addr a6(uint8_t host, uint16_t port)
{
	struct uet_addr a = { .af = UET_AF_INET6, .port = port,
			      .ip = { 0x20, 0x01, 0x0d, 0xb8, [15] = host } };
	return a;
}

static struct uet_mem_net *net_new(const struct uet_mem_config *cfg)
{
	struct uet_mem_net *mn = NULL;

	cr_assert_eq(uet_mem_net_create(&mn, cfg), 0);
	cr_assert_not_null(mn);
	return mn;
}

static struct uet_net *port_new(struct uet_mem_net *mn, struct uet_addr a)
{
	struct uet_net *p = NULL;

	cr_assert_eq(uet_mem_port_open(&p, mn, &a), 0);
	cr_assert_not_null(p);
	return p;
}

/* Send one packet of `len` bytes with id `id` from `from` to `to` at ts. */
static void tx(struct uet_net *from, const struct uet_addr *to, uet_time ts,
	       uint32_t id, size_t len, uint8_t ecn)
{
	uint8_t buf[PKT_MAX];
	struct uet_net_msg m = {
		.info = { .dst = *to, .ecn = ecn, .ts = ts,
			  .entropy = (uint16_t)(0x1000 + id) },
		.buf = buf, .len = len, .cap = sizeof(buf),
	};

	cr_assert_leq(len, sizeof(buf));
	fill(buf, len, id);
	cr_assert_eq(from->ops->send(from, &m, 1), 1);
}

/* Receive one packet ready at `now`; returns false if none. */
static bool rx1(struct uet_net *p, uet_time now, struct uet_net_msg *m,
		uint8_t *buf, size_t cap)
{
	int r;

	memset(m, 0, sizeof(*m));
	m->buf = buf;
	m->cap = cap;
	r = p->ops->recv(p, m, 1, now);
	cr_assert(r == 0 || r == 1, "recv returned %d", r);
	return r == 1;
}

/* Every packet taken, and every copy, is in exactly one end state. */
static void check_books(const struct uet_mem_net *mn)
{
	struct uet_mem_stats s;

	uet_mem_net_stats(mn, &s);
	cr_assert_eq(s.sent + s.duplicated,
		     s.delivered + s.dropped + s.overflow + s.tail_drop +
		     s.no_port + s.in_flight,
		     "sent %lu dup %lu delivered %lu dropped %lu overflow %lu "
		     "tail %lu no_port %lu in_flight %lu",
		     (unsigned long)s.sent, (unsigned long)s.duplicated,
		     (unsigned long)s.delivered, (unsigned long)s.dropped,
		     (unsigned long)s.overflow, (unsigned long)s.tail_drop,
		     (unsigned long)s.no_port, (unsigned long)s.in_flight);
}

static struct uet_mem_stats stats(const struct uet_mem_net *mn)
{
	struct uet_mem_stats s;

	uet_mem_net_stats(mn, &s);
	return s;
}

Test(mem, ops_basics)
{
	struct uet_mem_net *mn = net_new(NULL);
	struct uet_net *p = port_new(mn, a4(1, 4793));
	struct uet_addr want = { .af = UET_AF_INET, .port = 4793,
				 .ip = { 10, 0, 0, 1 } };

	cr_assert_str_eq(p->ops->name, "mem");
	cr_assert_eq(p->ops->fd(p), -1);
	cr_assert(uet_addr_equal(&p->local, &want));
	cr_assert_eq(uet_mem_net_next_delivery(mn), UET_TIME_NONE);
	cr_assert_eq(uet_mem_port_next_delivery(p), UET_TIME_NONE);
	p->ops->close(p);
	uet_mem_net_destroy(mn);
	uet_mem_net_destroy(NULL);
}

Test(mem, delivery_after_exact_delay)
{
	struct uet_mem_config cfg = { .impair.delay = 5 * UET_USEC };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 100), ab = a4(2, 200);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];

	tx(a, &ab, 1000, 7, 300, UET_ECN_ECT0);
	cr_assert_eq(uet_mem_net_next_delivery(mn), 1000 + 5 * UET_USEC);
	cr_assert_eq(uet_mem_port_next_delivery(b), 1000 + 5 * UET_USEC);
	cr_assert_eq(uet_mem_port_next_delivery(a), UET_TIME_NONE);
	cr_assert_not(rx1(b, 1000 + 5 * UET_USEC - 1, &m, buf, sizeof(buf)));
	cr_assert_not(rx1(a, UET_TIME_NONE - 1, &m, buf, sizeof(buf)),
		      "delivered to the sender");
	cr_assert(rx1(b, 1000 + 5 * UET_USEC, &m, buf, sizeof(buf)));
	cr_assert_eq(m.len, 300);
	cr_assert_eq(id_of(&m), 7);
	check_bytes(&m);
	cr_assert_eq(m.info.ts, 1000 + 5 * UET_USEC);
	cr_assert(uet_addr_equal(&m.info.src, &aa));
	cr_assert(uet_addr_equal(&m.info.dst, &ab));
	/* No spray ports: everything leaves from home, and the receiver
	 * sees the source port as entropy (uet/udp.h). */
	cr_assert_eq(m.info.entropy, aa.port);
	cr_assert(m.info.home);
	cr_assert_eq(m.info.ecn, UET_ECN_ECT0);
	cr_assert_not(m.info.trimmed);
	cr_assert_not(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)),
		      "delivered twice");
	cr_assert_eq(uet_mem_net_next_delivery(mn), UET_TIME_NONE);
	cr_assert_eq(stats(mn).sent, 1);
	cr_assert_eq(stats(mn).delivered, 1);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, next_delivery_is_earliest_and_stays_until_received)
{
	struct uet_mem_net *mn = net_new(NULL);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1), ac = a4(3, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab),
		       *c = port_new(mn, ac);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];

	tx(a, &ab, 500, 1, 10, 0);
	tx(a, &ac, 300, 2, 10, 0);
	tx(b, &ac, 400, 3, 10, 0);
	cr_assert_eq(uet_mem_net_next_delivery(mn), 300);
	cr_assert_eq(uet_mem_port_next_delivery(b), 500);
	/* Past due but not yet received: still the next event. */
	cr_assert(rx1(c, 350, &m, buf, sizeof(buf)));
	cr_assert_eq(id_of(&m), 2);
	cr_assert_eq(uet_mem_net_next_delivery(mn), 400);
	cr_assert(rx1(c, 1000, &m, buf, sizeof(buf)));
	cr_assert_eq(id_of(&m), 3);
	cr_assert_eq(m.info.ts, 400, "ts is the delivery time, not now");
	cr_assert_eq(uet_mem_net_next_delivery(mn), 500);
	cr_assert(rx1(b, 1000, &m, buf, sizeof(buf)));
	cr_assert_eq(uet_mem_net_next_delivery(mn), UET_TIME_NONE);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, fifo_for_equal_delays)
{
	struct uet_mem_config cfg = { .impair.delay = 2 * UET_USEC };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1), ac = a4(3, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab),
		       *c = port_new(mn, ac);
	struct uet_net_msg msgs[100];
	uint8_t bufs[100][64];
	uint32_t i;
	int n;

	/* Two senders interleaved, all at the same time: send order wins. */
	for (i = 0; i < 100; i++)
		tx(i % 2 ? a : c, &ab, 1000, i, 20 + i % 7, 0);
	for (i = 0; i < 100; i++)
		msgs[i] = (struct uet_net_msg){ .buf = bufs[i], .cap = 64 };
	n = b->ops->recv(b, msgs, 100, 1000 + 2 * UET_USEC);
	cr_assert_eq(n, 100);
	for (i = 0; i < 100; i++) {
		cr_assert_eq(id_of(&msgs[i]), i, "position %u", i);
		cr_assert_eq(msgs[i].len, 20 + i % 7);
		check_bytes(&msgs[i]);
		cr_assert(uet_addr_equal(&msgs[i].info.src, i % 2 ? &aa : &ac));
	}
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, recv_batch_respects_n_and_now)
{
	struct uet_mem_net *mn = net_new(NULL);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg msgs[8];
	uint8_t bufs[8][64];
	uint32_t i;

	for (i = 0; i < 6; i++)
		tx(a, &ab, 100 * i, i, 16, 0);
	for (i = 0; i < 8; i++)
		msgs[i] = (struct uet_net_msg){ .buf = bufs[i], .cap = 64 };
	cr_assert_eq(b->ops->recv(b, msgs, 0, 1000), 0);
	cr_assert_eq(b->ops->recv(b, msgs, 2, 1000), 2);
	cr_assert_eq(id_of(&msgs[0]), 0);
	cr_assert_eq(id_of(&msgs[1]), 1);
	/* ids 2 and 3 are due at 200 and 300. */
	cr_assert_eq(b->ops->recv(b, msgs, 8, 300), 2);
	cr_assert_eq(id_of(&msgs[0]), 2);
	cr_assert_eq(id_of(&msgs[1]), 3);
	cr_assert_eq(b->ops->recv(b, msgs, 8, 1000), 2);
	cr_assert_eq(id_of(&msgs[1]), 5);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, jitter_bounded_and_used)
{
	const uet_time d = 10 * UET_USEC, j = 3 * UET_USEC;
	struct uet_mem_config cfg = { .seed = 1,
				      .impair = { .delay = d, .jitter = j } };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	uet_time lo = UET_TIME_NONE, hi = 0, sent;
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uint32_t i;

	/* Spaced wider than the jitter, so the FIFO rule never holds one. */
	for (i = 0; i < 10000; i++) {
		sent = (uet_time)i * 20 * UET_USEC;
		tx(a, &ab, sent, i, 8, 0);
		cr_assert(rx1(b, sent + d + j, &m, buf, sizeof(buf)));
		cr_assert_eq(id_of(&m), i);
		cr_assert_geq(m.info.ts, sent + d);
		cr_assert_leq(m.info.ts, sent + d + j);
		if (m.info.ts - sent < lo)
			lo = m.info.ts - sent;
		if (m.info.ts - sent > hi)
			hi = m.info.ts - sent;
	}
	cr_assert_lt(lo, d + j / 100, "jitter never small: %lu",
		     (unsigned long)lo);
	cr_assert_gt(hi, d + j - j / 100, "jitter never large: %lu",
		     (unsigned long)hi);
	uet_mem_net_destroy(mn);
}

Test(mem, jitter_bound_is_inclusive)
{
	struct uet_mem_config cfg = { .seed = 5, .impair.jitter = 1 };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	unsigned seen[3] = { 0 };
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uint32_t i;

	for (i = 0; i < 200; i++) {
		tx(a, &ab, (uet_time)i * 10, i, 8, 0);
		cr_assert(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)));
		cr_assert_leq(m.info.ts - (uet_time)i * 10, 1);
		seen[m.info.ts - (uet_time)i * 10]++;
	}
	cr_assert(seen[0] > 50 && seen[1] > 50, "extra 0: %u, 1: %u",
		  seen[0], seen[1]);
	uet_mem_net_destroy(mn);
}

Test(mem, jitter_never_reorders)
{
	const uet_time d = 10 * UET_USEC, j = 3 * UET_USEC;
	struct uet_mem_config cfg = { .seed = 2, .pool = 4096,
				      .impair = { .delay = d, .jitter = j } };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uet_time prev = 0;
	uint32_t i;

	for (i = 0; i < 3000; i++)
		tx(a, &ab, (uet_time)i * 100, i, 8, 0);
	for (i = 0; i < 3000; i++) {
		cr_assert(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)));
		cr_assert_eq(id_of(&m), i);
		cr_assert_geq(m.info.ts, prev);
		cr_assert_geq(m.info.ts, (uet_time)i * 100 + d);
		cr_assert_leq(m.info.ts, (uet_time)i * 100 + d + j);
		prev = m.info.ts;
	}
	uet_mem_net_destroy(mn);
}

/* Send n packets a -> b at ts 0 and return the received ids in order. */
static unsigned run_ids(struct uet_mem_net *mn, struct uet_net *a,
			struct uet_net *b, const struct uet_addr *to,
			uint32_t first, uint32_t n, uint32_t *ids, unsigned max)
{
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	unsigned got = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		tx(a, to, 0, first + i, 32, UET_ECN_ECT0);
	while (rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf))) {
		cr_assert_lt(got, max);
		check_bytes(&m);
		ids[got++] = id_of(&m);
	}
	check_books(mn);
	return got;
}

Test(mem, mask_drops_exactly_3_and_7_every_64)
{
	struct uet_mem_config cfg = {
		.impair.drop_mask = 1ull << 3 | 1ull << 7,
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	uint32_t ids[200], i, k = 0;
	unsigned got = run_ids(mn, a, b, &ab, 0, 140, ids, 200);

	cr_assert_eq(got, 140 - 6);
	for (i = 0; i < 140; i++) {
		if (i % 64 == 3 || i % 64 == 7)
			continue;
		cr_assert_eq(ids[k], i, "position %u", k);
		k++;
	}
	cr_assert_eq(stats(mn).dropped, 6);
	uet_mem_net_destroy(mn);
}

Test(mem, mask_seq_is_per_destination_and_restarts_on_set)
{
	struct uet_mem_impair imp = { .drop_mask = 1ull << 1 };
	struct uet_mem_config cfg = { .impair = imp };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1), ac = a4(3, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab),
		       *c = port_new(mn, ac);
	uint32_t ids[16];

	/* The second packet to each port is lost, whatever went elsewhere. */
	cr_assert_eq(run_ids(mn, a, b, &ab, 0, 1, ids, 16), 1);
	cr_assert_eq(run_ids(mn, a, c, &ac, 10, 3, ids, 16), 2);
	cr_assert_eq(ids[0], 10);
	cr_assert_eq(ids[1], 12);
	cr_assert_eq(run_ids(mn, a, b, &ab, 20, 2, ids, 16), 1);
	cr_assert_eq(ids[0], 21);

	/* Setting the impairment restarts every count: now the second again. */
	imp.drop_mask = 1ull << 0;
	cr_assert_eq(uet_mem_net_set_impair(mn, &imp), 0);
	cr_assert_eq(run_ids(mn, a, b, &ab, 30, 3, ids, 16), 2);
	cr_assert_eq(ids[0], 31);
	cr_assert_eq(ids[1], 32);
	cr_assert_eq(run_ids(mn, a, c, &ac, 40, 2, ids, 16), 1);
	cr_assert_eq(ids[0], 41);
	uet_mem_net_destroy(mn);
}

#define KIND_DATA 1
#define KIND_ACK 2

struct picker {
	uint64_t next_seq;
	struct uet_addr from;
	unsigned acks_seen;
	unsigned calls;
};

/* "Drop the first ACK, duplicate the second": the packet kind is byte 4. */
static unsigned pick_acks(void *arg, uint64_t seq, const struct uet_net_msg *m)
{
	struct picker *pk = arg;

	pk->calls++;
	cr_assert_eq(seq, pk->next_seq, "seq %lu, want %lu",
		     (unsigned long)seq, (unsigned long)pk->next_seq);
	pk->next_seq++;
	cr_assert(uet_addr_equal(&m->info.src, &pk->from),
		  "pick sees the sending port as source");
	if (m->buf[4] != KIND_ACK)
		return 0;
	switch (pk->acks_seen++) {
	case 0:
		return UET_MEM_DROP;
	case 1:
		return UET_MEM_DUP;
	}
	return 0;
}

Test(mem, pick_callback_selects_exact_packets)
{
	struct picker pk = { .from = a4(1, 1) };
	struct uet_mem_config cfg = {
		.impair = { .pick = pick_acks, .pick_arg = &pk },
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr ab = a4(2, 1);
	struct uet_net *a = port_new(mn, pk.from), *b = port_new(mn, ab);
	static const uint8_t kinds[] = { KIND_DATA, KIND_ACK, KIND_DATA,
					 KIND_ACK, KIND_ACK, KIND_DATA };
	static const uint32_t want[] = { 0, 2, 3, 3, 4, 5 };
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX], pkt[16];
	unsigned i;

	for (i = 0; i < 6; i++) {
		struct uet_net_msg s = { .info.dst = ab, .buf = pkt,
					 .len = 16 };

		fill(pkt, 16, i);
		pkt[4] = kinds[i];
		cr_assert_eq(a->ops->send(a, &s, 1), 1);
	}
	cr_assert_eq(pk.calls, 6);
	for (i = 0; i < 6; i++) {
		cr_assert(rx1(b, 0, &m, buf, sizeof(buf)), "packet %u", i);
		cr_assert_eq(id_of(&m), want[i]);
		cr_assert_eq(m.buf[4], kinds[want[i]]);
	}
	cr_assert_not(rx1(b, 0, &m, buf, sizeof(buf)));
	cr_assert_eq(stats(mn).dropped, 1);
	cr_assert_eq(stats(mn).duplicated, 1);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

/* Delivery record of one random run: drops in a bitmap, plus the whole
 * order and timing folded into a hash. */
struct run {
	uint8_t got[100000 / 8];
	uint64_t dropped;
	uint64_t hash;
};

static void run_random(uint64_t seed, struct run *r)
{
	struct uet_mem_config cfg = {
		.seed = seed, .pool = 16,
		.impair = { .drop_ppm = 10000, .jitter = 500,
			    .reorder_ppm = 20000, .reorder_delay = 700 },
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uint32_t i, id;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < 100000; i++) {
		tx(a, &ab, (uet_time)i * 1000, i, 8, 0);
		while (rx1(b, (uet_time)i * 1000 + 999, &m, buf, sizeof(buf))) {
			id = id_of(&m);
			cr_assert_eq(r->got[id / 8] & (1u << id % 8), 0);
			r->got[id / 8] |= (uint8_t)(1u << id % 8);
			r->hash = (r->hash ^ id ^ m.info.ts << 20) *
				  0x100000001b3ull;
		}
	}
	while (rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf))) {
		id = id_of(&m);
		r->got[id / 8] |= (uint8_t)(1u << id % 8);
	}
	r->dropped = stats(mn).dropped;
	cr_assert_eq(stats(mn).overflow, 0);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, random_drop_rate_and_reproducible_by_seed)
{
	struct run *r1 = malloc(sizeof(*r1)), *r2 = malloc(sizeof(*r2)),
		   *r3 = malloc(sizeof(*r3));
	unsigned i, lost = 0;

	cr_assert(r1 && r2 && r3);
	run_random(42, r1);
	/* 1 % of 100k: mean 1000, sd ~31; +-5 sd. */
	cr_assert(r1->dropped > 840 && r1->dropped < 1160, "dropped %lu",
		  (unsigned long)r1->dropped);
	for (i = 0; i < 100000; i++)
		lost += !(r1->got[i / 8] & (1u << i % 8));
	cr_assert_eq(lost, r1->dropped);

	run_random(42, r2);
	cr_assert_eq(r2->dropped, r1->dropped);
	cr_assert_arr_eq(r2->got, r1->got, sizeof(r1->got));
	cr_assert_eq(r2->hash, r1->hash, "same seed, other order or times");

	run_random(43, r3);
	cr_assert(memcmp(r3->got, r1->got, sizeof(r1->got)) != 0,
		  "another seed, same losses");
	cr_assert_neq(r3->hash, r1->hash);
	free(r1);
	free(r2);
	free(r3);
}

/* Which of 64 ECT packets a seeded lossy net marks and delivers, and when
 * each arrives, with exact drop and mark masks on top. */
static uint64_t marks_with(uint64_t drop_mask, uint64_t mark_mask,
			   uint64_t *delivered, uet_time *at)
{
	struct uet_mem_config cfg = {
		.seed = 7,
		.impair = { .drop_ppm = UET_MEM_PPM / 10,
			    .mark_ppm = UET_MEM_PPM / 2, .jitter = 1000,
			    .drop_mask = drop_mask, .mark_mask = mark_mask },
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uint64_t marks = 0;
	uint32_t i;

	*delivered = 0;
	for (i = 0; i < 64; i++)
		tx(a, &ab, (uet_time)i * 10000, i, 8, UET_ECN_ECT1);
	while (rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf))) {
		*delivered |= 1ull << id_of(&m);
		at[id_of(&m)] = m.info.ts;
		if (m.info.ecn == UET_ECN_CE)
			marks |= 1ull << id_of(&m);
		else
			cr_assert_eq(m.info.ecn, UET_ECN_ECT1);
	}
	check_books(mn);
	uet_mem_net_destroy(mn);
	return marks;
}

Test(mem, random_and_exact_combine)
{
	const uint64_t dm = 1ull << 10 | 1ull << 20, mm = 1ull << 3 | 1ull << 7;
	uet_time at0[64], at1[64];
	uint64_t d0, d1, plain = marks_with(0, 0, &d0, at0),
		 masked = marks_with(dm, mm, &d1, at1);
	unsigned i, jittered = 0;

	/* About 10 % lost and half the rest marked at random... */
	cr_assert(__builtin_popcountll(d0) > 48 &&
		  __builtin_popcountll(d0) < 64, "delivered %lx",
		  (unsigned long)d0);
	cr_assert(__builtin_popcountll(plain) > 12 &&
		  __builtin_popcountll(plain) < 48, "marks %lx",
		  (unsigned long)plain);
	/* ...the masks add exactly their packets, and do not shift the
	 * random stream of the others. */
	cr_assert_eq(d1, d0 & ~dm);
	cr_assert_eq(masked, (plain | mm) & d1);
	for (i = 0; i < 64; i++) {
		if (!(d1 & 1ull << i))
			continue;
		jittered += at0[i] != (uet_time)i * 10000;
		cr_assert_eq(at1[i], at0[i], "packet %u", i);
	}
	cr_assert_gt(jittered, 40);
}

Test(mem, duplicate_gives_two_identical_copies)
{
	struct uet_mem_config cfg = { .impair = { .dup_mask = 1ull << 2,
						  .delay = 100 } };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg msgs[8];
	uint8_t bufs[8][PKT_MAX];
	uint32_t i;

	for (i = 0; i < 5; i++)
		tx(a, &ab, 10 * i, i, 100 + i, UET_ECN_ECT0);
	for (i = 0; i < 8; i++)
		msgs[i] = (struct uet_net_msg){ .buf = bufs[i],
						.cap = PKT_MAX };
	cr_assert_eq(b->ops->recv(b, msgs, 8, 1000), 6);
	cr_assert_eq(id_of(&msgs[2]), 2);
	cr_assert_eq(id_of(&msgs[3]), 2);
	cr_assert_eq(msgs[2].len, msgs[3].len);
	cr_assert_arr_eq(msgs[2].buf, msgs[3].buf, msgs[2].len);
	cr_assert(uet_addr_equal(&msgs[2].info.src, &msgs[3].info.src));
	cr_assert(uet_addr_equal(&msgs[3].info.src, &aa));
	cr_assert(uet_addr_equal(&msgs[2].info.dst, &msgs[3].info.dst));
	cr_assert_eq(msgs[2].info.entropy, msgs[3].info.entropy);
	cr_assert_eq(msgs[2].info.ecn, msgs[3].info.ecn);
	cr_assert_eq(msgs[2].info.trimmed, msgs[3].info.trimmed);
	cr_assert_eq(msgs[2].info.ts, msgs[3].info.ts);
	cr_assert_eq(msgs[3].info.ts, 20 + 100);
	check_bytes(&msgs[3]);
	cr_assert_eq(id_of(&msgs[4]), 3);
	cr_assert_eq(stats(mn).duplicated, 1);
	cr_assert_eq(stats(mn).delivered, 6);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, reorder_mask_holds_back_one)
{
	struct uet_mem_config cfg = {
		.impair = { .reorder_mask = 1ull << 1, .delay = 1000,
			    .reorder_delay = 350 },
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	static const uint32_t want[] = { 0, 2, 3, 4, 1, 5 };
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uint32_t i;

	for (i = 0; i < 6; i++)
		tx(a, &ab, 100 * i, i, 8, 0);
	for (i = 0; i < 6; i++) {
		cr_assert(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)));
		cr_assert_eq(id_of(&m), want[i], "position %u", i);
		if (want[i] == 1)
			cr_assert_eq(m.info.ts, 100 + 1000 + 350);
		else
			cr_assert_eq(m.info.ts, 100 * want[i] + 1000);
	}
	cr_assert_eq(stats(mn).reordered, 1);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, random_reorder_loses_nothing)
{
	struct uet_mem_config cfg = {
		.seed = 9, .pool = 2000,
		.impair = { .reorder_ppm = 100000, .delay = 1000 },
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	static uint32_t ids[2000];
	unsigned seen[2000] = { 0 }, out_of_order = 0, i;
	unsigned got;
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];

	for (i = 0; i < 2000; i++)
		tx(a, &ab, (uet_time)i * 1000, i, 8, 0);
	for (got = 0; rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)); got++)
		ids[got] = id_of(&m);
	cr_assert_eq(got, 2000);
	for (i = 0; i < 2000; i++) {
		seen[ids[i]]++;
		if (i && ids[i] < ids[i - 1])
			out_of_order++;
	}
	for (i = 0; i < 2000; i++)
		cr_assert_eq(seen[i], 1, "id %u seen %u times", i, seen[i]);
	cr_assert_gt(out_of_order, 100, "only %u inversions", out_of_order);
	/* 10 % of 2000: mean 200, sd ~13. */
	cr_assert(stats(mn).reordered > 150 && stats(mn).reordered < 250,
		  "reordered %lu", (unsigned long)stats(mn).reordered);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, ecn_marks_only_ect)
{
	struct uet_mem_config cfg = { .impair.mark_ppm = UET_MEM_PPM };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	static const uint8_t in[] = { UET_ECN_NOT_ECT, UET_ECN_ECT0,
				      UET_ECN_ECT1, UET_ECN_CE };
	static const uint8_t out[] = { UET_ECN_NOT_ECT, UET_ECN_CE,
				       UET_ECN_CE, UET_ECN_CE };
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uint32_t i;

	for (i = 0; i < 4; i++)
		tx(a, &ab, 0, i, 8, in[i]);
	for (i = 0; i < 4; i++) {
		cr_assert(rx1(b, 0, &m, buf, sizeof(buf)));
		cr_assert_eq(m.info.ecn, out[id_of(&m)], "packet %u",
			     id_of(&m));
	}
	cr_assert_eq(stats(mn).ecn_marked, 2);
	uet_mem_net_destroy(mn);
}

Test(mem, trim_keeps_trim_len_and_flags)
{
	struct uet_mem_config cfg = {
		.impair = { .trim_mask = 1ull << 0 | 1ull << 1,
			    .trim_len = 64 },
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];

	tx(a, &ab, 0, 0, 200, 0);
	tx(a, &ab, 0, 1, 40, 0);	/* already short: left alone */
	tx(a, &ab, 0, 2, 200, 0);	/* not selected */
	cr_assert(rx1(b, 0, &m, buf, sizeof(buf)));
	cr_assert_eq(id_of(&m), 0);
	cr_assert_eq(m.len, 64);
	cr_assert(m.info.trimmed);
	check_bytes(&m);
	cr_assert(rx1(b, 0, &m, buf, sizeof(buf)));
	cr_assert_eq(m.len, 40);
	cr_assert_not(m.info.trimmed);
	cr_assert(rx1(b, 0, &m, buf, sizeof(buf)));
	cr_assert_eq(m.len, 200);
	cr_assert_not(m.info.trimmed);
	cr_assert_eq(stats(mn).trimmed, 1);
	uet_mem_net_destroy(mn);
}

Test(mem, trim_default_length)
{
	struct uet_mem_config cfg = { .impair.trim_ppm = UET_MEM_PPM };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];

	tx(a, &ab, 0, 0, 1500, 0);
	cr_assert(rx1(b, 0, &m, buf, sizeof(buf)));
	cr_assert_eq(m.len, UET_MEM_TRIM_LEN_DEFAULT);
	cr_assert(m.info.trimmed);
	uet_mem_net_destroy(mn);
}

Test(mem, pool_overflow_counted)
{
	struct uet_mem_config cfg = { .pool = 4, .mtu = 256,
				      .impair.dup_mask = 1ull << 13 };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	uint32_t ids[16];
	uint32_t i;

	/* The send is still taken: a switch drops silently. */
	for (i = 0; i < 10; i++)
		tx(a, &ab, 0, i, 100, 0);
	cr_assert_eq(stats(mn).in_flight, 4);
	cr_assert_eq(stats(mn).overflow, 6);
	check_books(mn);
	cr_assert_eq(run_ids(mn, a, b, &ab, 100, 0, ids, 16), 4);
	for (i = 0; i < 4; i++)
		cr_assert_eq(ids[i], i);
	/* Packet seq 13 (id 99) takes the last slot: its copy finds none. */
	for (i = 0; i < 3; i++)
		tx(a, &ab, 0, 10 + i, 100, 0);
	tx(a, &ab, 0, 99, 100, 0);
	cr_assert_eq(stats(mn).duplicated, 1);
	cr_assert_eq(stats(mn).overflow, 7);
	cr_assert_eq(stats(mn).in_flight, 4);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, unknown_destination_counted)
{
	struct uet_mem_net *mn = net_new(NULL);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1), nobody = a4(2, 2);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];

	tx(a, &nobody, 0, 1, 8, 0);
	cr_assert_eq(stats(mn).no_port, 1);
	cr_assert_eq(stats(mn).sent, 1);
	cr_assert_eq(uet_mem_net_next_delivery(mn), UET_TIME_NONE);
	cr_assert_not(rx1(b, 0, &m, buf, sizeof(buf)));
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, close_with_packets_in_flight)
{
	struct uet_mem_config cfg = { .pool = 8, .impair.delay = 1000 };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	uint32_t i;

	for (i = 0; i < 8; i++)
		tx(a, &ab, 0, i, 8, 0);
	cr_assert_eq(stats(mn).in_flight, 8);
	b->ops->close(b);
	cr_assert_eq(stats(mn).in_flight, 0);
	cr_assert_eq(stats(mn).no_port, 8);
	cr_assert_eq(uet_mem_net_next_delivery(mn), UET_TIME_NONE);
	check_books(mn);
	/* The address is free again and the slots came back. */
	b = port_new(mn, ab);
	for (i = 0; i < 8; i++)
		tx(a, &ab, 0, i, 8, 0);
	cr_assert_eq(stats(mn).overflow, 0);
	/* Destroy closes what is still open (ASan checks the frees). */
	uet_mem_net_destroy(mn);
}

Test(mem, small_receive_buffer_truncates)
{
	struct uet_mem_net *mn = net_new(NULL);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];

	tx(a, &ab, 0, 5, 100, 0);
	tx(a, &ab, 0, 6, 10, 0);
	memset(buf, 0xee, sizeof(buf));
	cr_assert(rx1(b, 0, &m, buf, 10));
	cr_assert_eq(m.len, 10);
	check_bytes(&m);
	cr_assert_eq(buf[10], 0xee, "wrote past cap");
	cr_assert_not(m.info.trimmed, "receiver truncation is not a trim");
	cr_assert_eq(stats(mn).truncated, 1);
	cr_assert(rx1(b, 0, &m, buf, 10));
	cr_assert_eq(m.len, 10);
	cr_assert_eq(stats(mn).truncated, 1, "exact fit counted as truncated");
	uet_mem_net_destroy(mn);
}

Test(mem, bandwidth_spaces_packets)
{
	/* 1 byte per ns, then 1 us of wire. */
	struct uet_mem_config cfg = { .impair = { .rate = 1000000000,
						  .delay = 1000 } };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1), ac = a4(3, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab),
		       *c = port_new(mn, ac);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uint32_t i;

	/* Two senders share the bottleneck into b. */
	for (i = 0; i < 6; i++)
		tx(i % 2 ? c : a, &ab, 0, i, 1000, 0);
	for (i = 0; i < 6; i++) {
		cr_assert(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)));
		cr_assert_eq(id_of(&m), i);
		cr_assert_eq(m.info.ts, (uet_time)(i + 1) * 1000 + 1000,
			     "packet %u at %lu", i, (unsigned long)m.info.ts);
	}
	/* The link went idle: the next packet waits only for itself. */
	tx(a, &ab, 100000, 6, 500, 0);
	cr_assert_eq(uet_mem_port_next_delivery(b), 100000 + 500 + 1000);
	cr_assert(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)));
	uet_mem_net_destroy(mn);
}

Test(mem, bandwidth_rounds_up)
{
	struct uet_mem_config cfg = { .impair.rate = 3000000000ull };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);

	tx(a, &ab, 0, 0, 1000, 0);	/* 333.3 ns */
	cr_assert_eq(uet_mem_port_next_delivery(b), 334);
	uet_mem_net_destroy(mn);
}

Test(mem, overflowed_packet_does_not_hold_the_link)
{
	struct uet_mem_config cfg = { .pool = 2, .impair.rate = 1000000000 };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	uint32_t ids[4];

	tx(a, &ab, 0, 0, 1000, 0);
	tx(a, &ab, 0, 1, 1000, 0);
	tx(a, &ab, 0, 2, 1000, 0);	/* no buffer: gone before the link */
	cr_assert_eq(stats(mn).overflow, 1);
	cr_assert_eq(run_ids(mn, a, b, &ab, 0, 0, ids, 4), 2);
	tx(a, &ab, 1500, 3, 1000, 0);	/* waits for 1 only, until 2000 */
	cr_assert_eq(uet_mem_port_next_delivery(b), 3000);
	uet_mem_net_destroy(mn);
}

Test(mem, queue_limit_tail_drops_and_ecn_threshold_marks)
{
	struct uet_mem_config cfg = {
		.impair = { .rate = 1000000000, .queue_max = 2500,
			    .ecn_backlog = 1500 },
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uint32_t i;

	/* Backlogs 0, 1000, 2000 fit; 3000 and up are over the limit. */
	for (i = 0; i < 10; i++)
		tx(a, &ab, 0, i, 1000, UET_ECN_ECT0);
	cr_assert_eq(stats(mn).tail_drop, 7);
	for (i = 0; i < 3; i++) {
		cr_assert(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)));
		cr_assert_eq(id_of(&m), i);
		cr_assert_eq(m.info.ecn, i == 2 ? UET_ECN_CE : UET_ECN_ECT0,
			     "packet %u", i);
	}
	cr_assert_not(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)));
	cr_assert_eq(stats(mn).ecn_marked, 1);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, full_queue_trims_and_skips_it)
{
	struct uet_mem_config cfg = {
		.impair = { .rate = 1000000000, .queue_max = 2500,
			    .trim_when_full = true, .trim_len = 64,
			    .delay = 100 },
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	uint32_t i;

	for (i = 0; i < 5; i++)
		tx(a, &ab, 0, i, 1000, 0);
	/* 3 and 4 are cut to headers and arrive first, after the wire only. */
	for (i = 3; i < 5; i++) {
		cr_assert(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)));
		cr_assert_eq(id_of(&m), i);
		cr_assert_eq(m.len, 64);
		cr_assert(m.info.trimmed);
		cr_assert_eq(m.info.ts, 100);
		check_bytes(&m);
	}
	for (i = 0; i < 3; i++) {
		cr_assert(rx1(b, UET_TIME_NONE - 1, &m, buf, sizeof(buf)));
		cr_assert_eq(id_of(&m), i);
		cr_assert_eq(m.len, 1000);
		cr_assert_eq(m.info.ts, (uet_time)(i + 1) * 1000 + 100);
	}
	cr_assert_eq(stats(mn).trimmed, 2);
	cr_assert_eq(stats(mn).tail_drop, 0);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, port_impairment_overrides_default)
{
	struct uet_mem_impair lossy = { .drop_ppm = UET_MEM_PPM };
	struct uet_mem_config cfg = { .impair.delay = 50 };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];

	cr_assert_eq(uet_mem_port_set_impair(b, &lossy), 0);
	tx(a, &ab, 0, 1, 8, 0);		/* a -> b: lost */
	tx(b, &aa, 0, 2, 8, 0);		/* b -> a: default */
	cr_assert_not(rx1(b, 1000, &m, buf, sizeof(buf)));
	cr_assert(rx1(a, 1000, &m, buf, sizeof(buf)));
	cr_assert_eq(m.info.ts, 50);
	cr_assert_eq(uet_mem_port_set_impair(b, NULL), 0);
	tx(a, &ab, 0, 3, 8, 0);
	cr_assert(rx1(b, 1000, &m, buf, sizeof(buf)));
	cr_assert_eq(id_of(&m), 3);
	cr_assert_eq(m.info.ts, 50);
	cr_assert_eq(stats(mn).dropped, 1);
	uet_mem_net_destroy(mn);
}

Test(mem, many_ports_all_to_all)
{
	enum { NP = 8, PER = 10 };
	struct uet_mem_config cfg = {
		.seed = 3, .impair = { .delay = 700, .jitter = 300 },
	};
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr ad[NP];
	struct uet_net *p[NP];
	unsigned got[NP][NP] = { { 0 } };
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	unsigned i, j, k, s;
	uet_time t;

	/* Mixed families; same host, other port; same port, other host. */
	for (i = 0; i < NP; i++) {
		ad[i] = i < 4 ? a4(1, (uint16_t)(4793 + i)) :
				a6((uint8_t)i, 4793);
		p[i] = port_new(mn, ad[i]);
	}
	for (k = 0; k < PER; k++)
		for (i = 0; i < NP; i++)
			for (j = 0; j < NP; j++)
				if (i != j)
					tx(p[i], &ad[j], k * 100,
					   (uint32_t)(k << 16 | i << 8 | j),
					   16 + k, 0);
	/* Drive the clock from event to event, as an engine test will; every
	 * event must deliver something. */
	while ((t = uet_mem_net_next_delivery(mn)) != UET_TIME_NONE) {
		uint64_t before = stats(mn).delivered;

		for (j = 0; j < NP; j++) {
			while (rx1(p[j], t, &m, buf, sizeof(buf))) {
				uint32_t id = id_of(&m);

				s = id >> 8 & 0xff;
				cr_assert_eq(id & 0xff, j, "misrouted");
				cr_assert(uet_addr_equal(&m.info.src, &ad[s]));
				cr_assert(uet_addr_equal(&m.info.dst, &ad[j]));
				cr_assert_eq(id >> 16, got[s][j],
					     "%u->%u out of order", s, j);
				cr_assert_leq(m.info.ts, t);
				check_bytes(&m);
				got[s][j]++;
			}
		}
		cr_assert_gt(stats(mn).delivered, before, "stuck at %lu",
			     (unsigned long)t);
	}
	for (i = 0; i < NP; i++)
		for (j = 0; j < NP; j++)
			cr_assert_eq(got[i][j], i == j ? 0 : PER);
	cr_assert_eq(stats(mn).delivered, NP * (NP - 1) * PER);
	check_books(mn);
	uet_mem_net_destroy(mn);
}

Test(mem, bad_arguments_refused)
{
	struct uet_mem_config cfg = { .impair.dup_ppm = UET_MEM_PPM + 1 };
	struct uet_mem_impair bad = { .trim_ppm = UET_MEM_PPM + 1 };
	struct uet_mem_net *mn = NULL;
	struct uet_addr aa = a4(1, 1), none = { 0 };
	struct uet_net *a, *dupl = NULL;
	struct uet_net alien = { 0 };
	struct uet_net_ops alien_ops = { .name = "alien" };

	cr_assert_eq(uet_mem_net_create(&mn, &cfg), UET_ERR_INVAL);
	cfg = (struct uet_mem_config){ .mtu = UET_MEM_MTU_MAX + 1 };
	cr_assert_eq(uet_mem_net_create(&mn, &cfg), UET_ERR_INVAL);
	cfg = (struct uet_mem_config){ .pool = UET_MEM_POOL_MAX + 1 };
	cr_assert_eq(uet_mem_net_create(&mn, &cfg), UET_ERR_INVAL);
	cfg = (struct uet_mem_config){
		.spray_bits = UET_MEM_SPRAY_BITS_MAX + 1 };
	cr_assert_eq(uet_mem_net_create(&mn, &cfg), UET_ERR_INVAL);
	cr_assert_null(mn);

	mn = net_new(NULL);
	a = port_new(mn, aa);
	cr_assert_eq(uet_mem_port_open(&dupl, mn, &aa), UET_ERR_INVAL);
	cr_assert_null(dupl);
	cr_assert_eq(uet_mem_port_open(&dupl, mn, &none), UET_ERR_INVAL);
	cr_assert_eq(uet_mem_net_set_impair(mn, &bad), UET_ERR_INVAL);
	cr_assert_eq(uet_mem_port_set_impair(a, &bad), UET_ERR_INVAL);
	alien.ops = &alien_ops;
	cr_assert_eq(uet_mem_port_set_impair(&alien, NULL), UET_ERR_INVAL);
	uet_mem_net_destroy(mn);
}

Test(mem, send_refuses_oversize_and_empty)
{
	struct uet_mem_config cfg = { .mtu = 128 };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 1), ab = a4(2, 1);
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab);
	uint8_t buf[256] = { 0 };
	struct uet_net_msg ms[3] = {
		{ .info.dst = ab, .buf = buf, .len = 128 },
		{ .info.dst = ab, .buf = buf, .len = 129 },
		{ .info.dst = ab, .buf = buf, .len = 10 },
	};
	struct uet_net_msg empty = { .info.dst = ab, .buf = buf, .len = 0 };
	struct uet_net_msg m;
	uint8_t rbuf[PKT_MAX];

	cr_assert_eq(a->ops->send(a, ms, 3), 1, "takes up to the bad one");
	cr_assert_eq(a->ops->send(a, &ms[1], 2), UET_ERR_INVAL);
	cr_assert_eq(a->ops->send(a, &empty, 1), UET_ERR_INVAL);
	cr_assert_eq(a->ops->send(a, ms, 0), 0);
	cr_assert_eq(stats(mn).sent, 1);
	cr_assert(rx1(b, 0, &m, rbuf, sizeof(rbuf)));
	cr_assert_eq(m.len, 128);
	cr_assert_not(rx1(b, 0, &m, rbuf, sizeof(rbuf)));
	uet_mem_net_destroy(mn);
}

/* Spray ports (uet/mem.h Addresses): a packet leaves from spray port
 * entropy % 2^k unless sent with home; the receiver sees that address and
 * its port as entropy, never the home address of a sprayed packet; a
 * spray address reaches its port; ports never share an address. */
Test(mem, spray_ports_model_udp)
{
	struct uet_mem_config cfg = { .spray_bits = 2 };
	struct uet_mem_net *mn = net_new(&cfg);
	struct uet_addr aa = a4(1, 4793), ab = a4(2, 4793), taken;
	struct uet_net *a = port_new(mn, aa), *b = port_new(mn, ab), *c;
	struct uet_pkt_info pi = { .entropy = 0 };
	struct uet_addr seen[4];
	struct uet_net_msg m;
	uint8_t buf[PKT_MAX];
	unsigned e, i;

	for (e = 0; e < 8; e++) {
		tx(a, &ab, 0, e, 64, UET_ECN_ECT0);	/* entropy 0x1000 + e */
		cr_assert(rx1(b, 0, &m, buf, sizeof(buf)));
		cr_assert_eq(id_of(&m), e);
		pi.entropy = (uint16_t)(0x1000 + e);
		pi.home = false;
		taken = uet_mem_port_tx_addr(a, &pi);
		cr_assert(uet_addr_equal(&m.info.src, &taken));
		cr_assert_neq(m.info.src.port, aa.port,
			      "a sprayed packet left from home");
		cr_assert_geq(m.info.src.port, UET_MEM_SPRAY_PORT_MIN);
		cr_assert_eq(m.info.entropy, m.info.src.port);
		cr_assert(m.info.home, "sent to b's home address");
		if (e < 4) {
			seen[e] = m.info.src;
		} else {
			cr_assert(uet_addr_equal(&seen[e - 4], &m.info.src),
				  "entropy %u and %u differ", e, e - 4);
		}
		for (i = 0; i < e && e < 4; i++)
			cr_assert_neq(seen[i].port, m.info.src.port);
	}
	/* With home: from the home address, whatever the entropy. */
	{
		uint8_t hb[64];
		struct uet_net_msg hm = {
			.info = { .dst = ab, .entropy = 3, .home = true },
			.buf = hb, .len = sizeof(hb), .cap = sizeof(hb),
		};

		fill(hb, sizeof(hb), 99);
		cr_assert_eq(a->ops->send(a, &hm, 1), 1);
		cr_assert(rx1(b, 0, &m, buf, sizeof(buf)));
		cr_assert(uet_addr_equal(&m.info.src, &aa));
		cr_assert_eq(m.info.entropy, aa.port);
	}
	/* An answer to the spray address reaches a, marked not home. */
	tx(b, &seen[1], 0, 50, 64, UET_ECN_ECT0);
	cr_assert(rx1(a, 0, &m, buf, sizeof(buf)));
	cr_assert_eq(id_of(&m), 50);
	cr_assert(uet_addr_equal(&m.info.dst, &seen[1]));
	cr_assert_not(m.info.home);
	/* Nobody may open a port at a spray address, or twice at home. */
	taken = seen[2];
	c = NULL;
	cr_assert_eq(uet_mem_port_open(&c, mn, &taken), UET_ERR_INVAL);
	cr_assert_null(c);
	/* A third port on a's IP gets other spray ports than a. */
	c = port_new(mn, a4(1, 4794));
	for (e = 0; e < 4; e++) {
		struct uet_addr sa;

		pi.entropy = (uint16_t)e;
		pi.home = false;
		sa = uet_mem_port_tx_addr(c, &pi);
		for (i = 0; i < 4; i++)
			cr_assert_neq(sa.port, seen[i].port);
		cr_assert_neq(sa.port, aa.port);
	}
	check_books(mn);
	uet_mem_net_destroy(mn);
}
