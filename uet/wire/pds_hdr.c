/* PDS headers: the 16-bit prologue (docs/protocol.md §3) and dispatch to the
 * per-type bodies. RUDI and UUD bodies are small enough to live here.
 */
#include <string.h>

#include "uet/wire.h"

#include "be.h"
#include "pds_ack.h"
#include "pds_ctrl.h"
#include "pds_nack.h"
#include "pds_req.h"

#define PDS_TYPE_SHIFT	11
#define PDS_NH_SHIFT	7
#define PDS_NH_MAX	0xF
#define PDS_FLAGS_MAX	0x7F

#define NH(n)		(1u << (n))
#define NH_FWD		(NH(UET_NH_REQ_SMALL) | NH(UET_NH_REQ_MEDIUM) | \
			 NH(UET_NH_REQ_STD))
#define NH_DATA		(NH(UET_NH_RSP_DATA) | NH(UET_NH_RSP_DATA_SMALL))
#define NH_RSP		(NH(UET_NH_RSP) | NH_DATA)
#define NH_CTL		(NH(UET_CTL_MAX + 1) - 1)

/* Reserved flag bits per type (docs/protocol.md §3.3 table). */
#define RSVD_REQ	0x63	/* 0x40 0x20 0x02 0x01; CTRL too (0x20 ISROD) */
#define RSVD_ACK	0x41	/* 0x40 (REF EPSN) 0x01 */
#define RSVD_NACK	0x47	/* 0x40 0x04 0x02 0x01 */
#define RSVD_RUDI_REQ	(0x7F & ~UET_PDS_F_RETX)
#define RSVD_RUDI_RESP	(0x7F & ~(UET_PDS_F_RETX | UET_PDS_F_M))
#define RSVD_UUD	0x7F

/* What each type allows: docs/protocol.md §3.1 (length), §3.2 (next_hdr,
 * REF-PARSE combinations), docs/protocol.md §3.3 (reserved flag bits). ACK
 * 0x40 is REF's EPSN and CTRL 0x20 REF's ISROD: reserved for uet
 * (docs/choices.md §10.4). */
struct pds_kind {
	uint8_t len;
	uint16_t nh_ok;			/* bit n set: next_hdr n allowed */
	int nh_err;			/* error for any other value */
	uint8_t rsvd_flags;
	int (*get)(struct uet_pds_hdr *h, const uint8_t *buf);
	int (*check)(const struct uet_pds_hdr *h);
	void (*put)(uint8_t *buf, const struct uet_pds_hdr *h);
};

/* RUDI request/response (docs/protocol.md §4.8): 16 reserved bits, then
 * pkt_id. */
static int rudi_get(struct uet_pds_hdr *h, const uint8_t *buf)
{
	if (uet_be_get16(buf + 2))
		return UET_ERR_WIRE_RESERVED;
	h->rudi.pkt_id = uet_be_get32(buf + 4);
	return 0;
}

/* RUDI and UUD carry no field with a width narrower than its member. */
static int no_check(const struct uet_pds_hdr *h)
{
	(void)h;
	return 0;
}

static void rudi_put(uint8_t *buf, const struct uet_pds_hdr *h)
{
	uet_be_put32(buf + 4, h->rudi.pkt_id);
}

/* UUD request (docs/protocol.md §4.9): 16 reserved bits only. */
static int uud_get(struct uet_pds_hdr *h, const uint8_t *buf)
{
	(void)h;
	return uet_be_get16(buf + 2) ? UET_ERR_WIRE_RESERVED : 0;
}

static void uud_put(uint8_t *buf, const struct uet_pds_hdr *h)
{
	(void)buf;
	(void)h;
}

#define REQ_KIND(l) { (l), NH_FWD | NH_DATA, UET_ERR_WIRE_NEXT_HDR, RSVD_REQ, \
	uet_pds_req_get, uet_pds_req_check, uet_pds_req_put }
#define ACK_KIND(l) { (l), NH(UET_NH_NONE) | NH_RSP, UET_ERR_WIRE_NEXT_HDR, \
	RSVD_ACK, uet_pds_ack_get, uet_pds_ack_check, uet_pds_ack_put }
#define NACK_KIND(l) { (l), NH(UET_NH_NONE), UET_ERR_WIRE_NEXT_HDR, RSVD_NACK, \
	uet_pds_nack_get, uet_pds_nack_check, uet_pds_nack_put }

static const struct pds_kind pds_kinds[] = {
	[UET_PDS_RUD_REQ] = REQ_KIND(UET_PDS_REQ_LEN),
	[UET_PDS_ROD_REQ] = REQ_KIND(UET_PDS_REQ_LEN),
	[UET_PDS_RUDI_REQ] = { UET_PDS_RUDI_LEN, NH_FWD, UET_ERR_WIRE_NEXT_HDR,
		RSVD_RUDI_REQ, rudi_get, no_check, rudi_put },
	[UET_PDS_RUDI_RESP] = { UET_PDS_RUDI_LEN, NH_RSP, UET_ERR_WIRE_NEXT_HDR,
		RSVD_RUDI_RESP, rudi_get, no_check, rudi_put },
	[UET_PDS_UUD_REQ] = { UET_PDS_UUD_LEN, NH_FWD, UET_ERR_WIRE_NEXT_HDR,
		RSVD_UUD, uud_get, no_check, uud_put },
	[UET_PDS_ACK] = ACK_KIND(UET_PDS_ACK_LEN),
	[UET_PDS_ACK_CC] = ACK_KIND(UET_PDS_ACK_CC_LEN),
	[UET_PDS_ACK_CCX] = ACK_KIND(UET_PDS_ACK_CCX_LEN),
	[UET_PDS_NACK] = NACK_KIND(UET_PDS_NACK_LEN),
	[UET_PDS_CTRL] = { UET_PDS_CTRL_LEN, NH_CTL, UET_ERR_WIRE_CTL_TYPE,
		RSVD_REQ, uet_pds_ctrl_get, uet_pds_ctrl_check,
		uet_pds_ctrl_put },
	[UET_PDS_NACK_CCX] = NACK_KIND(UET_PDS_NACK_CCX_LEN),
	[UET_PDS_RUD_CC_REQ] = REQ_KIND(UET_PDS_CC_REQ_LEN),
	[UET_PDS_ROD_CC_REQ] = REQ_KIND(UET_PDS_CC_REQ_LEN),
};

/* NULL for reserved types and for TSS (type 1), which is no PDS header. */
static const struct pds_kind *pds_kind(unsigned type)
{
	if (type >= sizeof(pds_kinds) / sizeof(pds_kinds[0]) ||
	    !pds_kinds[type].len)
		return NULL;
	return &pds_kinds[type];
}

static int pds_prologue_check(const struct pds_kind *k,
			      const struct uet_pds_hdr *h)
{
	if (!(k->nh_ok & NH(h->next_hdr)))
		return k->nh_err;
	if (h->flags & k->rsvd_flags)
		return UET_ERR_WIRE_RESERVED;
	return 0;
}

int uet_pds_hdr_len(uint8_t type)
{
	const struct pds_kind *k = pds_kind(type);

	return k ? k->len : UET_ERR_WIRE_TYPE;
}

bool uet_pds_is_req(uint8_t type)
{
	return type == UET_PDS_RUD_REQ || type == UET_PDS_ROD_REQ ||
	       type == UET_PDS_RUD_CC_REQ || type == UET_PDS_ROD_CC_REQ;
}

int uet_pds_hdr_decode_into(struct uet_pds_hdr *h, const uint8_t *buf,
			    size_t len)
{
	const struct pds_kind *k;
	uint16_t w;
	int rc;

	if (len < 2)
		return UET_ERR_WIRE_TRUNC;
	w = uet_be_get16(buf);
	h->type = (uint8_t)(w >> PDS_TYPE_SHIFT);
	h->next_hdr = (w >> PDS_NH_SHIFT) & PDS_NH_MAX;
	h->flags = w & PDS_FLAGS_MAX;

	k = pds_kind(h->type);
	if (!k)
		return UET_ERR_WIRE_TYPE;
	if (len < k->len)
		return UET_ERR_WIRE_TRUNC;
	rc = pds_prologue_check(k, h);
	if (!rc)
		rc = k->get(h, buf);
	return rc ? rc : k->len;
}

int uet_pds_hdr_decode(struct uet_pds_hdr *h, const uint8_t *buf, size_t len)
{
	struct uet_pds_hdr t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = uet_pds_hdr_decode_into(&t, buf, len);
	if (rc >= 0)
		*h = t;
	return rc;
}

int uet_pds_hdr_encode(uint8_t *buf, size_t cap, const struct uet_pds_hdr *h)
{
	const struct pds_kind *k = pds_kind(h->type);

	if (!k || h->next_hdr > PDS_NH_MAX || h->flags > PDS_FLAGS_MAX ||
	    pds_prologue_check(k, h) || k->check(h))
		return UET_ERR_WIRE_RANGE;
	if (cap < k->len)
		return UET_ERR_WIRE_NOSPACE;

	memset(buf, 0, k->len);
	uet_be_put16(buf, (uint16_t)(h->type << PDS_TYPE_SHIFT |
				     h->next_hdr << PDS_NH_SHIFT | h->flags));
	k->put(buf, h);
	return k->len;
}
