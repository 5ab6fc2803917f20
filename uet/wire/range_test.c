/* Encoder limits (wire.h): a value wider than its wire field is
 * UET_ERR_WIRE_RANGE, a short output buffer UET_ERR_WIRE_NOSPACE. Each case
 * starts from a golden struct and changes one field; the widest value that
 * fits must still encode and decode back unchanged.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static void expect_enc(const char *what, enum wt_kind k,
		       const union wt_any *in, int err)
{
	uint8_t buf[160];
	int n = wt_encode(k, buf, sizeof(buf), in);

	cr_expect_eq(n, err, "%s: encode returned %d (%s), want %s", what, n,
		     uet_err_str(n), uet_err_str(err));
}

/* Not a buffer problem, yet not encodable: any error but NOSPACE. */
static void expect_refused(const char *what, enum wt_kind k,
			   const union wt_any *in)
{
	uint8_t buf[160];
	int n = wt_encode(k, buf, sizeof(buf), in);

	cr_expect(n < 0 && n != UET_ERR_WIRE_NOSPACE,
		  "%s: encode returned %d (%s), want a refusal", what, n,
		  uet_err_str(n));
}

static void expect_fits(const char *what, const struct wt_hdr *g,
			const union wt_any *in)
{
	uint8_t buf[160];
	union wt_any got;
	char why[200];
	int n = wt_encode(g->kind, buf, sizeof(buf), in);
	int m;

	cr_expect_eq(n, (int)g->len, "%s: encode returned %d (%s)", what, n,
		     uet_err_str(n));
	if (n != (int)g->len)
		return;
	m = wt_decode(g, &got, buf, (size_t)n);
	cr_expect_eq(m, n, "%s: decode returned %d (%s)", what, m,
		     uet_err_str(m));
	if (m == n)
		cr_expect(wt_cmp(g->kind, &got, in, why, sizeof(why)),
			  "%s: round trip: %s", what, why);
}

#define WITH(name, field, value, check) do {				\
	const struct wt_hdr *g_ = wt_hdr_find(#name);			\
	union wt_any u_ = g_->want;					\
	u_.field = value;						\
	check;								\
} while (0)

#define RANGE(name, field, value)					\
	WITH(name, field, value, expect_enc(#name "." #field " = " #value, \
					    g_->kind, &u_,		\
					    UET_ERR_WIRE_RANGE))
#define REFUSED(name, field, value)					\
	WITH(name, field, value, expect_refused(#name "." #field " = "	\
						#value, g_->kind, &u_))
#define FITS(name, field, value)					\
	WITH(name, field, value, expect_fits(#name "." #field " = "	\
					     #value, g_, &u_))

Test(range, tss)
{
	RANGE(tss, tss.sdi, 0x1000000);
	FITS(tss, tss.sdi, 0xFFFFFF);
	RANGE(tss, tss.tsc, 1ULL << 48);
	RANGE(tss_ssi, tss.tsc, ~0ULL);
	FITS(tss, tss.tsc, (1ULL << 48) - 1);
}

Test(range, pds)
{
	/* prologue: 5-bit type, 4-bit next_hdr, 7-bit flags (docs/protocol.md
	 * §3) */
	RANGE(pds_rud_req, pds.flags, 0x80);
	RANGE(pds_rud_req, pds.next_hdr, 16);
	REFUSED(pds_rud_req, pds.type, 0);
	REFUSED(pds_rud_req, pds.type, 15);
	REFUSED(pds_rud_req, pds.type, 32);
	/* SYN: pdc_info 4 bits, psn_offset 12 bits (docs/protocol.md §4.1) */
	RANGE(pds_rod_req_syn, pds.req.psn_offset, 0x1000);
	RANGE(pds_rod_req_syn, pds.req.pdc_info, 0x10);
	FITS(pds_rod_req_syn, pds.req.pdc_info, 0xF);
	RANGE(pds_ctrl_syn, pds.ctrl.psn_offset, 0x1000);
	RANGE(pds_ctrl_syn, pds.ctrl.pdc_info, 0x10);
	FITS(pds_ctrl_syn, pds.ctrl.psn_offset, 0xFFF);
	/* CC request: credit_target 24 bits */
	RANGE(pds_rud_cc_req, pds.req.credit_target, 0x1000000);
	FITS(pds_rud_cc_req, pds.req.credit_target, 0xFFFFFF);
	/* ACK_CC / ACK_CCX (docs/protocol.md §4.3, §4.4) */
	RANGE(pds_ack_ccx, pds.ack.cc_type, 0x10);
	FITS(pds_ack_ccx, pds.ack.cc_type, 0xF);
	RANGE(pds_ack_ccx, pds.ack.cc_flags, 0x10);
	FITS(pds_ack_ccx, pds.ack.cc_flags, 0xF);
	RANGE(pds_ack_cc_nscc, pds.ack.cc_flags, 0x10);
	RANGE(pds_ack_cc_nscc, pds.ack.cc.rcv_cwnd_pend, 0x80);
	FITS(pds_ack_cc_nscc, pds.ack.cc.rcv_cwnd_pend, 0x7F);
	RANGE(pds_ack_cc_nscc, pds.ack.cc.rcvd_bytes, 0x1000000);
	FITS(pds_ack_cc_nscc, pds.ack.cc.rcvd_bytes, 0xFFFFFF);
	RANGE(pds_ack_cc_credit, pds.ack.cc.credit, 0x1000000);
	FITS(pds_ack_cc_credit, pds.ack.cc.credit, 0xFFFFFF);
	/* NACK_CCX: 4-bit type, 60-bit state1 (docs/protocol.md §4.6) */
	RANGE(pds_nack_ccx, pds.nack.nccx_type, 0x10);
	RANGE(pds_nack_ccx, pds.nack.nccx_state1, 1ULL << 60);
	FITS(pds_nack_ccx, pds.nack.nccx_state1, (1ULL << 60) - 1);
	FITS(pds_nack_ccx, pds.nack.nccx_type, 0xF);
}

Test(range, ses_req)
{
	RANGE(req_std_som, req.job_id, 0x1000000);
	RANGE(req_small, req.job_id, 0x1000000);
	RANGE(req_medium, req.job_id, 0x1000000);
	RANGE(req_std_som, req.pid_on_fep, 0x1000);
	RANGE(req_small, req.resource_index, 0x1000);
	RANGE(req_medium_hd, req.pid_on_fep, 0x1000);
	RANGE(req_std_som, req.opcode, 0x40);
	RANGE(req_std_som, req.flags, 0x40);
	RANGE(req_std_som, req.version, 4);
	/* 14-bit lengths (docs/protocol.md §5.2, §5.3) */
	RANGE(req_small, req.request_length, 0x4000);
	RANGE(req_medium_hd, req.request_length, 0x4000);
	FITS(req_medium_hd, req.request_length, 0x3FFF);
	RANGE(req_std_mid, req.payload_length, 0x4000);
	FITS(req_std_mid, req.payload_length, 0x3FFF);
	FITS(req_std_mid, req.message_offset, 0xFFFFFFFF);
	/* rendezvous extension, WS layout: 14-bit pid, 12-bit index */
	RANGE(req_std_rndv, req.rndv.read_pid_on_fep, 0x4000);
	FITS(req_std_rndv, req.rndv.read_pid_on_fep, 0x3FFF);
	RANGE(req_std_rndv, req.rndv.read_resource_index, 0x1000);
	FITS(req_std_rndv, req.rndv.read_resource_index, 0xFFF);
}

/* "Fields a format lacks must be zero on encode" (wire.h). */
Test(range, ses_req_absent_fields)
{
	REFUSED(req_small, req.message_id, 1);
	REFUSED(req_small, req.initiator, 1);
	REFUSED(req_small, req.match_bits, 1);
	REFUSED(req_medium, req.message_id, 1);
	REFUSED(req_medium, req.header_data, 1);	/* HD clear */
	REFUSED(req_medium_hd, req.buffer_offset, 1);	/* HD set */
	REFUSED(req_std_som, req.payload_length, 1);	/* SOM set */
	REFUSED(req_std_som, req.message_offset, 1);
	REFUSED(req_std_mid, req.header_data, 1);	/* SOM clear */
	/* no extension: the AMO operands, first and last words */
	REFUSED(req_std_som, req.amo.compare[0], 1);
	REFUSED(req_std_som, req.amo.compare[15], 0x80);
	REFUSED(req_std_som, req.amo.swap[8], 1);
	REFUSED(req_std_som, req.amo.swap[15], 1);
	/* an AMO that is not compare-and-swap sends no operands */
	REFUSED(req_std_amo, req.amo.swap[7], 1);
}

/* The same for PDS fields a type (or the SYN flag) does not carry: an
 * encoder that dropped them would not round-trip. */
Test(range, pds_absent_fields)
{
	REFUSED(pds_ack, pds.ack.cc.ooo_count, 1);	/* plain ACK */
	REFUSED(pds_ack, pds.ack.sack_bitmap, 1);
	REFUSED(pds_ack_ccx, pds.ack.cc.credit, 1);	/* CCX: opaque 16 B */
	REFUSED(pds_ack_cc_nscc, pds.ack.ccx_state[15], 1);
	REFUSED(pds_ack_cc_nscc, pds.ack.cc.credit, 1);	/* NSCC has no credit */
	REFUSED(pds_rud_req, pds.req.ccc_id, 1);	/* not a CC type */
	REFUSED(pds_rud_req, pds.req.psn_offset, 1);	/* SYN clear */
	REFUSED(pds_rud_req_syn, pds.req.dpdcid, 1);	/* SYN set */
	REFUSED(pds_ctrl_noop, pds.ctrl.pdc_info, 1);
	REFUSED(pds_nack, pds.nack.nccx_state2, 1);	/* not NACK_CCX */
}

Test(range, ses_rsp)
{
	RANGE(rsp, rsp.list, 4);
	RANGE(rsp, rsp.opcode, 0x40);
	RANGE(rsp, rsp.version, 4);
	RANGE(rsp, rsp.return_code, 0x40);
	RANGE(rsp, rsp.job_id, 0x1000000);
	RANGE(rsp_data, rsp.job_id, 0x1000000);
	RANGE(rsp_data_small, rsp.job_id, 0x1000000);
	RANGE(rsp_data, rsp.payload_length, 0x4000);
	FITS(rsp_data, rsp.payload_length, 0x3FFF);
	RANGE(rsp_data_small, rsp.payload_length, 0x4000);
	FITS(rsp_data_small, rsp.payload_length, 0x3FFF);
}

/* What the decoder rejects, the encoder must not write either: reserved
 * bits are sent as 0 (docs/choices.md §10.4) and only defined values go out. */
Test(range, refuses_invalid)
{
	REFUSED(pds_rud_req, pds.flags, 0x18 | 0x01);	/* rsvd flag */
	REFUSED(pds_rud_req, pds.next_hdr, UET_NH_NONE);
	REFUSED(pds_nack, pds.next_hdr, UET_NH_RSP);
	REFUSED(pds_ctrl_noop, pds.next_hdr, 9);	/* ctl_type */
	REFUSED(pds_ack_cc_nscc, pds.ack.cc_type, 2);
	REFUSED(req_std_som, req.opcode, 0x12);
	REFUSED(req_std_som, req.version, 1);
	REFUSED(req_std_amo, req.amo.op, 0x15);
	REFUSED(req_std_amo, req.amo.dt, 0x12);
	REFUSED(req_small, req.flags, UET_SES_F_EOM);	/* no SOM */
	REFUSED(rsp, rsp.opcode, 4);
	REFUSED(rsp, rsp.version, 1);
}

/* NOSPACE for every vector, with an exact-size short buffer so that ASan
 * catches a write past it. */
Test(range, nospace)
{
	const struct wt_hdr *const *h;
	uint8_t *buf;
	size_t i, len;
	int n;

	for (h = wt_hdrs; *h; h++) {
		const struct wt_hdr *g = *h;

		buf = malloc(g->len - 1);
		n = wt_encode(g->kind, buf, g->len - 1, &g->want);
		cr_expect_eq(n, UET_ERR_WIRE_NOSPACE,
			     "%s: cap %zu returned %d (%s)", g->name,
			     g->len - 1, n, uet_err_str(n));
		free(buf);
		n = wt_encode(g->kind, NULL, 0, &g->want);
		cr_expect_eq(n, UET_ERR_WIRE_NOSPACE, "%s: cap 0 returned %d",
			     g->name, n);
	}
	for (i = 0; i < wt_npkts; i++) {
		struct uet_pkt want;
		uint8_t *full;

		wt_pkt_build(&wt_pkts[i], &full, &len, &want);
		buf = malloc(want.hdr_len - 1);
		n = uet_pkt_encode(buf, want.hdr_len - 1, &want);
		cr_expect_eq(n, UET_ERR_WIRE_NOSPACE,
			     "%s: pkt cap %zu returned %d (%s)",
			     wt_pkts[i].name, want.hdr_len - 1, n,
			     uet_err_str(n));
		free(buf);
		free(full);
	}
}

/* A packet whose SES header disagrees with the PDS next_hdr would decode
 * as something else: refuse it. */
Test(range, pkt_mismatch)
{
	struct uet_pkt want;
	uint8_t *full, buf[UET_MAX_HDR_LEN];
	size_t len;
	int n;

	wt_pkt_build(wt_pkt_find("rud_std_som"), &full, &len, &want);
	free(full);
	want.req.format = UET_NH_REQ_MEDIUM;	/* PDS says STD */
	n = uet_pkt_encode(buf, sizeof(buf), &want);
	cr_expect(n < 0 && n != UET_ERR_WIRE_NOSPACE,
		  "req format != next_hdr: %d (%s)", n, uet_err_str(n));

	wt_pkt_build(wt_pkt_find("ack"), &full, &len, &want);
	free(full);
	want.has_rsp = true;	/* ACK says next_hdr 0 */
	want.rsp = wt_hdr_find("rsp")->want.rsp;
	n = uet_pkt_encode(buf, sizeof(buf), &want);
	cr_expect(n < 0 && n != UET_ERR_WIRE_NOSPACE,
		  "response behind next_hdr 0: %d (%s)", n, uet_err_str(n));
}
