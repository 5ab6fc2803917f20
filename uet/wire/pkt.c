/* Whole packet: [entropy] then TSS, or PDS [+ SES] (docs/protocol.md §1.1). The
 * first 5 bits after the encapsulation tell TSS (type 1) from PDS; past a
 * TSS header everything is ciphertext and left to the TSS layer.
 */
#include <string.h>

#include "uet/wire.h"

#define PKT_FLAGS_KNOWN		((unsigned)UET_PKT_ENTROPY)
#define TYPE_SHIFT		3	/* type is the top 5 bits of byte 0 */

/* Where the SES header named by next_hdr goes: 1, 2, 3 are requests,
 * 4, 5, 6 responses; CTRL's field is ctl_type and names none. */
static bool has_req(const struct uet_pds_hdr *h)
{
	return h->type != UET_PDS_CTRL && h->next_hdr >= UET_NH_REQ_SMALL &&
	       h->next_hdr <= UET_NH_REQ_STD;
}

static bool has_rsp(const struct uet_pds_hdr *h)
{
	return h->type != UET_PDS_CTRL && h->next_hdr >= UET_NH_RSP &&
	       h->next_hdr <= UET_NH_RSP_DATA_SMALL;
}

/* Length fields that describe this packet's payload must equal what is there
 * (no trailer is expected, docs/choices.md §10.4): payload_length of a std
 * request without SOM and of a response with data. request_length of a
 * small/medium request is the message length, which says nothing exact about
 * the payload (none for a READ, operands for an atomic), so it is not
 * checked here. */
static int payload_check(const struct uet_pkt *p, size_t rest)
{
	if (p->has_req && p->req.format == UET_NH_REQ_STD &&
	    !(p->req.flags & UET_SES_F_SOM)) {
		/* A READ request asks for payload_length bytes, carries none
		 * (docs/protocol.md §5.3). */
		if (p->req.opcode == UET_SES_READ)
			return rest ? UET_ERR_WIRE_LENGTH : 0;
		return p->req.payload_length != rest ? UET_ERR_WIRE_LENGTH : 0;
	}
	if (p->has_rsp && p->rsp.format != UET_NH_RSP)
		return p->rsp.payload_length != rest ? UET_ERR_WIRE_LENGTH : 0;
	return 0;
}

static int ses_decode(struct uet_pkt *p, const uint8_t *buf, size_t len)
{
	if (has_req(&p->pds)) {
		p->has_req = true;
		return uet_ses_req_decode_into(&p->req, p->pds.next_hdr, buf,
					       len);
	}
	if (has_rsp(&p->pds)) {
		p->has_rsp = true;
		return uet_ses_rsp_decode(&p->rsp, p->pds.next_hdr, buf, len);
	}
	return 0;
}

/* The PDS header and the SES header it names, of a packet in the clear;
 * returns their length. */
static int clear_decode(struct uet_pkt *p, const uint8_t *buf, size_t len)
{
	int rc, off;

	off = uet_pds_hdr_decode_into(&p->pds, buf, len);
	if (off < 0)
		return off;
	rc = ses_decode(p, buf + off, len - (size_t)off);
	return rc < 0 ? rc : off + rc;
}

/* Everything after the optional entropy header. */
static int body_decode(struct uet_pkt *p, const uint8_t *buf, size_t len)
{
	int rc, off;

	if (!len)
		return UET_ERR_WIRE_TRUNC;
	if (buf[0] >> TYPE_SHIFT == UET_PDS_TYPE_TSS) {
		p->has_tss = true;
		return uet_tss_hdr_decode(&p->tss, buf, len);
	}
	off = clear_decode(p, buf, len);
	if (off < 0)
		return off;
	rc = payload_check(p, len - (size_t)off);
	return rc ? rc : off;
}

int uet_pkt_decode_into(struct uet_pkt *p, const uint8_t *buf, size_t len,
			unsigned flags)
{
	int off = 0, rc;

	if (flags & ~PKT_FLAGS_KNOWN)
		return UET_ERR_INVAL;
	if (flags & UET_PKT_ENTROPY) {
		off = uet_entropy_hdr_decode(&p->entropy, buf, len);
		if (off < 0)
			return off;
		p->has_entropy = true;
	}
	rc = body_decode(p, buf + off, len - (size_t)off);
	if (rc < 0)
		return rc;
	off += rc;
	p->hdr_len = (size_t)off;
	p->payload = buf + off;
	p->payload_len = len - (size_t)off;
	return off;
}

int uet_pkt_decode_sg(struct uet_pkt *p, const uint8_t *hdr, size_t hdr_len,
		      const uint8_t *payload, size_t payload_len)
{
	int off, rc;

	if (!hdr_len)
		return UET_ERR_WIRE_TRUNC;
	if (hdr[0] >> TYPE_SHIFT == UET_PDS_TYPE_TSS)
		return UET_ERR_WIRE_TYPE;
	off = clear_decode(p, hdr, hdr_len);
	if (off < 0)
		return off;
	if ((size_t)off != hdr_len)
		return UET_ERR_WIRE_LENGTH;
	rc = payload_check(p, payload_len);
	if (rc)
		return rc;
	p->hdr_len = hdr_len;
	p->payload = payload;
	p->payload_len = payload_len;
	return off;
}

int uet_pkt_decode(struct uet_pkt *p, const uint8_t *buf, size_t len,
		   unsigned flags)
{
	struct uet_pkt t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = uet_pkt_decode_into(&t, buf, len, flags);
	if (rc >= 0)
		*p = t;
	return rc;
}

/* The SES header present must be the one next_hdr names, and only it. */
static int ses_encode(uint8_t *buf, size_t cap, const struct uet_pkt *p)
{
	if (p->has_req && p->has_rsp)
		return UET_ERR_WIRE_RANGE;
	if (has_req(&p->pds)) {
		if (!p->has_req || p->req.format != p->pds.next_hdr)
			return UET_ERR_WIRE_RANGE;
		return uet_ses_req_encode(buf, cap, &p->req);
	}
	if (has_rsp(&p->pds)) {
		if (!p->has_rsp || p->rsp.format != p->pds.next_hdr)
			return UET_ERR_WIRE_RANGE;
		return uet_ses_rsp_encode(buf, cap, &p->rsp);
	}
	return p->has_req || p->has_rsp ? UET_ERR_WIRE_RANGE : 0;
}

static int body_encode(uint8_t *buf, size_t cap, const struct uet_pkt *p)
{
	int off, rc;

	/* With TSS the rest is ciphertext the caller appends. */
	if (p->has_tss)
		return p->has_req || p->has_rsp ? UET_ERR_WIRE_RANGE :
			uet_tss_hdr_encode(buf, cap, &p->tss);
	off = uet_pds_hdr_encode(buf, cap, &p->pds);
	if (off < 0)
		return off;
	rc = ses_encode(buf + off, cap - (size_t)off, p);
	return rc < 0 ? rc : off + rc;
}

int uet_pkt_encode(uint8_t *buf, size_t cap, const struct uet_pkt *p)
{
	int off = 0, rc;

	if (p->has_entropy) {
		off = uet_entropy_hdr_encode(buf, cap, &p->entropy);
		if (off < 0)
			return off;
	}
	rc = body_encode(buf + off, cap - (size_t)off, p);
	return rc < 0 ? rc : off + rc;
}
