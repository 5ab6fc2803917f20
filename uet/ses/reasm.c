/* Received-range tracking of one incoming message (see reasm.h). */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "uet/err.h"

#include "reasm.h"

void uet_reasm_init(struct uet_reasm *r, uint32_t total)
{
	memset(r, 0, sizeof(*r));
	r->total = total;
}

void uet_reasm_fini(struct uet_reasm *r)
{
	uet_free(r->bits);
	r->bits = NULL;
}

bool uet_reasm_done(const struct uet_reasm *r)
{
	return r->any && r->got == r->total;
}

static bool bit_test(const struct uet_reasm *r, uint32_t i)
{
	return r->bits && (r->bits[i / 64] >> (i % 64)) & 1;
}

uint32_t uet_reasm_free(const struct uet_reasm *r, uint32_t off, uint32_t max)
{
	uint32_t end = off;

	if (r->loose || !r->seg || off < r->prefix || off % r->seg ||
	    off >= r->total)
		return 0;
	while (end < r->total && end - off < max) {
		if ((r->last_seen && end >= r->last_off) ||
		    bit_test(r, end / r->seg))
			break;
		end = r->total - end > r->seg ? end + r->seg : r->total;
	}
	return end - off < max ? end - off : max;
}

/* Move the prefix over segments (and the last packet) already received. */
static void advance(struct uet_reasm *r)
{
	while (r->prefix < r->total) {
		if (r->last_seen && r->prefix == r->last_off) {
			r->prefix = r->total;
			break;
		}
		if (!r->seg || !bit_test(r, r->prefix / r->seg))
			break;
		r->prefix += r->seg;
	}
}

static int go_loose(struct uet_reasm *r, uint32_t len)
{
	r->loose = true;
	uet_free(r->bits);
	r->bits = NULL;
	r->got = len > r->total - r->got ? r->total : r->got + len;
	return 1;
}

int uet_reasm_add(struct uet_reasm *r, uint32_t off, uint32_t len)
{
	bool last;
	uint32_t i;

	if (off > r->total || len > r->total - off)
		return UET_ERR_INVAL;
	/* Only an empty message has an empty packet. */
	if (!len && r->total)
		return UET_ERR_INVAL;
	last = off + len == r->total;
	if (!r->total) {
		if (r->any)
			return 0;
		r->any = true;
		return 1;
	}
	r->any = true;
	if (r->loose)
		return go_loose(r, len);

	if (!last) {
		if (!r->seg) {
			if ((r->last_seen && (r->last_off % len ||
					      r->total - r->last_off > len)) ||
			    r->total / len > UET_REASM_BITS_MAX)
				return go_loose(r, len);
			r->seg = len;
		}
		if (len != r->seg || off % r->seg)
			return go_loose(r, len);
	} else if (r->seg && (off % r->seg || len > r->seg)) {
		return go_loose(r, len);
	}

	if (off + len <= r->prefix)
		return 0;
	if (off < r->prefix)		/* straddles the prefix: not our grid */
		return go_loose(r, len);

	if (last) {
		if (r->last_seen)
			return 0;
		r->last_seen = true;
		r->last_off = off;
	} else if (off > r->prefix) {
		i = off / r->seg;
		if (!r->bits) {
			size_t words = ((size_t)r->total / r->seg + 64) / 64;

			r->bits = uet_calloc(words, sizeof(*r->bits));
			if (!r->bits)
				return UET_ERR_NOMEM;
		}
		if (bit_test(r, i))
			return 0;
		r->bits[i / 64] |= UINT64_C(1) << (i % 64);
	} else {
		r->prefix += len;
	}
	r->got += len;
	advance(r);
	return 1;
}
