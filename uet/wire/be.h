/* Big-endian loads and stores on byte pointers. Every wire field goes through
 * these: no packed structs, no alignment assumptions (docs/protocol.md,
 * Conventions).
 */
#ifndef UET_WIRE_BE_H
#define UET_WIRE_BE_H

#include <stdint.h>

static inline uint8_t uet_be_get8(const uint8_t *p)
{
	return p[0];
}

static inline uint16_t uet_be_get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t uet_be_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t uet_be_get48(const uint8_t *p)
{
	return (uint64_t)uet_be_get16(p) << 32 | uet_be_get32(p + 2);
}

static inline uint64_t uet_be_get64(const uint8_t *p)
{
	return (uint64_t)uet_be_get32(p) << 32 | uet_be_get32(p + 4);
}

static inline void uet_be_put8(uint8_t *p, uint8_t v)
{
	p[0] = v;
}

static inline void uet_be_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void uet_be_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Low 48 bits of v; the caller has range-checked it. */
static inline void uet_be_put48(uint8_t *p, uint64_t v)
{
	uet_be_put16(p, (uint16_t)(v >> 32));
	uet_be_put32(p + 2, (uint32_t)v);
}

static inline void uet_be_put64(uint8_t *p, uint64_t v)
{
	uet_be_put32(p, (uint32_t)(v >> 32));
	uet_be_put32(p + 4, (uint32_t)v);
}

#endif
