/* Helpers shared by the uet/wire Criterion tests and fuzz/wire_decode.c.
 *
 * Nothing here uses Criterion, so the libFuzzer target can include it.
 * Structs are compared field by field (never memcmp: padding and the
 * inactive arms of unions hold no meaning), and only the union arm the
 * header type selects is compared.
 */
#ifndef UET_WIRE_TEST_UTIL_H
#define UET_WIRE_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet/wire.h"

/* ---- Hand-written golden vectors (defined in golden_test.c) ---- */

enum wt_kind { WT_ENTROPY, WT_TSS, WT_PDS, WT_REQ, WT_RSP };

union wt_any {
	struct uet_entropy_hdr entropy;
	struct uet_tss_hdr tss;
	struct uet_pds_hdr pds;
	struct uet_ses_req req;
	struct uet_ses_rsp rsp;
};

/* One header: its wire bytes and the struct they mean. SES headers carry
 * their format (next_hdr) in want.req.format / want.rsp.format. */
struct wt_hdr {
	const char *name;
	enum wt_kind kind;
	const uint8_t *bytes;
	size_t len;
	union wt_any want;
};

/* A whole packet as uet_pkt_decode sees it: header vectors back to back,
 * then the payload. */
struct wt_pkt {
	const char *name;
	unsigned flags;			/* uet_pkt_decode flags */
	const struct wt_hdr *hdrs[4];	/* NULL-terminated */
	const uint8_t *payload;
	size_t payload_len;
};

extern const struct wt_hdr *const wt_hdrs[];	/* NULL-terminated */
extern const struct wt_pkt wt_pkts[];
extern const size_t wt_npkts;

/* Bytes and expected struct of a packet vector; *buf is an exact-size heap
 * block the caller frees. */
void wt_pkt_build(const struct wt_pkt *k, uint8_t **buf, size_t *len,
		  struct uet_pkt *want);
/* A vector by name; aborts the test when there is none. */
const struct wt_hdr *wt_hdr_find(const char *name);
const struct wt_pkt *wt_pkt_find(const char *name);

/* ---- Small utilities ---- */

/* Exact-size heap copy: ASan flags any read past len. */
static inline uint8_t *wt_dup(const uint8_t *b, size_t len)
{
	uint8_t *p = malloc(len);

	if (len && !p)
		abort();
	if (len)
		memcpy(p, b, len);
	return p;
}

static inline bool wt_is_decode_err(int rc)
{
	return rc <= UET_ERR_WIRE_TRUNC && rc >= UET_ERR_WIRE_LENGTH;
}

/* First differing byte, for messages. */
static inline void wt_bytes_diff(const uint8_t *got, const uint8_t *want,
				 size_t len, char *why, size_t n)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			snprintf(why, n, "byte %zu: got 0x%02x want 0x%02x",
				 i, got[i], want[i]);
			return;
		}
	}
	snprintf(why, n, "bytes equal");
}

/* Which extension a request opcode carries (docs/protocol.md §5.6,
 * docs/choices.md §10.1, §10.2): every
 * atomic request opcode, tagged or not, carries the 36-byte
 * compare-and-swap form when its atomic opcode is in the CSWAP family or
 * MSWAP, the 4-byte form otherwise. Written here, not taken from the
 * codec, so the tests check uet_ses_req_ext. */
static inline enum uet_ses_ext wt_req_ext(uint8_t opcode, uint8_t amo_op)
{
	switch (opcode) {
	case UET_SES_ATOMIC:
	case UET_SES_FETCHING_ATOMIC:
	case UET_SES_TSEND_ATOMIC:
	case UET_SES_TSEND_FETCH_ATOMIC:
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

/* ---- Field-wise comparison; on mismatch `why` names the field ---- */

#define WT_F(a, b, f) do {						\
	if ((a)->f != (b)->f) {						\
		snprintf(why, n, "%s: got %#llx want %#llx", #f,	\
			 (unsigned long long)(a)->f,			\
			 (unsigned long long)(b)->f);			\
		return false;						\
	}								\
} while (0)

#define WT_A(a, b, f) do {						\
	if (memcmp((a)->f, (b)->f, sizeof((a)->f))) {			\
		snprintf(why, n, "%s differs", #f);			\
		return false;						\
	}								\
} while (0)

static inline bool wt_cmp_entropy(const struct uet_entropy_hdr *a,
				  const struct uet_entropy_hdr *b,
				  char *why, size_t n)
{
	WT_F(a, b, entropy);
	return true;
}

static inline bool wt_cmp_tss(const struct uet_tss_hdr *a,
			      const struct uet_tss_hdr *b, char *why, size_t n)
{
	WT_F(a, b, sp);
	WT_F(a, b, an);
	WT_F(a, b, sdi);
	WT_F(a, b, ssi);
	WT_F(a, b, epoch);
	WT_F(a, b, tsc);
	return true;
}

static inline bool wt_cmp_pds(const struct uet_pds_hdr *a,
			      const struct uet_pds_hdr *b, char *why, size_t n)
{
	WT_F(a, b, type);
	WT_F(a, b, next_hdr);
	WT_F(a, b, flags);
	switch (a->type) {
	case UET_PDS_RUD_REQ:
	case UET_PDS_ROD_REQ:
	case UET_PDS_RUD_CC_REQ:
	case UET_PDS_ROD_CC_REQ:
		WT_F(a, b, req.clear_psn_offset);
		WT_F(a, b, req.psn);
		WT_F(a, b, req.spdcid);
		WT_F(a, b, req.dpdcid);
		WT_F(a, b, req.pdc_info);
		WT_F(a, b, req.psn_offset);
		WT_F(a, b, req.ccc_id);
		WT_F(a, b, req.credit_target);
		break;
	case UET_PDS_ACK:
	case UET_PDS_ACK_CC:
	case UET_PDS_ACK_CCX:
		WT_F(a, b, ack.probe_opaque);	/* aliases ack_psn_offset */
		WT_F(a, b, ack.cack_psn);
		WT_F(a, b, ack.spdcid);
		WT_F(a, b, ack.dpdcid);
		WT_F(a, b, ack.cc_type);
		WT_F(a, b, ack.cc_flags);
		WT_F(a, b, ack.mpr);
		WT_F(a, b, ack.sack_psn_offset);
		WT_F(a, b, ack.sack_bitmap);
		WT_F(a, b, ack.cc.service_time);
		WT_F(a, b, ack.cc.restore_cwnd);
		WT_F(a, b, ack.cc.rcv_cwnd_pend);
		WT_F(a, b, ack.cc.rcvd_bytes);
		WT_F(a, b, ack.cc.credit);
		WT_F(a, b, ack.cc.ooo_count);
		WT_A(a, b, ack.ccx_state);
		break;
	case UET_PDS_NACK:
	case UET_PDS_NACK_CCX:
		WT_F(a, b, nack.code);
		WT_F(a, b, nack.vendor_code);
		WT_F(a, b, nack.psn);
		WT_F(a, b, nack.spdcid);
		WT_F(a, b, nack.dpdcid);
		WT_F(a, b, nack.payload);
		WT_F(a, b, nack.nccx_type);
		WT_F(a, b, nack.nccx_state1);
		WT_F(a, b, nack.nccx_state2);
		break;
	case UET_PDS_CTRL:
		WT_F(a, b, ctrl.probe_opaque);
		WT_F(a, b, ctrl.psn);
		WT_F(a, b, ctrl.spdcid);
		WT_F(a, b, ctrl.dpdcid);
		WT_F(a, b, ctrl.pdc_info);
		WT_F(a, b, ctrl.psn_offset);
		WT_F(a, b, ctrl.payload);
		break;
	case UET_PDS_RUDI_REQ:
	case UET_PDS_RUDI_RESP:
		WT_F(a, b, rudi.pkt_id);
		break;
	default:	/* UUD: the prologue is all there is */
		break;
	}
	return true;
}

static inline bool wt_cmp_req(const struct uet_ses_req *a,
			      const struct uet_ses_req *b, char *why, size_t n)
{
	WT_F(a, b, format);
	WT_F(a, b, opcode);
	WT_F(a, b, version);
	WT_F(a, b, flags);
	WT_F(a, b, message_id);
	WT_F(a, b, request_length);
	WT_F(a, b, ri_generation);
	WT_F(a, b, job_id);
	WT_F(a, b, pid_on_fep);
	WT_F(a, b, resource_index);
	WT_F(a, b, buffer_offset);
	WT_F(a, b, initiator);
	WT_F(a, b, match_bits);
	WT_F(a, b, header_data);
	WT_F(a, b, payload_length);
	WT_F(a, b, message_offset);
	switch (wt_req_ext(a->opcode, a->amo.op)) {
	case UET_SES_EXT_AMO:
	case UET_SES_EXT_CSWAP:
		/* operands of a 4-byte extension must read back as zero */
		WT_F(a, b, amo.op);
		WT_F(a, b, amo.dt);
		WT_F(a, b, amo.semantic_control);
		WT_A(a, b, amo.compare);
		WT_A(a, b, amo.swap);
		break;
	case UET_SES_EXT_RNDV:
		WT_F(a, b, rndv.eager_length);
		WT_F(a, b, rndv.read_pid_on_fep);
		WT_F(a, b, rndv.read_resource_index);
		WT_F(a, b, rndv.read_offset);
		WT_F(a, b, rndv.read_match_bits);
		break;
	case UET_SES_EXT_SYNC:
		WT_F(a, b, sync.group);
		WT_F(a, b, sync.count);
		break;
	default:
		break;
	}
	return true;
}

static inline bool wt_cmp_rsp(const struct uet_ses_rsp *a,
			      const struct uet_ses_rsp *b, char *why, size_t n)
{
	WT_F(a, b, format);
	WT_F(a, b, list);
	WT_F(a, b, opcode);
	WT_F(a, b, version);
	WT_F(a, b, return_code);
	WT_F(a, b, message_id);
	WT_F(a, b, ri_generation);
	WT_F(a, b, job_id);
	WT_F(a, b, modified_length);
	WT_F(a, b, read_request_message_id);
	WT_F(a, b, payload_length);
	WT_F(a, b, message_offset);
	WT_F(a, b, original_request_psn);
	return true;
}

/* Compares what a decoded packet means; payload is checked by the caller
 * (it points into different buffers). */
static inline bool wt_cmp_pkt(const struct uet_pkt *a, const struct uet_pkt *b,
			      char *why, size_t n)
{
	char sub[160];

	WT_F(a, b, has_entropy);
	WT_F(a, b, has_tss);
	WT_F(a, b, has_req);
	WT_F(a, b, has_rsp);
	WT_F(a, b, hdr_len);
	WT_F(a, b, payload_len);
	if (a->has_entropy && !wt_cmp_entropy(&a->entropy, &b->entropy,
					      sub, sizeof(sub)))
		goto sub;
	if (a->has_tss) {
		if (!wt_cmp_tss(&a->tss, &b->tss, sub, sizeof(sub)))
			goto sub;
		return true;	/* nothing after TSS is decoded */
	}
	if (!wt_cmp_pds(&a->pds, &b->pds, sub, sizeof(sub)))
		goto sub;
	if (a->has_req && !wt_cmp_req(&a->req, &b->req, sub, sizeof(sub)))
		goto sub;
	if (a->has_rsp && !wt_cmp_rsp(&a->rsp, &b->rsp, sub, sizeof(sub)))
		goto sub;
	return true;
sub:
	snprintf(why, n, "%s", sub);
	return false;
}

static inline bool wt_cmp(enum wt_kind k, const union wt_any *a,
			  const union wt_any *b, char *why, size_t n)
{
	switch (k) {
	case WT_ENTROPY:
		return wt_cmp_entropy(&a->entropy, &b->entropy, why, n);
	case WT_TSS:
		return wt_cmp_tss(&a->tss, &b->tss, why, n);
	case WT_PDS:
		return wt_cmp_pds(&a->pds, &b->pds, why, n);
	case WT_REQ:
		return wt_cmp_req(&a->req, &b->req, why, n);
	case WT_RSP:
		return wt_cmp_rsp(&a->rsp, &b->rsp, why, n);
	}
	return false;
}

/* ---- Per-kind dispatch to the codec ---- */

static inline int wt_decode(const struct wt_hdr *g, union wt_any *out,
			    const uint8_t *buf, size_t len)
{
	switch (g->kind) {
	case WT_ENTROPY:
		return uet_entropy_hdr_decode(&out->entropy, buf, len);
	case WT_TSS:
		return uet_tss_hdr_decode(&out->tss, buf, len);
	case WT_PDS:
		return uet_pds_hdr_decode(&out->pds, buf, len);
	case WT_REQ:
		return uet_ses_req_decode(&out->req, g->want.req.format,
					  buf, len);
	case WT_RSP:
		return uet_ses_rsp_decode(&out->rsp, g->want.rsp.format,
					  buf, len);
	}
	return UET_ERR_INVAL;
}

static inline int wt_encode(enum wt_kind k, uint8_t *buf, size_t cap,
			    const union wt_any *in)
{
	switch (k) {
	case WT_ENTROPY:
		return uet_entropy_hdr_encode(buf, cap, &in->entropy);
	case WT_TSS:
		return uet_tss_hdr_encode(buf, cap, &in->tss);
	case WT_PDS:
		return uet_pds_hdr_encode(buf, cap, &in->pds);
	case WT_REQ:
		return uet_ses_req_encode(buf, cap, &in->req);
	case WT_RSP:
		return uet_ses_rsp_encode(buf, cap, &in->rsp);
	}
	return UET_ERR_INVAL;
}

/* Size of the out-struct a kind's decoder writes, for the "a failed decode
 * leaves the out-struct alone" checks. */
static inline size_t wt_size(enum wt_kind k)
{
	switch (k) {
	case WT_ENTROPY:
		return sizeof(struct uet_entropy_hdr);
	case WT_TSS:
		return sizeof(struct uet_tss_hdr);
	case WT_PDS:
		return sizeof(struct uet_pds_hdr);
	case WT_REQ:
		return sizeof(struct uet_ses_req);
	case WT_RSP:
		return sizeof(struct uet_ses_rsp);
	}
	return 0;
}

/* The payload length a decoded packet's SES header states, if it states one:
 * standard request without SOM (docs/protocol.md §5.3), responses with data
 * (§5.10). */
static inline bool wt_stated_payload_len(const struct uet_pkt *p, size_t *n)
{
	if (p->has_req && p->req.format == UET_NH_REQ_STD &&
	    !(p->req.flags & UET_SES_F_SOM)) {
		/* A READ request names the bytes it asks for and carries
		 * none (uet/wire/pkt.c payload_check). */
		*n = p->req.opcode == UET_SES_READ ? 0 : p->req.payload_length;
		return true;
	}
	if (p->has_rsp && (p->rsp.format == UET_NH_RSP_DATA ||
			   p->rsp.format == UET_NH_RSP_DATA_SMALL)) {
		*n = p->rsp.payload_length;
		return true;
	}
	return false;
}

/* ---- The decode / re-encode property (mutation test, corpus, fuzzer) ---- */

struct wt_prop {
	int rc;			/* what uet_pkt_decode returned */
	bool canonical;		/* re-encoded headers equal the input bytes */
	char why[256];		/* the violation, when the check fails */
};

/* Decodes buf[0..len) with `flags` and checks:
 *  - a failure returns a UET_ERR_WIRE_* decode code and leaves the
 *    out-struct byte for byte as it was;
 *  - a success returns hdr_len <= len, points payload at buf + hdr_len
 *    with payload_len <= len - hdr_len, agrees with `flags`, and when the
 *    SES header states a payload length, payload_len is that length (a
 *    packet that disagrees is UET_ERR_WIRE_LENGTH: no trailer is expected,
 *    docs/choices.md §10.4);
 *  - re-encoding the decoded struct succeeds with hdr_len bytes, and
 *    decoding those bytes (plus the original payload) gives the same
 *    struct.
 * Returns false with r->why set on a violation. */
static inline bool wt_pkt_property(const uint8_t *buf, size_t len,
				   unsigned flags, struct wt_prop *r)
{
	struct uet_pkt p, p2, before;
	uint8_t enc[UET_MAX_HDR_LEN + 64];
	uint8_t *re;
	size_t rest;
	char sub[160];
	int n, rc2;

	r->why[0] = '\0';
	r->canonical = false;
	memset(&p, 0x5A, sizeof(p));
	memcpy(&before, &p, sizeof(p));
	r->rc = uet_pkt_decode(&p, buf, len, flags);
	if (r->rc < 0) {
		if (!wt_is_decode_err(r->rc)) {
			snprintf(r->why, sizeof(r->why),
				 "decode returned %d, not a wire decode error",
				 r->rc);
			return false;
		}
		if (memcmp(&p, &before, sizeof(p))) {
			snprintf(r->why, sizeof(r->why),
				 "decode failed (%d) but wrote the out-struct",
				 r->rc);
			return false;
		}
		return true;
	}
	if ((size_t)r->rc != p.hdr_len || p.hdr_len > len ||
	    p.payload != buf + p.hdr_len || p.payload_len > len - p.hdr_len) {
		snprintf(r->why, sizeof(r->why),
			 "rc %d hdr_len %zu payload_len %zu len %zu, payload %s",
			 r->rc, p.hdr_len, p.payload_len, len,
			 p.payload == buf + p.hdr_len ? "ok" : "misplaced");
		return false;
	}
	if (p.has_entropy != !!(flags & UET_PKT_ENTROPY) ||
	    (p.has_req && p.has_rsp) ||
	    (p.has_tss && (p.has_req || p.has_rsp))) {
		snprintf(r->why, sizeof(r->why),
			 "inconsistent has_*: entropy %d tss %d req %d rsp %d",
			 p.has_entropy, p.has_tss, p.has_req, p.has_rsp);
		return false;
	}

	if (wt_stated_payload_len(&p, &rest) && rest != p.payload_len) {
		snprintf(r->why, sizeof(r->why),
			 "accepted with payload_len %zu, SES header says %zu",
			 p.payload_len, rest);
		return false;
	}

	memset(enc, 0, sizeof(enc));
	n = uet_pkt_encode(enc, sizeof(enc), &p);
	if (n != (int)p.hdr_len) {
		snprintf(r->why, sizeof(r->why),
			 "re-encode returned %d, decoded hdr_len %zu",
			 n, p.hdr_len);
		return false;
	}
	r->canonical = !memcmp(enc, buf, p.hdr_len);

	rest = len - p.hdr_len;
	re = malloc(p.hdr_len + rest);
	if (!re)
		abort();
	memcpy(re, enc, p.hdr_len);
	if (rest)
		memcpy(re + p.hdr_len, buf + p.hdr_len, rest);
	memset(&p2, 0xC3, sizeof(p2));
	rc2 = uet_pkt_decode(&p2, re, p.hdr_len + rest, flags);
	if (rc2 != r->rc) {
		snprintf(r->why, sizeof(r->why),
			 "re-decode returned %d, first decode %d", rc2, r->rc);
		free(re);
		return false;
	}
	if (!wt_cmp_pkt(&p2, &p, sub, sizeof(sub))) {
		snprintf(r->why, sizeof(r->why), "round trip changed %s", sub);
		free(re);
		return false;
	}
	if (p2.payload != re + p2.hdr_len ||
	    memcmp(p2.payload, p.payload, p.payload_len)) {
		snprintf(r->why, sizeof(r->why), "round trip changed payload");
		free(re);
		return false;
	}
	free(re);
	return true;
}

#endif
