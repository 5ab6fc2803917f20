/* Memory regions, one-sided capabilities and atomics through the provider
 * objects: keys (application and provider), argument checks, bindings,
 * FI_MR_ENDPOINT, fi_query_atomic and the *valid calls, and atomics
 * between endpoints through the real engine on the mem net under the
 * fake clock - into regions registered before the target endpoint
 * existed, under both addressing modes, with the completion flags,
 * counters and error codes.
 */
#include <netinet/in.h>
#include <sys/socket.h>

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uet/err.h"
#include "uet/wire.h"
#include "uetp.h"

#include "test_util.h"

static struct {
	struct uetp_test_pair p;
} mx;

/* On the mem net under the fake clock. */
static void mx_domain(uint64_t mr_mode)
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_UNSPEC,
					       FI_MSG | FI_ATOMIC);

	uetp_test_mem_start(NULL);
	h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_PROV_KEY;
	uetp_test_getinfo(&mx.p, h);
	/* what the application then hands to fi_domain */
	mx.p.info->domain_attr->mr_mode = (int)mr_mode;
	uetp_test_domain_open(&mx.p);
}

static void mside_open(struct uetp_test_side *s)
{
	const struct uetp_test_side_attr sa = {
		.cq = { .format = FI_CQ_FORMAT_DATA, .size = 64 },
		.cntr = { .events = FI_CNTR_EVENTS_COMP },
		.rw_cntrs = true,
		.defer_enable = true,
	};

	uetp_test_side_open(s, mx.p.domain, mx.p.info, &sa);
	/* remote events need FI_RMA_EVENT: an endpoint opened without it
	 * refuses them */
	{
		struct fi_info *ni = fi_dupinfo(mx.p.info);
		struct fid_ep *ep;

		ni->caps &= ~(uint64_t)FI_RMA_EVENT;
		ni->rx_attr->caps &= ~(uint64_t)FI_RMA_EVENT;
		cr_assert_eq(fi_endpoint(mx.p.domain, ni, &ep, NULL), 0);
		cr_assert_eq(fi_ep_bind(ep, &s->wc->fid, FI_REMOTE_WRITE),
			     -FI_EINVAL);
		cr_assert_eq(fi_close(&ep->fid), 0);
		fi_freeinfo(ni);
	}
	cr_assert_eq(fi_ep_bind(s->ep, &s->rc->fid, FI_READ), -FI_EINVAL,
		     "one counter per kind");
	cr_assert_eq(fi_ep_bind(s->ep, &s->rc->fid, 0), -FI_EBADFLAGS);
	cr_assert_eq(fi_enable(s->ep), 0);
}

static void mx_close(void)
{
	uetp_test_pair_close(&mx.p);
}

static void mx_open_user_keys(void)
{
	mx_domain(0);
}

static void mx_open_prov_keys(void)
{
	mx_domain(FI_MR_VIRT_ADDR | FI_MR_PROV_KEY);
}

static void mx_open_endpoint(void)
{
	mx_domain(FI_MR_ENDPOINT);
}

TestSuite(mr, .timeout = 60);

Test(mr, user_keys, .init = mx_open_user_keys, .fini = mx_close)
{
	uint8_t buf[256] = { 0 };
	struct fid_mr *m1, *m2;
	struct iovec iov[2] = { { buf, 64 }, { buf + 64, 64 } };
	struct fi_mr_attr attr = { .mr_iov = iov, .iov_count = 1,
				   .access = FI_REMOTE_READ,
				   .requested_key = 9 };
	uint32_t job = 0x123456;

	/* the RKEY is 48 bits; bits 61:48 stay zero */
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 64, FI_REMOTE_WRITE, 0,
			       1ull << 48, 0, &m1, NULL), -FI_EKEYREJECTED);
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 64, FI_REMOTE_WRITE, 0,
			       1ull << 63, 0, &m1, NULL), -FI_EKEYREJECTED);
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 64, FI_REMOTE_WRITE, 0,
			       UET_MKEY_RKEY_MASK, 0, &m1, NULL), 0);
	cr_assert_eq(fi_mr_key(m1), UET_MKEY_RKEY_MASK);
	cr_assert_eq(fi_mr_desc(m1), m1->mem_desc);
	cr_assert_eq(fi_close(&m1->fid), 0);
	/* duplicates: -FI_ENOKEY (fi_mr.3), free again once closed */
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 64, FI_REMOTE_WRITE, 0, 5, 0,
			       &m1, NULL), 0);
	cr_assert_eq(fi_mr_key(m1), 5);
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf + 64, 64, FI_SEND, 0, 5, 0,
			       &m2, NULL), -FI_ENOKEY);
	cr_assert_eq(fi_close(&m1->fid), 0);
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf + 64, 64, FI_SEND, 0, 5, 0,
			       &m2, NULL), 0);
	cr_assert_eq(fi_close(&m2->fid), 0);
	/* arguments */
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 0, FI_REMOTE_WRITE, 0, 6, 0,
			       &m1, NULL), -FI_EINVAL);
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 64, FI_REMOTE_WRITE, 8, 6, 0,
			       &m1, NULL), -FI_EINVAL);
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 64, FI_REMOTE_WRITE, 0, 6,
			       FI_MORE, &m1, NULL), -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_regv(mx.p.domain, iov, 2, FI_REMOTE_WRITE, 0, 6, 0,
				&m1, NULL), -FI_EINVAL);
	cr_assert_eq(fi_mr_regattr(mx.p.domain, &attr, 0, &m1), 0);
	cr_assert_eq(fi_mr_key(m1), 9);
	cr_assert_eq(fi_close(&m1->fid), 0);
	/* an auth key: our own JobID restricts nothing, another is refused */
	attr.auth_key = (uint8_t *)&job;
	attr.auth_key_size = sizeof(job);
	cr_assert_eq(fi_mr_regattr(mx.p.domain, &attr, 0, &m1), -FI_EINVAL);
}

Test(mr, provider_keys, .init = mx_open_prov_keys, .fini = mx_close)
{
	uint8_t buf[128] = { 0 };
	struct fid_mr *m1, *m2;

	/* requested_key is ignored (even one that would not fit) */
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 64, FI_REMOTE_WRITE, 0,
			       ~0ull, 0, &m1, NULL), 0);
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf + 64, 64, FI_REMOTE_READ, 0,
			       ~0ull, 0, &m2, NULL), 0);
	cr_assert_neq(fi_mr_key(m1), fi_mr_key(m2));
	cr_assert_eq(fi_mr_key(m1) & ~UET_MKEY_RKEY_MASK, 0);
	cr_assert_eq(fi_mr_key(m2) & ~UET_MKEY_RKEY_MASK, 0);
	cr_assert_eq(fi_close(&m1->fid), 0);
	cr_assert_eq(fi_close(&m2->fid), 0);
}

/* Provider keys are drawn at random (issue: keys counting up from 1 let
 * any sender on the network guess a live region's key). Over 64 keys,
 * every one of the 48 bits must be seen both set and clear, and no two
 * successive keys may differ by the same step: a counter, a shifted
 * counter or a fixed stride fails; random keys fail with p < 2^-50.
 */
Test(mr, provider_keys_unpredictable, .init = mx_open_prov_keys,
     .fini = mx_close)
{
	enum { N = 64 };
	static uint8_t buf[N];
	struct fid_mr *m[N];
	uint64_t k[N], any = 0, all = UET_MKEY_RKEY_MASK;
	int i, same_step = 0;

	for (i = 0; i < N; i++) {
		cr_assert_eq(fi_mr_reg(mx.p.domain, buf + i, 1, FI_REMOTE_WRITE,
				       0, 0, 0, &m[i], NULL), 0);
		k[i] = fi_mr_key(m[i]);
		cr_assert_neq(k[i], 0);
		cr_assert_eq(k[i] & ~UET_MKEY_RKEY_MASK, 0);
		any |= k[i];
		all &= k[i];
		if (i >= 2 && k[i] - k[i - 1] == k[i - 1] - k[i - 2])
			same_step++;
	}
	cr_assert_eq(any, UET_MKEY_RKEY_MASK, "bits never set: %#llx",
		     (unsigned long long)(~any & UET_MKEY_RKEY_MASK));
	cr_assert_eq(all, 0, "bits always set: %#llx",
		     (unsigned long long)all);
	cr_assert_eq(same_step, 0);
	for (i = 0; i < N; i++)
		cr_assert_eq(fi_close(&m[i]->fid), 0);
}

Test(mr, counter_binding, .init = mx_open_prov_keys, .fini = mx_close)
{
	struct fi_cntr_attr na = { .events = FI_CNTR_EVENTS_COMP };
	struct fid_cntr *c1, *c2;
	struct fid_mr *m;
	uint8_t buf[64] = { 0 };

	mside_open(&mx.p.a);
	cr_assert_eq(fi_cntr_open(mx.p.domain, &na, &c1, NULL), 0);
	cr_assert_eq(fi_cntr_open(mx.p.domain, &na, &c2, NULL), 0);
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 64, FI_REMOTE_WRITE, 0, 0,
			       FI_RMA_EVENT, &m, NULL), 0);
	cr_assert_eq(fi_mr_bind(m, &c1->fid, 0), -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_bind(m, &c1->fid, FI_SEND), -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_bind(m, &c1->fid, FI_REMOTE_WRITE), 0);
	cr_assert_eq(fi_mr_bind(m, &c2->fid, FI_REMOTE_READ), -FI_EINVAL);
	/* an endpoint binding is for FI_MR_ENDPOINT domains only */
	cr_assert_eq(fi_mr_bind(m, &mx.p.a.ep->fid, 0), -FI_EINVAL);
	cr_assert_eq(fi_mr_enable(m), 0);	/* already live */
	cr_assert_eq(fi_close(&c1->fid), -FI_EBUSY, "bound to the MR");
	/* reading the MR's counter progresses the domain's endpoints */
	cr_assert_eq(fi_cntr_read(c1), 0);
	cr_assert_eq(fi_close(&m->fid), 0);
	cr_assert_eq(fi_close(&c1->fid), 0);
	cr_assert_eq(fi_close(&c2->fid), 0);
}

Test(mr, endpoint_mode, .init = mx_open_endpoint, .fini = mx_close)
{
	uint8_t buf[128] = { 0 };
	struct fid_mr *m1, *m2;

	mside_open(&mx.p.a);
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf, 64, FI_REMOTE_WRITE, 0, 77, 0,
			       &m1, NULL), 0);
	cr_assert_eq(fi_mr_enable(m1), -FI_EOPBADSTATE, "not bound yet");
	cr_assert_eq(fi_mr_bind(m1, &mx.p.a.ep->fid, 1), -FI_EBADFLAGS);
	cr_assert_eq(fi_mr_bind(m1, &mx.p.a.ep->fid, 0), 0);
	cr_assert_eq(fi_mr_bind(m1, &mx.p.a.ep->fid, 0), -FI_EINVAL);
	cr_assert_eq(fi_mr_enable(m1), 0);
	cr_assert_eq(fi_mr_bind(m1, &mx.p.a.ep->fid, 0), -FI_EINVAL);
	/* keys are per endpoint here: the same key again on the same
	 * endpoint is refused by its engine when enabled */
	cr_assert_eq(fi_mr_reg(mx.p.domain, buf + 64, 64, FI_REMOTE_WRITE, 0, 77,
			       0, &m2, NULL), 0);
	cr_assert_eq(fi_mr_bind(m2, &mx.p.a.ep->fid, 0), 0);
	cr_assert_eq(fi_mr_enable(m2), -FI_ENOKEY);
	cr_assert_eq(fi_close(&m2->fid), 0);
	cr_assert_eq(fi_close(&m1->fid), 0);
}

/* ---- atomics ---- */

Test(mr, query_atomic, .init = mx_open_prov_keys, .fini = mx_close)
{
	struct fi_atomic_attr at;
	size_t n;

	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT64, FI_SUM, &at, 0), 0);
	cr_assert_eq(at.size, 8);
	cr_assert_gt(at.count, 100);	/* one packet's worth */
	/* fetched values ride in the ACK: 16 bytes */
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT64, FI_SUM, &at,
				     FI_FETCH_ATOMIC), 0);
	cr_assert_eq(at.count, 2);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT8, FI_ATOMIC_READ, &at,
				     FI_FETCH_ATOMIC), 0);
	cr_assert_eq(at.count, 16);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_DOUBLE, FI_CSWAP_LE, &at,
				     FI_COMPARE_ATOMIC), 0);
	cr_assert_eq(at.count, 1);
	/* libfabric's families: no READ or compares as base atomics */
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT64, FI_ATOMIC_READ, &at,
				     0), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT64, FI_CSWAP, &at, 0),
		     -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT64, FI_SUM, &at,
				     FI_COMPARE_ATOMIC), -FI_EOPNOTSUPP);
	/* what the engine does not carry */
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_DOUBLE, FI_BOR, &at, 0),
		     -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_LONG_DOUBLE, FI_SUM, &at, 0),
		     -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT128, FI_SUM, &at, 0),
		     -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_FLOAT_COMPLEX, FI_MIN, &at,
				     0), -FI_EOPNOTSUPP);
	/* arguments */
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT64, FI_SUM, &at,
				     FI_FETCH_ATOMIC | FI_COMPARE_ATOMIC),
		     -FI_EINVAL);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT64, FI_SUM, &at,
				     FI_TAGGED), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_VOID, FI_SUM, &at, 0),
		     -FI_EINVAL);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_UINT64, FI_SUM, &at,
				     FI_MORE), -FI_EBADFLAGS);
	/* the endpoint's valid calls say the same */
	mside_open(&mx.p.a);
	cr_assert_eq(fi_atomicvalid(mx.p.a.ep, FI_INT32, FI_MAX, &n), 0);
	cr_assert_eq(fi_query_atomic(mx.p.domain, FI_INT32, FI_MAX, &at, 0), 0);
	cr_assert_eq(n, at.count);
	cr_assert_eq(fi_fetch_atomicvalid(mx.p.a.ep, FI_FLOAT, FI_SUM, &n), 0);
	cr_assert_eq(n, 4);
	cr_assert_eq(fi_compare_atomicvalid(mx.p.a.ep, FI_INT16, FI_MSWAP, &n),
		     0);
	cr_assert_eq(n, 1);
	cr_assert_eq(fi_compare_atomicvalid(mx.p.a.ep, FI_FLOAT, FI_MSWAP, &n),
		     -FI_EOPNOTSUPP);
}

static void wait_comp(struct uetp_test_side *s, struct fi_cq_data_entry *e,
		      ssize_t want)
{
	uet_time end = uetp_now() + 10 * UET_SEC;
	struct fi_cq_data_entry junk;
	ssize_t ret;

	do {
		ret = fi_cq_read(s->cq, e, 1);
		if (ret != -FI_EAGAIN)
			break;
		fi_cq_read(mx.p.a.cq, &junk, 0);
		fi_cq_read(mx.p.b.cq, &junk, 0);
		uetp_test_idle(mx.p.domain);
	} while (uetp_now() < end);
	cr_assert_eq(ret, want, "fi_cq_read %zd, want %zd", ret, want);
}

/* A targets B's memory: a region registered before B's endpoint
 * existed, so B's engine learns it when B is enabled. */
static void atomics_between(bool virt)
{
	uint64_t target[4] = { 10, 20, 30, 40 }, opnd[2] = { 5, 7 }, res[2];
	uint64_t cmp = 20, swp = 99;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry ee = { 0 };
	struct fid_mr *m;
	uint64_t key, base;

	cr_assert_eq(fi_mr_reg(mx.p.domain, target, sizeof(target),
			       FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0x42, 0,
			       &m, NULL), 0);
	key = fi_mr_key(m);
	base = virt ? (uint64_t)(uintptr_t)target : 0;
	mside_open(&mx.p.a);
	mside_open(&mx.p.b);
	uetp_test_link(&mx.p.a, &mx.p.b);
	uetp_test_link(&mx.p.b, &mx.p.a);

	/* base: target[0..1] += {5, 7} */
	cr_assert_eq(fi_atomic(mx.p.a.ep, opnd, 2, NULL, mx.p.a.peer, base, key,
			       FI_UINT64, FI_SUM, (void *)1), 0);
	wait_comp(&mx.p.a, &e, 1);
	cr_assert_eq(e.op_context, (void *)1);
	cr_assert_eq(e.flags, FI_ATOMIC | FI_WRITE);
	cr_assert_eq(target[0], 15);
	cr_assert_eq(target[1], 27);
	cr_assert_eq(fi_cntr_read(mx.p.a.wc), 1);
	/* fetch: old target[2..3], then += */
	cr_assert_eq(fi_fetch_atomic(mx.p.a.ep, opnd, 2, NULL, res, NULL,
				     mx.p.a.peer, base + 16, key, FI_UINT64,
				     FI_SUM, (void *)2), 0);
	wait_comp(&mx.p.a, &e, 1);
	cr_assert_eq(e.flags, FI_ATOMIC | FI_READ);
	cr_assert_eq(res[0], 30);
	cr_assert_eq(res[1], 40);
	cr_assert_eq(target[2], 35);
	cr_assert_eq(fi_cntr_read(mx.p.a.rc), 1);
	/* compare-and-swap hits, then misses */
	cr_assert_eq(fi_compare_atomic(mx.p.a.ep, &swp, 1, NULL, &cmp, NULL, res,
				       NULL, mx.p.a.peer, base + 8, key,
				       FI_UINT64, FI_CSWAP, (void *)3), 0);
	wait_comp(&mx.p.a, &e, 1);
	cr_assert_eq(res[0], 27);	/* compare 20 != 27: no swap */
	cr_assert_eq(target[1], 27);
	cmp = 27;
	cr_assert_eq(fi_compare_atomic(mx.p.a.ep, &swp, 1, NULL, &cmp, NULL, res,
				       NULL, mx.p.a.peer, base + 8, key,
				       FI_UINT64, FI_CSWAP, (void *)4), 0);
	wait_comp(&mx.p.a, &e, 1);
	cr_assert_eq(target[1], 99);
	/* inject: no completion, but the counter moves */
	cr_assert_eq(fi_inject_atomic(mx.p.a.ep, opnd, 1, mx.p.a.peer, base + 24,
				      key, FI_UINT64, FI_BXOR), 0);
	while (fi_cntr_read(mx.p.a.wc) < 2)
		fi_cq_read(mx.p.b.cq, &e, 0);
	cr_assert_eq(target[3], 47 ^ 5);

	/* a key nobody registered: RC_BAD_MKEY, nothing changes */
	cr_assert_eq(fi_atomic(mx.p.a.ep, opnd, 1, NULL, mx.p.a.peer, base,
			       key + 1000, FI_UINT64, FI_SUM, (void *)5), 0);
	wait_comp(&mx.p.a, &e, -FI_EAVAIL);
	cr_assert_eq(fi_cq_readerr(mx.p.a.cq, &ee, 0), 1);
	cr_assert_eq(ee.op_context, (void *)5);
	cr_assert_eq(ee.err, FI_EKEYREJECTED);
	cr_assert_eq(ee.prov_errno, UET_RC_BAD_MKEY);
	cr_assert_eq(fi_cntr_readerr(mx.p.a.wc), 1);
	cr_assert_eq(target[0], 15);
	/* out of the region: RC_BAD_ADDR */
	cr_assert_eq(fi_atomic(mx.p.a.ep, opnd, 1, NULL, mx.p.a.peer, base + 32,
			       key, FI_UINT64, FI_SUM, (void *)6), 0);
	wait_comp(&mx.p.a, &e, -FI_EAVAIL);
	cr_assert_eq(fi_cq_readerr(mx.p.a.cq, &ee, 0), 1);
	cr_assert_eq(ee.err, FI_EFAULT);
	cr_assert_eq(ee.prov_errno, UET_RC_BAD_ADDR);

	/* closing deregisters it from B's engine */
	cr_assert_eq(fi_close(&m->fid), 0);
	cr_assert_eq(fi_atomic(mx.p.a.ep, opnd, 1, NULL, mx.p.a.peer, base, key,
			       FI_UINT64, FI_SUM, (void *)7), 0);
	wait_comp(&mx.p.a, &e, -FI_EAVAIL);
	cr_assert_eq(fi_cq_readerr(mx.p.a.cq, &ee, 0), 1);
	cr_assert_eq(ee.prov_errno, UET_RC_BAD_MKEY);
	cr_assert_eq(target[0], 15);
}

Test(mr, atomics_virtual_addresses, .init = mx_open_prov_keys,
     .fini = mx_close)
{
	atomics_between(true);
}

Test(mr, atomics_offsets_user_keys, .init = mx_open_user_keys,
     .fini = mx_close)
{
	atomics_between(false);
}

Test(mr, atomic_arguments, .init = mx_open_prov_keys, .fini = mx_close)
{
	uint64_t v[20] = { 0 }, r[20];
	struct fi_ioc ioc = { v, 1 };
	struct fi_rma_ioc rioc[2] = { { 0, 1, 1 }, { 0, 1, 1 } };
	struct fi_msg_atomic msg = {
		.msg_iov = &ioc, .iov_count = 1, .rma_iov = rioc,
		.rma_iov_count = 1, .datatype = FI_UINT64, .op = FI_SUM,
	};

	mside_open(&mx.p.a);
	uetp_test_link(&mx.p.a, &mx.p.a);
	msg.addr = mx.p.a.peer;
	/* not in the family, not carried, too many, counts disagree */
	cr_assert_eq(fi_atomic(mx.p.a.ep, v, 1, NULL, mx.p.a.peer, 0, 1, FI_UINT64,
			       FI_CSWAP, NULL), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_atomic(mx.p.a.ep, v, 1, NULL, mx.p.a.peer, 0, 1, FI_DOUBLE,
			       FI_BAND, NULL), -FI_EOPNOTSUPP);
	cr_assert_eq(fi_fetch_atomic(mx.p.a.ep, v, 3, NULL, r, NULL, mx.p.a.peer,
				     0, 1, FI_UINT64, FI_SUM, NULL),
		     -FI_EINVAL);
	cr_assert_eq(fi_atomic(mx.p.a.ep, v, 0, NULL, mx.p.a.peer, 0, 1, FI_UINT64,
			       FI_SUM, NULL), -FI_EINVAL);
	rioc[0].count = 2;
	cr_assert_eq(fi_atomicmsg(mx.p.a.ep, &msg, 0), -FI_EINVAL);
	rioc[0].count = 1;
	msg.rma_iov_count = 2;
	cr_assert_eq(fi_atomicmsg(mx.p.a.ep, &msg, 0), -FI_EINVAL);
	msg.rma_iov_count = 1;
	/* UET atomics carry no header data */
	cr_assert_eq(fi_atomicmsg(mx.p.a.ep, &msg, FI_REMOTE_CQ_DATA),
		     -FI_EBADFLAGS);
	cr_assert_eq(fi_compare_atomic(mx.p.a.ep, v, 2, NULL, v, NULL, r, NULL,
				       mx.p.a.peer, 0, 1, FI_UINT64, FI_CSWAP,
				       NULL), -FI_EINVAL);
	cr_assert_eq(fi_atomic(mx.p.a.ep, v, 1, NULL, 77, 0, 1, FI_UINT64,
			       FI_SUM, NULL), -FI_EINVAL, "no such peer");
	/* RMA is not advertised: its table says so */
	cr_assert_eq(fi_write(mx.p.a.ep, v, 8, NULL, mx.p.a.peer, 0, 1, NULL),
		     -FI_ENOSYS);
}
