/* NACK (16 B) and NACK_CCX (32 B), docs/protocol.md §4.5, §4.6. NACK_CCX adds
 * two 64-bit words: nccx_type[63:60] | nccx_state1[59:0], nccx_state2.
 */
#include "uet/wire.h"

#include "be.h"
#include "pds_nack.h"

#define NCCX_TYPE_SHIFT		60
#define NCCX_TYPE_MAX		0xF
#define NCCX_STATE1_MASK	((1ull << NCCX_TYPE_SHIFT) - 1)

int uet_pds_nack_get(struct uet_pds_hdr *h, const uint8_t *buf)
{
	struct uet_pds_nack *n = &h->nack;
	uint64_t w;

	n->code = buf[2];
	n->vendor_code = buf[3];
	n->psn = uet_be_get32(buf + 4);
	n->spdcid = uet_be_get16(buf + 8);
	n->dpdcid = uet_be_get16(buf + 10);
	n->payload = uet_be_get32(buf + 12);
	if (h->type == UET_PDS_NACK_CCX) {
		w = uet_be_get64(buf + 16);
		n->nccx_type = (uint8_t)(w >> NCCX_TYPE_SHIFT);
		n->nccx_state1 = w & NCCX_STATE1_MASK;
		n->nccx_state2 = uet_be_get64(buf + 24);
	}
	return 0;
}

int uet_pds_nack_check(const struct uet_pds_hdr *h)
{
	const struct uet_pds_nack *n = &h->nack;

	if (h->type == UET_PDS_NACK_CCX)
		return n->nccx_type > NCCX_TYPE_MAX ||
		       n->nccx_state1 > NCCX_STATE1_MASK ?
			UET_ERR_WIRE_RANGE : 0;
	return n->nccx_type || n->nccx_state1 || n->nccx_state2 ?
		UET_ERR_WIRE_RANGE : 0;
}

void uet_pds_nack_put(uint8_t *buf, const struct uet_pds_hdr *h)
{
	const struct uet_pds_nack *n = &h->nack;

	buf[2] = n->code;
	buf[3] = n->vendor_code;
	uet_be_put32(buf + 4, n->psn);
	uet_be_put16(buf + 8, n->spdcid);
	uet_be_put16(buf + 10, n->dpdcid);
	uet_be_put32(buf + 12, n->payload);
	if (h->type == UET_PDS_NACK_CCX) {
		uet_be_put64(buf + 16, (uint64_t)n->nccx_type <<
			     NCCX_TYPE_SHIFT | n->nccx_state1);
		uet_be_put64(buf + 24, n->nccx_state2);
	}
}
