/* Addresses and spraying (pds.h: Addresses; uet/udp.h): SYN-phase packets
 * leave from the home port, so the target learns the initiator's home
 * address; everything after is sprayed from other source ports and found
 * by DPDCID, checked against the peer's FA (IP only). The harness ports
 * spray like the UDP port (uet/mem.h), so a packet attributed by its
 * source port would go astray here. */
#include "../fixtures/pds_test_util.h"

TestSuite(addr, .fini = t_fini);

/* Every packet node 1 received, as its port handed it over. */
static struct {
	struct uet_pkt_info pi;
	struct uet_pkt p;
	int rc;
} rxl[4096];
static size_t nrxl;

static void rx_log(struct uet_harness *h, unsigned node,
		   const struct uet_pkt_info *pi, const uint8_t *pkt,
		   size_t len, int rc)
{
	t_rx(h, node, pi, pkt, len, rc);
	if (node != 1 || nrxl == sizeof(rxl) / sizeof(rxl[0]))
		return;
	rxl[nrxl].pi = *pi;
	rxl[nrxl].rc = rc;
	cr_assert_geq(uet_pkt_decode(&rxl[nrxl].p, pkt, len, 0), 0);
	rxl[nrxl].p.payload = NULL;
	nrxl++;
}

static bool same_ip(const struct uet_addr *a, const struct uet_addr *b)
{
	struct uet_addr x = *a;

	x.port = b->port;
	return uet_addr_equal(&x, b);
}

Test(addr, syn_from_home_then_sprayed)
{
	struct uet_fep_config c = t_cfg();
	size_t i, syn = 0, sprayed = 0, acks = 0;
	static bool ports[65536];
	unsigned distinct = 0;

	c.entropy_run = 1;	/* every packet on the next value */
	t_init(2, &c, NULL);
	nrxl = 0;
	T.h.on_rx = rx_log;
	t_send(0, 1, 80 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node != 0 || !t_is_req(e))
			continue;
		cr_assert_eq(e->pi.home, !!(e->p.pds.flags & UET_PDS_F_SYN),
			     "request %zu: home %d, flags %#x", i, e->pi.home,
			     e->p.pds.flags);
	}
	for (i = 0; i < nrxl; i++) {
		const struct uet_pkt_info *pi = &rxl[i].pi;

		cr_assert(same_ip(&pi->src, &T.h.node[0].addr));
		cr_assert_eq(pi->entropy, pi->src.port,
			     "entropy is the raw source port");
		if (rxl[i].p.pds.type != UET_PDS_RUD_REQ)
			continue;
		if (rxl[i].p.pds.flags & UET_PDS_F_SYN) {
			syn++;
			cr_assert(uet_addr_equal(&pi->src, &T.h.node[0].addr),
				  "a SYN packet not from the home port");
			continue;
		}
		sprayed++;
		cr_assert_neq(pi->src.port, T.h.node[0].addr.port,
			      "an established packet from the home port");
		if (!ports[pi->src.port])
			distinct++;
		ports[pi->src.port] = true;
		cr_assert_eq(rxl[i].rc, 0, "sprayed packet %zu refused", i);
	}
	cr_assert_gt(syn, 0);
	cr_assert_gt(sprayed, 20);
	cr_assert_eq(distinct, 1u << UET_HARNESS_SPRAY_BITS,
		     "sprayed over %u source ports", distinct);
	/* ACKs go to the home address the SYN showed, and echo the raw
	 * source port of the request they answer. */
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node != 1 || !t_is_ack(e))
			continue;
		acks++;
		cr_assert(uet_addr_equal(&e->pi.dst, &T.h.node[0].addr));
		cr_assert_not(e->pi.home);
		cr_assert(e->pi.entropy == T.h.node[0].addr.port ||
			  e->pi.entropy >= UET_MEM_SPRAY_PORT_MIN,
			  "ACK entropy %u echoes no source port",
			  e->pi.entropy);
	}
	cr_assert_gt(acks, 0);
	cr_assert_eq(t_stats(1).pdc_open, 1);
	cr_assert_eq(t_stats(1).drop_pdc, 0);
}

/* The first SYN packets are lost: the resends still carry SYN and leave
 * from home, and the PDC comes up once one arrives. */
Test(addr, syn_resend_from_home)
{
	struct uet_mem_impair imp = { .drop_mask = 0x7 };
	size_t i, resent = 0;

	t_init(2, NULL, NULL);
	t_impair(1, &imp);
	t_send(0, 1, 3 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	for (i = 0; i < T.nlog; i++) {
		const struct tlog *e = &T.log[i];

		if (e->node != 0 || !t_is_req(e) ||
		    !(e->p.pds.flags & UET_PDS_F_RETX))
			continue;
		resent++;
		cr_assert(e->p.pds.flags & UET_PDS_F_SYN);
		cr_assert(e->pi.home);
	}
	cr_assert_gt(resent, 0);
	cr_assert_eq(t_stats(1).pdc_open, 1);
}

/* The first SYN packet is held back (and copied) until sprayed packets
 * of the same PDC got there (a second message, posted once the first
 * ACK made the PDC established): the late SYNs map to the PDC the others
 * made, by home address and SPDCID; no second PDC, nothing twice to
 * SES. */
static unsigned hold_first(void *arg, uint64_t seq,
			   const struct uet_net_msg *m)
{
	(void)arg;
	(void)m;
	return seq == 0 ? UET_MEM_REORDER | UET_MEM_DUP : 0;
}

Test(addr, late_syn_after_sprayed)
{
	struct uet_mem_impair imp = {
		.pick = hold_first,
		.reorder_delay = 500 * UET_USEC,
		.delay = 10 * UET_USEC,
	};
	size_t i, late = 0, sprayed_before = 0;

	t_init(2, NULL, NULL);
	nrxl = 0;
	T.h.on_rx = rx_log;
	t_impair(1, &imp);
	t_send(0, 1, 10 * T_SEG);
	uet_harness_run(&T.h, NULL, NULL, 100 * UET_USEC);
	cr_assert_gt(t_stats(0).acks_rx, 0, "not established yet");
	t_send(0, 1, 10 * T_SEG);
	t_run_done(T_LIMIT);
	t_check_delivery(0, 1);
	for (i = 0; i < nrxl; i++) {
		const struct uet_pkt *p = &rxl[i].p;

		if (p->pds.type != UET_PDS_RUD_REQ)
			continue;
		if (!(p->pds.flags & UET_PDS_F_SYN)) {
			sprayed_before++;
			continue;
		}
		if (p->pds.req.psn_offset == 0 && sprayed_before) {
			late++;
			cr_assert_eq(rxl[i].rc, 0);
		}
	}
	cr_assert_eq(late, 2, "the held SYN and its copy arrived %zu times "
		     "after sprayed packets", late);
	cr_assert_eq(t_stats(1).pdc_open, 1);
	cr_assert_eq(t_stats(1).nacks_tx, 0);
	cr_assert_eq(t_stats(1).dup_rx, 1);
}

/* A request naming the PDC from another FA: dropped, counted, never
 * answered (the answer could fail the real initiator's PDC). */
Test(addr, other_fa_claiming_a_pdc_dropped_silently)
{
	struct t_pdc p;
	struct uet_pds_hdr h;
	struct uet_pkt_info pi;
	struct uet_pkt pkt;
	uint8_t buf[64];
	int n;

	t_init(3, NULL, NULL);
	p = t_establish_ids(0, 1);
	h = t_req_hdr(UET_PDS_RUD_REQ, p.next, p.iid, p.tid);
	cr_assert_neq(t_inject_req(2, 1, &h, 1), 0);
	uet_harness_flush(&T.h);
	cr_assert_eq(t_stats(1).drop_pdc, 1);
	cr_assert_eq(T.nlog, 0, "answered a stranger");
	cr_assert_eq(t_ses(1)->rx_pkts, 1);

	/* ACK, NACK and CLOSE naming node 0's PDC from node 2's FA. */
	memset(&pkt, 0, sizeof(pkt));
	pkt.pds.type = UET_PDS_ACK;
	pkt.pds.ack.cack_psn = p.next - 1;
	pkt.pds.ack.spdcid = p.tid;
	pkt.pds.ack.dpdcid = p.iid;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	pi = t_pi_from(2, 0);
	cr_assert_neq(uet_harness_inject(&T.h, 0, &pi, buf, (size_t)n), 0);
	memset(&pkt, 0, sizeof(pkt));
	pkt.pds.type = UET_PDS_NACK;
	pkt.pds.nack.code = UET_NACK_INV_DPDCID;
	pkt.pds.nack.psn = p.next;
	pkt.pds.nack.dpdcid = p.iid;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	cr_assert_neq(uet_harness_inject(&T.h, 0, &pi, buf, (size_t)n), 0);
	memset(&pkt, 0, sizeof(pkt));
	pkt.pds.type = UET_PDS_CTRL;
	pkt.pds.next_hdr = UET_CTL_CLOSE;
	pkt.pds.ctrl.psn = p.next;
	pkt.pds.ctrl.spdcid = p.iid;
	pkt.pds.ctrl.dpdcid = p.tid;
	n = uet_pkt_encode(buf, sizeof(buf), &pkt);
	pi = t_pi_from(2, 1);
	cr_assert_neq(uet_harness_inject(&T.h, 1, &pi, buf, (size_t)n), 0);
	uet_harness_flush(&T.h);
	cr_assert_eq(t_stats(0).drop_pdc, 2);
	cr_assert_eq(t_stats(1).drop_pdc, 2);
	cr_assert_eq(T.nlog, 0, "answered a stranger");
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_assert_eq(t_stats(1).pdc_closed, 0);
	/* The PDC goes on. */
	t_send(0, 1, 4 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	t_check_delivery(0, 1);
	cr_assert_eq(t_stats(0).pdc_open, 1);
}

/* The right FA from any source port is the peer: taken, and answered at
 * the home address the SYN showed, not at that port. A wrong SPDCID from
 * the right FA is a header mismatch, answered where it came from. */
Test(addr, any_source_port_of_the_fa)
{
	struct t_pdc p;
	struct uet_pds_hdr h;
	struct uet_pkt_info pi;
	const struct tlog *a, *n;
	uint8_t buf[512];
	size_t len;

	t_init(2, NULL, NULL);
	p = t_establish_ids(0, 1);
	h = t_req_hdr(UET_PDS_RUD_REQ, p.next, p.iid, p.tid);
	h.flags = UET_PDS_F_AR;
	len = t_craft_req(buf, sizeof(buf), &h, 7, T_SEG, 0, T_SEG, true);
	pi = t_pi_from(0, 1);
	pi.src.port = 40001;
	pi.entropy = 40001;
	cr_assert_eq(uet_harness_inject(&T.h, 1, &pi, buf, len), 0);
	uet_harness_flush(&T.h);
	cr_assert_eq(t_ses(1)->rx_pkts, 2);
	a = t_last(1, UET_PDS_ACK);
	cr_assert(uet_addr_equal(&a->pi.dst, &T.h.node[0].addr));
	cr_assert_eq(a->pi.entropy, 40001, "the ACK echoes the source port");

	h = t_req_hdr(UET_PDS_RUD_REQ, p.next + 1, p.iid ^ 1, p.tid);
	len = t_craft_req(buf, sizeof(buf), &h, 8, T_SEG, 0, T_SEG, true);
	pi.src.port = 40002;
	cr_assert_neq(uet_harness_inject(&T.h, 1, &pi, buf, len), 0);
	uet_harness_flush(&T.h);
	n = t_last(1, UET_PDS_NACK);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_PDC_HDR_MISMATCH);
	cr_assert(uet_addr_equal(&n->pi.dst, &pi.src),
		  "not answered where it came from");
	cr_assert_eq(t_stats(1).drop_pdc, 1);
}

/* The target restarted and forgot the PDC: the initiator's sprayed
 * packets get NACK INV_DPDCID sent back to their source (spray) port,
 * which reaches the initiator; it drops the PDC at once instead of
 * retrying into silence and sends the message again on a new one (SYN
 * from home), which the restarted target delivers once. */
Test(addr, nack_for_unknown_pdc_reaches_spray_port)
{
	struct uet_fep_config c = t_cfg();
	const struct tlog *n;
	uet_time t0;

	c.max_retx = 8;
	t_init(2, &c, NULL);
	t_establish(0, 1);
	uet_harness_kill(&T.h, 1);
	cr_assert_eq(uet_harness_revive(&T.h, 1), 0);
	t0 = T.h.now;
	t_send(0, 1, 2 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	n = t_nth(1, UET_PDS_NACK, 0);
	cr_assert_eq(n->p.pds.nack.code, UET_NACK_INV_DPDCID);
	cr_assert(same_ip(&n->pi.dst, &T.h.node[0].addr));
	cr_assert_neq(n->pi.dst.port, T.h.node[0].addr.port,
		      "the NACK went to the home port, not the source");
	cr_assert_eq(T.ncomp[0], 2);
	cr_assert_eq(T.nerr[0], 0);
	cr_assert_eq(T.last[0].err, 0);
	cr_assert_lt(T.last_at[0] - t0, 2 * c.rto_min,
		     "sent again after retries, not after the NACK");
	cr_assert_eq(t_stats(0).pdc_failed, 0);
	cr_assert_eq(t_stats(0).pdc_open, 2);
	cr_assert_eq(t_ses(1)->rx_pkts, 2);
	cr_assert_eq(t_ses(1)->rx_dups, 0);
	/* The next message goes on the new PDC. */
	T.nlog = 0;
	t_send(0, 1, 2 * T_SEG);
	t_run_done(T.h.now + T_LIMIT);
	cr_assert_eq(T.last[0].err, 0);
	cr_assert_eq(t_stats(0).pdc_open, 2);
	cr_assert_eq(t_ses(1)->rx_pkts, 4);
}
