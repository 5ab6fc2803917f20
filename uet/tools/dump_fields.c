/* uetdump -v: every field of every decoded header as name=value, in wire
 * order, with exactly the names and presence rules of uet/tools/FIELDS.md.
 * Integers are decimal (offsets signed), byte arrays lower-case hex; a
 * decoded name may follow the value in parentheses. */
#include <inttypes.h>

#include "dump.h"

static void pu(FILE *f, const char *name, uint64_t v)
{
	fprintf(f, DUMP_INDENT "%s=%" PRIu64 "\n", name, v);
}

static void ps(FILE *f, const char *name, int64_t v)
{
	fprintf(f, DUMP_INDENT "%s=%" PRId64 "\n", name, v);
}

/* value followed by its name, e.g. "pds.type=2 (RUD_REQ)" */
static void pn(FILE *f, const char *name, uint64_t v, const char *word)
{
	fprintf(f, DUMP_INDENT "%s=%" PRIu64 " (%s)\n", name, v, word);
}

static void phex(FILE *f, const char *name, const uint8_t *b, size_t n)
{
	size_t i;

	fprintf(f, DUMP_INDENT "%s=", name);
	for (i = 0; i < n; i++)
		fprintf(f, "%02x", b[i]);
	fputc('\n', f);
}

static void fields_tss(FILE *f, const struct uet_tss_hdr *t)
{
	pu(f, "tss.type", UET_PDS_TYPE_TSS);
	pu(f, "tss.sp", t->sp);
	pu(f, "tss.an", t->an);
	pu(f, "tss.sdi", t->sdi);
	if (t->sp)
		pu(f, "tss.ssi", t->ssi);
	pu(f, "tss.epoch", t->epoch);
	pu(f, "tss.tsc", t->tsc);
}

/* dpdcid, or pdc_info + psn_offset when SYN is set (docs/protocol.md §4.1,
 * §4.7) */
static void fields_dpdcid(FILE *f, bool syn, uint16_t dpdcid,
			  uint8_t pdc_info, uint16_t psn_offset)
{
	if (syn) {
		pu(f, "pds.pdc_info", pdc_info);
		pu(f, "pds.psn_offset", psn_offset);
	} else {
		pu(f, "pds.dpdcid", dpdcid);
	}
}

static void fields_req(FILE *f, const struct uet_pds_hdr *h)
{
	const struct uet_pds_req *r = &h->req;

	ps(f, "pds.clear_psn_offset", r->clear_psn_offset);
	pu(f, "pds.psn", r->psn);
	pu(f, "pds.spdcid", r->spdcid);
	fields_dpdcid(f, h->flags & UET_PDS_F_SYN, r->dpdcid, r->pdc_info,
		      r->psn_offset);
	if (h->type == UET_PDS_RUD_CC_REQ || h->type == UET_PDS_ROD_CC_REQ) {
		pu(f, "pds.ccc_id", r->ccc_id);
		pu(f, "pds.credit_target", r->credit_target);
	}
}

static void fields_ack(FILE *f, const struct uet_pds_hdr *h)
{
	const struct uet_pds_ack *a = &h->ack;

	if (h->flags & UET_PDS_F_P)
		pu(f, "pds.probe_opaque", a->probe_opaque);
	else
		ps(f, "pds.ack_psn_offset", a->ack_psn_offset);
	pu(f, "pds.cack_psn", a->cack_psn);
	pu(f, "pds.spdcid", a->spdcid);
	pu(f, "pds.dpdcid", a->dpdcid);
	if (h->type == UET_PDS_ACK)
		return;
	if (h->type == UET_PDS_ACK_CC)
		pn(f, "pds.cc_type", a->cc_type, uet_name_cc_type(a->cc_type));
	else
		pu(f, "pds.cc_type", a->cc_type);
	pu(f, "pds.cc_flags", a->cc_flags);
	pu(f, "pds.mpr", a->mpr);
	ps(f, "pds.sack_psn_offset", a->sack_psn_offset);
	pu(f, "pds.sack_bitmap", a->sack_bitmap);
	if (h->type == UET_PDS_ACK_CCX) {
		phex(f, "pds.ccx_state", a->ccx_state, sizeof(a->ccx_state));
		return;
	}
	if (a->cc_type == UET_CC_NSCC) {
		pu(f, "pds.service_time", a->cc.service_time);
		pu(f, "pds.restore_cwnd", a->cc.restore_cwnd);
		pu(f, "pds.rcv_cwnd_pend", a->cc.rcv_cwnd_pend);
		pu(f, "pds.rcvd_bytes", a->cc.rcvd_bytes);
	} else {
		pu(f, "pds.credit", a->cc.credit);
	}
	pu(f, "pds.ooo_count", a->cc.ooo_count);
}

static void fields_nack(FILE *f, const struct uet_pds_hdr *h)
{
	const struct uet_pds_nack *n = &h->nack;

	pn(f, "pds.nack_code", n->code, uet_name_nack_code(n->code));
	pu(f, "pds.vendor_code", n->vendor_code);
	pu(f, "pds.nack_psn", n->psn);
	pu(f, "pds.spdcid", n->spdcid);
	pu(f, "pds.dpdcid", n->dpdcid);
	pu(f, "pds.payload", n->payload);
	if (h->type == UET_PDS_NACK_CCX) {
		pu(f, "pds.nccx_type", n->nccx_type);
		pu(f, "pds.nccx_state1", n->nccx_state1);
		pu(f, "pds.nccx_state2", n->nccx_state2);
	}
}

static void fields_ctrl(FILE *f, const struct uet_pds_hdr *h)
{
	const struct uet_pds_ctrl *c = &h->ctrl;

	pu(f, "pds.probe_opaque", c->probe_opaque);
	pu(f, "pds.psn", c->psn);
	pu(f, "pds.spdcid", c->spdcid);
	fields_dpdcid(f, h->flags & UET_PDS_F_SYN, c->dpdcid, c->pdc_info,
		      c->psn_offset);
	pu(f, "pds.payload", c->payload);
}

static void fields_pds(FILE *f, const struct uet_pds_hdr *h)
{
	char words[64];

	pn(f, "pds.type", h->type, uet_name_pds_type(h->type));
	if (h->type == UET_PDS_CTRL)
		pn(f, "pds.ctl_type", h->next_hdr,
		   uet_name_ctl_type(h->next_hdr));
	else
		pn(f, "pds.next_hdr", h->next_hdr,
		   uet_name_next_hdr(h->next_hdr));
	dump_flags_pds(words, sizeof(words), h->type, h->flags);
	if (words[0])
		pn(f, "pds.flags", h->flags, words);
	else
		pu(f, "pds.flags", h->flags);

	switch (h->type) {
	case UET_PDS_RUD_REQ:
	case UET_PDS_ROD_REQ:
	case UET_PDS_RUD_CC_REQ:
	case UET_PDS_ROD_CC_REQ:
		fields_req(f, h);
		break;
	case UET_PDS_RUDI_REQ:
	case UET_PDS_RUDI_RESP:
		pu(f, "pds.pkt_id", h->rudi.pkt_id);
		break;
	case UET_PDS_ACK:
	case UET_PDS_ACK_CC:
	case UET_PDS_ACK_CCX:
		fields_ack(f, h);
		break;
	case UET_PDS_NACK:
	case UET_PDS_NACK_CCX:
		fields_nack(f, h);
		break;
	case UET_PDS_CTRL:
		fields_ctrl(f, h);
		break;
	}
}

static void fields_ext(FILE *f, const struct uet_ses_req *r)
{
	enum uet_ses_ext ext = uet_ses_req_ext(r->opcode, r->amo.op);

	switch (ext) {
	case UET_SES_EXT_NONE:
		break;
	case UET_SES_EXT_AMO:
	case UET_SES_EXT_CSWAP:
		pn(f, "ses.amo_op", r->amo.op, uet_name_amo_op(r->amo.op));
		pn(f, "ses.amo_dt", r->amo.dt, uet_name_amo_dt(r->amo.dt));
		pu(f, "ses.semantic_control", r->amo.semantic_control);
		if (ext == UET_SES_EXT_CSWAP) {
			phex(f, "ses.compare", r->amo.compare,
			     sizeof(r->amo.compare));
			phex(f, "ses.swap", r->amo.swap, sizeof(r->amo.swap));
		}
		break;
	case UET_SES_EXT_RNDV:
		pu(f, "ses.eager_length", r->rndv.eager_length);
		pu(f, "ses.read_pid_on_fep", r->rndv.read_pid_on_fep);
		pu(f, "ses.read_resource_index", r->rndv.read_resource_index);
		pu(f, "ses.read_offset", r->rndv.read_offset);
		pu(f, "ses.read_match_bits", r->rndv.read_match_bits);
		break;
	case UET_SES_EXT_SYNC:
		pu(f, "ses.sync_group", r->sync.group);
		pu(f, "ses.sync_count", r->sync.count);
		break;
	}
}

/* Common request fields (docs/protocol.md §5.2): message_id only in the
 * standard header, the 14-bit request_length in its place in small and
 * medium. */
static void fields_req_common(FILE *f, const struct uet_ses_req *r)
{
	char words[64];

	pn(f, "ses.opcode", r->opcode, uet_name_ses_opcode(r->opcode));
	pu(f, "ses.version", r->version);
	dump_flags_ses(words, sizeof(words), r->flags);
	if (words[0])
		pn(f, "ses.flags", r->flags, words);
	else
		pu(f, "ses.flags", r->flags);
	if (r->format == UET_NH_REQ_STD)
		pu(f, "ses.message_id", r->message_id);
	else
		pu(f, "ses.request_length", r->request_length);
	pu(f, "ses.ri_generation", r->ri_generation);
	pu(f, "ses.job_id", r->job_id);
	pu(f, "ses.pid_on_fep", r->pid_on_fep);
	pu(f, "ses.resource_index", r->resource_index);
}

static void fields_ses_req(FILE *f, const struct uet_ses_req *r)
{
	fields_req_common(f, r);
	switch (r->format) {
	case UET_NH_REQ_STD:
		pu(f, "ses.buffer_offset", r->buffer_offset);
		pu(f, "ses.initiator", r->initiator);
		pu(f, "ses.match_bits", r->match_bits);
		if (r->flags & UET_SES_F_SOM) {
			pu(f, "ses.header_data", r->header_data);
		} else {
			pu(f, "ses.payload_length", r->payload_length);
			pu(f, "ses.message_offset", r->message_offset);
		}
		pu(f, "ses.request_length", r->request_length);
		break;
	case UET_NH_REQ_SMALL:
		pu(f, "ses.buffer_offset", r->buffer_offset);
		break;
	case UET_NH_REQ_MEDIUM:
		if (r->flags & UET_SES_F_HD)
			pu(f, "ses.header_data", r->header_data);
		else
			pu(f, "ses.buffer_offset", r->buffer_offset);
		pu(f, "ses.initiator", r->initiator);
		pu(f, "ses.match_bits", r->match_bits);
		break;
	}
	fields_ext(f, r);
}

static void fields_ses_rsp(FILE *f, const struct uet_ses_rsp *r)
{
	pu(f, "ses.list", r->list);
	pn(f, "ses.rsp_opcode", r->opcode, uet_name_rsp_opcode(r->opcode));
	pu(f, "ses.version", r->version);
	pn(f, "ses.return_code", r->return_code,
	   uet_name_rc(r->return_code));
	switch (r->format) {
	case UET_NH_RSP:
		pu(f, "ses.message_id", r->message_id);
		pu(f, "ses.ri_generation", r->ri_generation);
		pu(f, "ses.job_id", r->job_id);
		pu(f, "ses.modified_length", r->modified_length);
		break;
	case UET_NH_RSP_DATA:
		pu(f, "ses.message_id", r->message_id);
		pu(f, "ses.job_id", r->job_id);
		pu(f, "ses.read_request_message_id",
		   r->read_request_message_id);
		pu(f, "ses.payload_length", r->payload_length);
		pu(f, "ses.modified_length", r->modified_length);
		pu(f, "ses.message_offset", r->message_offset);
		break;
	case UET_NH_RSP_DATA_SMALL:
		pu(f, "ses.payload_length", r->payload_length);
		pu(f, "ses.job_id", r->job_id);
		pu(f, "ses.original_request_psn", r->original_request_psn);
		break;
	}
}

void dump_fields(FILE *f, const struct uet_pkt *p,
		 const struct uet_pkt *clear)
{
	if (p->has_entropy)
		pu(f, "entropy.entropy", p->entropy.entropy);
	if (p->has_tss) {
		fields_tss(f, &p->tss);
		if (!clear)
			return;		/* the rest is ciphertext */
		p = clear;
	}
	fields_pds(f, &p->pds);
	if (p->has_req)
		fields_ses_req(f, &p->req);
	if (p->has_rsp)
		fields_ses_rsp(f, &p->rsp);
}
