/* SES request headers: standard (44 B), small (20 B) and medium (32 B),
 * docs/protocol.md §5.2-§5.5, followed by the extension the opcode implies.
 */
#include <string.h>

#include "uet/wire.h"

#include "be.h"
#include "ses_req_ext.h"

#define SES_RSVD_HI		0xC0	/* byte 0 [7:6] */
#define SES_LOW6		0x3F
#define SES_VERSION_SHIFT	6
#define REQ_LEN14_MAX		0x3FFF
#define JOB_ID_MAX		0xFFFFFFu
#define IDX12_MAX		0x0FFF
#define SOM_EOM			(UET_SES_F_SOM | UET_SES_F_EOM)
/* std without SOM: rsvd[63:46] payload_length[45:32] message_offset[31:0] */
#define STD_PLEN_SHIFT		32
#define STD_RSVD_SHIFT		46

static int base_len(uint8_t format)
{
	switch (format) {
	case UET_NH_REQ_SMALL: return UET_SES_SMALL_LEN;
	case UET_NH_REQ_MEDIUM: return UET_SES_MEDIUM_LEN;
	case UET_NH_REQ_STD: return UET_SES_STD_LEN;
	default: return UET_ERR_WIRE_NEXT_HDR;
	}
}

/* The first 12 bytes, common to all formats (docs/protocol.md §5.2). */
static int common_get(struct uet_ses_req *t, const uint8_t *buf)
{
	uint16_t w2 = uet_be_get16(buf + 2);
	uint32_t w4 = uet_be_get32(buf + 4);
	uint16_t pid = uet_be_get16(buf + 8), ri = uet_be_get16(buf + 10);

	if (buf[0] & SES_RSVD_HI)
		return UET_ERR_WIRE_RESERVED;
	t->opcode = buf[0] & SES_LOW6;
	if (t->opcode > UET_SES_SYNC_ATOMIC)
		return UET_ERR_WIRE_OPCODE;
	t->version = buf[1] >> SES_VERSION_SHIFT;
	if (t->version)
		return UET_ERR_WIRE_VERSION;
	t->flags = buf[1] & SES_LOW6;
	if (pid > IDX12_MAX || ri > IDX12_MAX)
		return UET_ERR_WIRE_RESERVED;
	if (t->format == UET_NH_REQ_STD) {
		t->message_id = w2;
	} else {
		/* Small and medium: rsvd[15:14] request_length[13:0]. */
		if (w2 > REQ_LEN14_MAX)
			return UET_ERR_WIRE_RESERVED;
		t->request_length = w2;
	}
	t->ri_generation = (uint8_t)(w4 >> 24);
	t->job_id = w4 & JOB_ID_MAX;
	t->pid_on_fep = pid;
	t->resource_index = ri;
	return 0;
}

static int std_get(struct uet_ses_req *t, const uint8_t *buf)
{
	uint64_t w32 = uet_be_get64(buf + 32);

	t->buffer_offset = uet_be_get64(buf + 12);
	t->initiator = uet_be_get32(buf + 20);
	t->match_bits = uet_be_get64(buf + 24);
	t->request_length = uet_be_get32(buf + 40);
	if (t->flags & UET_SES_F_SOM) {
		t->header_data = w32;
		return 0;
	}
	if (w32 >> STD_RSVD_SHIFT)
		return UET_ERR_WIRE_RESERVED;
	t->payload_length = (uint16_t)(w32 >> STD_PLEN_SHIFT) & REQ_LEN14_MAX;
	t->message_offset = (uint32_t)w32;
	return 0;
}

/* Small and medium requests are single-packet (docs/protocol.md §5.4, §5.5). */
static int small_get(struct uet_ses_req *t, const uint8_t *buf)
{
	if ((t->flags & SOM_EOM) != SOM_EOM || (t->flags & UET_SES_F_HD))
		return UET_ERR_WIRE_FLAGS;
	t->buffer_offset = uet_be_get64(buf + 12);
	return 0;
}

static int medium_get(struct uet_ses_req *t, const uint8_t *buf)
{
	if ((t->flags & SOM_EOM) != SOM_EOM)
		return UET_ERR_WIRE_FLAGS;
	if (t->flags & UET_SES_F_HD)
		t->header_data = uet_be_get64(buf + 12);
	else
		t->buffer_offset = uet_be_get64(buf + 12);
	t->initiator = uet_be_get32(buf + 20);
	t->match_bits = uet_be_get64(buf + 24);
	return 0;
}

static int format_get(struct uet_ses_req *t, const uint8_t *buf)
{
	switch (t->format) {
	case UET_NH_REQ_SMALL: return small_get(t, buf);
	case UET_NH_REQ_MEDIUM: return medium_get(t, buf);
	default: return std_get(t, buf);
	}
}

int uet_ses_req_decode_into(struct uet_ses_req *h, uint8_t format,
			    const uint8_t *buf, size_t len)
{
	int base = base_len(format), rc;

	if (base < 0)
		return base;
	if (len < (size_t)base)
		return UET_ERR_WIRE_TRUNC;
	h->format = format;
	rc = common_get(h, buf);
	if (!rc)
		rc = format_get(h, buf);
	if (!rc)
		rc = uet_ses_req_ext_get(h, buf + base, len - (size_t)base);
	return rc < 0 ? rc : base + rc;
}

int uet_ses_req_decode(struct uet_ses_req *h, uint8_t format,
		       const uint8_t *buf, size_t len)
{
	struct uet_ses_req t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = uet_ses_req_decode_into(&t, format, buf, len);
	if (rc >= 0)
		*h = t;
	return rc;
}

static bool common_ok(const struct uet_ses_req *h)
{
	return h->opcode <= UET_SES_SYNC_ATOMIC && !h->version &&
	       h->flags <= SES_LOW6 && h->job_id <= JOB_ID_MAX &&
	       h->pid_on_fep <= IDX12_MAX && h->resource_index <= IDX12_MAX;
}

static bool std_ok(const struct uet_ses_req *h)
{
	if (h->flags & UET_SES_F_SOM)
		return !h->payload_length && !h->message_offset;
	return !h->header_data && h->payload_length <= REQ_LEN14_MAX;
}

/* Fields small and medium share: no message_id, no segment fields, a
 * 14-bit length and a single packet. */
static bool single_ok(const struct uet_ses_req *h)
{
	return !h->message_id && h->request_length <= REQ_LEN14_MAX &&
	       (h->flags & SOM_EOM) == SOM_EOM &&
	       !h->payload_length && !h->message_offset;
}

static bool small_ok(const struct uet_ses_req *h)
{
	return single_ok(h) && !(h->flags & UET_SES_F_HD) && !h->initiator &&
	       !h->match_bits && !h->header_data;
}

static bool medium_ok(const struct uet_ses_req *h)
{
	if (!single_ok(h))
		return false;
	/* Offset 12 holds header_data with HD, buffer_offset without. */
	return h->flags & UET_SES_F_HD ? !h->buffer_offset : !h->header_data;
}

static bool format_ok(const struct uet_ses_req *h)
{
	switch (h->format) {
	case UET_NH_REQ_SMALL: return small_ok(h);
	case UET_NH_REQ_MEDIUM: return medium_ok(h);
	case UET_NH_REQ_STD: return std_ok(h);
	default: return false;
	}
}

int uet_ses_req_len(const struct uet_ses_req *h)
{
	int base = base_len(h->format);

	if (base < 0)
		return UET_ERR_WIRE_RANGE;
	return base + uet_ses_req_ext_len(uet_ses_req_ext(h->opcode,
							  h->amo.op));
}

static void common_put(uint8_t *buf, const struct uet_ses_req *h)
{
	buf[0] = h->opcode;
	buf[1] = h->flags;		/* version 0 */
	uet_be_put16(buf + 2, h->format == UET_NH_REQ_STD ?
		     h->message_id : (uint16_t)h->request_length);
	uet_be_put32(buf + 4, (uint32_t)h->ri_generation << 24 | h->job_id);
	uet_be_put16(buf + 8, h->pid_on_fep);
	uet_be_put16(buf + 10, h->resource_index);
}

static void std_put(uint8_t *buf, const struct uet_ses_req *h)
{
	uet_be_put64(buf + 12, h->buffer_offset);
	uet_be_put32(buf + 20, h->initiator);
	uet_be_put64(buf + 24, h->match_bits);
	if (h->flags & UET_SES_F_SOM)
		uet_be_put64(buf + 32, h->header_data);
	else
		uet_be_put64(buf + 32, (uint64_t)h->payload_length <<
			     STD_PLEN_SHIFT | h->message_offset);
	uet_be_put32(buf + 40, h->request_length);
}

static void format_put(uint8_t *buf, const struct uet_ses_req *h)
{
	switch (h->format) {
	case UET_NH_REQ_SMALL:
		uet_be_put64(buf + 12, h->buffer_offset);
		break;
	case UET_NH_REQ_MEDIUM:
		uet_be_put64(buf + 12, h->flags & UET_SES_F_HD ?
			     h->header_data : h->buffer_offset);
		uet_be_put32(buf + 20, h->initiator);
		uet_be_put64(buf + 24, h->match_bits);
		break;
	default:
		std_put(buf, h);
		break;
	}
}

int uet_ses_req_encode(uint8_t *buf, size_t cap, const struct uet_ses_req *h)
{
	int len;

	if (!common_ok(h) || !format_ok(h) || uet_ses_req_ext_check(h))
		return UET_ERR_WIRE_RANGE;
	len = uet_ses_req_len(h);
	if (cap < (size_t)len)
		return UET_ERR_WIRE_NOSPACE;
	common_put(buf, h);
	format_put(buf, h);
	uet_ses_req_ext_put(buf + base_len(h->format), h);
	return len;
}
