/* The one PRNG of the engine, its tools and its tests: splitmix64 (Steele,
 * Lea, Flood 2014). The state is the caller's, so runs repeat by seed; any
 * seed is fine, zero included. Not for keys or nonces: those come from the
 * caller's rand callback.
 *
 *	uint64_t s = seed;
 *	uint64_t r = uet_rand(&s);		// next 64 bits
 *	uet_rand_fill(&s, buf, len);		// len bytes
 *	uet_rand_shuffle(&s, v, n);		// v[0..n) reordered
 */
#ifndef UET_RAND_H
#define UET_RAND_H

#include <stddef.h>
#include <stdint.h>

/* The finalizer alone: a stateless 64-bit hash, good to derive seeds. */
static inline uint64_t uet_rand_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint64_t uet_rand(uint64_t *s)
{
	return uet_rand_mix(*s += 0x9e3779b97f4a7c15ull);
}

/* Eight bytes per draw, little end first, whatever the host's order. */
static inline void uet_rand_fill(uint64_t *s, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len) {
		uint64_t r = uet_rand(s);
		size_t i, n = len < 8 ? len : 8;

		for (i = 0; i < n; i++)
			p[i] = (uint8_t)(r >> (8 * i));
		p += n;
		len -= n;
	}
}

/* v[0..n) in an order drawn from s (Fisher-Yates). */
static inline void uet_rand_shuffle(uint64_t *s, unsigned *v, size_t n)
{
	while (n > 1) {
		size_t j = (size_t)(uet_rand(s) % n--);
		unsigned t = v[n];

		v[n] = v[j];
		v[j] = t;
	}
}

#endif
