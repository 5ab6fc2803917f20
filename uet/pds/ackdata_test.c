/* SES response data in ACKs (Max_ACK_Data_Size, docs/choices.md §3.4,
 * §3.3): a small read result or fetched atomic value rides in the ACK as
 * the payload of a response-with-data header, is kept with the
 * guaranteed response until CLEAR, is resent unchanged for a duplicate
 * whose ACK was lost, and reaches the initiator's SES exactly once. */
#include "../fixtures/pds_test_util.h"

#include "psn.h"

TestSuite(ackdata, .fini = t_fini);

struct want_data {
	uint8_t fmt;		/* UET_NH_RSP_DATA or _SMALL */
	uint8_t len;		/* bytes of data */
	bool gtd;		/* what SES says */
	unsigned calls;		/* replies given */
};

static uint8_t data_byte(unsigned i)
{
	return (uint8_t)(0xA5 ^ (i * 37));
}

/* Message 1's packet at offset 0 is a "read": its reply carries data. */
static int give_data(struct uet_ses *ses, const struct uet_pdc_ref *pdc,
		     const struct uet_ses_req *req, uint32_t off,
		     struct uet_ses_reply *reply)
{
	struct want_data *w = ses->hook_arg;
	unsigned i;

	(void)pdc;
	if (req->message_id != 1 || off)
		return 0;
	w->calls++;
	memset(&reply->rsp, 0, sizeof(reply->rsp));
	reply->rsp.format = w->fmt;
	reply->rsp.opcode = UET_SES_RESPONSE_W_DATA;
	reply->rsp.return_code = UET_RC_OK;
	reply->rsp.job_id = req->job_id;
	if (w->fmt == UET_NH_RSP_DATA) {
		reply->rsp.modified_length = w->len;
		reply->rsp.read_request_message_id = req->message_id;
		reply->rsp.message_id = 0x77;
	} else {
		reply->rsp.original_request_psn = 0x1234;
	}
	reply->gtd = w->gtd;
	reply->data_len = w->len;
	for (i = 0; i < w->len; i++)
		reply->data[i] = data_byte(i);
	return 0;
}

static struct want_data W;

static void setup(uint8_t fmt, uint8_t len, bool gtd)
{
	t_init(2, NULL, NULL);
	t_establish(0, 1);
	W = (struct want_data){ .fmt = fmt, .len = len, .gtd = gtd };
	t_ses(1)->reply_hook = give_data;
	t_ses(1)->hook_arg = &W;
}

/* The ACKs node 1 sent carrying data; *last gets the latest. */
static size_t data_acks(const struct tlog **last)
{
	size_t i, n = 0;

	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node != 1 || !t_is_ack(e) ||
		    (e->p.pds.next_hdr != UET_NH_RSP_DATA &&
		     e->p.pds.next_hdr != UET_NH_RSP_DATA_SMALL))
			continue;
		n++;
		*last = e;
	}
	return n;
}

static void check_got(const struct fake_msg *m, uint8_t fmt, uint8_t len)
{
	unsigned i;

	cr_assert_eq(m->data_rsps, 1, "data reached SES %u times",
		     m->data_rsps);
	cr_assert_eq(m->data_fmt, fmt);
	cr_assert_eq(m->data_len, len);
	for (i = 0; i < len; i++)
		cr_assert_eq(m->data[i], data_byte(i), "byte %u", i);
	cr_assert_eq(m->err, 0);
}

static void small_read(uint8_t fmt, uint8_t len)
{
	const struct tlog *ack = NULL, *clear;
	uint32_t p;

	setup(fmt, len, true);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_run_quiet(T.h.now + 5 * UET_MSEC);
	t_check_delivery(0, 1);
	p = t_nth(0, UET_PDS_RUD_REQ, 0)->p.pds.req.psn;
	cr_assert_eq(data_acks(&ack), 1);
	cr_assert_eq(t_ack_psn(ack), p);
	cr_assert_eq(ack->p.pds.flags & UET_PDS_F_REQ_MASK,
		     UET_PDS_F_REQ_CLEAR, "kept: the ACK asks for CLEAR");
	cr_assert_eq(ack->p.pds.ack.cack_psn, p - 1);
	cr_assert_eq(ack->p.payload_len, len);
	cr_assert_eq(ack->p.rsp.payload_length, len);
	if (fmt == UET_NH_RSP_DATA) {
		cr_assert_eq(ack->p.rsp.read_request_message_id, 1);
		cr_assert_eq(ack->p.rsp.message_id, 0x77);
	} else {
		cr_assert_eq(ack->p.rsp.original_request_psn, 0x1234);
	}
	check_got(&t_ses(0)->msgs[1], fmt, len);
	clear = t_nth(0, UET_PDS_CTRL, 0);
	cr_assert_eq(clear->p.pds.next_hdr, UET_CTL_CLEAR);
	cr_assert_eq(clear->p.pds.ctrl.payload, p);
	cr_assert_eq(t_last(1, UET_PDS_ACK)->p.pds.ack.cack_psn, p,
		     "CACK did not move after CLEAR");
	cr_assert_eq(W.calls, 1);
}

Test(ackdata, small_response_with_data)
{
	small_read(UET_NH_RSP_DATA_SMALL, 8);
}

Test(ackdata, response_with_data_full_size)
{
	small_read(UET_NH_RSP_DATA, UET_ACK_DATA_MAX);
}

Test(ackdata, empty_read_result)
{
	small_read(UET_NH_RSP_DATA, 0);
}

/* SES forgot gtd: the data is kept all the same (a duplicate must get
 * the same bytes back). */
Test(ackdata, data_is_kept_without_gtd)
{
	const struct tlog *ack = NULL;

	setup(UET_NH_RSP_DATA_SMALL, 4, false);
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(data_acks(&ack), 1);
	cr_assert_eq(ack->p.pds.flags & UET_PDS_F_REQ_MASK,
		     UET_PDS_F_REQ_CLEAR);
	check_got(&t_ses(0)->msgs[1], UET_NH_RSP_DATA_SMALL, 4);
}

/* The first ACK with data is lost: the initiator resends the request,
 * the target sees a duplicate (SES is not asked again) and resends the
 * kept ACK with the same data; SES at the initiator gets it once. */
static bool drop_first_data_ack(const struct tlog *e)
{
	static unsigned seen;	/* each test runs in its own process */

	if (e->node != 1 || !t_is_ack(e) ||
	    e->p.pds.next_hdr != UET_NH_RSP_DATA_SMALL)
		return false;
	return seen++ == 0;
}

Test(ackdata, lost_ack_resent_with_its_data)
{
	const struct tlog *ack = NULL;

	setup(UET_NH_RSP_DATA_SMALL, 12, true);
	T.drop = drop_first_data_ack;
	t_send(0, 1, T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_run_quiet(T.h.now + 5 * UET_MSEC);
	cr_assert_eq(data_acks(&ack), 2, "the kept ACK was not resent");
	cr_assert(ack->p.pds.flags & UET_PDS_F_RETX,
		  "the resent ACK answers a retransmission");
	cr_assert_eq(ack->p.payload_len, 12);
	cr_assert_eq(t_stats(1).dup_rx, 1);
	cr_assert_eq(W.calls, 1, "SES was asked for the data twice");
	cr_assert_gt(t_stats(0).retx_rto, 0);
	check_got(&t_ses(0)->msgs[1], UET_NH_RSP_DATA_SMALL, 12);
	t_check_delivery(0, 1);
}

/* The network copies the ACK with data: SES hears it once. */
Test(ackdata, duplicated_ack_delivers_once)
{
	struct uet_mem_impair imp = { .dup_ppm = UET_MEM_PPM };

	setup(UET_NH_RSP_DATA, 16, true);
	t_impair(0, &imp);
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_run_quiet(T.h.now + 5 * UET_MSEC);
	check_got(&t_ses(0)->msgs[1], UET_NH_RSP_DATA, 16);
	cr_assert_eq(t_ses(0)->resolved_twice, 0);
}

/* An ACK carrying more than Max_ACK_Data_Size: dropped and counted,
 * SES hears nothing, the PDC goes on. */
Test(ackdata, oversized_ack_data_dropped)
{
	struct uet_pkt_info pi;
	struct uet_pkt pkt;
	struct t_pdc p;
	uint8_t buf[128];
	int n;

	t_init(2, NULL, NULL);
	p = t_establish_ids(0, 1);
	t_send(0, 1, T_SEG);
	/* Hold the real ACK back. */
	t_impair(0, &(struct uet_mem_impair){ .drop_mask = 1 });
	uet_harness_run(&T.h, NULL, NULL, T.h.now + 100 * UET_USEC);
	memset(&pkt, 0, sizeof(pkt));
	pkt.pds.type = UET_PDS_ACK;
	pkt.pds.next_hdr = UET_NH_RSP_DATA_SMALL;
	pkt.pds.ack.cack_psn = p.next - 1;
	pkt.pds.ack.ack_psn_offset = 1;
	pkt.pds.ack.spdcid = p.tid;
	pkt.pds.ack.dpdcid = p.iid;
	pkt.has_rsp = true;
	pkt.rsp.format = UET_NH_RSP_DATA_SMALL;
	pkt.rsp.opcode = UET_SES_RESPONSE_W_DATA;
	pkt.rsp.payload_length = UET_ACK_DATA_MAX + 1;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	cr_assert_gt(n, 0);
	memset(buf + n, 0x5A, UET_ACK_DATA_MAX + 1);
	pi = t_pi_from(1, 0);
	cr_assert_neq(uet_harness_inject(&T.h, 0, &pi, buf,
					 (size_t)n + UET_ACK_DATA_MAX + 1), 0);
	cr_assert_eq(t_stats(0).drop_other, 1);
	cr_assert_eq(t_ses(0)->msgs[1].rsps, 0);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(t_ses(0)->msgs[1].err, 0);
	cr_assert_eq(t_ses(0)->msgs[1].data_rsps, 0);
}
