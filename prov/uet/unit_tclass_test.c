/* Traffic classes (uetp_tclass.c): every FI_TC_* is accepted, maps to a
 * DSCP by FI_UET_TCLASS_DSCP's table, and that DSCP is in the IP header
 * of what an endpoint sends - read here from a plain UDP socket with
 * IP_RECVTOS, the endpoint's peer.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_errno.h>

#include "uetp.h"

TestSuite(tclass, .timeout = 60);

Test(tclass, default_table)
{
	static const struct { uint32_t tc; uint8_t dscp; } want[] = {
		{ FI_TC_BEST_EFFORT, 0 }, { FI_TC_LOW_LATENCY, 46 },
		{ FI_TC_DEDICATED_ACCESS, 40 }, { FI_TC_BULK_DATA, 10 },
		{ FI_TC_SCAVENGER, 8 }, { FI_TC_NETWORK_CTRL, 48 },
		{ FI_TC_DSCP | 0, 0 }, { FI_TC_DSCP | 26, 26 },
		{ FI_TC_DSCP | 63, 63 },
	};

	fi_prov_ini();
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		cr_assert(uetp_tclass_valid(want[i].tc));
		cr_assert_eq(uetp_tclass_dscp(want[i].tc), want[i].dscp,
			     "tclass 0x%x", want[i].tc);
	}
	cr_assert(uetp_tclass_valid(FI_TC_UNSPEC));
	cr_assert_not(uetp_tclass_valid(FI_TC_NETWORK_CTRL + 1));
	cr_assert_not(uetp_tclass_valid(FI_TC_DSCP | 64));
	cr_assert_not(uetp_tclass_valid(FI_TC_DSCP | FI_TC_LABEL));
	cr_assert_not(uetp_tclass_valid(7));
	/* the endpoint's own, else the domain's, else best effort */
	cr_assert_eq(uetp_tclass_resolve(FI_TC_UNSPEC, FI_TC_UNSPEC),
		     FI_TC_BEST_EFFORT);
	cr_assert_eq(uetp_tclass_resolve(FI_TC_UNSPEC, FI_TC_BULK_DATA),
		     FI_TC_BULK_DATA);
	cr_assert_eq(uetp_tclass_resolve(FI_TC_LOW_LATENCY, FI_TC_BULK_DATA),
		     FI_TC_LOW_LATENCY);
}

Test(tclass, parse)
{
	static const char *const bad[] = {
		"low_latency", "low_latency=", "low_latency=64",
		"low_latency=-1", "low_latency=3x", "=3", "nosuch=3",
		"low_latency=1234", "low=3", "low_latency=3,,bulk_data=1",
		"low_latency=3;bulk_data=1",
	};
	uint8_t t[UETP_TC_LABELS] = { 1, 2, 3, 4, 5, 6 };
	uint8_t before[UETP_TC_LABELS];

	cr_assert_eq(uetp_tclass_parse("low_latency=34", t), 0);
	cr_assert_eq(t[FI_TC_LOW_LATENCY - FI_TC_LABEL], 34);
	cr_assert_eq(t[0], 1, "classes not named keep their value");
	cr_assert_eq(uetp_tclass_parse("network_ctrl=0,best_effort=63", t),
		     0);
	cr_assert_eq(t[0], 63);
	cr_assert_eq(t[5], 0);
	cr_assert_eq(uetp_tclass_parse(UETP_DEFAULT_TCLASS_DSCP, t), 0);
	memcpy(before, t, sizeof(t));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(uetp_tclass_parse(bad[i], t), -FI_EINVAL, "%s",
			     bad[i]);
		cr_assert_eq(memcmp(t, before, sizeof(t)), 0,
			     "%s changed the table", bad[i]);
	}
}

Test(tclass, param_overrides)
{
	setenv("FI_UET_TCLASS_DSCP", "low_latency=34,bulk_data=12", 1);
	fi_prov_ini();
	cr_assert_eq(uetp_tclass_dscp(FI_TC_LOW_LATENCY), 34);
	cr_assert_eq(uetp_tclass_dscp(FI_TC_BULK_DATA), 12);
	cr_assert_eq(uetp_tclass_dscp(FI_TC_SCAVENGER), 8);
}

Test(tclass, param_refused_keeps_defaults)
{
	setenv("FI_UET_TCLASS_DSCP", "low_latency=34,bulk_data=99", 1);
	fi_prov_ini();
	cr_assert_eq(uetp_tclass_dscp(FI_TC_LOW_LATENCY), 46);
	cr_assert_eq(uetp_tclass_dscp(FI_TC_BULK_DATA), 10);
}

/* ---- on the wire ---- */

struct wire {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_av *av;
	int sock;			/* the peer: a plain UDP socket */
	fi_addr_t peer;
};

static void wire_open(struct wire *w, enum fi_ep_type type, uint32_t ep_tc,
		      uint32_t dom_tc)
{
	struct fi_info *h = fi_allocinfo();
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fi_av_attr aa = { .type = FI_AV_TABLE };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int one = 1;

	fi_prov_ini();
	h->addr_format = FI_SOCKADDR_IN;
	h->domain_attr->name = strdup("lo");
	h->ep_attr->type = type;
	h->caps = FI_MSG;
	h->tx_attr->tclass = ep_tc;
	h->domain_attr->tclass = dom_tc;
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &w->info), 0);
	fi_freeinfo(h);
	cr_assert_eq(uetp_fabric_open(w->info->fabric_attr, &w->fabric, NULL),
		     0);
	cr_assert_eq(fi_domain(w->fabric, w->info, &w->domain, NULL), 0);
	cr_assert_eq(fi_endpoint(w->domain, w->info, &w->ep, NULL), 0);
	cr_assert_eq(fi_cq_open(w->domain, &ca, &w->cq, NULL), 0);
	cr_assert_eq(fi_av_open(w->domain, &aa, &w->av, NULL), 0);
	cr_assert_eq(fi_ep_bind(w->ep, &w->av->fid, 0), 0);
	cr_assert_eq(fi_ep_bind(w->ep, &w->cq->fid, FI_TRANSMIT | FI_RECV),
		     0);
	cr_assert_eq(fi_enable(w->ep), 0);

	w->sock = socket(AF_INET, SOCK_DGRAM, 0);
	cr_assert_geq(w->sock, 0);
	cr_assert_eq(setsockopt(w->sock, IPPROTO_IP, IP_RECVTOS, &one,
				sizeof(one)), 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(w->sock, (struct sockaddr *)&sin, sizeof(sin)), 0);
	cr_assert_eq(getsockname(w->sock, (struct sockaddr *)&sin, &len), 0);
	cr_assert_eq(fi_av_insert(w->av, &sin, 1, &w->peer, 0, NULL), 1);
}

static void wire_close(struct wire *w)
{
	cr_assert_eq(fi_close(&w->ep->fid), 0);
	cr_assert_eq(fi_close(&w->cq->fid), 0);
	cr_assert_eq(fi_close(&w->av->fid), 0);
	cr_assert_eq(fi_close(&w->domain->fid), 0);
	cr_assert_eq(fi_close(&w->fabric->fid), 0);
	fi_freeinfo(w->info);
	close(w->sock);
}

/* The TOS byte of the first packet the socket gets. */
static uint8_t wire_tos(struct wire *w)
{
	uint8_t buf[2048], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf,
			    .msg_controllen = sizeof(cbuf) };
	struct pollfd p = { .fd = w->sock, .events = POLLIN };
	struct cmsghdr *c;

	for (int i = 0; i < 100 && poll(&p, 1, 50) != 1; i++)
		fi_cq_read(w->cq, NULL, 0);	/* progress */
	cr_assert_gt(recvmsg(w->sock, &m, 0), 0, "nothing sent");
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
			return *CMSG_DATA(c);
	cr_assert_fail("no IP_TOS with the packet");
	return 0;
}

static void expect_dscp(enum fi_ep_type type, uint32_t ep_tc,
			uint32_t dom_tc, uint8_t dscp)
{
	struct wire w = { 0 };
	struct uetp_ep *ep;
	uint8_t tos;

	wire_open(&w, type, ep_tc, dom_tc);
	ep = uet_container_of(w.ep, struct uetp_ep, fid);
	cr_assert_eq(ep->tclass, uetp_tclass_resolve(ep_tc, dom_tc));
	cr_assert_eq(ep->dscp, dscp);
	cr_assert_eq(fi_send(w.ep, "tc", 3, NULL, w.peer, NULL), 0);
	tos = wire_tos(&w);
	cr_assert_eq(tos >> 2, dscp, "tclass 0x%x/0x%x: DSCP %u, want %u",
		     ep_tc, dom_tc, tos >> 2, dscp);
	cr_assert_eq(tos & 3, UET_ECN_ECT0, "the ECN bits are left alone");
	wire_close(&w);
}

Test(tclass, dscp_on_the_wire)
{
	expect_dscp(FI_EP_RDM, FI_TC_UNSPEC, FI_TC_UNSPEC, 0);
	expect_dscp(FI_EP_RDM, FI_TC_LOW_LATENCY, FI_TC_UNSPEC, 46);
	expect_dscp(FI_EP_RDM, FI_TC_BULK_DATA, FI_TC_UNSPEC, 10);
	expect_dscp(FI_EP_RDM, FI_TC_NETWORK_CTRL, FI_TC_SCAVENGER, 48);
	expect_dscp(FI_EP_RDM, fi_tc_dscp_set(26), FI_TC_UNSPEC, 26);
	/* none of its own: the domain's */
	expect_dscp(FI_EP_RDM, FI_TC_UNSPEC, FI_TC_DEDICATED_ACCESS, 40);
	expect_dscp(FI_EP_DGRAM, FI_TC_SCAVENGER, FI_TC_UNSPEC, 8);
}

Test(tclass, dscp_on_the_wire_overridden)
{
	setenv("FI_UET_TCLASS_DSCP", "low_latency=34", 1);
	expect_dscp(FI_EP_RDM, FI_TC_LOW_LATENCY, FI_TC_UNSPEC, 34);
}
