/* SES response headers (docs/protocol.md §5.8, §5.10): plain response (12 B),
 * response with data (20 B), small response with data (12 B). Byte 0 is
 * list[7:6] | opcode[5:0], byte 1 version[7:6] | return_code[5:0]; every
 * 6-bit return code and 2-bit list value is passed through
 * (docs/protocol.md §5.9 leaves vendor ranges), the engine judges them.
 */
#include <string.h>

#include "uet/wire.h"

#include "be.h"

#define RSP_LOW6		0x3F
#define RSP_HI_SHIFT		6
#define RSP_LIST_MAX		0x3
#define PLEN14_MAX		0x3FFF
#define JOB_ID_MAX		0xFFFFFFu

static int rsp_len(uint8_t format)
{
	switch (format) {
	case UET_NH_RSP: return UET_SES_RSP_LEN;
	case UET_NH_RSP_DATA: return UET_SES_RSP_DATA_LEN;
	case UET_NH_RSP_DATA_SMALL: return UET_SES_RSP_DATA_SMALL_LEN;
	default: return UET_ERR_WIRE_NEXT_HDR;
	}
}

/* RESPONSE_W_DATA travels in the data formats only, the others in the
 * plain one (docs/protocol.md §5.8). */
static bool opcode_fits(uint8_t format, uint8_t opcode)
{
	if (opcode > UET_SES_NO_RESPONSE)
		return false;
	return (format == UET_NH_RSP) == (opcode != UET_SES_RESPONSE_W_DATA);
}

static int plain_get(struct uet_ses_rsp *t, const uint8_t *buf)
{
	uint32_t w = uet_be_get32(buf + 4);

	t->message_id = uet_be_get16(buf + 2);
	t->ri_generation = (uint8_t)(w >> 24);
	t->job_id = w & JOB_ID_MAX;
	t->modified_length = uet_be_get32(buf + 8);
	return 0;
}

static int data_get(struct uet_ses_rsp *t, const uint8_t *buf)
{
	uint32_t w = uet_be_get32(buf + 4);
	uint16_t plen = uet_be_get16(buf + 10);

	if (w > JOB_ID_MAX || plen > PLEN14_MAX)
		return UET_ERR_WIRE_RESERVED;
	t->message_id = uet_be_get16(buf + 2);
	t->job_id = w;
	t->read_request_message_id = uet_be_get16(buf + 8);
	t->payload_length = plen;
	t->modified_length = uet_be_get32(buf + 12);
	t->message_offset = uet_be_get32(buf + 16);
	return 0;
}

static int small_get(struct uet_ses_rsp *t, const uint8_t *buf)
{
	uint16_t plen = uet_be_get16(buf + 2);
	uint32_t w = uet_be_get32(buf + 4);

	if (w > JOB_ID_MAX || plen > PLEN14_MAX)
		return UET_ERR_WIRE_RESERVED;
	t->payload_length = plen;
	t->job_id = w;
	t->original_request_psn = uet_be_get32(buf + 8);
	return 0;
}

int uet_ses_rsp_decode(struct uet_ses_rsp *h, uint8_t format,
		       const uint8_t *buf, size_t len)
{
	struct uet_ses_rsp t;
	int hlen = rsp_len(format), rc;

	if (hlen < 0)
		return hlen;
	if (len < (size_t)hlen)
		return UET_ERR_WIRE_TRUNC;
	memset(&t, 0, sizeof(t));
	t.format = format;
	t.list = buf[0] >> RSP_HI_SHIFT;
	t.opcode = buf[0] & RSP_LOW6;
	t.version = buf[1] >> RSP_HI_SHIFT;
	t.return_code = buf[1] & RSP_LOW6;
	if (!opcode_fits(format, t.opcode))
		return UET_ERR_WIRE_OPCODE;
	if (t.version)
		return UET_ERR_WIRE_VERSION;
	if (format == UET_NH_RSP)
		rc = plain_get(&t, buf);
	else if (format == UET_NH_RSP_DATA)
		rc = data_get(&t, buf);
	else
		rc = small_get(&t, buf);
	if (rc)
		return rc;
	*h = t;
	return hlen;
}

/* Members each format lacks must be zero (wire.h contract). */
static bool format_ok(const struct uet_ses_rsp *h)
{
	switch (h->format) {
	case UET_NH_RSP:
		return !h->read_request_message_id && !h->payload_length &&
		       !h->message_offset && !h->original_request_psn;
	case UET_NH_RSP_DATA:
		return !h->ri_generation && h->payload_length <= PLEN14_MAX &&
		       !h->original_request_psn;
	case UET_NH_RSP_DATA_SMALL:
		return !h->message_id && !h->ri_generation &&
		       !h->modified_length && !h->read_request_message_id &&
		       h->payload_length <= PLEN14_MAX && !h->message_offset;
	default:
		return false;
	}
}

static void rsp_put(uint8_t *buf, const struct uet_ses_rsp *h)
{
	buf[0] = (uint8_t)(h->list << RSP_HI_SHIFT | h->opcode);
	buf[1] = h->return_code;	/* version 0 */
	switch (h->format) {
	case UET_NH_RSP:
		uet_be_put16(buf + 2, h->message_id);
		uet_be_put32(buf + 4, (uint32_t)h->ri_generation << 24 |
			     h->job_id);
		uet_be_put32(buf + 8, h->modified_length);
		break;
	case UET_NH_RSP_DATA:
		uet_be_put16(buf + 2, h->message_id);
		uet_be_put32(buf + 4, h->job_id);
		uet_be_put16(buf + 8, h->read_request_message_id);
		uet_be_put16(buf + 10, h->payload_length);
		uet_be_put32(buf + 12, h->modified_length);
		uet_be_put32(buf + 16, h->message_offset);
		break;
	default:
		uet_be_put16(buf + 2, h->payload_length);
		uet_be_put32(buf + 4, h->job_id);
		uet_be_put32(buf + 8, h->original_request_psn);
		break;
	}
}

int uet_ses_rsp_encode(uint8_t *buf, size_t cap, const struct uet_ses_rsp *h)
{
	int hlen = rsp_len(h->format);

	if (hlen < 0 || h->list > RSP_LIST_MAX ||
	    !opcode_fits(h->format, h->opcode) || h->version ||
	    h->return_code > RSP_LOW6 || h->job_id > JOB_ID_MAX ||
	    !format_ok(h))
		return UET_ERR_WIRE_RANGE;
	if (cap < (size_t)hlen)
		return UET_ERR_WIRE_NOSPACE;
	rsp_put(buf, h);
	return hlen;
}
