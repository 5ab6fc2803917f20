/* ACK (12 B), ACK_CC (32 B) and ACK_CCX (40 B), docs/protocol.md §4.2-§4.4.
 * ACK_CC/CCX add: byte 12 cc_type[7:4] | cc_flags[3:0] (ccx_type on
 * ACK_CCX), mpr, int16 sack_psn_offset, the 64-bit SACK bitmap (bit i is
 * PSN SACK_BASE + i, docs/choices.md §10.4), then the CC state: one 64-bit word
 * laid out by cc_type on ACK_CC, 16 opaque bytes on ACK_CCX.
 */
#include <string.h>

#include "uet/wire.h"

#include "be.h"
#include "pds_ack.h"

#define NIBBLE_MAX		0xF
#define U24_MAX			0xFFFFFFu
#define CWND_PEND_MAX		0x7F
#define CC_RSVD_MASK		0xFFFFFF0000ull	/* credit: bits [39:16] */

static bool is_cc(uint8_t type)
{
	return type == UET_PDS_ACK_CC || type == UET_PDS_ACK_CCX;
}

static bool zero_bytes(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

static bool cc_state_zero(const struct uet_pds_cc_state *c)
{
	return !c->service_time && !c->restore_cwnd && !c->rcv_cwnd_pend &&
	       !c->rcvd_bytes && !c->credit && !c->ooo_count;
}

/* ack_cc_state word (docs/protocol.md §4.3): NSCC service_time[63:48]
 * restore_cwnd[47] rcv_cwnd_pend[46:40] rcvd_bytes[39:16]; credit
 * credit[63:40], reserved [39:16]; both ooo_count[15:0]. */
static int cc_state_get(struct uet_pds_cc_state *c, uint8_t cc_type,
			uint64_t w)
{
	c->ooo_count = (uint16_t)w;
	if (cc_type == UET_CC_CREDIT) {
		if (w & CC_RSVD_MASK)
			return UET_ERR_WIRE_RESERVED;
		c->credit = (uint32_t)(w >> 40);
		return 0;
	}
	c->service_time = (uint16_t)(w >> 48);
	c->restore_cwnd = (w >> 47) & 1;
	c->rcv_cwnd_pend = (w >> 40) & CWND_PEND_MAX;
	c->rcvd_bytes = (uint32_t)(w >> 16) & U24_MAX;
	return 0;
}

static bool cc_state_ok(const struct uet_pds_cc_state *c, uint8_t cc_type)
{
	if (cc_type == UET_CC_CREDIT)
		return c->credit <= U24_MAX && !c->service_time &&
		       !c->restore_cwnd && !c->rcv_cwnd_pend && !c->rcvd_bytes;
	return c->rcv_cwnd_pend <= CWND_PEND_MAX && c->rcvd_bytes <= U24_MAX &&
	       !c->credit;
}

static uint64_t cc_state_word(const struct uet_pds_cc_state *c,
			      uint8_t cc_type)
{
	if (cc_type == UET_CC_CREDIT)
		return (uint64_t)c->credit << 40 | c->ooo_count;
	return (uint64_t)c->service_time << 48 |
	       (uint64_t)c->restore_cwnd << 47 |
	       (uint64_t)c->rcv_cwnd_pend << 40 |
	       (uint64_t)c->rcvd_bytes << 16 | c->ooo_count;
}

static int ack_cc_get(struct uet_pds_hdr *h, const uint8_t *buf)
{
	struct uet_pds_ack *a = &h->ack;

	a->cc_type = buf[12] >> 4;
	a->cc_flags = buf[12] & NIBBLE_MAX;
	a->mpr = buf[13];
	a->sack_psn_offset = (int16_t)uet_be_get16(buf + 14);
	a->sack_bitmap = uet_be_get64(buf + 16);
	if (h->type == UET_PDS_ACK_CCX) {
		memcpy(a->ccx_state, buf + 24, sizeof(a->ccx_state));
		return 0;
	}
	if (a->cc_type != UET_CC_NSCC && a->cc_type != UET_CC_CREDIT)
		return UET_ERR_WIRE_CC_TYPE;
	return cc_state_get(&a->cc, a->cc_type, uet_be_get64(buf + 24));
}

int uet_pds_ack_get(struct uet_pds_hdr *h, const uint8_t *buf)
{
	struct uet_pds_ack *a = &h->ack;

	/* REQ value 3 is reserved (docs/protocol.md §3.3). */
	if ((h->flags & UET_PDS_F_REQ_MASK) == UET_PDS_F_REQ_MASK)
		return UET_ERR_WIRE_RESERVED;
	a->ack_psn_offset = (int16_t)uet_be_get16(buf + 2);
	a->cack_psn = uet_be_get32(buf + 4);
	a->spdcid = uet_be_get16(buf + 8);
	a->dpdcid = uet_be_get16(buf + 10);
	return is_cc(h->type) ? ack_cc_get(h, buf) : 0;
}

static bool ack_cc_ok(const struct uet_pds_hdr *h)
{
	const struct uet_pds_ack *a = &h->ack;

	if (a->cc_flags > NIBBLE_MAX)
		return false;
	if (h->type == UET_PDS_ACK_CCX)
		return a->cc_type <= NIBBLE_MAX && cc_state_zero(&a->cc);
	return (a->cc_type == UET_CC_NSCC || a->cc_type == UET_CC_CREDIT) &&
	       cc_state_ok(&a->cc, a->cc_type) &&
	       zero_bytes(a->ccx_state, sizeof(a->ccx_state));
}

int uet_pds_ack_check(const struct uet_pds_hdr *h)
{
	const struct uet_pds_ack *a = &h->ack;

	if ((h->flags & UET_PDS_F_REQ_MASK) == UET_PDS_F_REQ_MASK)
		return UET_ERR_WIRE_RANGE;
	if (is_cc(h->type))
		return ack_cc_ok(h) ? 0 : UET_ERR_WIRE_RANGE;
	/* A plain ACK has none of the CC fields. */
	if (a->cc_type || a->cc_flags || a->mpr || a->sack_psn_offset ||
	    a->sack_bitmap || !cc_state_zero(&a->cc) ||
	    !zero_bytes(a->ccx_state, sizeof(a->ccx_state)))
		return UET_ERR_WIRE_RANGE;
	return 0;
}

static void ack_cc_put(uint8_t *buf, const struct uet_pds_hdr *h)
{
	const struct uet_pds_ack *a = &h->ack;

	buf[12] = (uint8_t)(a->cc_type << 4 | a->cc_flags);
	buf[13] = a->mpr;
	uet_be_put16(buf + 14, (uint16_t)a->sack_psn_offset);
	uet_be_put64(buf + 16, a->sack_bitmap);
	if (h->type == UET_PDS_ACK_CCX)
		memcpy(buf + 24, a->ccx_state, sizeof(a->ccx_state));
	else
		uet_be_put64(buf + 24, cc_state_word(&a->cc, a->cc_type));
}

void uet_pds_ack_put(uint8_t *buf, const struct uet_pds_hdr *h)
{
	const struct uet_pds_ack *a = &h->ack;

	uet_be_put16(buf + 2, (uint16_t)a->ack_psn_offset);
	uet_be_put32(buf + 4, a->cack_psn);
	uet_be_put16(buf + 8, a->spdcid);
	uet_be_put16(buf + 10, a->dpdcid);
	if (is_cc(h->type))
		ack_cc_put(buf, h);
}
