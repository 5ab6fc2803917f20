/* TSS header, REF layout (docs/protocol.md §2 and docs/choices.md §10.4):
 * type[31:27]=1 SP[26] rsvd[25] AN[24] SDI[23:0], SSI if SP, epoch|TSC.
 */
#include <string.h>

#include "uet/wire.h"

#include "be.h"

#define TSS_TYPE_SHIFT	27
#define TSS_SP		(1u << 26)
#define TSS_RSVD	(1u << 25)
#define TSS_AN		(1u << 24)
#define TSS_SDI_MASK	0xFFFFFFu
#define TSS_TSC_MASK	0xFFFFFFFFFFFFull

int uet_tss_hdr_decode(struct uet_tss_hdr *h, const uint8_t *buf, size_t len)
{
	struct uet_tss_hdr t;
	uint32_t w;
	size_t off = 4;
	uint64_t et;

	if (len < 4)
		return UET_ERR_WIRE_TRUNC;
	w = uet_be_get32(buf);
	if (w >> TSS_TYPE_SHIFT != UET_PDS_TYPE_TSS)
		return UET_ERR_WIRE_TYPE;
	if (w & TSS_RSVD)
		return UET_ERR_WIRE_RESERVED;

	memset(&t, 0, sizeof(t));
	t.sp = w & TSS_SP;
	t.an = w & TSS_AN;
	t.sdi = w & TSS_SDI_MASK;
	if (len < (t.sp ? UET_TSS_HDR_SSI_LEN : UET_TSS_HDR_LEN))
		return UET_ERR_WIRE_TRUNC;
	if (t.sp) {
		t.ssi = uet_be_get32(buf + off);
		off += 4;
	}
	et = uet_be_get64(buf + off);
	t.epoch = (uint16_t)(et >> 48);
	t.tsc = et & TSS_TSC_MASK;
	*h = t;
	return (int)(off + 8);
}

int uet_tss_hdr_encode(uint8_t *buf, size_t cap, const struct uet_tss_hdr *h)
{
	size_t hlen = h->sp ? UET_TSS_HDR_SSI_LEN : UET_TSS_HDR_LEN;
	size_t off = 4;
	uint32_t w;

	/* No SSI slot without SP: a non-zero ssi would silently vanish. */
	if (h->sdi > TSS_SDI_MASK || h->tsc > TSS_TSC_MASK ||
	    (!h->sp && h->ssi))
		return UET_ERR_WIRE_RANGE;
	if (cap < hlen)
		return UET_ERR_WIRE_NOSPACE;

	w = (uint32_t)UET_PDS_TYPE_TSS << TSS_TYPE_SHIFT | h->sdi;
	if (h->sp)
		w |= TSS_SP;
	if (h->an)
		w |= TSS_AN;
	uet_be_put32(buf, w);
	if (h->sp) {
		uet_be_put32(buf + off, h->ssi);
		off += 4;
	}
	uet_be_put64(buf + off, (uint64_t)h->epoch << 48 | h->tsc);
	return (int)hlen;
}
