/* FI_EP_DGRAM and FI_UET_RUDI through the provider's objects, two
 * endpoints in one process on the mem net under the fake clock: which
 * fi_info entries getinfo gives for which hints (and none to a utility
 * provider shopping for a core), datagrams with data, source addresses
 * and their size limit, the op tables a DGRAM endpoint refuses, and RMA
 * over RUDI with the keys FI_UET_RUDI hands out.
 *
 * Each test runs in its own process (Criterion) and sets its FI_UET_*
 * environment before calling fi_prov_ini. */
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uet/fep.h"
#include "uet/wire.h"
#include "uetp.h"

#include "test_util.h"

static struct {
	struct uetp_test_pair p;
} dx;

static struct fi_info *dgram_hints(void)
{
	return uetp_test_lo_hints(FI_EP_DGRAM, 0);
}

/* Two endpoints of the first lo entry getinfo gives for hints h, on the
 * mem net under the fake clock. */
static void dx_open_hints(struct fi_info *h)
{
	const struct uetp_test_side_attr sa = {
		.cq = { .format = FI_CQ_FORMAT_TAGGED, .size = 64 },
	};

	uetp_test_mem_start(NULL);
	uetp_test_getinfo(&dx.p, h);
	uetp_test_pair_open(&dx.p, &sa);
}

static void dx_open(void)
{
	dx_open_hints(dgram_hints());
}

static void dx_close(void)
{
	uetp_test_pair_close(&dx.p);
}

static ssize_t dwait(struct fid_cq *want, struct fi_cq_tagged_entry *e,
		     fi_addr_t *src, int ms)
{
	uet_time end = uetp_now() + (uet_time)ms * UET_MSEC;
	ssize_t ret;

	do {
		ret = fi_cq_readfrom(want, e, 1, src);
		if (ret != -FI_EAGAIN)
			return ret;
		fi_cq_read(want == dx.p.a.cq ? dx.p.b.cq : dx.p.a.cq, NULL, 0);
		uetp_test_idle(dx.p.domain);
	} while (uetp_now() < end);
	return -FI_EAGAIN;
}

static void dexpect(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		    fi_addr_t *src)
{
	fi_addr_t junk;
	ssize_t ret = dwait(cq, e, src ? src : &junk, 10000);

	cr_assert_eq(ret, 1, "no completion (%zd)", ret);
}

/* ---- getinfo ---- */

TestSuite(dgram_info, .timeout = 60);

Test(dgram_info, dgram_entries_for_dgram_hints)
{
	struct fi_info *h = dgram_hints(), *info, *fi;
	struct uetp_iface ifc;
	struct uet_addr lo = { .af = UET_AF_INET, .ip = { 127, 0, 0, 1 } };

	fi_prov_ini();
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &info), 0);
	cr_assert_eq(uetp_iface_find(&lo, &ifc), 0);
	for (fi = info; fi; fi = fi->next) {
		cr_assert_eq(fi->ep_attr->type, FI_EP_DGRAM);
		cr_assert_eq(fi->caps & ~(uint64_t)UETP_DGRAM_CAPS, 0);
		cr_assert(fi->caps & FI_MSG);
		cr_assert_eq(fi->caps & (FI_TAGGED | FI_RMA | FI_ATOMIC), 0);
		cr_assert_eq(fi->tx_attr->msg_order, FI_ORDER_NONE);
		cr_assert_eq(fi->rx_attr->msg_order, FI_ORDER_NONE);
		cr_assert_eq(fi->ep_attr->max_msg_size,
			     uet_fep_dgram_max(uetp_iface_mtu(&ifc)));
		cr_assert_leq(fi->tx_attr->inject_size,
			      fi->ep_attr->max_msg_size);
		cr_assert_eq(fi->ep_attr->mem_tag_format, 0);
	}
	fi_freeinfo(info);
	/* what a datagram endpoint cannot do */
	h->caps = FI_MSG | FI_TAGGED;
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &info), -FI_ENODATA);
	h->caps = FI_MSG;
	h->tx_attr->msg_order = FI_ORDER_SAS;
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &info), -FI_ENODATA);
	h->tx_attr->msg_order = 0;
	h->ep_attr->max_msg_size = uetp_dgram_max(&ifc) + 1;
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &info), -FI_ENODATA);
	h->ep_attr->max_msg_size = uetp_dgram_max(&ifc);
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &info), 0);
	fi_freeinfo(info);
	h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &info), -FI_ENODATA);
	fi_freeinfo(h);
}

/* No type: every RDM entry, then the DGRAM ones; a tagged hint keeps
 * RDM only; an RDM hint never gets DGRAM. */
Test(dgram_info, unspecified_type_lists_rdm_then_dgram)
{
	struct fi_info *h = fi_allocinfo(), *info, *fi;
	size_t nrdm = 0, ndg = 0;
	bool seen_dgram = false;

	fi_prov_ini();
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &info), 0);
	for (fi = info; fi; fi = fi->next) {
		if (fi->ep_attr->type == FI_EP_DGRAM) {
			seen_dgram = true;
			ndg++;
		} else {
			cr_assert_eq(fi->ep_attr->type, FI_EP_RDM);
			cr_assert_not(seen_dgram, "RDM after DGRAM");
			nrdm++;
		}
	}
	cr_assert_gt(nrdm, 0);
	cr_assert_eq(ndg, nrdm);
	fi_freeinfo(info);
	h->caps = FI_TAGGED;
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &info), 0);
	for (fi = info; fi; fi = fi->next)
		cr_assert_eq(fi->ep_attr->type, FI_EP_RDM);
	fi_freeinfo(info);
	h->caps = 0;
	h->ep_attr->type = FI_EP_RDM;
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &info), 0);
	for (fi = info; fi; fi = fi->next)
		cr_assert_eq(fi->ep_attr->type, FI_EP_RDM);
	fi_freeinfo(info);
	fi_freeinfo(h);
}

static int dgram_getinfo(struct fi_info *h, const char *prov, uint64_t flags,
			 struct fi_info **info)
{
	free(h->fabric_attr->prov_name);
	h->fabric_attr->prov_name = prov ? strdup(prov) : NULL;
	return uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, flags, h,
				 info);
}

static void only_type(struct fi_info *info, enum fi_ep_type type)
{
	cr_assert_not_null(info);
	for (struct fi_info *fi = info; fi; fi = fi->next)
		cr_assert_eq(fi->ep_attr->type, type);
	fi_freeinfo(info);
}

/* A utility provider asking for its core (OFI_CORE_PROV_ONLY) gets no
 * datagram endpoints - ofi_rxd would put its reliability over them -
 * unless FI_UET_ALLOW_LAYERING=1; one that takes FI_EP_RDM as it is
 * (ofi_mrail) still gets ours. An application's own name list with uet
 * as its core is a request for uet, exclusions or not. */
Test(dgram_info, no_core_for_utility_providers)
{
	struct fi_info *h = dgram_hints(), *info;

	fi_prov_ini();
	cr_assert_eq(dgram_getinfo(h, NULL, UETP_CORE_PROV_ONLY, &info),
		     -FI_ENODATA);
	cr_assert_eq(dgram_getinfo(h, "^ofi_rxd", UETP_CORE_PROV_ONLY,
				   &info), -FI_ENODATA);
	cr_assert_eq(dgram_getinfo(h, "uet;^ofi_rxd", UETP_CORE_PROV_ONLY,
				   &info), -FI_ENODATA);
	/* a stack named over us, not excluded */
	cr_assert_eq(dgram_getinfo(h, "uet;ofi_rxd", 0, &info), -FI_ENODATA);
	cr_assert_eq(dgram_getinfo(h, "ofi_rxm;ofi_rxd;uet", 0, &info),
		     -FI_ENODATA);
	/* the application's exclusions: uet itself */
	cr_assert_eq(dgram_getinfo(h, "^ofi_rxd", 0, &info), 0);
	only_type(info, FI_EP_DGRAM);
	cr_assert_eq(dgram_getinfo(h, "uet;^ofi_rxd;^ofi_rxm", 0, &info), 0);
	only_type(info, FI_EP_DGRAM);
	/* a core wanted for FI_EP_RDM, or for any type: RDM only */
	h->ep_attr->type = FI_EP_RDM;
	cr_assert_eq(dgram_getinfo(h, "uet;^ofi_mrail", UETP_CORE_PROV_ONLY,
				   &info), 0);
	only_type(info, FI_EP_RDM);
	h->ep_attr->type = FI_EP_UNSPEC;
	cr_assert_eq(dgram_getinfo(h, "uet;^ofi_mrail", UETP_CORE_PROV_ONLY,
				   &info), 0);
	only_type(info, FI_EP_RDM);
	h->ep_attr->type = FI_EP_DGRAM;
	uetp_env.allow_layering = 1;
	cr_assert_eq(dgram_getinfo(h, "uet;^ofi_rxd", UETP_CORE_PROV_ONLY,
				   &info), 0);
	only_type(info, FI_EP_DGRAM);
	cr_assert_eq(dgram_getinfo(h, "ofi_rxm;ofi_rxd;uet", 0, &info), 0);
	only_type(info, FI_EP_DGRAM);
	uetp_env.allow_layering = 0;
	fi_freeinfo(h);
}

/* The name rule by itself. */
Test(dgram_info, provider_name_lists)
{
	static const char *const direct[] = {
		"uet", "UET", "uet;^ofi_rxm", "^ofi_rxd", "uet;^ofi_rxm;^ofi_rxd",
		"^ofi_rxm;uet", "", "uet;",
	};
	static const char *const stacked[] = {
		"uet;ofi_rxd", "ofi_rxm;uet", "ofi_rxm;ofi_rxd;uet",
		"uet;ofi_rxm;^ofi_rxd", "tcp;uet", "uetx", "ue",
	};

	for (size_t i = 0; i < sizeof(direct) / sizeof(direct[0]); i++)
		cr_assert(uetp_names_direct(direct[i]), "%s", direct[i]);
	for (size_t i = 0; i < sizeof(stacked) / sizeof(stacked[0]); i++)
		cr_assert_not(uetp_names_direct(stacked[i]), "%s",
			      stacked[i]);
}

/* ---- the endpoint ---- */

TestSuite(dgram, .init = dx_open, .fini = dx_close, .timeout = 60);

Test(dgram, datagrams_with_source_and_data)
{
	size_t max = dx.p.info->ep_attr->max_msg_size;
	uint8_t *tx = malloc(max), *rx = calloc(1, max);
	struct fi_cq_tagged_entry e;
	fi_addr_t src;

	for (size_t i = 0; i < max; i++)
		tx[i] = (uint8_t)(i * 13 + 1);
	cr_assert_eq(fi_recv(dx.p.b.ep, rx, max, NULL, FI_ADDR_UNSPEC,
			     (void *)0xB1), 0);
	cr_assert_eq(fi_send(dx.p.a.ep, tx, max, NULL, dx.p.a.peer, (void *)0xA1),
		     0);
	dexpect(dx.p.b.cq, &e, &src);
	cr_assert_eq(e.op_context, (void *)0xB1);
	cr_assert_eq(e.flags, FI_RECV | FI_MSG);
	cr_assert_eq(e.len, max);
	cr_assert_eq(memcmp(rx, tx, max), 0);
	cr_assert_eq(src, dx.p.b.peer, "FI_SOURCE: the sender's fi_addr");
	dexpect(dx.p.a.cq, &e, NULL);
	cr_assert_eq(e.op_context, (void *)0xA1);
	cr_assert_eq(e.flags, FI_SEND | FI_MSG);
	/* senddata + inject + sendmsg(FI_TRANSMIT_COMPLETE) */
	cr_assert_eq(fi_recv(dx.p.b.ep, rx, max, NULL, FI_ADDR_UNSPEC, NULL), 0);
	cr_assert_eq(fi_senddata(dx.p.a.ep, "hello", 6, NULL, 0xC0DE,
				 dx.p.a.peer, (void *)0xA2), 0);
	dexpect(dx.p.b.cq, &e, NULL);
	cr_assert(e.flags & FI_REMOTE_CQ_DATA);
	cr_assert_eq(e.data, 0xC0DE);
	cr_assert_str_eq((char *)rx, "hello");
	dexpect(dx.p.a.cq, &e, NULL);
	cr_assert_eq(fi_recv(dx.p.b.ep, rx, max, NULL, FI_ADDR_UNSPEC, NULL), 0);
	cr_assert_eq(fi_inject(dx.p.a.ep, "inj", 4, dx.p.a.peer), 0);
	dexpect(dx.p.b.cq, &e, NULL);
	cr_assert_str_eq((char *)rx, "inj");
	{
		struct iovec iov = { .iov_base = tx, .iov_len = 100 };
		struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1,
				      .addr = dx.p.a.peer,
				      .context = (void *)0xA3 };

		cr_assert_eq(fi_recv(dx.p.b.ep, rx, max, NULL, FI_ADDR_UNSPEC,
				     NULL), 0);
		cr_assert_eq(fi_sendmsg(dx.p.a.ep, &msg, FI_TRANSMIT_COMPLETE |
					FI_COMPLETION), 0);
		dexpect(dx.p.b.cq, &e, NULL);
		cr_assert_eq(e.len, 100);
		dexpect(dx.p.a.cq, &e, NULL);
		cr_assert_eq(e.op_context, (void *)0xA3);
		cr_assert_eq(fi_sendmsg(dx.p.a.ep, &msg, FI_DELIVERY_COMPLETE),
			     -FI_EINVAL);
	}
	free(tx);
	free(rx);
}

Test(dgram, size_limit_and_refused_ops)
{
	size_t max = dx.p.info->ep_attr->max_msg_size;
	uint8_t *tx = calloc(1, max + 1), rx[8];
	struct fi_cq_tagged_entry e;

	cr_assert_eq(fi_send(dx.p.a.ep, tx, max + 1, NULL, dx.p.a.peer, NULL),
		     -FI_EMSGSIZE);
	cr_assert_eq(fi_tsend(dx.p.a.ep, tx, 1, NULL, dx.p.a.peer, 1, NULL),
		     -FI_ENOSYS);
	cr_assert_eq(fi_trecv(dx.p.b.ep, rx, 8, NULL, FI_ADDR_UNSPEC, 1, 0,
			      NULL), -FI_ENOSYS);
	cr_assert_eq(fi_write(dx.p.a.ep, tx, 1, NULL, dx.p.a.peer, 0, 1, NULL),
		     -FI_ENOSYS);
	/* nothing was posted: no completion either */
	cr_assert_eq(dwait(dx.p.a.cq, &e, &(fi_addr_t){ 0 }, 200), -FI_EAGAIN);
	/* a short receive: truncated, the rest counted in olen */
	cr_assert_eq(fi_recv(dx.p.b.ep, rx, 8, NULL, FI_ADDR_UNSPEC, NULL), 0);
	cr_assert_eq(fi_send(dx.p.a.ep, tx, 20, NULL, dx.p.a.peer, NULL), 0);
	cr_assert_eq(dwait(dx.p.b.cq, &e, &(fi_addr_t){ 0 }, 10000), -FI_EAVAIL);
	{
		struct fi_cq_err_entry ee = { 0 };

		cr_assert_eq(fi_cq_readerr(dx.p.b.cq, &ee, 0), 1);
		cr_assert_eq(ee.err, FI_ETRUNC);
		cr_assert_eq(ee.len, 8);
		cr_assert_eq(ee.olen, 12);
	}
	free(tx);
}

/* A datagram that arrives before its receive waits for it (within the
 * unexpected budget), as a socket buffer would keep it. */
Test(dgram, no_receive_yet_held)
{
	struct fi_cq_tagged_entry e;
	char rx[2][16] = { "", "" };

	cr_assert_eq(fi_send(dx.p.a.ep, "early", 6, NULL, dx.p.a.peer, NULL), 0);
	dexpect(dx.p.a.cq, &e, NULL);
	/* let it arrive and wait */
	cr_assert_eq(dwait(dx.p.b.cq, &e, &(fi_addr_t){ 0 }, 300), -FI_EAGAIN);
	cr_assert_eq(fi_recv(dx.p.b.ep, rx[0], 16, NULL, FI_ADDR_UNSPEC, NULL),
		     0);
	cr_assert_eq(fi_recv(dx.p.b.ep, rx[1], 16, NULL, FI_ADDR_UNSPEC, NULL),
		     0);
	cr_assert_eq(fi_send(dx.p.a.ep, "late", 5, NULL, dx.p.a.peer, NULL), 0);
	dexpect(dx.p.b.cq, &e, NULL);
	dexpect(dx.p.b.cq, &e, NULL);
	cr_assert_str_eq(rx[0], "early");
	cr_assert_str_eq(rx[1], "late");
}

/* ---- FI_UET_RUDI ---- */

TestSuite(rudi, .timeout = 60);

static void rudi_open(void)
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_RDM, FI_MSG | FI_RMA);

	setenv("FI_UET_RUDI", "1", 1);
	h->domain_attr->mr_mode = FI_MR_PROV_KEY | FI_MR_VIRT_ADDR;
	dx_open_hints(h);
}

Test(rudi, idempotent_keys_and_rma, .init = rudi_open, .fini = dx_close)
{
	enum { LEN = 100000 };
	uint8_t *tgt = calloc(1, LEN), *src = malloc(LEN), *back =
		calloc(1, LEN);
	struct fid_mr *mr, *mr_ev, *mr_local;
	struct fi_cq_tagged_entry e;
	uint64_t key, base;

	if (!(dx.p.info->caps & FI_RMA))
		cr_skip_test("FI_RMA not advertised");
	/* addressed as granted: by offset unless FI_MR_VIRT_ADDR */
	base = (dx.p.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
	       (uint64_t)(uintptr_t)tgt : 0;
	cr_assert_eq(fi_mr_reg(dx.p.domain, tgt, LEN, FI_REMOTE_READ |
			       FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL), 0);
	key = fi_mr_key(mr);
	cr_assert(key & UET_MKEY_IDEMPOTENT_SAFE, "no key bit 63");
	/* remote events wanted, or no remote access: not idempotent */
	cr_assert_eq(fi_mr_reg(dx.p.domain, back, 64, FI_REMOTE_WRITE, 0, 0,
			       FI_RMA_EVENT, &mr_ev, NULL), 0);
	cr_assert_eq(fi_mr_key(mr_ev) & UET_MKEY_IDEMPOTENT_SAFE, 0);
	cr_assert_eq(fi_mr_reg(dx.p.domain, src, 64, FI_READ | FI_WRITE, 0, 0,
			       0, &mr_local, NULL), 0);
	cr_assert_eq(fi_mr_key(mr_local) & UET_MKEY_IDEMPOTENT_SAFE, 0);
	for (size_t i = 0; i < LEN; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	cr_assert_eq(fi_write(dx.p.a.ep, src, LEN, NULL, dx.p.a.peer,
			      base, key, (void *)1), 0);
	dexpect(dx.p.a.cq, &e, NULL);
	cr_assert_eq(e.flags, FI_RMA | FI_WRITE);
	cr_assert_eq(memcmp(tgt, src, LEN), 0);
	cr_assert_eq(fi_read(dx.p.a.ep, back, LEN, NULL, dx.p.a.peer,
			     base, key, (void *)2), 0);
	dexpect(dx.p.a.cq, &e, NULL);
	cr_assert_eq(e.flags, FI_RMA | FI_READ);
	cr_assert_eq(memcmp(back, src, LEN), 0);
	{
		/* connectionless: requests counted, no PDC opened */
		struct uetp_ep *ep = uet_container_of(dx.p.a.ep, struct uetp_ep,
						       fid);
		struct uet_fep_stats st;

		uet_fep_stats(ep->fep, &st);
		cr_assert_gt(st.cl_tx, 2 * LEN / 16384);
		cr_assert_eq(st.pdc_open, 0);
	}
	/* out of range: the target's code, over RUDI as on a PDC */
	cr_assert_eq(fi_write(dx.p.a.ep, src, 16, NULL, dx.p.a.peer,
			      base + LEN - 8, key,
			      (void *)3), 0);
	cr_assert_eq(dwait(dx.p.a.cq, &e, &(fi_addr_t){ 0 }, 10000), -FI_EAVAIL);
	{
		struct fi_cq_err_entry ee = { 0 };

		cr_assert_eq(fi_cq_readerr(dx.p.a.cq, &ee, 0), 1);
		cr_assert_eq(ee.prov_errno, UET_RC_BAD_ADDR);
	}
	fi_close(&mr->fid);
	fi_close(&mr_ev->fid);
	fi_close(&mr_local->fid);
	free(tgt);
	free(src);
	free(back);
}
