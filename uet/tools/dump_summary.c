/* uetdump summary line: the UET part, tcpdump style, e.g.
 *   UET ev 49153 RUD_REQ [AR,RETX] psn 1000 clear_psn 990 pdc 17>33,
 *   SEND [SOM,EOM] msg_id 7 job 42 pid 3 ri 5 len 64, payload 64
 * PSN arithmetic follows docs/protocol.md §4.11. */
#include <inttypes.h>

#include "dump.h"

static void flags(FILE *f, const char *words)
{
	if (words[0])
		fprintf(f, " [%s]", words);
}

/* "pdc S>D", or with SYN "pdc S start_psn X" (Start_PSN = psn - offset). */
static void pdc(FILE *f, bool syn, uint16_t spdcid, uint16_t dpdcid,
		uint32_t psn, uint16_t psn_offset)
{
	if (syn)
		fprintf(f, " pdc %u start_psn %" PRIu32, spdcid,
			(uint32_t)(psn - psn_offset));
	else
		fprintf(f, " pdc %u>%u", spdcid, dpdcid);
}

static void summary_req(FILE *f, const struct uet_pds_hdr *h)
{
	const struct uet_pds_req *r = &h->req;

	fprintf(f, " psn %" PRIu32 " clear_psn %" PRIu32, r->psn,
		(uint32_t)(r->psn + r->clear_psn_offset));
	pdc(f, h->flags & UET_PDS_F_SYN, r->spdcid, r->dpdcid, r->psn,
	    r->psn_offset);
	if (h->type == UET_PDS_RUD_CC_REQ || h->type == UET_PDS_ROD_CC_REQ)
		fprintf(f, " ccc %u credit_target %" PRIu32, r->ccc_id,
			r->credit_target);
}

static void summary_ack(FILE *f, const struct uet_pds_hdr *h)
{
	const struct uet_pds_ack *a = &h->ack;

	fprintf(f, " cack_psn %" PRIu32, a->cack_psn);
	if (h->flags & UET_PDS_F_P)
		fprintf(f, " probe_opaque %u", a->probe_opaque);
	else
		fprintf(f, " ack_psn %" PRIu32,
			(uint32_t)(a->cack_psn + a->ack_psn_offset));
	fprintf(f, " pdc %u>%u", a->spdcid, a->dpdcid);
	if (h->type == UET_PDS_ACK)
		return;
	fprintf(f, " sack %" PRIu32 "/0x%016" PRIx64 " mpr %u",
		(uint32_t)(a->cack_psn + a->sack_psn_offset), a->sack_bitmap,
		a->mpr);
	if (h->type == UET_PDS_ACK_CCX)
		fprintf(f, " ccx_type %u", a->cc_type);
	else if (a->cc_type == UET_CC_NSCC)
		fprintf(f, " %s service_time %u rcvd_bytes %" PRIu32
			" ooo %u", uet_name_cc_type(a->cc_type),
			a->cc.service_time, a->cc.rcvd_bytes, a->cc.ooo_count);
	else
		fprintf(f, " %s credit %" PRIu32 " ooo %u",
			uet_name_cc_type(a->cc_type), a->cc.credit,
			a->cc.ooo_count);
}

static void summary_nack(FILE *f, const struct uet_pds_hdr *h)
{
	const struct uet_pds_nack *n = &h->nack;

	fprintf(f, " %s %s %" PRIu32 " pdc %u>%u payload %" PRIu32,
		uet_name_nack_code(n->code),
		h->flags & UET_PDS_F_NT ? "pkt_id" : "psn", n->psn,
		n->spdcid, n->dpdcid, n->payload);
	if (n->vendor_code)
		fprintf(f, " vendor %u", n->vendor_code);
	if (h->type == UET_PDS_NACK_CCX)
		fprintf(f, " nccx_type %u", n->nccx_type);
}

static void summary_ctrl(FILE *f, const struct uet_pds_hdr *h)
{
	const struct uet_pds_ctrl *c = &h->ctrl;

	fprintf(f, " %s psn %" PRIu32, uet_name_ctl_type(h->next_hdr),
		c->psn);
	pdc(f, h->flags & UET_PDS_F_SYN, c->spdcid, c->dpdcid, c->psn,
	    c->psn_offset);
	if (c->probe_opaque)
		fprintf(f, " probe_opaque %u", c->probe_opaque);
	fprintf(f, " payload %" PRIu32, c->payload);
}

static void summary_pds(FILE *f, const struct uet_pds_hdr *h)
{
	char words[64];

	fprintf(f, " %s", uet_name_pds_type(h->type));
	dump_flags_pds(words, sizeof(words), h->type, h->flags);
	flags(f, words);
	switch (h->type) {
	case UET_PDS_RUD_REQ:
	case UET_PDS_ROD_REQ:
	case UET_PDS_RUD_CC_REQ:
	case UET_PDS_ROD_CC_REQ:
		summary_req(f, h);
		break;
	case UET_PDS_RUDI_REQ:
	case UET_PDS_RUDI_RESP:
		fprintf(f, " pkt_id %" PRIu32, h->rudi.pkt_id);
		break;
	case UET_PDS_ACK:
	case UET_PDS_ACK_CC:
	case UET_PDS_ACK_CCX:
		summary_ack(f, h);
		break;
	case UET_PDS_NACK:
	case UET_PDS_NACK_CCX:
		summary_nack(f, h);
		break;
	case UET_PDS_CTRL:
		summary_ctrl(f, h);
		break;
	}
}

static void summary_ses_req(FILE *f, const struct uet_ses_req *r)
{
	char words[64];

	fprintf(f, ", %s", uet_name_ses_opcode(r->opcode));
	dump_flags_ses(words, sizeof(words), r->flags);
	flags(f, words);
	if (r->format == UET_NH_REQ_STD)
		fprintf(f, " msg_id %u", r->message_id);
	fprintf(f, " job %" PRIu32 " pid %u ri %u len %" PRIu32,
		r->job_id, r->pid_on_fep, r->resource_index,
		r->request_length);
	if (r->format == UET_NH_REQ_STD && !(r->flags & UET_SES_F_SOM))
		fprintf(f, " plen %u moff %" PRIu32, r->payload_length,
			r->message_offset);
	switch (uet_ses_req_ext(r->opcode, r->amo.op)) {
	case UET_SES_EXT_AMO:
	case UET_SES_EXT_CSWAP:
		fprintf(f, " amo %s/%s", uet_name_amo_op(r->amo.op),
			uet_name_amo_dt(r->amo.dt));
		break;
	case UET_SES_EXT_RNDV:
		fprintf(f, " eager %" PRIu32, r->rndv.eager_length);
		break;
	case UET_SES_EXT_SYNC:
		fprintf(f, " sync %u/%u", r->sync.group, r->sync.count);
		break;
	default:
		break;
	}
}

static void summary_ses_rsp(FILE *f, const struct uet_ses_rsp *r)
{
	fprintf(f, ", %s %s", uet_name_rsp_opcode(r->opcode),
		uet_name_rc(r->return_code));
	switch (r->format) {
	case UET_NH_RSP:
		fprintf(f, " msg_id %u job %" PRIu32 " mlen %" PRIu32,
			r->message_id, r->job_id, r->modified_length);
		break;
	case UET_NH_RSP_DATA:
		fprintf(f, " msg_id %u read_msg_id %u job %" PRIu32
			" plen %u moff %" PRIu32 " mlen %" PRIu32,
			r->message_id, r->read_request_message_id, r->job_id,
			r->payload_length, r->message_offset,
			r->modified_length);
		break;
	case UET_NH_RSP_DATA_SMALL:
		fprintf(f, " job %" PRIu32 " plen %u orig_psn %" PRIu32,
			r->job_id, r->payload_length, r->original_request_psn);
		break;
	}
}

void dump_summary_tss(FILE *f, const struct uet_pkt *p, bool decrypted)
{
	if (p->has_entropy)
		fprintf(f, " ev %u", p->entropy.entropy);
	fprintf(f, " TSS sdi=0x%06" PRIx32, p->tss.sdi);
	if (p->tss.sp)
		fprintf(f, " ssi=0x%08" PRIx32, p->tss.ssi);
	fprintf(f, " an=%u epoch=%u tsc=%" PRIu64, p->tss.an, p->tss.epoch,
		p->tss.tsc);
	if (decrypted)
		fprintf(f, " [decrypted]");
	else if (p->payload_len >= UET_TSS_ICV_LEN)
		fprintf(f, " (encrypted %zu bytes, ICV %u)",
			p->payload_len - UET_TSS_ICV_LEN, UET_TSS_ICV_LEN);
	else
		fprintf(f, " (%zu bytes, no room for the ICV)",
			p->payload_len);
}

void dump_summary(FILE *f, const struct uet_pkt *p,
		  const struct uet_pkt *clear)
{
	if (p->has_tss) {
		dump_summary_tss(f, p, clear);
		if (!clear)
			return;
		p = clear;
	} else if (p->has_entropy) {
		fprintf(f, " ev %u", p->entropy.entropy);
	}
	summary_pds(f, &p->pds);
	if (p->has_req)
		summary_ses_req(f, &p->req);
	if (p->has_rsp)
		summary_ses_rsp(f, &p->rsp);
	fprintf(f, ", payload %zu", p->payload_len);
}
