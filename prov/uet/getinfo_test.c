/* fi_getinfo through libfabric's core with the built module: what we
 * advertise, and that hints are honoured exactly (docs/architecture.md
 * §8.6): each capability / mode / format / version case, the hint sets of
 * Open MPI and fi_pingpong, the refused cases (-FI_ENODATA), layering,
 * FI_UET_IFACE and node/service resolution.
 *
 * Criterion runs every test in its own process, so a test may set
 * FI_UET_* variables before its first fi_getinfo.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <criterion/criterion.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>

#include "test_util.h"

#define V17 FI_VERSION(1, 17)
/* One-sided operations: RMA and atomics, both directions, and the
 * secondary caps that come with every entry (remote counters, fences). */
#define RMA_DIRS (FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)
#define ONE_SIDED (FI_RMA | FI_ATOMIC | RMA_DIRS)
#define ONE_SIDED_SEC (FI_RMA_EVENT | FI_FENCE)

static struct fi_info *h;

static void setup(void)
{
	uetp_test_provider_path();
	h = uetp_test_hints();
	cr_assert_not_null(h);
}

static void teardown(void)
{
	fi_freeinfo(h);
}

TestSuite(getinfo, .init = setup, .fini = teardown);

static int gi(uint32_t v, const char *node, const char *svc, uint64_t flags,
	      struct fi_info **out)
{
	*out = NULL;
	return fi_getinfo(v, node, svc, flags, h, out);
}

static struct fi_info *gi_ok(uint32_t v)
{
	struct fi_info *fi;
	int ret = gi(v, NULL, NULL, 0, &fi);

	cr_assert_eq(ret, 0, "fi_getinfo: %s", fi_strerror(-ret));
	cr_assert_not_null(fi);
	return fi;
}

static void gi_nodata(uint32_t v)
{
	struct fi_info *fi;
	int ret = gi(v, NULL, NULL, 0, &fi);

	cr_assert_eq(ret, -FI_ENODATA, "expected -FI_ENODATA, got %d", ret);
	cr_assert_null(fi);
}

static bool is_lo(const struct fi_info *fi)
{
	return !strcmp(fi->domain_attr->name, "lo");
}

static size_t count(const struct fi_info *fi)
{
	size_t n = 0;

	for (; fi; fi = fi->next)
		n++;
	return n;
}

Test(getinfo, default_entries)
{
	struct fi_info *fi = gi_ok(V17), *e;
	bool seen_lo = false, lo_v4 = false;
	size_t rdm = 0, dgram = 0;

	for (e = fi; e; e = e->next) {
		cr_assert_str_eq(e->fabric_attr->prov_name, "uet");
		/* the DGRAM entries follow (unit_dgram_test.c) */
		if (e->ep_attr->type == FI_EP_DGRAM) {
			dgram++;
			continue;
		}
		cr_assert_eq(dgram, 0, "an RDM entry after a DGRAM one");
		rdm++;
		cr_assert_eq(e->ep_attr->type, FI_EP_RDM);
		cr_assert_eq(e->ep_attr->protocol, FI_PROTO_UNSPEC);
		cr_assert_eq(e->ep_attr->protocol_version, 1);
		cr_assert_eq(e->caps, FI_MSG | FI_TAGGED | FI_SEND | FI_RECV |
			     FI_DIRECTED_RECV | FI_MULTI_RECV | FI_SOURCE |
			     FI_NAMED_RX_CTX | FI_TRIGGER | FI_SHARED_AV |
			     FI_LOCAL_COMM | FI_REMOTE_COMM | ONE_SIDED |
			     ONE_SIDED_SEC);
		/* fences on the transmit side, remote events on receive */
		cr_assert(e->tx_attr->caps & FI_FENCE);
		cr_assert(e->rx_attr->caps & FI_RMA_EVENT);
		cr_assert_eq(e->tx_attr->rma_iov_limit, 1);
		cr_assert_eq(e->mode, 0);
		cr_assert_eq(e->tx_attr->mode | e->rx_attr->mode, 0);
		cr_assert_eq(e->domain_attr->mr_mode, 0);
		cr_assert_eq(e->domain_attr->mr_key_size, 8);
		cr_assert_eq(e->domain_attr->mr_iov_limit, 1);
		cr_assert_eq(e->domain_attr->cq_data_size, 8);
		cr_assert_eq(e->domain_attr->threading, FI_THREAD_SAFE);
		cr_assert_eq(e->domain_attr->data_progress,
			     FI_PROGRESS_MANUAL);
		cr_assert(e->tx_attr->msg_order & FI_ORDER_SAS);
		cr_assert(e->rx_attr->msg_order & FI_ORDER_SAS);
		cr_assert_geq(e->ep_attr->max_msg_size, 16u << 20);
		cr_assert_not_null(e->fabric_attr->name);
		cr_assert_not_null(strchr(e->fabric_attr->name, '/'));
		cr_assert_not_null(e->domain_attr->name);
		cr_assert(e->addr_format == FI_SOCKADDR_IN ||
			  e->addr_format == FI_SOCKADDR_IN6);
		cr_assert_not_null(e->src_addr);
		cr_assert_null(e->dest_addr);
		/* loopback last: no non-lo entry after a lo entry */
		if (is_lo(e))
			seen_lo = true;
		else
			cr_assert(!seen_lo, "%s listed after lo",
				  e->domain_attr->name);
		if (is_lo(e) && !strcmp(e->fabric_attr->name, "127.0.0.0/8"))
			lo_v4 = true;
	}
	cr_assert(lo_v4, "no 127.0.0.0/8 entry on lo");
	cr_assert_eq(dgram, rdm, "one DGRAM entry per RDM one");
	fi_freeinfo(fi);
}

Test(getinfo, iface_filter_lo)
{
	struct fi_info *fi, *e;

	setenv("FI_UET_IFACE", "lo", 1);
	fi = gi_ok(V17);
	for (e = fi; e; e = e->next)
		cr_assert(is_lo(e), "%s not filtered", e->domain_attr->name);
	fi_freeinfo(fi);
}

Test(getinfo, iface_filter_unknown)
{
	setenv("FI_UET_IFACE", "nosuchif9", 1);
	gi_nodata(V17);
}

Test(getinfo, caps_msg_only)
{
	struct fi_info *fi;

	h->caps = FI_MSG;
	fi = gi_ok(V17);
	cr_assert(fi->caps & FI_MSG);
	cr_assert_eq(fi->caps & (FI_SEND | FI_RECV), FI_SEND | FI_RECV);
	cr_assert_eq(fi->caps & (FI_TAGGED | FI_DIRECTED_RECV), 0);
	cr_assert_eq(fi->caps & (FI_MULTI_RECV | FI_SOURCE),
		     FI_MULTI_RECV | FI_SOURCE);
	cr_assert_eq(fi->tx_attr->caps & FI_RECV, 0);
	cr_assert_eq(fi->rx_attr->caps & FI_SEND, 0);
	fi_freeinfo(fi);
}

Test(getinfo, caps_tagged_directed)
{
	struct fi_info *fi;

	h->caps = FI_TAGGED | FI_DIRECTED_RECV;
	fi = gi_ok(V17);
	cr_assert_eq(fi->caps & (FI_TAGGED | FI_DIRECTED_RECV),
		     FI_TAGGED | FI_DIRECTED_RECV);
	cr_assert_eq(fi->caps & FI_MSG, 0);
	fi_freeinfo(fi);
}

Test(getinfo, caps_send_only)
{
	struct fi_info *fi;

	h->caps = FI_MSG | FI_SEND;
	fi = gi_ok(V17);
	cr_assert(fi->caps & FI_SEND);
	cr_assert_eq(fi->caps & FI_RECV, 0);
	fi_freeinfo(fi);
}

/* fi_endpoint.3: the caps that apply to transmit and to receive
 * attributes (libfabric 1.17); FI_LOCAL_COMM and FI_REMOTE_COMM are not
 * among them. */
#define EP_TX_CAPS (FI_MSG | FI_RMA | FI_TAGGED | FI_ATOMIC | FI_READ | \
		    FI_WRITE | FI_SEND | FI_HMEM | FI_TRIGGER | FI_FENCE | \
		    FI_MULTICAST | FI_RMA_PMEM | FI_NAMED_RX_CTX | \
		    FI_COLLECTIVE)
#define EP_RX_CAPS (FI_MSG | FI_RMA | FI_TAGGED | FI_ATOMIC | \
		    FI_REMOTE_READ | FI_REMOTE_WRITE | FI_RECV | FI_HMEM | \
		    FI_TRIGGER | FI_RMA_PMEM | FI_DIRECTED_RECV | \
		    FI_VARIABLE_MSG | FI_MULTI_RECV | FI_SOURCE | \
		    FI_RMA_EVENT | FI_SOURCE_ERR | FI_COLLECTIVE)

static void check_attr_caps(const struct fi_info *fi)
{
	for (const struct fi_info *e = fi; e; e = e->next) {
		uint64_t tx = e->tx_attr->caps, rx = e->rx_attr->caps;

		cr_assert_eq(tx & ~(uint64_t)EP_TX_CAPS, 0, "tx_attr: %s",
			     fi_tostr(&tx, FI_TYPE_CAPS));
		cr_assert_eq(rx & ~(uint64_t)EP_RX_CAPS, 0, "rx_attr: %s",
			     fi_tostr(&rx, FI_TYPE_CAPS));
		cr_assert_eq(tx & ~e->caps, 0, "tx_attr caps beyond caps");
		cr_assert_eq(rx & ~e->caps, 0, "rx_attr caps beyond caps");
		/* where they do belong */
		cr_assert_eq(e->caps & (FI_LOCAL_COMM | FI_REMOTE_COMM),
			     FI_LOCAL_COMM | FI_REMOTE_COMM, "%s %s: %s",
			     e->fabric_attr->prov_name,
			     fi_tostr(&e->ep_attr->type, FI_TYPE_EP_TYPE),
			     fi_tostr(&e->caps, FI_TYPE_CAPS));
		cr_assert_eq(e->domain_attr->caps,
			     FI_LOCAL_COMM | FI_REMOTE_COMM | FI_SHARED_AV);
	}
}

/* fabtests' fi_getinfo_test checks this with no hints, and with each
 * primary capability. */
Test(getinfo, tx_rx_caps_per_fi_endpoint)
{
	static const uint64_t caps[] = {
		0, FI_MSG, FI_TAGGED, FI_RMA, FI_ATOMIC, FI_DIRECTED_RECV,
		FI_MSG | FI_RMA | FI_TAGGED | FI_ATOMIC,
	};
	struct fi_info *fi;
	int ret;

	/* no hints at all, the provider chosen by FI_PROVIDER (read by
	 * libfabric's first call) */
	setenv("FI_PROVIDER", "uet", 1);
	ret = fi_getinfo(V17, NULL, NULL, 0, NULL, &fi);
	cr_assert_eq(ret, 0, "fi_getinfo: %s", fi_strerror(-ret));
	check_attr_caps(fi);
	fi_freeinfo(fi);
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		h->caps = caps[i];
		fi = gi_ok(V17);
		check_attr_caps(fi);
		fi_freeinfo(fi);
	}
}

/* An application may hand tx_attr/rx_attr caps copied from fi->caps,
 * domain caps included: those are still ours. */
Test(getinfo, attr_caps_hint_with_domain_caps)
{
	struct fi_info *fi;

	h->caps = FI_MSG | FI_LOCAL_COMM | FI_REMOTE_COMM;
	h->tx_attr->caps = h->caps;
	h->rx_attr->caps = h->caps;
	fi = gi_ok(V17);
	check_attr_caps(fi);
	fi_freeinfo(fi);
}

Test(getinfo, caps_refused)
{
	static const uint64_t bad[] = {
		FI_COLLECTIVE, FI_MULTICAST, FI_HMEM,
		FI_SOURCE_ERR, FI_VARIABLE_MSG,
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h->caps = bad[i];
		gi_nodata(V17);
	}
}

Test(getinfo, ep_types)
{
	struct fi_info *fi, *e;

	h->ep_attr->type = FI_EP_DGRAM;
	fi = gi_ok(V17);
	for (e = fi; e; e = e->next)
		cr_assert_eq(e->ep_attr->type, FI_EP_DGRAM);
	fi_freeinfo(fi);
	h->ep_attr->type = FI_EP_MSG;
	gi_nodata(V17);
	h->ep_attr->type = FI_EP_RDM;
	fi = gi_ok(V17);
	fi_freeinfo(fi);
}

Test(getinfo, modes_not_claimed)
{
	struct fi_info *fi;

	h->mode = FI_CONTEXT | FI_CONTEXT2 | FI_MSG_PREFIX;
	fi = gi_ok(V17);
	cr_assert_eq(fi->mode, 0);
	cr_assert_eq(fi->ep_attr->msg_prefix_size, 0);
	fi_freeinfo(fi);
	h->mode = 0;	/* supports no mode: still fine, we need none */
	fi = gi_ok(V17);
	fi_freeinfo(fi);
}

Test(getinfo, prefix_size_refused)
{
	h->ep_attr->msg_prefix_size = 16;
	gi_nodata(V17);
}

Test(getinfo, addr_format_in)
{
	struct fi_info *fi, *e;
	struct sockaddr_in sin;

	h->addr_format = FI_SOCKADDR_IN;
	fi = gi_ok(V17);
	for (e = fi; e; e = e->next) {
		cr_assert_eq(e->addr_format, FI_SOCKADDR_IN);
		cr_assert_eq(e->src_addrlen, sizeof(sin));
		memcpy(&sin, e->src_addr, sizeof(sin));
		cr_assert_eq(sin.sin_family, AF_INET);
		cr_assert_eq(sin.sin_port, 0);
	}
	fi_freeinfo(fi);
}

Test(getinfo, addr_format_in6)
{
	struct fi_info *fi, *e;
	int ret;

	h->addr_format = FI_SOCKADDR_IN6;
	ret = gi(V17, NULL, NULL, 0, &fi);
	if (ret == -FI_ENODATA)
		cr_skip_test("no IPv6 address on this host");
	cr_assert_eq(ret, 0);
	for (e = fi; e; e = e->next) {
		cr_assert_eq(e->addr_format, FI_SOCKADDR_IN6);
		cr_assert_eq(e->src_addrlen, sizeof(struct sockaddr_in6));
	}
	fi_freeinfo(fi);
}

Test(getinfo, addr_format_sockaddr)
{
	struct fi_info *fi, *e;

	h->addr_format = FI_SOCKADDR;
	fi = gi_ok(V17);
	for (e = fi; e; e = e->next)
		cr_assert(e->addr_format == FI_SOCKADDR_IN ||
			  e->addr_format == FI_SOCKADDR_IN6);
	fi_freeinfo(fi);
}

Test(getinfo, addr_format_refused)
{
	h->addr_format = FI_SOCKADDR_IB;
	gi_nodata(V17);
	h->addr_format = FI_ADDR_STR;
	gi_nodata(V17);
	h->addr_format = FI_ADDR_PSMX2;
	gi_nodata(V17);
}

Test(getinfo, mr_mode_old_api)
{
	struct fi_info *fi;

	h->domain_attr->mr_mode = FI_MR_UNSPEC;
	fi = gi_ok(FI_VERSION(1, 4));
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_SCALABLE);
	fi_freeinfo(fi);
	h->domain_attr->mr_mode = FI_MR_BASIC;
	fi = gi_ok(FI_VERSION(1, 4));
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_BASIC);
	fi_freeinfo(fi);
	h->domain_attr->mr_mode = FI_MR_SCALABLE;
	fi = gi_ok(FI_VERSION(1, 0));
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_SCALABLE);
	fi_freeinfo(fi);
	/* mode bits do not exist before 1.5 */
	h->domain_attr->mr_mode = FI_MR_LOCAL;
	gi_nodata(FI_VERSION(1, 4));
}

Test(getinfo, mr_mode_new_api)
{
	struct fi_info *fi;

	h->domain_attr->mr_mode = 0;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->mr_mode, 0);
	fi_freeinfo(fi);
	/* bits the application can handle: we need none of them, but keep
	 * provider keys for one-sided use; regions are addressed by
	 * offset (fi_mr.3: a bit not needed is cleared) */
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				  FI_MR_ALLOCATED | FI_MR_PROV_KEY |
				  FI_MR_ENDPOINT | FI_MR_RAW | FI_MR_RMA_EVENT |
				  FI_MR_MMU_NOTIFY;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_PROV_KEY);
	fi_freeinfo(fi);
	h->domain_attr->mr_mode = FI_MR_PROV_KEY;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_PROV_KEY);
	fi_freeinfo(fi);
	h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_LOCAL;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->mr_mode, 0);
	fi_freeinfo(fi);
	/* two-sided only: no registration mode at all */
	h->caps = FI_MSG | FI_TAGGED;
	h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->mr_mode, 0);
	cr_assert_eq(fi->tx_attr->rma_iov_limit, 0);
	fi_freeinfo(fi);
	h->caps = 0;
	h->domain_attr->mr_mode = FI_MR_BASIC;
	fi = gi_ok(FI_VERSION(1, 5));
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_BASIC);
	fi_freeinfo(fi);
}

Test(getinfo, progress_auto_refused)
{
	h->domain_attr->data_progress = FI_PROGRESS_AUTO;
	gi_nodata(V17);
}

Test(getinfo, progress_auto_with_thread)
{
	struct fi_info *fi;

	setenv("FI_UET_PROGRESS_THREAD", "1", 1);
	h->domain_attr->data_progress = FI_PROGRESS_AUTO;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->data_progress, FI_PROGRESS_AUTO);
	fi_freeinfo(fi);
	h->domain_attr->data_progress = FI_PROGRESS_UNSPEC;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->data_progress, FI_PROGRESS_AUTO);
	fi_freeinfo(fi);
}

Test(getinfo, progress_manual)
{
	struct fi_info *fi;

	h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	h->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->data_progress, FI_PROGRESS_MANUAL);
	cr_assert_eq(fi->domain_attr->control_progress, FI_PROGRESS_MANUAL);
	fi_freeinfo(fi);
	h->domain_attr->control_progress = FI_PROGRESS_AUTO;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->control_progress, FI_PROGRESS_AUTO);
	fi_freeinfo(fi);
}

Test(getinfo, threading_levels)
{
	static const enum fi_threading lv[] = {
		FI_THREAD_SAFE, FI_THREAD_FID, FI_THREAD_DOMAIN,
		FI_THREAD_COMPLETION, FI_THREAD_ENDPOINT,
	};
	struct fi_info *fi;

	for (size_t i = 0; i < sizeof(lv) / sizeof(lv[0]); i++) {
		h->domain_attr->threading = lv[i];
		fi = gi_ok(V17);
		cr_assert_eq(fi->domain_attr->threading, lv[i]);
		fi_freeinfo(fi);
	}
}

Test(getinfo, msg_order)
{
	struct fi_info *fi;

	h->tx_attr->msg_order = FI_ORDER_SAS;
	h->rx_attr->msg_order = FI_ORDER_SAS;
	fi = gi_ok(V17);
	cr_assert(fi->tx_attr->msg_order & FI_ORDER_SAS);
	cr_assert(fi->rx_attr->msg_order & FI_ORDER_SAS);
	fi_freeinfo(fi);
	h->tx_attr->msg_order = FI_ORDER_SAS | FI_ORDER_RAW;
	gi_nodata(V17);
	h->tx_attr->msg_order = FI_ORDER_SAS;
	h->rx_attr->msg_order = FI_ORDER_STRICT;
	gi_nodata(V17);
	h->rx_attr->msg_order = FI_ORDER_SAS;
	h->tx_attr->comp_order = FI_ORDER_STRICT;
	gi_nodata(V17);
}

Test(getinfo, cq_data_size)
{
	struct fi_info *fi;

	h->domain_attr->cq_data_size = 4;
	fi = gi_ok(V17);
	cr_assert_geq(fi->domain_attr->cq_data_size, 4);
	fi_freeinfo(fi);
	h->domain_attr->cq_data_size = 8;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->cq_data_size, 8);
	fi_freeinfo(fi);
	h->domain_attr->cq_data_size = 16;
	gi_nodata(V17);
}

Test(getinfo, sizes)
{
	struct fi_info *fi;

	h->ep_attr->max_msg_size = 16u << 20;
	h->tx_attr->inject_size = 4096;
	h->tx_attr->size = 4096;
	h->rx_attr->size = 2048;
	h->tx_attr->iov_limit = 4;
	fi = gi_ok(V17);
	cr_assert_geq(fi->ep_attr->max_msg_size, 16u << 20);
	cr_assert_eq(fi->tx_attr->inject_size, 4096);
	cr_assert_eq(fi->tx_attr->size, 4096);
	cr_assert_eq(fi->rx_attr->size, 2048);
	cr_assert_eq(fi->tx_attr->iov_limit, 4);
	fi_freeinfo(fi);
}

Test(getinfo, sizes_refused)
{
	h->ep_attr->max_msg_size = (size_t)1 << 40;
	gi_nodata(V17);
	h->ep_attr->max_msg_size = 0;
	h->tx_attr->inject_size = 4097;
	gi_nodata(V17);
	h->tx_attr->inject_size = 0;
	h->tx_attr->size = 1u << 20;
	gi_nodata(V17);
	h->tx_attr->size = 0;
	h->rx_attr->iov_limit = 5;
	gi_nodata(V17);
	h->rx_attr->iov_limit = 0;
	h->tx_attr->rma_iov_limit = 2;	/* one key and address per op */
	gi_nodata(V17);
	h->tx_attr->rma_iov_limit = 0;
	/* contexts: 16 per scalable endpoint, 1024 endpoints per shared */
	h->ep_attr->tx_ctx_cnt = 17;
	gi_nodata(V17);
	h->ep_attr->tx_ctx_cnt = 0;
	h->ep_attr->rx_ctx_cnt = 17;
	gi_nodata(V17);
	h->ep_attr->rx_ctx_cnt = 0;
	h->domain_attr->max_ep_rx_ctx = 17;
	gi_nodata(V17);
	h->domain_attr->max_ep_rx_ctx = 0;
	h->domain_attr->max_ep_srx_ctx = 1025;
	gi_nodata(V17);
}

/* Shared contexts and scalable endpoints: what the hints ask for comes
 * back, the limits are advertised, FI_NAMED_RX_CTX only with RDM. */
Test(getinfo, contexts)
{
	struct fi_info *fi, *e;

	h->ep_attr->tx_ctx_cnt = FI_SHARED_CONTEXT;
	h->ep_attr->rx_ctx_cnt = FI_SHARED_CONTEXT;
	fi = gi_ok(V17);
	for (e = fi; e; e = e->next) {
		cr_assert_eq(e->ep_attr->tx_ctx_cnt, FI_SHARED_CONTEXT);
		cr_assert_eq(e->ep_attr->rx_ctx_cnt, FI_SHARED_CONTEXT);
		cr_assert_eq(e->domain_attr->max_ep_stx_ctx, 1024);
		cr_assert_eq(e->domain_attr->max_ep_srx_ctx, 1024);
		cr_assert_eq(e->domain_attr->max_ep_tx_ctx, 16);
		cr_assert_eq(e->domain_attr->max_ep_rx_ctx, 16);
	}
	fi_freeinfo(fi);
	h->ep_attr->tx_ctx_cnt = 4;
	h->ep_attr->rx_ctx_cnt = 2;
	h->caps = FI_MSG | FI_NAMED_RX_CTX;
	fi = gi_ok(V17);
	for (e = fi; e; e = e->next) {
		cr_assert_eq(e->ep_attr->type, FI_EP_RDM);
		cr_assert_eq(e->ep_attr->tx_ctx_cnt, 4);
		cr_assert_eq(e->ep_attr->rx_ctx_cnt, 2);
		cr_assert(e->caps & FI_NAMED_RX_CTX);
		cr_assert(e->tx_attr->caps & FI_NAMED_RX_CTX);
	}
	fi_freeinfo(fi);
	h->ep_attr->type = FI_EP_DGRAM;
	gi_nodata(V17);
}

Test(getinfo, op_flags)
{
	struct fi_info *fi;

	h->tx_attr->op_flags = FI_COMPLETION | FI_DELIVERY_COMPLETE;
	h->rx_attr->op_flags = FI_MULTI_RECV;
	fi = gi_ok(V17);
	cr_assert_eq(fi->tx_attr->op_flags,
		     FI_COMPLETION | FI_DELIVERY_COMPLETE);
	cr_assert_eq(fi->rx_attr->op_flags, FI_MULTI_RECV);
	fi_freeinfo(fi);
	h->tx_attr->op_flags = FI_COMMIT_COMPLETE;
	gi_nodata(V17);
}

Test(getinfo, mem_tag_format)
{
	struct fi_info *fi;

	fi = gi_ok(V17);
	cr_assert_eq(fi->ep_attr->mem_tag_format, 0xAAAAAAAAAAAAAAAAULL);
	fi_freeinfo(fi);
	h->ep_attr->mem_tag_format = 0x0000FFFF0000FFFFULL;
	fi = gi_ok(V17);
	cr_assert_eq(fi->ep_attr->mem_tag_format, 0x0000FFFF0000FFFFULL);
	fi_freeinfo(fi);
}

Test(getinfo, av_type_and_rm)
{
	struct fi_info *fi;

	h->domain_attr->av_type = FI_AV_MAP;
	h->domain_attr->resource_mgmt = FI_RM_DISABLED;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->av_type, FI_AV_MAP);
	cr_assert_eq(fi->domain_attr->resource_mgmt, FI_RM_DISABLED);
	fi_freeinfo(fi);
	h->domain_attr->av_type = FI_AV_TABLE;
	h->domain_attr->resource_mgmt = FI_RM_ENABLED;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->av_type, FI_AV_TABLE);
	cr_assert_eq(fi->domain_attr->resource_mgmt, FI_RM_ENABLED);
	fi_freeinfo(fi);
}

/* Open MPI's OFI MTL (ompi/mca/mtl/ofi, stored version): API 1.5. */
Test(getinfo, open_mpi_hints)
{
	struct fi_info *fi, *e;

	h->caps = FI_TAGGED | FI_DIRECTED_RECV;
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->ep_attr->type = FI_EP_RDM;
	h->addr_format = FI_FORMAT_UNSPEC;
	h->tx_attr->msg_order = FI_ORDER_SAS;
	h->rx_attr->msg_order = FI_ORDER_SAS;
	h->tx_attr->op_flags = FI_COMPLETION;
	h->rx_attr->op_flags = FI_COMPLETION;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	h->domain_attr->resource_mgmt = FI_RM_ENABLED;
	h->domain_attr->av_type = FI_AV_MAP;
	h->domain_attr->mr_mode = 0;
	h->domain_attr->cq_data_size = 4;
	fi = gi_ok(FI_VERSION(1, 5));
	for (e = fi; e; e = e->next) {
		cr_assert_eq(e->caps & (FI_TAGGED | FI_DIRECTED_RECV),
			     FI_TAGGED | FI_DIRECTED_RECV);
		cr_assert_eq(e->domain_attr->av_type, FI_AV_MAP);
		cr_assert_eq(e->domain_attr->threading, FI_THREAD_DOMAIN);
		cr_assert_geq(e->domain_attr->cq_data_size, 4);
		cr_assert(e->tx_attr->msg_order & FI_ORDER_SAS);
		cr_assert(e->rx_attr->msg_order & FI_ORDER_SAS);
		cr_assert_eq(e->mode & ~(FI_CONTEXT | FI_CONTEXT2), 0);
	}
	fi_freeinfo(fi);
	/* older builds ask with API 1.0 and FI_CONTEXT only */
	h->caps = FI_TAGGED;
	h->mode = FI_CONTEXT;
	fi = gi_ok(FI_VERSION(1, 0));
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_SCALABLE);
	fi_freeinfo(fi);
}

/* fi_pingpong (libfabric-bin 1.17) -e rdm, -m msg and -m tagged. */
Test(getinfo, fi_pingpong_hints)
{
	static const uint64_t caps[] = { FI_MSG, FI_TAGGED };
	struct fi_info *fi;

	for (int i = 0; i < 2; i++) {
		h->caps = caps[i];
		h->ep_attr->type = FI_EP_RDM;
		h->mode = FI_CONTEXT | FI_CONTEXT2 | FI_MSG_PREFIX;
		h->domain_attr->mode = ~0ULL;
		h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
					  FI_MR_ALLOCATED | FI_MR_PROV_KEY;
		h->addr_format = FI_SOCKADDR_IN;
		fi = gi_ok(V17);
		cr_assert(fi->caps & caps[i]);
		cr_assert_eq(fi->addr_format, FI_SOCKADDR_IN);
		cr_assert_eq(fi->mode & FI_MSG_PREFIX, 0);
		cr_assert_eq(fi->tx_attr->mode & FI_MSG_PREFIX, 0);
		cr_assert_eq(fi->domain_attr->mr_mode & FI_MR_LOCAL, 0);
		fi_freeinfo(fi);
	}
}

/* fi_info -p uet: mode ~0, mr_mode ~(BASIC|SCALABLE). */
Test(getinfo, fi_info_hints)
{
	struct fi_info *fi;

	h->mode = ~0ULL;
	h->domain_attr->mode = ~0ULL;
	h->domain_attr->mr_mode = ~(FI_MR_BASIC | FI_MR_SCALABLE);
	fi = gi_ok(V17);
	cr_assert_eq(fi->mode, 0);
	fi_freeinfo(fi);
}

static void all_named(const struct fi_info *fi, const char *name)
{
	for (const struct fi_info *e = fi; e; e = e->next)
		cr_assert_str_eq(e->fabric_attr->prov_name, name);
}

static void set_prov_name(const char *name)
{
	free(h->fabric_attr->prov_name);
	h->fabric_attr->prov_name = strdup(name);
}

/* Lists in which uet is the core and every other provider is excluded
 * ask for uet itself: each gives uet's own entries, and no utility
 * provider gets our datagrams to put its reliability over (the core
 * still lets ofi_rxd ask, with "...;^ofi_rxd" and OFI_CORE_PROV_ONLY). */
Test(getinfo, name_lists_with_uet_as_core)
{
	static const char *const lists[] = {
		"uet;^ofi_rxm", "uet;^ofi_rxm;^ofi_rxd", "UET;^ofi_rxd",
		"uet;^ofi_mrail",
	};
	struct fi_info *fi;

	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		set_prov_name(lists[i]);
		h->ep_attr->type = FI_EP_RDM;
		fi = gi_ok(V17);
		all_named(fi, "uet");
		fi_freeinfo(fi);
		/* type unspecified: our DGRAM entries too, ours alone */
		h->ep_attr->type = FI_EP_UNSPEC;
		fi = gi_ok(V17);
		all_named(fi, "uet");
		fi_freeinfo(fi);
	}
}

/* A stack over uet: "uet;ofi_rxd" reaches us as ofi_rxd's request for a
 * DGRAM core, "ofi_rxm;ofi_rxd;uet" (rightmost compared) directly. */
Test(getinfo, layering_refused)
{
	set_prov_name("uet;ofi_rxd");
	h->ep_attr->type = FI_EP_RDM;
	gi_nodata(V17);
	set_prov_name("ofi_rxm;ofi_rxd;uet");
	gi_nodata(V17);
}

Test(getinfo, layering_allowed)
{
	struct fi_info *fi;

	/* the same request as layering_refused, now let through */
	setenv("FI_UET_ALLOW_LAYERING", "1", 1);
	set_prov_name("uet;ofi_rxd");
	h->ep_attr->type = FI_EP_RDM;
	fi = gi_ok(V17);
	cr_assert_eq(fi->ep_attr->type, FI_EP_RDM);
	all_named(fi, "uet;ofi_rxd");
	fi_freeinfo(fi);
}

Test(getinfo, fabric_and_domain_names)
{
	struct fi_info *fi, *e;

	h->fabric_attr->name = strdup("127.0.0.0/8");
	fi = gi_ok(V17);
	for (e = fi; e; e = e->next) {
		cr_assert(is_lo(e));
		cr_assert_eq(e->addr_format, FI_SOCKADDR_IN);
	}
	fi_freeinfo(fi);
	free(h->fabric_attr->name);
	h->fabric_attr->name = strdup("198.51.100.0/24");
	gi_nodata(V17);
	free(h->fabric_attr->name);
	h->fabric_attr->name = NULL;
	h->domain_attr->name = strdup("lo");
	fi = gi_ok(V17);
	for (e = fi; e; e = e->next)
		cr_assert(is_lo(e));
	fi_freeinfo(fi);
	free(h->domain_attr->name);
	h->domain_attr->name = strdup("nosuchif9");
	gi_nodata(V17);
}

Test(getinfo, node_service_dest)
{
	struct sockaddr_in sin;
	struct fi_info *fi, *e;
	int ret;

	ret = gi(V17, "127.0.0.1", "4800", FI_NUMERICHOST, &fi);
	cr_assert_eq(ret, 0);
	cr_assert(is_lo(fi), "the interface of the destination comes first");
	for (e = fi; e; e = e->next) {
		cr_assert_eq(e->addr_format, FI_SOCKADDR_IN);
		cr_assert_eq(e->dest_addrlen, sizeof(sin));
		memcpy(&sin, e->dest_addr, sizeof(sin));
		cr_assert_eq(ntohs(sin.sin_port), 4800);
		cr_assert_eq(ntohl(sin.sin_addr.s_addr), INADDR_LOOPBACK);
	}
	fi_freeinfo(fi);
}

Test(getinfo, node_service_source)
{
	struct sockaddr_in sin;
	struct fi_info *fi, *e;
	int ret;

	ret = gi(V17, "127.0.0.1", "5000", FI_SOURCE, &fi);
	cr_assert_eq(ret, 0);
	for (e = fi; e; e = e->next) {
		cr_assert(is_lo(e));
		memcpy(&sin, e->src_addr, sizeof(sin));
		cr_assert_eq(ntohs(sin.sin_port), 5000);
		cr_assert_null(e->dest_addr);
	}
	fi_freeinfo(fi);
	/* TEST-NET-3 is nobody's local address */
	ret = gi(V17, "203.0.113.77", "5000", FI_SOURCE | FI_NUMERICHOST,
		 &fi);
	cr_assert_eq(ret, -FI_ENODATA);
}

Test(getinfo, service_source_only)
{
	struct fi_info *fi, *e, *all;
	struct uetp_port { uint16_t fam, port; } p;
	int ret, v4 = 0;

	/* FI_SOURCE with a service alone: every interface, that port */
	ret = gi(V17, NULL, "5001", FI_SOURCE, &fi);
	cr_assert_eq(ret, 0);
	for (e = fi; e; e = e->next) {
		memcpy(&p, e->src_addr, sizeof(p));
		cr_assert_eq(ntohs(p.port), 5001, "%s", e->domain_attr->name);
		v4 += e->addr_format == FI_SOCKADDR_IN;
	}
	cr_assert_gt(v4, 0);
	all = gi_ok(V17);
	cr_assert_eq(count(fi), count(all), "every interface address");
	fi_freeinfo(all);
	fi_freeinfo(fi);
}

Test(getinfo, node_ipv6)
{
	struct fi_info *fi, *e;
	int ret;

	ret = gi(V17, "::1", "4800", FI_NUMERICHOST, &fi);
	if (ret == -FI_ENODATA)
		cr_skip_test("no IPv6 loopback");
	cr_assert_eq(ret, 0);
	for (e = fi; e; e = e->next)
		cr_assert_eq(e->addr_format, FI_SOCKADDR_IN6);
	fi_freeinfo(fi);
}

Test(getinfo, hints_dest_addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct fi_info *fi;

	sin.sin_port = htons(1234);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	h->addr_format = FI_SOCKADDR_IN;
	h->dest_addr = malloc(sizeof(sin));
	memcpy(h->dest_addr, &sin, sizeof(sin));
	h->dest_addrlen = sizeof(sin);
	fi = gi_ok(V17);
	cr_assert(is_lo(fi));
	cr_assert_eq(fi->dest_addrlen, sizeof(sin));
	cr_assert_eq(memcmp(fi->dest_addr, &sin, sizeof(sin)), 0);
	fi_freeinfo(fi);
}

/* The FI_FORMAT_UNSPEC name, built from its documented layout
 * (fi_uet.7): 'U' 'E', version 1, af 4, port, pid, ri, 0, job, ip. */
Test(getinfo, uet_name_format)
{
	uint8_t name[32] = { 0x55, 0x45, 1, 4, 0x12, 0xB9 };
	const uint8_t *src;
	struct fi_info *fi;

	name[16] = 127;
	name[19] = 1;
	h->addr_format = FI_FORMAT_UNSPEC;
	h->dest_addr = malloc(sizeof(name));
	memcpy(h->dest_addr, name, sizeof(name));
	h->dest_addrlen = sizeof(name);
	fi = gi_ok(V17);
	cr_assert(is_lo(fi));
	cr_assert_eq(fi->addr_format, FI_FORMAT_UNSPEC);
	cr_assert_eq(fi->dest_addrlen, 32);
	cr_assert_eq(fi->src_addrlen, 32);
	src = fi->src_addr;
	cr_assert_eq(src[0], 0x55);
	cr_assert_eq(src[1], 0x45);
	cr_assert_eq(src[2], 1);
	cr_assert_eq(src[3], 4);
	cr_assert_eq(memcmp(fi->dest_addr, name, 6), 0);
	fi_freeinfo(fi);
}

Test(getinfo, auth_key)
{
	uint32_t job = 7;
	struct fi_info *fi;

	h->domain_attr->auth_key = malloc(sizeof(job));
	memcpy(h->domain_attr->auth_key, &job, sizeof(job));
	h->domain_attr->auth_key_size = sizeof(job);
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->auth_key_size, 4);
	cr_assert_eq(memcmp(fi->domain_attr->auth_key, &job, 4), 0);
	fi_freeinfo(fi);
	job = 0x1000000;	/* beyond 24 bits */
	memcpy(h->domain_attr->auth_key, &job, sizeof(job));
	gi_nodata(V17);
	free(h->domain_attr->auth_key);
	h->domain_attr->auth_key = calloc(1, 8);
	h->domain_attr->auth_key_size = 8;
	gi_nodata(V17);
}

/* Every FI_TC_* label and DSCP value, for the endpoint or the domain,
 * as fabtests' benchmarks ask (FI_TC_LOW_LATENCY, FI_TC_BULK_DATA);
 * anything else is refused. */
Test(getinfo, tclass)
{
	static const uint32_t ok[] = {
		FI_TC_UNSPEC, FI_TC_BEST_EFFORT, FI_TC_LOW_LATENCY,
		FI_TC_DEDICATED_ACCESS, FI_TC_BULK_DATA, FI_TC_SCAVENGER,
		FI_TC_NETWORK_CTRL, FI_TC_DSCP | 0, FI_TC_DSCP | 46,
		FI_TC_DSCP | 63,
	};
	static const uint32_t bad[] = {
		FI_TC_NETWORK_CTRL + 1, FI_TC_DSCP | 64, FI_TC_DSCP | 0xFF,
		1, FI_TC_LABEL | FI_TC_DSCP, 0x10000 | FI_TC_BEST_EFFORT,
	};
	struct fi_info *fi;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		h->tx_attr->tclass = ok[i];
		h->domain_attr->tclass = ok[(i + 3) % 10];
		fi = gi_ok(V17);
		for (struct fi_info *e = fi; e; e = e->next) {
			cr_assert_eq(e->tx_attr->tclass, ok[i]);
			cr_assert_eq(e->domain_attr->tclass, ok[(i + 3) % 10]);
		}
		fi_freeinfo(fi);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		h->domain_attr->tclass = FI_TC_UNSPEC;
		h->tx_attr->tclass = bad[i];
		gi_nodata(V17);
		h->tx_attr->tclass = FI_TC_UNSPEC;
		h->domain_attr->tclass = bad[i];
		gi_nodata(V17);
	}
}

Test(getinfo, dupinfo_roundtrip)
{
	struct fi_info *fi = gi_ok(V17), *d;

	d = fi_dupinfo(fi);
	cr_assert_not_null(d);
	cr_assert_str_eq(d->fabric_attr->name, fi->fabric_attr->name);
	cr_assert_str_eq(d->domain_attr->name, fi->domain_attr->name);
	cr_assert_eq(memcmp(d->src_addr, fi->src_addr, fi->src_addrlen), 0);
	fi_freeinfo(d);
	cr_assert_geq(count(fi), 1);
	fi_freeinfo(fi);
}

/* ---- one-sided capabilities ---- */

Test(getinfo, caps_atomic_implies_directions)
{
	struct fi_info *fi;

	h->caps = FI_ATOMIC;
	fi = gi_ok(V17);
	cr_assert_eq(fi->caps & (ONE_SIDED | FI_MSG | FI_TAGGED | FI_SEND |
				 FI_RECV), FI_ATOMIC | RMA_DIRS);
	cr_assert_eq(fi->tx_attr->caps & (FI_REMOTE_READ | FI_REMOTE_WRITE),
		     0);
	cr_assert_eq(fi->rx_attr->caps & (FI_READ | FI_WRITE), 0);
	cr_assert(fi->tx_attr->caps & FI_ATOMIC);
	cr_assert_eq(fi->tx_attr->rma_iov_limit, 1);
	fi_freeinfo(fi);
	/* one direction named: only that one */
	h->caps = FI_ATOMIC | FI_READ;
	fi = gi_ok(V17);
	cr_assert_eq(fi->caps & ONE_SIDED, FI_ATOMIC | FI_READ);
	fi_freeinfo(fi);
	/* with messages: both classes, each with its directions */
	h->caps = FI_MSG | FI_ATOMIC;
	fi = gi_ok(V17);
	cr_assert_eq(fi->caps & (ONE_SIDED | FI_MSG | FI_SEND | FI_RECV),
		     FI_ATOMIC | RMA_DIRS | FI_MSG | FI_SEND | FI_RECV);
	fi_freeinfo(fi);
}

Test(getinfo, caps_rma)
{
	struct fi_info *fi;

	/* RMA alone: both directions, the secondary caps, no messages */
	h->caps = FI_RMA;
	fi = gi_ok(V17);
	cr_assert_eq(fi->caps & (ONE_SIDED | FI_MSG | FI_TAGGED | FI_SEND |
				 FI_RECV), FI_RMA | RMA_DIRS);
	cr_assert_eq(fi->caps & ONE_SIDED_SEC, ONE_SIDED_SEC);
	cr_assert(fi->tx_attr->caps & FI_RMA);
	cr_assert_eq(fi->tx_attr->rma_iov_limit, 1);
	fi_freeinfo(fi);
	/* what MPICH asks for: RMA with its directions, remote counters and
	 * fences named */
	h->caps = FI_RMA | RMA_DIRS | FI_TAGGED | FI_RMA_EVENT | FI_FENCE;
	fi = gi_ok(V17);
	cr_assert_eq(fi->caps & (ONE_SIDED | ONE_SIDED_SEC),
		     FI_RMA | RMA_DIRS | ONE_SIDED_SEC);
	fi_freeinfo(fi);
	/* a target-only RMA endpoint */
	h->caps = FI_RMA | FI_REMOTE_WRITE;
	fi = gi_ok(V17);
	cr_assert_eq(fi->caps & ONE_SIDED, FI_RMA | FI_REMOTE_WRITE);
	fi_freeinfo(fi);
}

Test(getinfo, one_sided_limits)
{
	h->caps = FI_ATOMIC;
	h->tx_attr->rma_iov_limit = 2;
	gi_nodata(V17);
	h->tx_attr->rma_iov_limit = 1;
	h->domain_attr->mr_iov_limit = 2;
	gi_nodata(V17);
	h->domain_attr->mr_iov_limit = 1;
	h->ep_attr->max_order_waw_size = 64;
	gi_nodata(V17);
}

/* fabtests' fi_multi_mr (1.17): it allows FI_MR_VIRT_ADDR, yet writes
 * to address 0 of each region; with the bit cleared, address 0 is the
 * start of the region. */
Test(getinfo, mr_mode_fi_multi_mr_hints)
{
	struct fi_info *fi;

	h->caps = FI_RMA | FI_RMA_EVENT | FI_MSG;
	h->mode = FI_CONTEXT;
	h->ep_attr->type = FI_EP_RDM;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ENDPOINT |
				  FI_MR_ALLOCATED | FI_MR_PROV_KEY |
				  FI_MR_VIRT_ADDR;
	fi = gi_ok(V17);
	for (struct fi_info *e = fi; e; e = e->next)
		cr_assert_eq(e->domain_attr->mr_mode, FI_MR_PROV_KEY);
	fi_freeinfo(fi);
}

/* FI_UET_MR_VIRT_ADDR=1: virtual addresses whenever allowed. */
Test(getinfo, mr_mode_virt_addr_param)
{
	struct fi_info *fi;

	setenv("FI_UET_MR_VIRT_ADDR", "1", 1);
	h->caps = FI_RMA;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				  FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->mr_mode,
		     FI_MR_VIRT_ADDR | FI_MR_PROV_KEY);
	fi_freeinfo(fi);
	/* never when not allowed */
	h->domain_attr->mr_mode = FI_MR_PROV_KEY;
	fi = gi_ok(V17);
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_PROV_KEY);
	fi_freeinfo(fi);
}

Test(getinfo, mr_mode_basic_with_atomics)
{
	struct fi_info *fi;

	h->caps = FI_ATOMIC;
	h->domain_attr->mr_mode = FI_MR_BASIC;
	fi = gi_ok(FI_VERSION(1, 4));
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_BASIC);
	fi_freeinfo(fi);
	h->domain_attr->mr_mode = FI_MR_SCALABLE;
	fi = gi_ok(FI_VERSION(1, 4));
	cr_assert_eq(fi->domain_attr->mr_mode, FI_MR_SCALABLE);
	fi_freeinfo(fi);
}

/* fi_domain takes the mr_mode bits we implement, even those we never
 * ask for (FI_MR_ENDPOINT, FI_MR_ALLOCATED), and refuses the others. */
Test(getinfo, domain_mr_mode_honoured)
{
	static const uint64_t ok[] = {
		0, FI_MR_VIRT_ADDR | FI_MR_PROV_KEY, FI_MR_ENDPOINT,
		FI_MR_ALLOCATED | FI_MR_LOCAL, FI_MR_BASIC, FI_MR_SCALABLE,
	};
	static const uint64_t bad[] = {
		FI_MR_RAW, FI_MR_RMA_EVENT, FI_MR_MMU_NOTIFY, FI_MR_HMEM,
		FI_MR_COLLECTIVE | FI_MR_PROV_KEY,
	};
	struct fid_fabric *fab;
	struct fid_domain *dom;
	struct fi_info *fi;

	setenv("FI_UET_IFACE", "lo", 1);
	h->caps = FI_ATOMIC;
	fi = gi_ok(V17);
	cr_assert_eq(fi_fabric(fi->fabric_attr, &fab, NULL), 0);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		fi->domain_attr->mr_mode = (int)ok[i];
		cr_assert_eq(fi_domain(fab, fi, &dom, NULL), 0,
			     "mr_mode 0x%llx", (unsigned long long)ok[i]);
		cr_assert_eq(fi_close(&dom->fid), 0);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fi->domain_attr->mr_mode = (int)bad[i];
		cr_assert_neq(fi_domain(fab, fi, &dom, NULL), 0,
			      "mr_mode 0x%llx", (unsigned long long)bad[i]);
	}
	cr_assert_eq(fi_close(&fab->fid), 0);
	fi_freeinfo(fi);
}
