/* CTRL packet (16 B), docs/protocol.md §4.7. ctl_type sits in next_hdr and was
 * range-checked with the prologue (NEGOTIATION, 9, is REF-only: refused).
 */
#include "uet/wire.h"

#include "be.h"
#include "pds_ctrl.h"
#include "pds_syn.h"

/* Bytes 2-3 are probe_opaque on a PROBE and reserved on every other type. */
static bool opaque_ok(const struct uet_pds_hdr *h, uint16_t opaque)
{
	return h->next_hdr == UET_CTL_PROBE || !opaque;
}

int uet_pds_ctrl_get(struct uet_pds_hdr *h, const uint8_t *buf)
{
	struct uet_pds_ctrl *c = &h->ctrl;

	c->probe_opaque = uet_be_get16(buf + 2);
	if (!opaque_ok(h, c->probe_opaque))
		return UET_ERR_WIRE_RESERVED;
	c->psn = uet_be_get32(buf + 4);
	c->spdcid = uet_be_get16(buf + 8);
	uet_pds_syn_get(uet_be_get16(buf + 10), h->flags & UET_PDS_F_SYN,
			&c->dpdcid, &c->pdc_info, &c->psn_offset);
	c->payload = uet_be_get32(buf + 12);
	return 0;
}

int uet_pds_ctrl_check(const struct uet_pds_hdr *h)
{
	const struct uet_pds_ctrl *c = &h->ctrl;

	if (!opaque_ok(h, c->probe_opaque) ||
	    !uet_pds_syn_ok(h->flags & UET_PDS_F_SYN, c->dpdcid, c->pdc_info,
			    c->psn_offset))
		return UET_ERR_WIRE_RANGE;
	return 0;
}

void uet_pds_ctrl_put(uint8_t *buf, const struct uet_pds_hdr *h)
{
	const struct uet_pds_ctrl *c = &h->ctrl;

	uet_be_put16(buf + 2, c->probe_opaque);
	uet_be_put32(buf + 4, c->psn);
	uet_be_put16(buf + 8, c->spdcid);
	uet_be_put16(buf + 10, uet_pds_syn_word(h->flags & UET_PDS_F_SYN,
						c->dpdcid, c->pdc_info,
						c->psn_offset));
	uet_be_put32(buf + 12, c->payload);
}
