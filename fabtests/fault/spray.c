/* SPDX-License-Identifier: BSD-2-Clause */
/* The UDP sprayer of ft_spray (see spray.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "uet/addr.h"
#include "uet/ses/ses.h"
#include "uet/wire.h"

#include "spray.h"

#define ITEM_MAX	256	/* largest prebuilt packet */
#define RAND_LEN_MAX	9000	/* random datagrams: 0..9000 bytes */
#define PAYLOAD_LEN	32	/* payload of the requests we build */
#define F_PSN_MAX	16384	/* fake-PDC PSNs we can check answers of */
#define F_SPDCID	0x5001	/* our id of the fake PDC */
#define FAR_SPDCID	0x6100	/* SYN_FAR PDCs: 0x6100, 0x6101 */
#define INFO_SPDCID	0x6200	/* SYN_INFO: 0x6201.. */
#define STRANGER_SPDCID	0x7000	/* requests to DPDCIDs not ours */
#define FLOOD_SPDCID	0x8000	/* PDC flood: 0x8000.. */
#define DPDCID_SPAN	32	/* DPDCIDs tried: the first ones */
#define SYN_SPAN	4096	/* psn_offset is 12 bits */
#define DRAIN_MS	300
#define SEND_BATCH	8

struct item {
	uint8_t kind;
	uint8_t cls;
	bool random;
	uint16_t len;
	uint8_t buf[ITEM_MAX];
};

/* The fake PDC: a stranger's PDC opened with SYN like any initiator's. */
struct fpdc {
	uint32_t start;
	uint32_t next;			/* next PSN */
	uint16_t mid;			/* next message_id of refusals */
	uint8_t rc[F_PSN_MAX];		/* expected RC + 1, by PSN */
};

struct spray {
	const struct spray_cfg *cfg;
	struct spray_result *res;
	int fd;
	uint64_t rng;
	uint16_t pid;			/* the endpoint's PIDonFEP */
	uint16_t ri;			/* and resource index */
	struct fpdc f;
	uint32_t far_start[2];
	uint16_t flood_next;		/* next flood SPDCID */
	struct item *items;
	size_t nitems;
	size_t cap;
	unsigned warned;
	uint8_t big[RAND_LEN_MAX];	/* random datagrams */
	uint8_t rbuf[65536];		/* answers */
};

/* Fields of one request we build. */
struct reqspec {
	uint8_t type;
	bool syn;
	uint16_t spdcid;
	uint16_t dpdcid;
	uint32_t psn;
	uint16_t psn_offset;
	uint8_t pdc_info;
	int16_t clear_off;
	uint8_t ses_flags;
	uint16_t mid;
	uint32_t job;
	uint16_t pid;
	uint16_t ri;
	uint32_t request_length;
	uint32_t message_offset;	/* without SOM */
	size_t plen;
};

static const char *const class_names[SPRAY_C_MAX] = {
	"malformed", "pdc", "psn", "job", "other", "refused", "unknown",
	"flood",
};

static const char *const kind_names[SPRAY_K_MAX] = {
	"random", "trunc", "dpdcid", "spdcid", "syn_offset", "syn_info",
	"syn_far", "psn_far", "job", "pid", "ri", "rsvd_type", "unsup_type",
	"ack", "nack", "nack_rudi", "ctrl", "huge_len", "bad_offset",
	"pdc_flood",
};

const char *spray_class_name(unsigned c)
{
	return c < SPRAY_C_MAX ? class_names[c] : "?";
}

const char *spray_kind_name(unsigned k)
{
	return k < SPRAY_K_MAX ? kind_names[k] : "?";
}

/* xorshift64*: reproducible from cfg->seed. */
static uint64_t rnd(struct spray *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545F4914F6CDD1Dull;
}

static uint32_t rnd32(struct spray *s)
{
	return (uint32_t)(rnd(s) >> 32);
}

static void rnd_bytes(struct spray *s, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(rnd(s) >> 56);
}

static struct item *item_new(struct spray *s, unsigned kind)
{
	struct item *it;

	if (s->nitems == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct item *n = realloc(s->items, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->items = n;
		s->cap = cap;
	}
	it = &s->items[s->nitems];
	memset(it, 0, sizeof(*it));
	it->kind = (uint8_t)kind;
	return it;
}

/* What the receiver's engine must do with these bytes: the codec is the
 * same on both sides, so a packet it refuses here is malformed there. */
static unsigned classify(const uint8_t *buf, size_t len, unsigned want)
{
	struct uet_pkt p;

	return uet_pkt_decode(&p, buf, len, 0) < 0 ? SPRAY_C_MALFORMED : want;
}

static void warn_enc(struct spray *s, unsigned kind, int rc)
{
	s->res->skipped++;
	if (s->warned++ < 10)
		fprintf(stderr, "spray: %s: encode failed: %d (%s)\n",
			spray_kind_name(kind), rc, uet_err_str(rc));
}

/* Encode p, append plen random payload bytes, and keep it as an item of
 * this kind with class want (or malformed). NULL when it does not fit. */
static struct item *add_pkt(struct spray *s, unsigned kind, unsigned want,
			    const struct uet_pkt *p, size_t plen)
{
	struct item *it = item_new(s, kind);
	int n;

	if (!it)
		return NULL;
	n = uet_pkt_encode(it->buf, ITEM_MAX, p);
	if (n < 0 || (size_t)n + plen > ITEM_MAX) {
		warn_enc(s, kind, n < 0 ? n : UET_ERR_WIRE_NOSPACE);
		return NULL;
	}
	rnd_bytes(s, it->buf + n, plen);
	it->len = (uint16_t)(n + plen);
	it->cls = (uint8_t)classify(it->buf, it->len, want);
	s->nitems++;
	return it;
}

static void req_default(struct spray *s, struct reqspec *r)
{
	memset(r, 0, sizeof(*r));
	r->type = UET_PDS_RUD_REQ;
	r->ses_flags = UET_SES_F_SOM | UET_SES_F_EOM;
	r->job = s->cfg->job_id & 0xFFFFFF;
	r->pid = s->pid;
	r->ri = s->ri;
	r->plen = PAYLOAD_LEN;
	r->request_length = PAYLOAD_LEN;
	r->psn = rnd32(s);
	r->spdcid = STRANGER_SPDCID;
}

static void req_pkt(struct uet_pkt *p, const struct reqspec *r)
{
	memset(p, 0, sizeof(*p));
	p->pds.type = r->type;
	p->pds.next_hdr = UET_NH_REQ_STD;
	p->pds.flags = r->syn ? UET_PDS_F_SYN : 0;
	p->pds.req.clear_psn_offset = r->clear_off;
	p->pds.req.psn = r->psn;
	p->pds.req.spdcid = r->spdcid;
	if (r->syn) {
		p->pds.req.pdc_info = r->pdc_info;
		p->pds.req.psn_offset = r->psn_offset;
	} else {
		p->pds.req.dpdcid = r->dpdcid;
	}
	p->has_req = true;
	p->req.format = UET_NH_REQ_STD;
	p->req.opcode = UET_SES_SEND;
	p->req.flags = r->ses_flags;
	p->req.message_id = r->mid;
	p->req.request_length = r->request_length;
	p->req.job_id = r->job;
	p->req.pid_on_fep = r->pid;
	p->req.resource_index = r->ri;
	p->req.initiator = 0x51A7;
	if (!(r->ses_flags & UET_SES_F_SOM)) {
		p->req.payload_length = (uint16_t)r->plen;
		p->req.message_offset = r->message_offset;
	}
}

/* A request on the fake PDC: its next PSN, CLEAR of everything before
 * (the guaranteed responses of refusals are freed at once), SYN until we
 * learned its id from an answer. False when its PSN space is used up. */
static bool f_req(struct spray *s, struct reqspec *r)
{
	uint32_t i = s->f.next - s->f.start;

	req_default(s, r);
	if (i >= F_PSN_MAX || (!s->res->f_known && i >= SYN_SPAN))
		return false;
	r->spdcid = F_SPDCID;
	r->psn = s->f.next;
	r->clear_off = -1;
	if (s->res->f_known) {
		r->dpdcid = s->res->f_id;
	} else {
		r->syn = true;
		r->psn_offset = (uint16_t)i;
	}
	return true;
}

/* Keep a fake-PDC request; if the endpoint will take its PSN, remember
 * which return code its answer must carry. */
static void f_add(struct spray *s, unsigned kind, unsigned want,
		  const struct reqspec *r, uint8_t rc)
{
	struct uet_pkt p;
	struct item *it;

	req_pkt(&p, r);
	it = add_pkt(s, kind, want, &p, r->plen);
	if (it && it->cls != SPRAY_C_MALFORMED) {
		s->f.rc[s->f.next - s->f.start] = (uint8_t)(rc + 1);
		s->f.next++;
		s->res->f_psns++;
	}
}

/* ---- the kinds ---- */

static void build_trunc(struct spray *s)
{
	struct uet_pkt p;
	struct reqspec r;
	struct item full;
	size_t cut;
	int n;

	/* A fake-PDC request with a wrong JobID: every cut that still
	 * decodes (shorter payload) takes a PSN and is refused. */
	for (cut = 0;; cut++) {
		struct item *it;

		if (!f_req(s, &r)) {
			s->res->skipped++;
			break;
		}
		r.job ^= 0x800000;
		req_pkt(&p, &r);
		n = uet_pkt_encode(full.buf, ITEM_MAX, &p);
		if (n < 0) {
			warn_enc(s, SPRAY_K_TRUNC, n);
			break;
		}
		if (cut >= (size_t)n + r.plen)
			break;
		rnd_bytes(s, full.buf + n, r.plen);
		it = item_new(s, SPRAY_K_TRUNC);
		if (!it)
			break;
		memcpy(it->buf, full.buf, cut);
		it->len = (uint16_t)cut;
		it->cls = (uint8_t)classify(it->buf, cut, SPRAY_C_JOB);
		s->nitems++;
		if (it->cls != SPRAY_C_MALFORMED) {
			s->f.rc[s->f.next - s->f.start] =
				UET_RC_BAD_JOB_ID + 1;
			s->f.next++;
			s->res->f_psns++;
		}
	}

	/* Stranger packets of every family, cut at every length. */
	for (int b = 0; b < 9; b++) {
		unsigned want = SPRAY_C_PDC;
		size_t plen = 0;

		memset(&p, 0, sizeof(p));
		switch (b) {
		case 0:	/* request to a PDC that is not ours */
		case 1:	/* same without SOM: payload_length explicit */
			req_default(s, &r);
			r.dpdcid = (uint16_t)(rnd32(s) % DPDCID_SPAN);
			if (b == 1) {
				r.ses_flags = UET_SES_F_EOM;
				r.request_length = 2 * PAYLOAD_LEN;
				r.message_offset = PAYLOAD_LEN;
			}
			req_pkt(&p, &r);
			plen = r.plen;
			break;
		case 2:
		case 3:
		case 4:
			p.pds.type = b == 2 ? UET_PDS_ACK : b == 3 ?
				     UET_PDS_ACK_CC : UET_PDS_ACK_CCX;
			p.pds.ack.cack_psn = rnd32(s);
			p.pds.ack.spdcid = (uint16_t)rnd32(s);
			p.pds.ack.dpdcid = (uint16_t)(rnd32(s) % DPDCID_SPAN);
			if (b != 2) {
				p.pds.ack.mpr = 1;
				p.pds.ack.sack_bitmap = rnd(s);
			}
			if (b == 2) {
				/* an ACK carrying a SES response */
				p.pds.next_hdr = UET_NH_RSP;
				p.has_rsp = true;
				p.rsp.format = UET_NH_RSP;
				p.rsp.opcode = UET_SES_RESPONSE;
				p.rsp.return_code = UET_RC_OK;
				p.rsp.job_id = s->cfg->job_id & 0xFFFFFF;
			}
			break;
		case 5:
		case 6:
			p.pds.type = b == 5 ? UET_PDS_NACK : UET_PDS_NACK_CCX;
			p.pds.nack.code = UET_NACK_PSN_OOR_WINDOW;
			p.pds.nack.psn = rnd32(s);
			p.pds.nack.dpdcid = (uint16_t)(rnd32(s) % DPDCID_SPAN);
			break;
		case 7:
		case 8:
			p.pds.type = UET_PDS_CTRL;
			p.pds.next_hdr = b == 7 ? UET_CTL_CLOSE :
						  UET_CTL_ACK_REQ;
			p.pds.ctrl.psn = rnd32(s);
			p.pds.ctrl.spdcid = (uint16_t)rnd32(s);
			p.pds.ctrl.dpdcid = (uint16_t)(rnd32(s) % DPDCID_SPAN);
			break;
		}
		n = uet_pkt_encode(full.buf, ITEM_MAX, &p);
		if (n < 0 || (size_t)n + plen > ITEM_MAX) {
			warn_enc(s, SPRAY_K_TRUNC, n);
			continue;
		}
		rnd_bytes(s, full.buf + n, plen);
		for (cut = 0; cut < (size_t)n + plen; cut++) {
			struct item *it = item_new(s, SPRAY_K_TRUNC);

			if (!it)
				return;
			memcpy(it->buf, full.buf, cut);
			it->len = (uint16_t)cut;
			it->cls = (uint8_t)classify(it->buf, cut, want);
			s->nitems++;
		}
	}
}

static void build_dpdcid(struct spray *s)
{
	struct uet_pkt p;
	struct reqspec r;

	for (unsigned d = 0; d <= DPDCID_SPAN; d++) {
		req_default(s, &r);
		/* Never our fake PDC's SPDCID: even on its DPDCID this is a
		 * header mismatch, not a request of ours. */
		r.spdcid = (uint16_t)(STRANGER_SPDCID + d);
		r.dpdcid = d == DPDCID_SPAN ? 0xFFFF : (uint16_t)d;
		req_pkt(&p, &r);
		add_pkt(s, SPRAY_K_DPDCID, SPRAY_C_PDC, &p, r.plen);
	}
}

static void build_spdcid(struct spray *s)
{
	static const uint16_t wrong[] = { F_SPDCID ^ 1, F_SPDCID ^ 0x100, 0,
					  0xFFFF };
	struct uet_pkt p;
	struct reqspec r;

	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		if (!s->res->f_known || !f_req(s, &r)) {
			s->res->skipped++;
			continue;
		}
		r.spdcid = wrong[i];
		req_pkt(&p, &r);
		add_pkt(s, SPRAY_K_SPDCID, SPRAY_C_PDC, &p, r.plen);
	}
}

static void build_syn_offset(struct spray *s)
{
	static const int delta[] = { 1, 7, 100, -1 };
	struct uet_pkt p;
	struct reqspec r;

	for (size_t i = 0; i < sizeof(delta) / sizeof(delta[0]); i++) {
		uint32_t at;

		if (!f_req(s, &r)) {
			s->res->skipped++;
			continue;
		}
		/* A SYN on our PDC whose Start_PSN (psn - psn_offset) is not
		 * the one the PDC was opened with. */
		at = r.psn - s->f.start;
		r.syn = true;
		if (delta[i] < 0)
			r.psn_offset = 0;	/* Start_PSN = psn */
		else if (at >= SYN_SPAN)
			r.psn_offset = (uint16_t)(rnd32(s) % SYN_SPAN);
		else if (at + (uint32_t)delta[i] < SYN_SPAN)
			r.psn_offset = (uint16_t)(at + (uint32_t)delta[i]);
		else
			r.psn_offset = (uint16_t)(at - (uint32_t)delta[i]);
		if (r.psn_offset == at) {
			s->res->skipped++;
			continue;
		}
		req_pkt(&p, &r);
		add_pkt(s, SPRAY_K_SYN_OFFSET, SPRAY_C_PDC, &p, r.plen);
	}
}

static void build_syn_info(struct spray *s)
{
	struct uet_pkt p;
	struct reqspec r;

	for (unsigned info = 1; info < 16; info++) {
		req_default(s, &r);
		r.syn = true;
		r.spdcid = (uint16_t)(INFO_SPDCID + info);
		r.pdc_info = (uint8_t)info;
		r.psn_offset = 0;
		req_pkt(&p, &r);
		add_pkt(s, SPRAY_K_SYN_INFO, SPRAY_C_PDC, &p, r.plen);
	}
}

static void build_syn_far(struct spray *s)
{
	static const uint16_t off[] = { 1024, 2047, 4095 };
	struct uet_pkt p;
	struct reqspec r;

	for (unsigned j = 0; j < 2; j++) {
		for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
			/* Same Start_PSN every time: one PDC each, whose
			 * every SYN lies beyond the tracking range. */
			req_default(s, &r);
			r.syn = true;
			r.spdcid = (uint16_t)(FAR_SPDCID + j);
			r.psn = s->far_start[j] + off[i];
			r.psn_offset = off[i];
			r.job ^= 0x1;	/* were it taken, it is refused */
			req_pkt(&p, &r);
			add_pkt(s, SPRAY_K_SYN_FAR, SPRAY_C_PSN, &p, r.plen);
		}
	}
}

static void build_psn_far(struct spray *s)
{
	/* From the PDC's next PSN, so from CACK + 1 less what this round
	 * takes (some 100 PSNs): beyond [CACK + 1 - 1024, CACK + 1024]
	 * (acktr.h) however the round's packets are ordered. */
	static const int64_t off[] = { 2048, 5000, 1 << 20, 1ll << 31,
				       -2048, -100000 };
	struct uet_pkt p;
	struct reqspec r;

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		if (!s->res->f_known || !f_req(s, &r)) {
			s->res->skipped++;
			continue;
		}
		r.psn = s->f.next + (uint32_t)off[i];
		r.job ^= 0x1;
		req_pkt(&p, &r);
		add_pkt(s, SPRAY_K_PSN_FAR, SPRAY_C_PSN, &p, r.plen);
	}
}

static void build_job(struct spray *s)
{
	struct reqspec r;

	for (unsigned k = 0; k < 24; k++) {
		if (!f_req(s, &r))
			break;
		r.job ^= 1u << k;
		f_add(s, SPRAY_K_JOB, SPRAY_C_JOB, &r, UET_RC_BAD_JOB_ID);
	}
	for (unsigned k = 0; k < 12; k++) {
		if (!f_req(s, &r))
			break;
		r.pid ^= (uint16_t)(1u << k);
		f_add(s, SPRAY_K_PID, SPRAY_C_JOB, &r, UET_RC_BAD_PID);
	}
	for (unsigned k = 0; k < 12; k++) {
		if (!f_req(s, &r))
			break;
		r.ri ^= (uint16_t)(1u << k);
		f_add(s, SPRAY_K_RI, SPRAY_C_JOB, &r, UET_RC_BAD_INDEX);
	}
}

static void build_rsvd_type(struct spray *s)
{
	struct uet_pkt p;

	for (unsigned t = 0; t < 32; t++) {
		struct item *it;
		size_t len;

		if (t != 0 && t < 15)
			continue;
		it = item_new(s, SPRAY_K_RSVD_TYPE);
		if (!it)
			return;
		len = 16 + rnd32(s) % 32;
		rnd_bytes(s, it->buf, len);
		it->buf[0] = (uint8_t)(t << 3 | (it->buf[0] & 0x7));
		it->len = (uint16_t)len;
		it->cls = (uint8_t)classify(it->buf, len, SPRAY_C_OTHER);
		s->nitems++;
	}
	/* A TSS header: this endpoint has no secure domain. */
	memset(&p, 0, sizeof(p));
	p.has_tss = true;
	p.tss.sdi = rnd32(s) & 0xFFFFFF;
	p.tss.tsc = rnd(s) & 0xFFFFFFFFFFFFull;
	add_pkt(s, SPRAY_K_RSVD_TYPE, SPRAY_C_OTHER, &p, 48);
}

static void build_unsup_type(struct spray *s)
{
	static const uint8_t types[] = { UET_PDS_RUDI_REQ, UET_PDS_RUDI_RESP,
					 UET_PDS_UUD_REQ, UET_PDS_RUD_CC_REQ,
					 UET_PDS_ROD_CC_REQ };
	struct uet_pkt p;
	struct reqspec r;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		req_default(s, &r);
		r.dpdcid = (uint16_t)(rnd32(s) % DPDCID_SPAN);
		req_pkt(&p, &r);
		p.pds.type = types[i];
		if (types[i] == UET_PDS_RUDI_REQ ||
		    types[i] == UET_PDS_RUDI_RESP) {
			memset(&p.pds.req, 0, sizeof(p.pds.req));
			p.pds.rudi.pkt_id = rnd32(s);
		} else if (types[i] == UET_PDS_UUD_REQ) {
			memset(&p.pds.req, 0, sizeof(p.pds.req));
		}
		if (types[i] == UET_PDS_RUDI_RESP) {
			p.pds.next_hdr = UET_NH_RSP;
			p.has_req = false;
			p.has_rsp = true;
			p.rsp.format = UET_NH_RSP;
			p.rsp.opcode = UET_SES_RESPONSE;
			p.rsp.return_code = UET_RC_OK;
		}
		add_pkt(s, SPRAY_K_UNSUP_TYPE, SPRAY_C_OTHER, &p,
			p.has_req ? r.plen : 0);
	}
}

static void build_ack(struct spray *s)
{
	static const uint8_t types[] = { UET_PDS_ACK, UET_PDS_ACK_CC,
					 UET_PDS_ACK_CCX };
	static const uint8_t flags[] = { 0, UET_PDS_F_REQ_CLEAR,
					 UET_PDS_F_REQ_CLOSE, UET_PDS_F_RETX };
	struct uet_pkt p;

	for (unsigned d = 0; d <= DPDCID_SPAN; d++) {
		for (size_t t = 0; t < sizeof(types); t++) {
			memset(&p, 0, sizeof(p));
			p.pds.type = types[t];
			p.pds.flags = flags[(d + t) % sizeof(flags)];
			/* PSNs nobody sent; our fake PDC is a target PDC, so
			 * an ACK naming it is as foreign as the others. */
			p.pds.ack.ack_psn_offset = (int16_t)-(int)(rnd32(s) % 4);
			p.pds.ack.cack_psn = rnd32(s);
			p.pds.ack.spdcid = (uint16_t)rnd32(s);
			p.pds.ack.dpdcid = d == DPDCID_SPAN ?
				(s->res->f_known ? s->res->f_id : 0xFFFF) :
				(uint16_t)d;
			/* CC fields only where the type has them (codec). */
			if (types[t] != UET_PDS_ACK) {
				p.pds.ack.mpr = 1;
				p.pds.ack.sack_psn_offset =
					(int16_t)(rnd32(s) % 64);
				p.pds.ack.sack_bitmap = rnd(s);
			}
			if (types[t] == UET_PDS_ACK_CC)
				p.pds.ack.cc.service_time = (uint16_t)rnd32(s);
			if (types[t] == UET_PDS_ACK_CCX)
				rnd_bytes(s, p.pds.ack.ccx_state,
					  sizeof(p.pds.ack.ccx_state));
			add_pkt(s, SPRAY_K_ACK, SPRAY_C_PDC, &p, 0);
		}
	}
}

static void build_nack(struct spray *s)
{
	struct uet_pkt p;

	for (unsigned code = 0; code < 256; code++) {
		memset(&p, 0, sizeof(p));
		p.pds.type = UET_PDS_NACK;
		p.pds.flags = code & 1 ? UET_PDS_F_RETX : 0;
		p.pds.nack.code = (uint8_t)code;
		p.pds.nack.psn = rnd32(s);
		p.pds.nack.spdcid = (uint16_t)rnd32(s);
		p.pds.nack.dpdcid = (uint16_t)(code % DPDCID_SPAN);
		p.pds.nack.payload = rnd32(s);
		add_pkt(s, SPRAY_K_NACK, SPRAY_C_PDC, &p, 0);
		if (code % 8)
			continue;
		p.pds.type = UET_PDS_NACK_CCX;
		p.pds.nack.nccx_state1 = rnd(s) & 0x0FFFFFFFFFFFFFFFull;
		p.pds.nack.nccx_state2 = rnd(s);
		add_pkt(s, SPRAY_K_NACK, SPRAY_C_PDC, &p, 0);
	}
	for (unsigned i = 0; i < 4; i++) {
		memset(&p, 0, sizeof(p));
		p.pds.type = UET_PDS_NACK;
		p.pds.flags = UET_PDS_F_NT;
		p.pds.nack.code = UET_NACK_NO_RESOURCE;
		p.pds.nack.psn = rnd32(s);
		add_pkt(s, SPRAY_K_NACK_RUDI, SPRAY_C_OTHER, &p, 0);
	}
}

static void build_ctrl(struct spray *s)
{
	struct uet_pkt p;

	for (unsigned d = 0; d <= DPDCID_SPAN / 2; d++) {
		for (unsigned ct = 0; ct <= UET_CTL_MAX; ct++) {
			/* CLOSE to every DPDCID, the other types to half. */
			if (ct != UET_CTL_CLOSE && d % 2)
				continue;
			memset(&p, 0, sizeof(p));
			p.pds.type = UET_PDS_CTRL;
			p.pds.next_hdr = (uint8_t)ct;
			p.pds.flags = d % 4 == 0 ? UET_PDS_F_AR : 0;
			p.pds.ctrl.psn = rnd32(s);
			p.pds.ctrl.spdcid = (uint16_t)(STRANGER_SPDCID + d);
			p.pds.ctrl.dpdcid = d == DPDCID_SPAN / 2 ?
				(s->res->f_known ? s->res->f_id : 0xFFFF) :
				(uint16_t)d;
			add_pkt(s, SPRAY_K_CTRL, SPRAY_C_PDC, &p, 0);
		}
	}
	/* A CLOSE in the SYN phase: uet never sends one. */
	memset(&p, 0, sizeof(p));
	p.pds.type = UET_PDS_CTRL;
	p.pds.next_hdr = UET_CTL_CLOSE;
	p.pds.flags = UET_PDS_F_SYN;
	p.pds.ctrl.psn = rnd32(s);
	p.pds.ctrl.spdcid = STRANGER_SPDCID;
	add_pkt(s, SPRAY_K_CTRL, SPRAY_C_PDC, &p, 0);
}

static void build_huge_len(struct spray *s)
{
	static const uint64_t len[] = { 0, 0x80000000u, 0xFFFFFFFFu };
	struct reqspec r;

	for (size_t i = 0; i < sizeof(len) / sizeof(len[0]); i++) {
		uint64_t l = i ? len[i] : s->cfg->max_msg_size + 1;

		if (l <= s->cfg->max_msg_size || l > 0xFFFFFFFFu) {
			s->res->skipped++;
			continue;
		}
		if (!f_req(s, &r))
			break;
		r.mid = s->f.mid++;
		r.request_length = (uint32_t)l;
		f_add(s, SPRAY_K_HUGE_LEN, SPRAY_C_REFUSED, &r,
		      UET_RC_UNSUPPORTED_SIZE);
	}
}

static void build_bad_offset(struct spray *s)
{
	/* request_length 2 * PAYLOAD_LEN; a PAYLOAD_LEN chunk at: */
	static const uint32_t off[] = { 2 * PAYLOAD_LEN + 1, 0xFFFFFFF0u,
					PAYLOAD_LEN + PAYLOAD_LEN / 2 };
	struct reqspec r;

	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		if (!f_req(s, &r))
			break;
		r.mid = s->f.mid++;
		r.ses_flags = UET_SES_F_EOM;
		r.request_length = 2 * PAYLOAD_LEN;
		r.message_offset = off[i];
		f_add(s, SPRAY_K_BAD_OFFSET, SPRAY_C_REFUSED, &r,
		      UET_RC_OP_VIOLATION);
	}
}

static void build_pdc_flood(struct spray *s)
{
	struct uet_pkt p;
	struct reqspec r;

	for (unsigned i = 0; i < s->cfg->flood_per_round; i++) {
		/* A proper SYN of a new PDC each, refused for its JobID: the
		 * PDC stays open at the target until reaped. */
		req_default(s, &r);
		r.syn = true;
		r.spdcid = (uint16_t)(FLOOD_SPDCID + s->flood_next++);
		r.job ^= 0x2;
		req_pkt(&p, &r);
		add_pkt(s, SPRAY_K_PDC_FLOOD, SPRAY_C_FLOOD, &p, r.plen);
	}
}

static void build_random(struct spray *s)
{
	for (unsigned i = 0; i < s->cfg->random_per_round; i++) {
		struct item *it = item_new(s, SPRAY_K_RANDOM);

		if (!it)
			return;
		it->random = true;	/* bytes made when sent */
		s->nitems++;
	}
}

static void build_round(struct spray *s)
{
	s->nitems = 0;
	build_trunc(s);
	build_dpdcid(s);
	build_spdcid(s);
	build_syn_offset(s);
	build_syn_info(s);
	build_syn_far(s);
	build_psn_far(s);
	build_job(s);
	build_rsvd_type(s);
	build_unsup_type(s);
	build_ack(s);
	build_nack(s);
	build_ctrl(s);
	build_huge_len(s);
	build_bad_offset(s);
	build_pdc_flood(s);
	build_random(s);
	/* Fisher-Yates: every kind interleaved with every other. */
	for (size_t i = s->nitems; i > 1; i--) {
		size_t j = rnd(s) % i;
		struct item t = s->items[i - 1];

		s->items[i - 1] = s->items[j];
		s->items[j] = t;
	}
}

/* ---- answers ---- */

static void on_ack(struct spray *s, const struct uet_pkt *p)
{
	const struct uet_pds_ack *a = &p->pds.ack;
	struct spray_result *res = s->res;
	uint32_t psn, i;

	if (a->dpdcid != F_SPDCID)
		return;
	if (!res->f_known) {
		res->f_known = true;
		res->f_id = a->spdcid;
	}
	if (!p->has_rsp)
		return;
	psn = a->cack_psn + (uint32_t)(int32_t)a->ack_psn_offset;
	i = psn - s->f.start;
	if (i >= F_PSN_MAX || !s->f.rc[i]) {
		res->rc_unknown_psn++;
		return;
	}
	if (p->rsp.opcode == UET_SES_RESPONSE &&
	    p->rsp.return_code == s->f.rc[i] - 1) {
		res->rc_match++;
		return;
	}
	if (res->rc_mismatch++ < 10)
		fprintf(stderr, "spray: fake-PDC PSN start+%u answered %s %s, "
			"want RESPONSE %s\n", i,
			uet_name_rsp_opcode(p->rsp.opcode),
			uet_name_rc(p->rsp.return_code),
			uet_name_rc(s->f.rc[i] - 1u));
}

static void drain(struct spray *s)
{
	struct spray_result *res = s->res;

	for (;;) {
		ssize_t n = recv(s->fd, s->rbuf, sizeof(s->rbuf), MSG_DONTWAIT);
		struct uet_pkt p;

		if (n < 0)
			return;
		res->rx++;
		if (uet_pkt_decode(&p, s->rbuf, (size_t)n, 0) < 0) {
			res->rx_bad++;
			continue;
		}
		switch (p.pds.type) {
		case UET_PDS_ACK:
		case UET_PDS_ACK_CC:
		case UET_PDS_ACK_CCX:
			res->rx_acks++;
			on_ack(s, &p);
			break;
		case UET_PDS_NACK:
		case UET_PDS_NACK_CCX:
			res->rx_nacks++;
			res->nack_code[p.pds.nack.code]++;
			break;
		default:
			res->rx_other++;
			break;
		}
	}
}

static void drain_for(struct spray *s, int ms)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	struct timespec t0, t;
	int left = ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (left > 0) {
		poll(&pfd, 1, left);
		drain(s);
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
				  (t.tv_nsec - t0.tv_nsec) / 1000000);
	}
}

/* ---- sending ---- */

static void send_item(struct spray *s, struct item *it)
{
	uint8_t *big = s->big;
	const uint8_t *buf = it->buf;
	size_t len = it->len;
	unsigned cls = it->cls;

	if (it->random) {
		/* Half short (headers cut anywhere), half up to 9000; a third
		 * start with a valid PDS type to get past the first check. */
		len = rnd(s) & 1 ? rnd32(s) % 65 : rnd32(s) % (RAND_LEN_MAX + 1);
		rnd_bytes(s, big, len);
		if (len && rnd32(s) % 3 == 0)
			big[0] = (uint8_t)((2 + rnd32(s) % 13) << 3 |
					   (big[0] & 7));
		buf = big;
		cls = classify(big, len, SPRAY_C_UNKNOWN);
	}
	if (sendto(s->fd, buf, len, 0, (const struct sockaddr *)&s->cfg->dst,
		   sizeof(s->cfg->dst)) != (ssize_t)len) {
		s->res->send_err++;
		return;
	}
	s->res->sent++;
	s->res->kind[it->kind]++;
	s->res->cls[cls]++;
}

static void pause_us(unsigned us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)us * 1000 };

	if (us)
		nanosleep(&ts, NULL);
}

/* A plain UDP socket on loopback: the endpoint answers the fake PDC at
 * the address its SYN came from, so the answers come back to it. */
static int open_socket(struct spray *s)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), sz = 4 << 20;

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &al)) {
		close(fd);
		return -1;
	}
	s->res->port = ntohs(a.sin_port);
	s->res->answers = true;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return fd;
}

int spray_run(const struct spray_cfg *cfg, struct spray_result *res,
	      atomic_bool *stop)
{
	struct spray *s = calloc(1, sizeof(*s));
	struct uet_addr dst;
	struct reqspec r;

	memset(res, 0, sizeof(*res));
	if (!s)
		return -1;
	s->cfg = cfg;
	s->res = res;
	s->rng = cfg->seed ? cfg->seed : 0x5EED;
	memset(&dst, 0, sizeof(dst));
	dst.af = UET_AF_INET;
	dst.port = ntohs(cfg->dst.sin_port);
	memcpy(dst.ip, &cfg->dst.sin_addr, 4);
	/* The endpoint's ids follow from its address (uet/ses/ses.h). */
	s->pid = uet_addr_pid(&dst);
	s->ri = uet_addr_ri(&dst);
	s->fd = open_socket(s);
	if (s->fd < 0) {
		free(s);
		return -1;
	}
	s->f.start = (1u << 16) + rnd32(s) % (1u << 30);
	s->f.next = s->f.start;
	s->far_start[0] = (1u << 16) + rnd32(s) % (1u << 30);
	s->far_start[1] = (1u << 16) + rnd32(s) % (1u << 30);

	/* Open the fake PDC with a refused request and learn its id: one
	 * of our job refused for what it is (a length beyond any message),
	 * since one of another job opens no PDC. */
	s->nitems = 0;
	if (f_req(s, &r)) {
		r.mid = s->f.mid++;
		r.request_length = 0xFFFFFFFFu;
		f_add(s, SPRAY_K_HUGE_LEN, SPRAY_C_REFUSED, &r,
		      UET_RC_UNSUPPORTED_SIZE);
		for (size_t i = 0; i < s->nitems; i++)
			send_item(s, &s->items[i]);
		for (int t = 0; t < 10 && !res->f_known; t++)
			drain_for(s, 30);
	}

	for (unsigned round = 0; round < cfg->rounds; round++) {
		build_round(s);
		for (size_t i = 0; i < s->nitems; i++) {
			if (stop && atomic_load(stop))
				goto out;
			send_item(s, &s->items[i]);
			if (i % SEND_BATCH == SEND_BATCH - 1) {
				drain(s);
				pause_us(cfg->pace_us);
			}
		}
	}
out:
	drain_for(s, DRAIN_MS);
	close(s->fd);
	free(s->items);
	free(s);
	return 0;
}

void spray_print(FILE *f, const struct spray_result *res)
{
	fprintf(f, "spray: sent %llu send_err %llu skipped %llu",
		(unsigned long long)res->sent,
		(unsigned long long)res->send_err,
		(unsigned long long)res->skipped);
	for (unsigned c = 0; c < SPRAY_C_MAX; c++)
		fprintf(f, " %s %llu", class_names[c],
			(unsigned long long)res->cls[c]);
	fprintf(f, "\nspray-kinds:");
	for (unsigned k = 0; k < SPRAY_K_MAX; k++)
		fprintf(f, " %s %llu", kind_names[k],
			(unsigned long long)res->kind[k]);
	fprintf(f, "\nspray-answers: port %u answers %d f_known %d f_id %u "
		"f_psns %llu rx %llu acks %llu nacks %llu other %llu bad %llu "
		"rc_match %llu rc_mismatch %llu rc_unknown_psn %llu\n",
		res->port, res->answers, res->f_known, res->f_id,
		(unsigned long long)res->f_psns, (unsigned long long)res->rx,
		(unsigned long long)res->rx_acks,
		(unsigned long long)res->rx_nacks,
		(unsigned long long)res->rx_other,
		(unsigned long long)res->rx_bad,
		(unsigned long long)res->rc_match,
		(unsigned long long)res->rc_mismatch,
		(unsigned long long)res->rc_unknown_psn);
	fprintf(f, "spray-nack-codes:");
	for (unsigned c = 0; c < 256; c++)
		if (res->nack_code[c])
			fprintf(f, " %s %llu", uet_name_nack_code(c),
				(unsigned long long)res->nack_code[c]);
	fprintf(f, "\n");
}
