/* Random mutations of the golden packets through uet_pkt_decode, with and
 * without UET_PKT_ENTROPY: bit flips, boundary byte values, truncation,
 * splices of two packets, inserted and deleted bytes. Every input is an
 * exact-size heap block, so the sanitizer build proves there is no
 * out-of-bounds read; every accepted input must re-encode and decode to
 * the same struct (wt_pkt_property).
 *
 * The seed is fixed and printed; UET_WIRE_SEED=<n> replays another one,
 * UET_WIRE_ITERS=<n> changes the count.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet/rand.h"

#include "test_util.h"

#define SEED_DEFAULT	0x5545545749524531ULL	/* "UETWIRE1" */
#define ITERS_DEFAULT	120000
#define MAX_LEN		512

struct corpus {
	uint8_t *buf[64];
	size_t len[64];
	size_t n;
};

static void mutate(uint8_t *b, size_t *len, const struct corpus *c,
		   uint64_t *s)
{
	static const uint8_t edge[] = { 0x00, 0xFF, 0x7F, 0x80, 0x01, 0x3F,
					0x40, 0xC0 };
	size_t n = *len, i, j, k;

	switch (uet_rand(s) % 8) {
	case 0:		/* flip one bit */
	case 1:
		if (n)
			b[uet_rand(s) % n] ^= (uint8_t)(1u << (uet_rand(s) % 8));
		break;
	case 2:		/* a boundary value */
		if (n)
			b[uet_rand(s) % n] = edge[uet_rand(s) % sizeof(edge)];
		break;
	case 3:		/* a random byte */
		if (n)
			b[uet_rand(s) % n] = (uint8_t)uet_rand(s);
		break;
	case 4:		/* truncate */
		*len = n ? uet_rand(s) % n : 0;
		break;
	case 5:		/* splice: our prefix, another packet's suffix */
		k = uet_rand(s) % c->n;
		i = n ? uet_rand(s) % (n + 1) : 0;
		j = uet_rand(s) % (c->len[k] + 1);
		if (i + (c->len[k] - j) > MAX_LEN)
			break;
		memcpy(b + i, c->buf[k] + j, c->len[k] - j);
		*len = i + (c->len[k] - j);
		break;
	case 6:		/* insert a byte */
		if (n + 1 > MAX_LEN)
			break;
		i = uet_rand(s) % (n + 1);
		memmove(b + i + 1, b + i, n - i);
		b[i] = (uint8_t)uet_rand(s);
		*len = n + 1;
		break;
	case 7:		/* delete a byte */
		if (!n)
			break;
		i = uet_rand(s) % n;
		memmove(b + i, b + i + 1, n - i - 1);
		*len = n - 1;
		break;
	}
}

static void hex(char *out, size_t cap, const uint8_t *b, size_t len)
{
	size_t i, o = 0;

	out[0] = '\0';
	for (i = 0; i < len && o + 3 < cap; i++)
		o += (size_t)snprintf(out + o, cap - o, "%02x", b[i]);
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

Test(mutate, packets, .timeout = 600)
{
	static const unsigned flag_sets[] = { 0, UET_PKT_ENTROPY };
	uint64_t seed = env_u64("UET_WIRE_SEED", SEED_DEFAULT);
	uint64_t iters = env_u64("UET_WIRE_ITERS", ITERS_DEFAULT);
	uint64_t s = seed, it;
	unsigned long accepted = 0, noncanon = 0, violations = 0;
	unsigned long errs[16] = { 0 };
	struct corpus c = { .n = 0 };
	uint8_t work[MAX_LEN];
	char dump[2 * MAX_LEN + 1];
	struct uet_pkt want;
	struct wt_prop prop;
	size_t i, len;
	int f, m;

	fprintf(stderr, "mutate: seed %#llx, %llu iterations\n",
		(unsigned long long)seed, (unsigned long long)iters);
	cr_log_info("mutate: seed %#llx, %llu iterations",
		    (unsigned long long)seed, (unsigned long long)iters);
	cr_assert(wt_npkts <= 64);
	for (i = 0; i < wt_npkts; i++) {
		wt_pkt_build(&wt_pkts[i], &c.buf[i], &c.len[i], &want);
		cr_assert(c.len[i] <= MAX_LEN);
	}
	c.n = wt_npkts;

	for (it = 0; it < iters; it++) {
		uint8_t *in;
		size_t k = uet_rand(&s) % c.n;
		int nmut = 1 + (int)(uet_rand(&s) % 4);

		len = c.len[k];
		memcpy(work, c.buf[k], len);
		for (m = 0; m < nmut; m++)
			mutate(work, &len, &c, &s);
		in = wt_dup(work, len);
		for (f = 0; f < 2; f++) {
			bool ok = wt_pkt_property(in, len, flag_sets[f], &prop);

			if (!ok) {
				if (violations++ < 5) {
					hex(dump, sizeof(dump), in, len);
					cr_log_error("iteration %llu flags %u: "
						     "%s; input %s",
						     (unsigned long long)it,
						     flag_sets[f], prop.why,
						     dump);
				}
				continue;
			}
			if (prop.rc >= 0) {
				accepted++;
				if (!prop.canonical && noncanon++ < 5) {
					hex(dump, sizeof(dump), in, len);
					cr_log_info("accepted but re-encodes "
						    "differently (flags %u): "
						    "%s", flag_sets[f], dump);
				}
			} else {
				errs[-prop.rc & 15]++;
			}
		}
		free(in);
	}
	for (i = 0; i < c.n; i++)
		free(c.buf[i]);

	fprintf(stderr, "mutate: %llu decodes, %lu accepted (%lu not "
		"canonical), %lu violations\n",
		(unsigned long long)(2 * iters), accepted, noncanon,
		violations);
	for (i = 1; i < 16; i++)
		if (errs[i])
			fprintf(stderr, "mutate:   %-45s %lu\n",
				uet_err_str(-(int)i), errs[i]);
	cr_expect_eq(violations, 0, "%lu property violations (seed %#llx)",
		     violations, (unsigned long long)seed);
	/* the round-trip half of the property must actually run */
	cr_expect_gt(accepted, iters / 20, "only %lu of %llu decodes accepted",
		     accepted, (unsigned long long)(2 * iters));
}
