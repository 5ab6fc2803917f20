/* Big-endian loads and stores on byte pointers. Every wire field goes through
 * these: no packed structs, no alignment assumptions (docs/protocol.md,
 * Conventions). A fixed-size memcpy and a byte swap compile to one load or
 * store and a bswap; the compiler did not always merge the byte-at-a-time
 * form, and every header of every packet passes here.
 */
#ifndef UET_WIRE_BE_H
#define UET_WIRE_BE_H

#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define UET_BE16(v)	(v)
#define UET_BE32(v)	(v)
#define UET_BE64(v)	(v)
#else
#define UET_BE16(v)	__builtin_bswap16(v)
#define UET_BE32(v)	__builtin_bswap32(v)
#define UET_BE64(v)	__builtin_bswap64(v)
#endif

static inline uint8_t uet_be_get8(const uint8_t *p)
{
	return p[0];
}

static inline uint16_t uet_be_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return UET_BE16(v);
}

static inline uint32_t uet_be_get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return UET_BE32(v);
}

static inline uint64_t uet_be_get48(const uint8_t *p)
{
	return (uint64_t)uet_be_get16(p) << 32 | uet_be_get32(p + 2);
}

static inline uint64_t uet_be_get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return UET_BE64(v);
}

static inline void uet_be_put8(uint8_t *p, uint8_t v)
{
	p[0] = v;
}

static inline void uet_be_put16(uint8_t *p, uint16_t v)
{
	v = UET_BE16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void uet_be_put32(uint8_t *p, uint32_t v)
{
	v = UET_BE32(v);
	memcpy(p, &v, sizeof(v));
}

/* Low 48 bits of v; the caller has range-checked it. */
static inline void uet_be_put48(uint8_t *p, uint64_t v)
{
	uet_be_put16(p, (uint16_t)(v >> 32));
	uet_be_put32(p + 2, (uint32_t)v);
}

static inline void uet_be_put64(uint8_t *p, uint64_t v)
{
	v = UET_BE64(v);
	memcpy(p, &v, sizeof(v));
}

#endif
