/* PSN arithmetic: 32-bit sequence numbers that wrap, compared in serial
 * arithmetic (docs/protocol.md §4.11: a after b <=>
 * (int32_t)(a - b) > 0). Never compare PSNs with < directly.
 */
#ifndef UET_PDS_PSN_H
#define UET_PDS_PSN_H

#include <stdbool.h>
#include <stdint.h>

/* Signed distance a - b; gcc defines the narrowing as modulo 2^32. */
static inline int32_t uet_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b);
}

static inline bool uet_psn_lt(uint32_t a, uint32_t b)
{
	return uet_psn_diff(a, b) < 0;
}

static inline bool uet_psn_le(uint32_t a, uint32_t b)
{
	return uet_psn_diff(a, b) <= 0;
}

static inline bool uet_psn_gt(uint32_t a, uint32_t b)
{
	return uet_psn_diff(a, b) > 0;
}

static inline bool uet_psn_ge(uint32_t a, uint32_t b)
{
	return uet_psn_diff(a, b) >= 0;
}

static inline uint32_t uet_psn_max(uint32_t a, uint32_t b)
{
	return uet_psn_gt(a, b) ? a : b;
}

/* a in [lo, hi) */
static inline bool uet_psn_in(uint32_t a, uint32_t lo, uint32_t hi)
{
	return uet_psn_ge(a, lo) && uet_psn_lt(a, hi);
}

#endif
