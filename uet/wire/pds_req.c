/* RUD/ROD request (12 B) and RUD/ROD CC request (16 B),
 * docs/protocol.md §4.1. */
#include "uet/wire.h"

#include "be.h"
#include "pds_req.h"
#include "pds_syn.h"

#define CREDIT_TARGET_MAX	0xFFFFFFu

static bool is_cc(uint8_t type)
{
	return type == UET_PDS_RUD_CC_REQ || type == UET_PDS_ROD_CC_REQ;
}

int uet_pds_req_get(struct uet_pds_hdr *h, const uint8_t *buf)
{
	struct uet_pds_req *r = &h->req;

	r->clear_psn_offset = (int16_t)uet_be_get16(buf + 2);
	r->psn = uet_be_get32(buf + 4);
	r->spdcid = uet_be_get16(buf + 8);
	uet_pds_syn_get(uet_be_get16(buf + 10), h->flags & UET_PDS_F_SYN,
			&r->dpdcid, &r->pdc_info, &r->psn_offset);
	if (is_cc(h->type)) {
		/* req_cc_state: ccc_id[31:24] credit_target[23:0] (WS, XDP2) */
		r->ccc_id = buf[12];
		r->credit_target = uet_be_get32(buf + 12) & CREDIT_TARGET_MAX;
	}
	return 0;
}

int uet_pds_req_check(const struct uet_pds_hdr *h)
{
	const struct uet_pds_req *r = &h->req;

	if (!uet_pds_syn_ok(h->flags & UET_PDS_F_SYN, r->dpdcid, r->pdc_info,
			    r->psn_offset))
		return UET_ERR_WIRE_RANGE;
	if (is_cc(h->type))
		return r->credit_target > CREDIT_TARGET_MAX ?
			UET_ERR_WIRE_RANGE : 0;
	return r->ccc_id || r->credit_target ? UET_ERR_WIRE_RANGE : 0;
}

void uet_pds_req_put(uint8_t *buf, const struct uet_pds_hdr *h)
{
	const struct uet_pds_req *r = &h->req;

	uet_be_put16(buf + 2, (uint16_t)r->clear_psn_offset);
	uet_be_put32(buf + 4, r->psn);
	uet_be_put16(buf + 8, r->spdcid);
	uet_be_put16(buf + 10, uet_pds_syn_word(h->flags & UET_PDS_F_SYN,
						r->dpdcid, r->pdc_info,
						r->psn_offset));
	if (is_cc(h->type))
		uet_be_put32(buf + 12, (uint32_t)r->ccc_id << 24 |
			     r->credit_target);
}
