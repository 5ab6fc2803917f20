/* Two endpoints on loopback in one process, through the real engine and
 * UDP port: messages and tags of many sizes, inject, remote CQ data,
 * source addresses, truncation, cancel, multi-receive, peek/claim,
 * selective completion, counters, waiting on fds, fi_getname/fi_setname,
 * the impairment knob, the pcap tap and the progress thread.
 *
 * Every test runs in its own process (Criterion); tests that need an
 * FI_UET_* setting export it before the fixture calls fi_prov_ini.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <rdma/fi_errno.h>

#include "uet/err.h"
#include "uet/pcap.h"
#include "uetp.h"

struct side {
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_av *av;
	struct fid_cntr *txc, *rxc;
	fi_addr_t peer;			/* the other side, in our AV */
	fi_addr_t self;
};

struct fx {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct side a, b;
};

static struct fx fx;

static struct fi_info *lo_info(void)
{
	struct fi_info *h = fi_allocinfo(), *info;

	h->addr_format = FI_SOCKADDR_IN;
	h->domain_attr->name = strdup("lo");
	h->caps = FI_MSG | FI_TAGGED | FI_DIRECTED_RECV | FI_SOURCE |
		  FI_MULTI_RECV;
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &info),
		     0);
	fi_freeinfo(h);
	return info;
}

static void side_open(struct side *s, enum fi_wait_obj wait, uint64_t cqflags,
		      bool cntrs)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_TAGGED, .size = 64,
				 .wait_obj = wait };
	struct fi_cntr_attr na = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_UNSPEC };
	struct fi_av_attr aa = { .type = FI_AV_TABLE };

	cr_assert_eq(fi_endpoint(fx.domain, fx.info, &s->ep, NULL), 0);
	cr_assert_eq(fi_cq_open(fx.domain, &ca, &s->cq, NULL), 0);
	cr_assert_eq(fi_av_open(fx.domain, &aa, &s->av, NULL), 0);
	cr_assert_eq(fi_ep_bind(s->ep, &s->av->fid, 0), 0);
	cr_assert_eq(fi_ep_bind(s->ep, &s->cq->fid,
				FI_TRANSMIT | FI_RECV | cqflags), 0);
	if (cntrs) {
		cr_assert_eq(fi_cntr_open(fx.domain, &na, &s->txc, NULL), 0);
		cr_assert_eq(fi_cntr_open(fx.domain, &na, &s->rxc, NULL), 0);
		cr_assert_eq(fi_ep_bind(s->ep, &s->txc->fid, FI_SEND), 0);
		cr_assert_eq(fi_ep_bind(s->ep, &s->rxc->fid, FI_RECV), 0);
	}
	cr_assert_eq(fi_enable(s->ep), 0);
}

static void side_close(struct side *s)
{
	if (s->ep)
		cr_assert_eq(fi_close(&s->ep->fid), 0);
	if (s->txc)
		fi_close(&s->txc->fid);
	if (s->rxc)
		fi_close(&s->rxc->fid);
	if (s->cq)
		cr_assert_eq(fi_close(&s->cq->fid), 0);
	if (s->av)
		cr_assert_eq(fi_close(&s->av->fid), 0);
	memset(s, 0, sizeof(*s));
}

static void introduce(struct side *x, struct side *y)
{
	struct sockaddr_in sy, sx;
	size_t len = sizeof(sy);

	cr_assert_eq(fi_getname(&y->ep->fid, &sy, &len), 0);
	cr_assert_eq(fi_av_insert(x->av, &sy, 1, &x->peer, 0, NULL), 1);
	len = sizeof(sx);
	cr_assert_eq(fi_getname(&x->ep->fid, &sx, &len), 0);
	cr_assert_eq(fi_av_insert(x->av, &sx, 1, &x->self, 0, NULL), 1);
}

static void fx_open_with(enum fi_wait_obj wait, uint64_t cqflags, bool cntrs)
{
	fi_prov_ini();
	fx.info = lo_info();
	cr_assert_eq(uetp_fabric_open(fx.info->fabric_attr, &fx.fabric, NULL), 0);
	cr_assert_eq(fi_domain(fx.fabric, fx.info, &fx.domain, NULL), 0);
	side_open(&fx.a, wait, cqflags, cntrs);
	side_open(&fx.b, wait, cqflags, cntrs);
	introduce(&fx.a, &fx.b);
	introduce(&fx.b, &fx.a);
}

static void fx_open(void)
{
	fx_open_with(FI_WAIT_NONE, 0, false);
}

static void fx_close(void)
{
	side_close(&fx.a);
	side_close(&fx.b);
	if (fx.domain)
		cr_assert_eq(fi_close(&fx.domain->fid), 0);
	if (fx.fabric)
		cr_assert_eq(fi_close(&fx.fabric->fid), 0);
	fi_freeinfo(fx.info);
	memset(&fx, 0, sizeof(fx));
}

TestSuite(ep, .init = fx_open, .fini = fx_close, .timeout = 60);
/* Tests with their own fixture (Criterion would run a suite .init too). */
TestSuite(ep_env, .timeout = 120);

/* Read one entry from `want`, progressing both sides meanwhile. Returns
 * what fi_cq_read returned last (1, or -FI_EAVAIL). */
static ssize_t wait_one(struct fid_cq *want, struct fi_cq_tagged_entry *e,
			int timeout_ms)
{
	uet_time end = uetp_now() + (uet_time)timeout_ms * UET_MSEC;
	struct fi_cq_tagged_entry junk;
	ssize_t ret;

	(void)junk;
	do {
		ret = fi_cq_read(want, e, 1);
		if (ret != -FI_EAGAIN)
			return ret;
		/* the other CQ: count 0 only runs progress */
		if (want != fx.a.cq && fx.a.cq)
			fi_cq_read(fx.a.cq, &junk, 0);
		if (want != fx.b.cq && fx.b.cq)
			fi_cq_read(fx.b.cq, &junk, 0);
	} while (uetp_now() < end);
	return -FI_EAGAIN;
}

/* Wait for a counter while both sides progress (manual progress: B's
 * acknowledgements only leave when B's objects are read). */
static void wait_cntr(struct fid_cntr *c, uint64_t n)
{
	uet_time end = uetp_now() + 10 * UET_SEC;

	while (fi_cntr_read(c) < n) {
		cr_assert_lt(uetp_now(), end, "counter stuck at %llu",
			     (unsigned long long)fi_cntr_read(c));
		fi_cq_read(fx.a.cq, NULL, 0);
		fi_cq_read(fx.b.cq, NULL, 0);
	}
}

static void expect_one(struct fid_cq *cq, struct fi_cq_tagged_entry *e)
{
	ssize_t ret = wait_one(cq, e, 10000);

	cr_assert_eq(ret, 1, "no completion (%zd)", ret);
}

static void expect_none(struct fid_cq *cq, int ms)
{
	struct fi_cq_tagged_entry e;

	cr_assert_eq(wait_one(cq, &e, ms), -FI_EAGAIN, "unexpected entry");
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed);
}

/* A sends n bytes to B's posted receive; both complete, data intact. */
static void roundtrip(size_t n, bool tagged)
{
	uint8_t *tx = malloc(n ? n : 1), *rx = calloc(1, n + 16);
	struct fi_cq_tagged_entry e;

	fill(tx, n, (unsigned)n);
	if (tagged)
		cr_assert_eq(fi_trecv(fx.b.ep, rx, n + 16, NULL, FI_ADDR_UNSPEC,
				      0x55, 0, (void *)0xB), 0);
	else
		cr_assert_eq(fi_recv(fx.b.ep, rx, n + 16, NULL, FI_ADDR_UNSPEC,
				     (void *)0xB), 0);
	if (tagged)
		cr_assert_eq(fi_tsend(fx.a.ep, tx, n, NULL, fx.a.peer, 0x55,
				      (void *)0xA), 0);
	else
		cr_assert_eq(fi_send(fx.a.ep, tx, n, NULL, fx.a.peer,
				     (void *)0xA), 0);
	expect_one(fx.b.cq, &e);
	cr_assert_eq(e.op_context, (void *)0xB);
	cr_assert_eq(e.flags, FI_RECV | (tagged ? FI_TAGGED : FI_MSG));
	cr_assert_eq(e.len, n, "size %zu", n);
	cr_assert_eq(e.buf, rx);
	if (tagged)
		cr_assert_eq(e.tag, 0x55);
	cr_assert_eq(memcmp(rx, tx, n), 0, "data of size %zu", n);
	expect_one(fx.a.cq, &e);
	cr_assert_eq(e.op_context, (void *)0xA);
	cr_assert_eq(e.flags, FI_SEND | (tagged ? FI_TAGGED : FI_MSG));
	free(tx);
	free(rx);
}

Test(ep, msg_sizes)
{
	static const size_t sizes[] = { 0, 1, 100, 1400, 4096, 65536,
					1u << 20, 16u << 20 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		roundtrip(sizes[i], false);
}

Test(ep, tagged_sizes)
{
	static const size_t sizes[] = { 0, 7, 9000, 300000 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		roundtrip(sizes[i], true);
}

Test(ep, tag_match_ignore_and_directed)
{
	char r1[8] = "", r2[8] = "";
	struct fi_cq_tagged_entry e;
	fi_addr_t src;

	/* r1 waits for tag 0x100 exactly, r2 for 0x2?? from A only */
	cr_assert_eq(fi_trecv(fx.b.ep, r1, 8, NULL, FI_ADDR_UNSPEC, 0x100, 0,
			      (void *)1), 0);
	cr_assert_eq(fi_trecv(fx.b.ep, r2, 8, NULL, fx.b.peer, 0x200, 0xff,
			      (void *)2), 0);
	cr_assert_eq(fi_tsend(fx.a.ep, "second", 7, NULL, fx.a.peer, 0x2ab,
			      NULL), 0);
	cr_assert_eq(fi_tsend(fx.a.ep, "first", 6, NULL, fx.a.peer, 0x100,
			      NULL), 0);
	for (int i = 0; i < 2; i++) {
		ssize_t ret;

		do {
			ret = fi_cq_readfrom(fx.b.cq, &e, 1, &src);
			fi_cq_read(fx.a.cq, NULL, 0);
		} while (ret == -FI_EAGAIN);
		cr_assert_eq(ret, 1);
		cr_assert_eq(src, fx.b.peer, "FI_SOURCE: A's fi_addr");
		if (e.op_context == (void *)2)
			cr_assert_eq(e.tag, 0x2ab);
	}
	cr_assert_str_eq(r1, "first");
	cr_assert_str_eq(r2, "second");
}

Test(ep, directed_recv_skips_other_source)
{
	struct fi_cq_tagged_entry e;
	char r[8] = "";

	/* B accepts only from itself: A's message must not match */
	cr_assert_eq(fi_trecv(fx.b.ep, r, 8, NULL, fx.b.self, 1, 0,
			      (void *)1), 0);
	cr_assert_eq(fi_tsend(fx.a.ep, "x", 2, NULL, fx.a.peer, 1, NULL), 0);
	expect_none(fx.b.cq, 300);
	cr_assert_eq(fi_trecv(fx.b.ep, r, 8, NULL, fx.b.peer, 1, 0,
			      (void *)2), 0);
	expect_one(fx.b.cq, &e);
	cr_assert_eq(e.op_context, (void *)2);
}

Test(ep, cq_data_and_inject)
{
	struct fi_cq_tagged_entry e;
	char r[16];

	cr_assert_eq(fi_recv(fx.b.ep, r, 16, NULL, FI_ADDR_UNSPEC, NULL), 0);
	cr_assert_eq(fi_senddata(fx.a.ep, "d", 2, NULL, 0x1122334455667788ULL,
				 fx.a.peer, (void *)7), 0);
	expect_one(fx.b.cq, &e);
	cr_assert(e.flags & FI_REMOTE_CQ_DATA);
	cr_assert_eq(e.data, 0x1122334455667788ULL);
	expect_one(fx.a.cq, &e);
	cr_assert_eq(e.op_context, (void *)7);

	cr_assert_eq(fi_recv(fx.b.ep, r, 16, NULL, FI_ADDR_UNSPEC, NULL), 0);
	{
		char tmp[6] = "inj";

		cr_assert_eq(fi_inject(fx.a.ep, tmp, 4, fx.a.peer), 0);
		tmp[0] = 'X';	/* copied at post: may change at once */
	}
	expect_one(fx.b.cq, &e);
	cr_assert_str_eq(r, "inj");
	expect_none(fx.a.cq, 200);	/* fi_inject: no completion */
	{
		char big[UETP_INJECT_SIZE + 1];

		cr_assert_eq(fi_inject(fx.a.ep, big, sizeof(big), fx.a.peer),
			     -FI_EMSGSIZE);
	}
}

Test(ep, truncation_error)
{
	struct fi_cq_err_entry err;
	struct fi_cq_tagged_entry e;
	char big[100], small[10];
	const char *s;

	memset(big, 'z', sizeof(big));
	cr_assert_eq(fi_recv(fx.b.ep, small, sizeof(small), NULL,
			     FI_ADDR_UNSPEC, (void *)3), 0);
	cr_assert_eq(fi_send(fx.a.ep, big, sizeof(big), NULL, fx.a.peer,
			     NULL), 0);
	cr_assert_eq(wait_one(fx.b.cq, &e, 10000), -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_cq_readerr(fx.b.cq, &err, 0), 1);
	cr_assert_eq(err.err, FI_ETRUNC);
	cr_assert_eq(err.op_context, (void *)3);
	cr_assert_eq(err.len, 10);
	cr_assert_eq(err.olen, 90);
	s = fi_cq_strerror(fx.b.cq, err.prov_errno, err.err_data, NULL, 0);
	cr_assert_not_null(s);
	cr_assert_gt(strlen(s), 0);
	/* the sender still succeeds (fi_msg.3) */
	expect_one(fx.a.cq, &e);
}

Test(ep, cancel_recv)
{
	struct fi_cq_err_entry err;
	struct fi_cq_tagged_entry e;
	char r[8];

	cr_assert_eq(fi_recv(fx.b.ep, r, 8, NULL, FI_ADDR_UNSPEC, (void *)9),
		     0);
	cr_assert_eq(fi_cancel(&fx.b.ep->fid, (void *)10), -FI_ENOENT);
	cr_assert_eq(fi_cancel(&fx.b.ep->fid, (void *)9), 0);
	cr_assert_eq(wait_one(fx.b.cq, &e, 5000), -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_cq_readerr(fx.b.cq, &err, 0), 1);
	cr_assert_eq(err.err, FI_ECANCELED);
	cr_assert_eq(err.op_context, (void *)9);
	cr_assert_eq(fi_cancel(&fx.b.ep->fid, (void *)9), -FI_ENOENT);
}

Test(ep, never_drops_completions)
{
	struct fi_cq_tagged_entry e;
	static char r[300][8];
	size_t got_a = 0, got_b = 0;

	/* 300 messages, CQs of 64, nobody reads until all were posted */
	for (int i = 0; i < 300; i++)
		cr_assert_eq(fi_recv(fx.b.ep, r[i], 8, NULL, FI_ADDR_UNSPEC,
				     NULL), 0);
	for (int i = 0; i < 300; i++) {
		ssize_t ret;

		while ((ret = fi_send(fx.a.ep, "m", 2, NULL, fx.a.peer,
				      (void *)(uintptr_t)(i + 1))) ==
		       -FI_EAGAIN)
			fi_cq_read(fx.b.cq, NULL, 0);	/* B acks, A frees */
		cr_assert_eq(ret, 0);
	}
	static bool seen[301];
	while (got_a < 300 || got_b < 300) {
		if (wait_one(fx.a.cq, &e, got_a < 300 ? 10000 : 0) == 1) {
			uintptr_t i = (uintptr_t)e.op_context;

			cr_assert(i >= 1 && i <= 300 && !seen[i],
				  "context %lu", (unsigned long)i);
			seen[i] = true;
			got_a++;
		}
		if (got_b < 300) {
			cr_assert_eq(wait_one(fx.b.cq, &e, 10000), 1);
			got_b++;
		}
	}
	cr_assert_eq(got_a, 300);
}

Test(ep, multi_recv)
{
	static uint8_t buf[4096];
	struct fi_cq_tagged_entry e;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1,
			    .addr = FI_ADDR_UNSPEC, .context = (void *)4 };
	/* 10 + 11 + 12 bytes: free space drops below 4066 with the third */
	size_t min = 4066, len = sizeof(min);
	uint8_t *prev = NULL;

	cr_assert_eq(fi_setopt(&fx.b.ep->fid, FI_OPT_ENDPOINT,
			       FI_OPT_MIN_MULTI_RECV, &min, sizeof(min)), 0);
	min = 0;
	cr_assert_eq(fi_getopt(&fx.b.ep->fid, FI_OPT_ENDPOINT,
			       FI_OPT_MIN_MULTI_RECV, &min, &len), 0);
	cr_assert_eq(min, 4066);
	cr_assert_eq(fi_recvmsg(fx.b.ep, &m, FI_MULTI_RECV), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(fi_send(fx.a.ep, "0123456789ab", 10 + i, NULL,
				     fx.a.peer, NULL), 0);
	for (int i = 0; i < 3; i++) {
		expect_one(fx.b.cq, &e);
		cr_assert_eq(e.op_context, (void *)4);
		cr_assert_eq(e.len, (size_t)(10 + i));
		cr_assert((uint8_t *)e.buf >= buf &&
			  (uint8_t *)e.buf + e.len <= buf + sizeof(buf));
		cr_assert((uint8_t *)e.buf > prev, "messages follow each other");
		cr_assert_eq(memcmp(e.buf, "0123456789ab", e.len), 0);
		prev = e.buf;
		cr_assert_eq(!!(e.flags & FI_MULTI_RECV), i == 2,
			     "buffer released with the third message");
	}
	/* the buffer is gone: the next message waits unexpected */
	cr_assert_eq(fi_send(fx.a.ep, "x", 2, NULL, fx.a.peer, NULL), 0);
	expect_none(fx.b.cq, 200);
}

Test(ep, peek_claim)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_context ctx;
	char r[16] = "";
	struct iovec iov = { .iov_base = r, .iov_len = sizeof(r) };
	struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = 1,
				   .addr = FI_ADDR_UNSPEC, .tag = 0x77,
				   .context = &ctx };

	/* nothing there yet */
	cr_assert_eq(fi_trecvmsg(fx.b.ep, &m, FI_PEEK), 0);
	cr_assert_eq(wait_one(fx.b.cq, &e, 5000), -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_cq_readerr(fx.b.cq, &err, 0), 1);
	cr_assert_eq(err.err, FI_ENOMSG);

	cr_assert_eq(fi_tsend(fx.a.ep, "peeked", 7, NULL, fx.a.peer, 0x77,
			      NULL), 0);
	/* until it arrived (unexpected), peeking finds nothing */
	for (uet_time end = uetp_now() + 10 * UET_SEC;;) {
		cr_assert_lt(uetp_now(), end, "the message never arrived");
		ssize_t r2 = fi_trecvmsg(fx.b.ep, &m, FI_PEEK | FI_CLAIM);

		cr_assert_eq(r2, 0, "PEEK|CLAIM: %zd", r2);
		if (wait_one(fx.b.cq, &e, 5000) == 1)
			break;
		fi_cq_readerr(fx.b.cq, &err, 0);
		fi_cq_read(fx.a.cq, NULL, 0);
	}
	cr_assert_eq(e.len, 7);
	cr_assert_eq(e.tag, 0x77);
	cr_assert_eq(r[0], 0, "peek copies nothing");
	cr_assert_eq(fi_trecvmsg(fx.b.ep, &m, FI_CLAIM), 0);
	expect_one(fx.b.cq, &e);
	cr_assert_str_eq(r, "peeked");
	cr_assert_eq(e.op_context, &ctx);
}

Test(ep, size_left)
{
	struct fi_cq_err_entry err;
	struct fi_cq_tagged_entry e;
	ssize_t rx0, tx0;
	char r[2][8];

	/* deprecated wrappers: call the slots */
	tx0 = fx.a.ep->ops->tx_size_left(fx.a.ep);
	rx0 = fx.b.ep->ops->rx_size_left(fx.b.ep);
	cr_assert_gt(tx0, 0);
	cr_assert_gt(rx0, 1);
	/* a posted receive holds one until it completes */
	cr_assert_eq(fi_recv(fx.b.ep, r[0], 8, NULL, FI_ADDR_UNSPEC,
			     (void *)1), 0);
	cr_assert_eq(fi_recv(fx.b.ep, r[1], 8, NULL, FI_ADDR_UNSPEC,
			     (void *)2), 0);
	cr_assert_eq(fx.b.ep->ops->rx_size_left(fx.b.ep), rx0 - 2);
	cr_assert_eq(fi_cancel(&fx.b.ep->fid, (void *)2), 0);
	cr_assert_eq(wait_one(fx.b.cq, &e, 5000), -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_cq_readerr(fx.b.cq, &err, 0), 1);
	cr_assert_eq(fx.b.ep->ops->rx_size_left(fx.b.ep), rx0 - 1);
	cr_assert_eq(fi_send(fx.a.ep, "hi", 2, NULL, fx.a.peer, (void *)3), 0);
	expect_one(fx.b.cq, &e);
	expect_one(fx.a.cq, &e);
	cr_assert_eq(fx.b.ep->ops->rx_size_left(fx.b.ep), rx0);
	cr_assert_eq(fx.a.ep->ops->tx_size_left(fx.a.ep), tx0);
}

Test(ep, getname_probe_and_formats)
{
	struct sockaddr_in sin;
	struct fi_info *info;
	struct fid_ep *ep;
	uint8_t name[UETP_ADDR_LEN];
	size_t len = 0;

	cr_assert_eq(fi_getname(&fx.a.ep->fid, NULL, &len), -FI_ETOOSMALL);
	cr_assert_eq(len, sizeof(sin));
	len = sizeof(sin);
	cr_assert_eq(fi_getname(&fx.a.ep->fid, &sin, &len), 0);
	cr_assert_eq(sin.sin_family, AF_INET);
	cr_assert_eq(ntohl(sin.sin_addr.s_addr), INADDR_LOOPBACK);
	cr_assert_neq(sin.sin_port, 0, "bound at fi_endpoint");

	/* an endpoint opened for FI_FORMAT_UNSPEC names itself in uet form */
	info = fi_dupinfo(fx.info);
	info->addr_format = FI_FORMAT_UNSPEC;
	free(info->src_addr);
	info->src_addr = NULL;
	info->src_addrlen = 0;
	cr_assert_eq(fi_endpoint(fx.domain, info, &ep, NULL), 0);
	len = sizeof(name);
	cr_assert_eq(fi_getname(&ep->fid, name, &len), 0);
	cr_assert_eq(len, UETP_ADDR_LEN);
	cr_assert_eq(name[0], 'U');
	cr_assert_eq(name[1], 'E');
	cr_assert_eq(name[3], 4);
	cr_assert_eq(name[16], 127);
	fi_close(&ep->fid);
	fi_freeinfo(info);
}

/* A loopback UDP port held by a socket of ours (*fd), so that no one
 * else takes it; packets sent there are never answered. */
static uint16_t hold_port(int *fd)
{
	struct sockaddr_in s = { .sin_family = AF_INET };
	socklen_t l = sizeof(s);

	*fd = socket(AF_INET, SOCK_DGRAM, 0);
	cr_assert_geq(*fd, 0);
	s.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	cr_assert_eq(bind(*fd, (struct sockaddr *)&s, sizeof(s)), 0);
	cr_assert_eq(getsockname(*fd, (struct sockaddr *)&s, &l), 0);
	return ntohs(s.sin_port);
}

static uint16_t name_port(struct fid_ep *ep)
{
	struct sockaddr_in sin;
	size_t len = sizeof(sin);

	cr_assert_eq(fi_getname(&ep->fid, &sin, &len), 0);
	return ntohs(sin.sin_port);
}

/* fi_setname to a port we hold: refused, and the endpoint keeps its name
 * and engine; to its own port: nothing to do; to a port we let go just
 * before: taken (any port will do, spray sockets are separate). Another
 * process may grab a released port in the instant between: then another
 * one is tried. */
static void setname_moves(struct fid_ep *ep, struct sockaddr_in *sin)
{
	uint16_t was = name_port(ep), port = 0;
	int fd, ret = -FI_EADDRINUSE;

	sin->sin_port = htons(hold_port(&fd));
	cr_assert_eq(fi_setname(&ep->fid, sin, sizeof(*sin)), -FI_EADDRINUSE);
	cr_assert_eq(name_port(ep), was, "a failed setname changed the name");
	sin->sin_port = htons(was);
	cr_assert_eq(fi_setname(&ep->fid, sin, sizeof(*sin)), 0);
	cr_assert_eq(name_port(ep), was);
	close(fd);
	for (int i = 0; i < 10 && ret == -FI_EADDRINUSE; i++) {
		port = hold_port(&fd);
		close(fd);
		sin->sin_port = htons(port);
		ret = fi_setname(&ep->fid, sin, sizeof(*sin));
	}
	cr_assert_eq(ret, 0, "fi_setname: %s", fi_strerror(-ret));
	cr_assert_eq(name_port(ep), port);
}

Test(ep, setname_and_state)
{
	struct sockaddr_in sin;
	struct fid_ep *ep;
	size_t len = sizeof(sin);

	cr_assert_eq(fi_endpoint(fx.domain, fx.info, &ep, NULL), 0);
	cr_assert_eq(fi_getname(&ep->fid, &sin, &len), 0);
	setname_moves(ep, &sin);
	/* another FEP's address is refused */
	sin.sin_addr.s_addr = htonl(0xC6336401);	/* 198.51.100.1 */
	cr_assert_eq(fi_setname(&ep->fid, &sin, sizeof(sin)), -FI_EINVAL);
	/* not enabled: no AV, no CQ */
	cr_assert_eq(fi_enable(ep), -FI_ENOAV);
	cr_assert_eq(fi_ep_bind(ep, &fx.a.av->fid, 0), 0);
	cr_assert_eq(fi_enable(ep), -FI_ENOCQ);
	cr_assert_eq(fi_send(ep, "x", 1, NULL, 0, NULL), -FI_EOPBADSTATE);
	cr_assert_eq(fi_close(&fx.a.av->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&fx.domain->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&ep->fid), 0);
	/* enabled endpoints refuse setname and rebinding */
	cr_assert_eq(fi_setname(&fx.a.ep->fid, &sin, sizeof(sin)),
		     -FI_EOPBADSTATE);
	cr_assert_eq(fi_ep_bind(fx.a.ep, &fx.b.cq->fid, FI_RECV),
		     -FI_EOPBADSTATE);
	cr_assert_eq(fi_close(&fx.a.cq->fid), -FI_EBUSY);
}

/* A failed fi_setname leaves a working endpoint: it still opens, talks
 * and closes. */
Test(ep, setname_refused_keeps_endpoint)
{
	struct side c = { 0 };
	struct sockaddr_in sin;
	size_t len = sizeof(sin);
	struct fi_cq_tagged_entry e;
	char buf[8] = "";
	uet_time end;
	int fd;

	cr_assert_eq(fi_endpoint(fx.domain, fx.info, &c.ep, NULL), 0);
	cr_assert_eq(fi_getname(&c.ep->fid, &sin, &len), 0);
	sin.sin_port = htons(hold_port(&fd));
	cr_assert_eq(fi_setname(&c.ep->fid, &sin, sizeof(sin)),
		     -FI_EADDRINUSE);
	close(fd);
	cr_assert_eq(fi_ep_bind(c.ep, &fx.b.av->fid, 0), 0);
	cr_assert_eq(fi_ep_bind(c.ep, &fx.b.cq->fid, FI_TRANSMIT | FI_RECV),
		     0);
	cr_assert_eq(fi_enable(c.ep), 0);
	cr_assert_eq(fi_recv(fx.a.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
			     NULL), 0);
	/* fx.b's AV: its peer is fx.a */
	cr_assert_eq(fi_send(c.ep, "ok", 3, NULL, fx.b.peer, NULL), 0);
	end = uetp_now() + 10 * UET_SEC;
	while (fi_cq_read(fx.a.cq, &e, 1) != 1) {
		cr_assert_lt(uetp_now(), end, "nothing arrived");
		fi_cq_read(fx.b.cq, NULL, 0);
	}
	cr_assert_str_eq(buf, "ok");
	cr_assert_eq(fi_close(&c.ep->fid), 0);
}

Test(ep, rma_not_there)
{
	char b[8] = "";

	cr_assert_eq(fi_write(fx.a.ep, b, 8, NULL, fx.a.peer, 0, 1, NULL),
		     -FI_ENOSYS);
	cr_assert_eq(fi_read(fx.a.ep, b, 8, NULL, fx.a.peer, 0, 1, NULL),
		     -FI_ENOSYS);
	cr_assert_eq(fi_atomic(fx.a.ep, b, 1, NULL, fx.a.peer, 0, 1,
			       FI_UINT64, FI_SUM, NULL), -FI_ENOSYS);
}

Test(ep, ops_flags)
{
	uint64_t f = FI_TRANSMIT;

	cr_assert_eq(fi_control(&fx.a.ep->fid, FI_GETOPSFLAG, &f), 0);
	cr_assert_eq(f, 0);
	f = FI_TRANSMIT | FI_DELIVERY_COMPLETE;
	cr_assert_eq(fi_control(&fx.a.ep->fid, FI_SETOPSFLAG, &f), 0);
	f = FI_TRANSMIT;
	cr_assert_eq(fi_control(&fx.a.ep->fid, FI_GETOPSFLAG, &f), 0);
	cr_assert_eq(f, FI_DELIVERY_COMPLETE);
	f = FI_TRANSMIT | FI_RECV;
	cr_assert_eq(fi_control(&fx.a.ep->fid, FI_GETOPSFLAG, &f),
		     -FI_EINVAL);
	/* a send with delivery-complete semantics still completes */
	roundtrip(5000, false);
}

/* ---- fixtures with other settings ---- */

static void fx_open_selective(void)
{
	fx_open_with(FI_WAIT_NONE, FI_SELECTIVE_COMPLETION, true);
}

Test(ep_env, selective_completion_and_counters, .init = fx_open_selective,
     .fini = fx_close)
{
	struct fi_cq_tagged_entry e;
	struct iovec iov;
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1 };
	char r[3][8];

	for (int i = 0; i < 3; i++)
		cr_assert_eq(fi_recvmsg(fx.b.ep, &(struct fi_msg){
			.msg_iov = &(struct iovec){ r[i], 8 }, .iov_count = 1,
			.addr = FI_ADDR_UNSPEC, .context = NULL },
			i == 2 ? FI_COMPLETION : 0), 0);
	cr_assert_eq(fi_send(fx.a.ep, "a", 2, NULL, fx.a.peer, NULL), 0);
	cr_assert_eq(fi_send(fx.a.ep, "b", 2, NULL, fx.a.peer, NULL), 0);
	iov.iov_base = "c";
	iov.iov_len = 2;
	m.addr = fx.a.peer;
	m.context = (void *)0xC;
	cr_assert_eq(fi_sendmsg(fx.a.ep, &m, FI_COMPLETION), 0);
	wait_cntr(fx.b.rxc, 3);
	wait_cntr(fx.a.txc, 3);
	/* fi_cntr_wait on a counter already there returns at once */
	cr_assert_eq(fi_cntr_wait(fx.a.txc, 3, 0), 0);
	/* only the ops that asked (FI_COMPLETION) produced entries */
	expect_one(fx.a.cq, &e);
	cr_assert_eq(e.op_context, (void *)0xC);
	expect_none(fx.a.cq, 100);
	expect_one(fx.b.cq, &e);
	cr_assert_eq(e.buf, r[2]);
	expect_none(fx.b.cq, 100);
	cr_assert_eq(fi_cntr_readerr(fx.a.txc), 0);

	/* errors count too, and always make an entry */
	cr_assert_eq(fi_recv(fx.b.ep, r[0], 1, NULL, FI_ADDR_UNSPEC, NULL),
		     0);
	cr_assert_eq(fi_send(fx.a.ep, "long", 5, NULL, fx.a.peer, NULL), 0);
	cr_assert_eq(wait_one(fx.b.cq, &e, 10000), -FI_EAVAIL);
	cr_assert_eq(fi_cntr_readerr(fx.b.rxc), 1);
}

static void fx_open_fd(void)
{
	fx_open_with(FI_WAIT_FD, 0, false);
}

Test(ep_env, wait_fd_trywait_sread, .init = fx_open_fd, .fini = fx_close)
{
	struct fi_cq_tagged_entry e;
	struct fid *f = &fx.b.cq->fid;
	struct pollfd pfd = { .events = POLLIN };
	char r[8];
	int ret;

	cr_assert_eq(fi_control(&fx.b.cq->fid, FI_GETWAIT, &pfd.fd), 0);
	cr_assert_eq(fi_recv(fx.b.ep, r, 8, NULL, FI_ADDR_UNSPEC, NULL), 0);
	cr_assert_eq(fi_trywait(fx.fabric, &f, 1), 0, "nothing yet");
	cr_assert_eq(poll(&pfd, 1, 0), 0, "fd quiet before any packet");
	cr_assert_eq(fi_send(fx.a.ep, "wake", 5, NULL, fx.a.peer, NULL), 0);
	ret = poll(&pfd, 1, 5000);
	cr_assert_eq(ret, 1, "a packet makes the fd readable");
	/* the completion exists once progress ran: trywait says so */
	cr_assert_eq(fi_trywait(fx.fabric, &f, 1), -FI_EAGAIN);
	cr_assert_eq(fi_cq_read(fx.b.cq, &e, 1), 1);
	cr_assert_str_eq(r, "wake");

	/* sread blocks until the data is there */
	cr_assert_eq(fi_recv(fx.b.ep, r, 8, NULL, FI_ADDR_UNSPEC, NULL), 0);
	cr_assert_eq(fi_send(fx.a.ep, "sread", 6, NULL, fx.a.peer, NULL), 0);
	cr_assert_eq(fi_cq_sread(fx.b.cq, &e, 1, NULL, 5000), 1);
	cr_assert_str_eq(r, "sread");
	/* A's completion needs B's ACK: sread on A waits for it */
	cr_assert_eq(fi_cq_sread(fx.a.cq, &e, 1, NULL, 5000), 1);
	cr_assert_eq(fi_cq_sread(fx.a.cq, &e, 1, NULL, 5000), 1);
	cr_assert_eq(fi_cq_sread(fx.a.cq, &e, 1, NULL, 50), -FI_EAGAIN);
}

static void fx_open_thread(void)
{
	setenv("FI_UET_PROGRESS_THREAD", "1", 1);
	fx_open_with(FI_WAIT_UNSPEC, 0, false);
}

Test(ep_env, progress_thread, .init = fx_open_thread, .fini = fx_close)
{
	struct fi_cq_tagged_entry e;
	static uint8_t tx[1 << 20], rx[1 << 20];

	cr_assert_not_null(uet_container_of(fx.domain, struct uetp_domain,
					     fid)->prog);
	fill(tx, sizeof(tx), 3);
	cr_assert_eq(fi_recv(fx.b.ep, rx, sizeof(rx), NULL, FI_ADDR_UNSPEC,
			     NULL), 0);
	cr_assert_eq(fi_send(fx.a.ep, tx, sizeof(tx), NULL, fx.a.peer, NULL),
		     0);
	/* nobody reads A's CQ: the thread moves A's windows along */
	cr_assert_eq(fi_cq_sread(fx.b.cq, &e, 1, NULL, 20000), 1);
	cr_assert_eq(memcmp(tx, rx, sizeof(tx)), 0);
	cr_assert_eq(fi_cq_sread(fx.a.cq, &e, 1, NULL, 20000), 1);
}

static void fx_open_impair(void)
{
	setenv("FI_UET_IMPAIR", "drop=0.1,dup=0.05,reorder=0.2,seed=3", 1);
	setenv("FI_UET_RTO_MS", "2", 1);
	fx_open();
}

Test(ep_env, impaired_network_still_delivers, .init = fx_open_impair,
     .fini = fx_close)
{
	struct uetp_ep *b = uet_container_of(fx.b.ep, struct uetp_ep, fid);

	roundtrip(200000, false);
	roundtrip(3, true);
	cr_assert_not_null(b->impair);
	cr_assert_gt(b->impair->dropped, 0, "the knob did something");
	cr_assert_gt(b->impair->reordered + b->impair->duplicated, 0);
}

static void fx_open_rndv(void)
{
	setenv("FI_UET_RNDV_THRESHOLD", "65536", 1);
	fx_open();
}

/* FI_UET_RNDV_THRESHOLD reaches the engine: sends above it are read by
 * the receiver (return-direction packets), those at it go eager. */
Test(ep_env, rendezvous_threshold, .init = fx_open_rndv, .fini = fx_close)
{
	struct uetp_ep *a = uet_container_of(fx.a.ep, struct uetp_ep, fid);
	struct uetp_ep *b = uet_container_of(fx.b.ep, struct uetp_ep, fid);
	struct uet_fep_stats st;

	cr_assert_eq(a->cfg.rndv_threshold, 65536);
	roundtrip(65536, false);
	uet_fep_stats(b->fep, &st);
	cr_assert_eq(st.ret_rx, 0, "64 KiB went by rendezvous");
	roundtrip(65537, false);
	roundtrip(3u << 20, true);
	uet_fep_stats(b->fep, &st);
	cr_assert_gt(st.ret_rx, 0, "no rendezvous read");
}

/* Without it, nothing goes by rendezvous. */
Test(ep, rendezvous_off_by_default)
{
	struct uetp_ep *b = uet_container_of(fx.b.ep, struct uetp_ep, fid);
	struct uet_fep_stats st;

	cr_assert_eq(b->cfg.rndv_threshold, 0);
	roundtrip(3u << 20, false);
	uet_fep_stats(b->fep, &st);
	cr_assert_eq(st.ret_rx, 0);
}

static void fx_open_dead(void)
{
	setenv("FI_UET_IMPAIR", "drop=1", 1);
	setenv("FI_UET_RTO_MS", "1", 1);
	setenv("FI_UET_MAX_RETX", "2", 1);
	fx_open();
}

Test(ep_env, unreachable_peer_fails_send, .init = fx_open_dead,
     .fini = fx_close)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	char buf[256];

	cr_assert_eq(fi_send(fx.a.ep, "lost", 5, NULL, fx.a.peer, (void *)5),
		     0);
	cr_assert_eq(wait_one(fx.a.cq, &e, 30000), -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_cq_readerr(fx.a.cq, &err, 0), 1);
	cr_assert_eq(err.op_context, (void *)5);
	cr_assert_eq(err.err, FI_EHOSTUNREACH);
	/* retries exhausted (engine code) or a fatal NACK (0x100 + code) */
	cr_assert(err.prov_errno == UET_ERR_PEER ||
		  (err.prov_errno & ~0xff) == UETP_PE_NACK,
		  "prov_errno %d", err.prov_errno);
	fi_cq_strerror(fx.a.cq, err.prov_errno, err.err_data, buf,
		       sizeof(buf));
	if (err.prov_errno == UET_ERR_PEER)
		cr_assert_not_null(strstr(buf, uet_err_str(UET_ERR_PEER)),
				   "%s", buf);
	else
		cr_assert_not_null(strstr(buf, "NACK"), "%s", buf);
}

static char pcap_dir[256], pcap_path[320];

/* Records of a pcap file after its 24-byte header; -1 if unreadable. */
static long pcap_records(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t hdr[24];
	uint32_t rec[4];
	long n = 0;

	if (!f)
		return -1;
	if (fread(hdr, 1, 24, f) != 24)
		n = -1;
	while (n >= 0 && fread(rec, 4, 4, f) == 4)
		n = fseek(f, (long)rec[2], SEEK_CUR) ? -1 : n + 1;
	fclose(f);
	return n;
}

/* A directory of our own for the captures, under TMPDIR. */
static void pcap_mkdir(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(pcap_dir, sizeof(pcap_dir), "%s/uetp-unit-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	cr_assert_not_null(mkdtemp(pcap_dir));
}

static void fx_open_pcap(void)
{
	char pattern[300];

	pcap_mkdir();
	snprintf(pcap_path, sizeof(pcap_path), "%s/cap-%ld.pcap", pcap_dir,
		 (long)getpid());
	/* %p: the provider puts the process id in */
	snprintf(pattern, sizeof(pattern), "%s/cap-%%p.pcap", pcap_dir);
	setenv("FI_UET_PCAP", pattern, 1);
	setenv("FI_UET_STATS", "1", 1);
	cr_redirect_stderr();
	fx_open();
}

Test(ep_env, pcap_and_stats, .init = fx_open_pcap)
{
	struct stat st;
	long records;

	roundtrip(100000, false);
	fx_close();
	uetp_pcap_cleanup();
	fflush(stderr);
	cr_assert_stderr_neq_str("", "FI_UET_STATS printed nothing");
	cr_assert_eq(stat(pcap_path, &st), 0, "%s", pcap_path);
	records = pcap_records(pcap_path);
	unlink(pcap_path);
	rmdir(pcap_dir);
	/* 100000 bytes need >= 7 data packets (payload < 16 KiB), each
	 * seen twice: sent by A, received by B */
	cr_assert_geq(records, 14, "%ld records", records);
}

static struct uet_pcap *pcap_other;

/* FI_UET_PCAP names one file (no %p) that another writer already holds,
 * as a second process of a job given the same name would find it. */
static void fx_open_pcap_taken(void)
{
	char err[UET_PCAP_ERRBUF_SIZE];
	struct uet_pcap_meta m = { .src_port = 1, .dst_port = 4793 };
	uint8_t pkt[8] = { 0 };

	pcap_mkdir();
	snprintf(pcap_path, sizeof(pcap_path), "%s/cap.pcap", pcap_dir);
	cr_assert_eq(uet_pcap_open(&pcap_other, pcap_path, 0, err), 0, "%s",
		     err);
	cr_assert_eq(uet_pcap_write(pcap_other, &m, pkt, sizeof(pkt)), 0);
	cr_assert_eq(uet_pcap_flush(pcap_other), 0);
	setenv("FI_UET_PCAP", pcap_path, 1);
	cr_redirect_stderr();
	fx_open();
}

/* The provider leaves the other writer's file alone (it once truncated
 * it, and only the last process's packets were left) and captures to
 * NAME.PID instead, saying so. */
Test(ep_env, pcap_taken_by_another_writer, .init = fx_open_pcap_taken)
{
	char mine[400];

	roundtrip(100000, false);
	fx_close();
	uetp_pcap_cleanup();
	cr_assert_eq(uet_pcap_close(pcap_other), 0);
	cr_assert_eq(pcap_records(pcap_path), 1, "the other writer's file");
	snprintf(mine, sizeof(mine), "%s.%ld", pcap_path, (long)getpid());
	cr_assert_geq(pcap_records(mine), 14, "%s", mine);
	unlink(mine);
	unlink(pcap_path);
	rmdir(pcap_dir);
}

/* ---- small-message path (uetp_cq.c, uetp_progress.c, uetp_msg.c) ---- */

static struct uetp_cq *cq_of(struct fid_cq *cq)
{
	return uet_container_of(cq, struct uetp_cq, fid);
}

/* Run both sides' progress until B's CQ holds n entries. */
static void fill_b(size_t n)
{
	uet_time end = uetp_now() + 10 * UET_SEC;

	while (uetp_cq_count(cq_of(fx.b.cq)) < n) {
		cr_assert_lt(uetp_now(), end, "B has %zu of %zu",
			     uetp_cq_count(cq_of(fx.b.cq)), n);
		fi_cq_read(fx.a.cq, NULL, 0);
		fi_cq_read(fx.b.cq, NULL, 0);
	}
}

/* A completion already queued is returned without a progress pass (whose
 * recvmmsg is a system call): the next message, already in B's socket,
 * is received only by the read that finds the queue empty. */
Test(ep, cq_read_takes_queued_first)
{
	struct fi_cq_tagged_entry e;
	char r1[8], r2[8];
	int c1, c2;

	cr_assert_eq(fi_recv(fx.b.ep, r1, sizeof(r1), NULL, FI_ADDR_UNSPEC,
			     &c1), 0);
	cr_assert_eq(fi_recv(fx.b.ep, r2, sizeof(r2), NULL, FI_ADDR_UNSPEC,
			     &c2), 0);
	cr_assert_eq(fi_send(fx.a.ep, "one", 4, NULL, fx.a.peer, NULL), 0);
	fill_b(1);
	expect_one(fx.a.cq, &e);	/* acknowledged: B is past the SYN */
	cr_assert_eq(fi_send(fx.a.ep, "two", 4, NULL, fx.a.peer, NULL), 0);
	cr_assert_eq(fi_cq_read(fx.b.cq, &e, 1), 1);
	cr_assert_eq(e.op_context, &c1);
	cr_assert_eq(uetp_cq_count(cq_of(fx.b.cq)), 0,
		     "the read of a queued entry received more");
	expect_one(fx.b.cq, &e);
	cr_assert_eq(e.op_context, &c2);
	cr_assert_str_eq(r2, "two");
}

/* A drained ring starts again at slot 0: a ping-pong keeps to the first
 * slots instead of touching (and faulting in) the whole ring. */
Test(ep, cq_ring_rewinds_when_drained)
{
	struct fi_cq_tagged_entry e[3];
	char r[3][8];

	for (int i = 0; i < 3; i++)
		cr_assert_eq(fi_recv(fx.b.ep, r[i], sizeof(r[i]), NULL,
				     FI_ADDR_UNSPEC, NULL), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(fi_send(fx.a.ep, "x", 2, NULL, fx.a.peer, NULL),
			     0);
	fill_b(3);
	cr_assert_eq(fi_cq_read(fx.b.cq, e, 2), 2);
	cr_assert_eq(cq_of(fx.b.cq)->head, 2);
	cr_assert_eq(fi_cq_read(fx.b.cq, e, 3), 1);
	cr_assert_eq(cq_of(fx.b.cq)->head, 0);
	cr_assert_eq(cq_of(fx.b.cq)->count, 0);
}

/* An idle pass skips asking the engine for packets, but not after a
 * timeout: a send to a port nobody reads is retransmitted on RTO by a
 * progress pass that received nothing. */
Test(ep, rto_resend_from_idle_progress)
{
	struct uetp_ep *a = uet_container_of(fx.a.ep, struct uetp_ep, fid);
	struct sockaddr_in dead = { .sin_family = AF_INET };
	uet_time end = uetp_now() + 5 * UET_SEC;
	struct uet_fep_stats s;
	fi_addr_t to;
	int fd;

	dead.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	dead.sin_port = htons(hold_port(&fd));	/* held: never answers */
	cr_assert_eq(fi_av_insert(fx.a.av, &dead, 1, &to, 0, NULL), 1);
	cr_assert_eq(fi_send(fx.a.ep, "lost", 5, NULL, to, NULL), 0);
	uet_fep_stats(a->fep, &s);
	cr_assert_eq(s.tx_pkts, 1);
	do {
		cr_assert_lt(uetp_now(), end, "no retransmission");
		fi_cq_read(fx.a.cq, NULL, 0);
		uet_fep_stats(a->fep, &s);
	} while (!s.retx_rto);
	cr_assert_geq(s.tx_pkts, 2, "retransmission left in the engine");
	close(fd);
}
