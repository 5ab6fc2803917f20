/* SES request extensions (docs/protocol.md §5.6): atomic (4 B),
 * compare-and-swap (36 B), rendezvous (24 B, WS layout per docs/choices.md
 * §10.4) and the REF sync extension (4 B). They follow the base header of
 * every format.
 */
#include <string.h>

#include "uet/wire.h"

#include "be.h"
#include "ses_req_ext.h"

#define AMO_SC_MASK		(UET_AMO_SC_CACHEABLE | UET_AMO_SC_COHERENT)
#define RNDV_PID_MAX		0x3FFF
#define RNDV_RI_MAX		0x0FFF

enum uet_ses_ext uet_ses_req_ext(uint8_t opcode, uint8_t amo_op)
{
	switch (opcode) {
	case UET_SES_ATOMIC:
	case UET_SES_FETCHING_ATOMIC:
	case UET_SES_TSEND_ATOMIC:
	case UET_SES_TSEND_FETCH_ATOMIC:
		/* The atomic opcode picks the form, whatever the request
		 * opcode: the CSWAP family and MSWAP carry two 16-byte
		 * operands (docs/choices.md §10.1, §10.2). */
		if (amo_op >= UET_AMO_CSWAP && amo_op <= UET_AMO_MSWAP)
			return UET_SES_EXT_CSWAP;
		return UET_SES_EXT_AMO;
	case UET_SES_RENDEZVOUS_SEND:
	case UET_SES_RENDEZVOUS_TSEND:
		return UET_SES_EXT_RNDV;
	case UET_SES_SYNC_WRITE:
	case UET_SES_SYNC_ATOMIC:
		return UET_SES_EXT_SYNC;
	default:
		return UET_SES_EXT_NONE;
	}
}

int uet_ses_req_ext_len(enum uet_ses_ext ext)
{
	switch (ext) {
	case UET_SES_EXT_AMO: return UET_SES_AMO_EXT_LEN;
	case UET_SES_EXT_CSWAP: return UET_SES_CSWAP_EXT_LEN;
	case UET_SES_EXT_RNDV: return UET_SES_RNDV_EXT_LEN;
	case UET_SES_EXT_SYNC: return UET_SES_SYNC_EXT_LEN;
	default: return 0;
	}
}

/* Atomic extension: op, datatype, semantic control, reserved byte; the
 * compare-and-swap form appends compare and swap operands as raw bytes. */
static int amo_get(struct uet_ses_amo_ext *a, uint8_t opcode,
		   const uint8_t *buf, size_t len)
{
	if (len < UET_SES_AMO_EXT_LEN)
		return UET_ERR_WIRE_TRUNC;
	if (buf[0] > UET_AMO_OP_MAX || buf[1] > UET_AMO_DT_MAX)
		return UET_ERR_WIRE_AMO;
	if ((buf[2] & ~AMO_SC_MASK) || buf[3])
		return UET_ERR_WIRE_RESERVED;
	a->op = buf[0];
	a->dt = buf[1];
	a->semantic_control = buf[2];
	if (uet_ses_req_ext(opcode, a->op) != UET_SES_EXT_CSWAP)
		return UET_SES_AMO_EXT_LEN;
	if (len < UET_SES_CSWAP_EXT_LEN)
		return UET_ERR_WIRE_TRUNC;
	memcpy(a->compare, buf + 4, sizeof(a->compare));
	memcpy(a->swap, buf + 4 + sizeof(a->compare), sizeof(a->swap));
	return UET_SES_CSWAP_EXT_LEN;
}

/* Rendezvous: eager_length, rsvd[15:14] read_pid_on_fep[13:0],
 * rsvd[15:12] read_resource_index[11:0], read_offset, read_match_bits. */
static int rndv_get(struct uet_ses_rndv_ext *r, const uint8_t *buf,
		    size_t len)
{
	uint16_t pid, ri;

	if (len < UET_SES_RNDV_EXT_LEN)
		return UET_ERR_WIRE_TRUNC;
	pid = uet_be_get16(buf + 4);
	ri = uet_be_get16(buf + 6);
	if (pid > RNDV_PID_MAX || ri > RNDV_RI_MAX)
		return UET_ERR_WIRE_RESERVED;
	r->eager_length = uet_be_get32(buf);
	r->read_pid_on_fep = pid;
	r->read_resource_index = ri;
	r->read_offset = uet_be_get64(buf + 8);
	r->read_match_bits = uet_be_get64(buf + 16);
	return UET_SES_RNDV_EXT_LEN;
}

static int sync_get(struct uet_ses_sync_ext *s, const uint8_t *buf,
		    size_t len)
{
	if (len < UET_SES_SYNC_EXT_LEN)
		return UET_ERR_WIRE_TRUNC;
	s->group = uet_be_get16(buf);
	s->count = uet_be_get16(buf + 2);
	return UET_SES_SYNC_EXT_LEN;
}

int uet_ses_req_ext_get(struct uet_ses_req *h, const uint8_t *buf, size_t len)
{
	switch (uet_ses_req_ext(h->opcode, 0)) {
	case UET_SES_EXT_AMO:
		return amo_get(&h->amo, h->opcode, buf, len);
	case UET_SES_EXT_RNDV:
		return rndv_get(&h->rndv, buf, len);
	case UET_SES_EXT_SYNC:
		return sync_get(&h->sync, buf, len);
	default:
		return 0;
	}
}

_Static_assert(sizeof(((struct uet_ses_amo_ext *)0)->compare) % 8 == 0 &&
	       sizeof(((struct uet_ses_amo_ext *)0)->swap) % 8 == 0,
	       "zero_bytes reads whole words");

/* Word by word: every request without an extension checks 32 bytes
 * here, on every packet sent (n: a multiple of 8). */
static bool zero_bytes(const uint8_t *p, size_t n)
{
	uint64_t acc = 0, w;

	for (size_t i = 0; i < n; i += sizeof(w)) {
		memcpy(&w, p + i, sizeof(w));
		acc |= w;
	}
	return !acc;
}

static bool amo_ok(const struct uet_ses_amo_ext *a, enum uet_ses_ext ext)
{
	if (a->op > UET_AMO_OP_MAX || a->dt > UET_AMO_DT_MAX ||
	    (a->semantic_control & ~AMO_SC_MASK))
		return false;
	/* Operands are sent only in the compare-and-swap form. */
	return ext == UET_SES_EXT_CSWAP ||
	       (zero_bytes(a->compare, sizeof(a->compare)) &&
		zero_bytes(a->swap, sizeof(a->swap)));
}

int uet_ses_req_ext_check(const struct uet_ses_req *h)
{
	enum uet_ses_ext ext = uet_ses_req_ext(h->opcode, h->amo.op);
	const struct uet_ses_amo_ext *a = &h->amo;

	switch (ext) {
	case UET_SES_EXT_AMO:
	case UET_SES_EXT_CSWAP:
		return amo_ok(a, ext) ? 0 : UET_ERR_WIRE_RANGE;
	case UET_SES_EXT_RNDV:
		return h->rndv.read_pid_on_fep > RNDV_PID_MAX ||
		       h->rndv.read_resource_index > RNDV_RI_MAX ?
			UET_ERR_WIRE_RANGE : 0;
	case UET_SES_EXT_SYNC:
		return 0;
	default:
		/* No extension: the whole union (amo is its widest member)
		 * must be zero, or the caller would believe it was sent. */
		return a->op || a->dt || a->semantic_control ||
		       !zero_bytes(a->compare, sizeof(a->compare)) ||
		       !zero_bytes(a->swap, sizeof(a->swap)) ?
			UET_ERR_WIRE_RANGE : 0;
	}
}

static void amo_put(uint8_t *buf, const struct uet_ses_amo_ext *a, bool cswap)
{
	buf[0] = a->op;
	buf[1] = a->dt;
	buf[2] = a->semantic_control;
	buf[3] = 0;
	if (!cswap)
		return;
	memcpy(buf + 4, a->compare, sizeof(a->compare));
	memcpy(buf + 4 + sizeof(a->compare), a->swap, sizeof(a->swap));
}

static void rndv_put(uint8_t *buf, const struct uet_ses_rndv_ext *r)
{
	uet_be_put32(buf, r->eager_length);
	uet_be_put16(buf + 4, r->read_pid_on_fep);
	uet_be_put16(buf + 6, r->read_resource_index);
	uet_be_put64(buf + 8, r->read_offset);
	uet_be_put64(buf + 16, r->read_match_bits);
}

void uet_ses_req_ext_put(uint8_t *buf, const struct uet_ses_req *h)
{
	switch (uet_ses_req_ext(h->opcode, h->amo.op)) {
	case UET_SES_EXT_AMO:
		amo_put(buf, &h->amo, false);
		break;
	case UET_SES_EXT_CSWAP:
		amo_put(buf, &h->amo, true);
		break;
	case UET_SES_EXT_RNDV:
		rndv_put(buf, &h->rndv);
		break;
	case UET_SES_EXT_SYNC:
		uet_be_put16(buf, h->sync.group);
		uet_be_put16(buf + 2, h->sync.count);
		break;
	default:
		break;
	}
}
