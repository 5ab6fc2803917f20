/* The one PRNG (uet/rand.h): splitmix64's published outputs, so a change
 * of the stream every seeded test relies on shows here first, and the
 * byte order of uet_rand_fill. */
#include <criterion/criterion.h>
#include <string.h>

#include "uet/rand.h"

Test(rand, splitmix64_reference_outputs)
{
	static const uint64_t from0[] = { 0xe220a8397b1dcdafull,
					  0x6e789e6aa1b965f4ull,
					  0x06c45d188009454full,
					  0xf88bb8a8724c81ecull };
	static const uint64_t from1234567[] = { 6457827717110365317ull,
						3203168211198807973ull,
						9817491932198370423ull };
	uint64_t s = 0;
	unsigned i;

	for (i = 0; i < 4; i++)
		cr_assert_eq(uet_rand(&s), from0[i], "seed 0, draw %u", i);
	s = 1234567;
	for (i = 0; i < 3; i++)
		cr_assert_eq(uet_rand(&s), from1234567[i], "draw %u", i);
}

Test(rand, mix_is_one_step_without_state)
{
	uint64_t s = 42;

	cr_assert_eq(uet_rand_mix(42 + 0x9e3779b97f4a7c15ull), uet_rand(&s));
	cr_assert_eq(s, 42 + 0x9e3779b97f4a7c15ull);
}

/* A permutation, the same for the same seed. */
Test(rand, shuffle)
{
	unsigned a[100], b[100], i, moved = 0;
	bool seen[100] = { false };
	uint64_t s = 3, t = 3;

	for (i = 0; i < 100; i++)
		a[i] = b[i] = i;
	uet_rand_shuffle(&s, a, 100);
	uet_rand_shuffle(&t, b, 100);
	for (i = 0; i < 100; i++) {
		cr_assert_lt(a[i], 100);
		cr_assert_not(seen[a[i]], "%u twice", a[i]);
		seen[a[i]] = true;
		cr_assert_eq(a[i], b[i]);
		moved += a[i] != i;
	}
	cr_assert_gt(moved, 90, "only %u of 100 moved", moved);
	cr_assert_eq(s, t);
	uet_rand_shuffle(&s, a, 1);
	cr_assert_eq(s, t, "nothing drawn for one");
}

/* Little end first, eight bytes a draw; a tail takes a whole draw. */
Test(rand, fill_bytes)
{
	uint64_t a = 7, b = 7, r0, r1, r2;
	uint8_t buf[19];
	unsigned i;

	memset(buf, 0, sizeof(buf));
	uet_rand_fill(&a, buf, sizeof(buf));
	r0 = uet_rand(&b);
	r1 = uet_rand(&b);
	r2 = uet_rand(&b);
	for (i = 0; i < 8; i++) {
		cr_assert_eq(buf[i], (uint8_t)(r0 >> (8 * i)));
		cr_assert_eq(buf[8 + i], (uint8_t)(r1 >> (8 * i)));
	}
	for (i = 0; i < 3; i++)
		cr_assert_eq(buf[16 + i], (uint8_t)(r2 >> (8 * i)));
	cr_assert_eq(a, b, "three draws for 19 bytes");
	uet_rand_fill(&a, buf, 0);
	cr_assert_eq(a, b, "nothing drawn for nothing");
}
