/* The provider's objects driven directly (not through libfabric's loader):
 * CQ ring and formats, error entries and err_data, growth without loss;
 * AV insert/lookup/remove/straddr, FI_SYNC_ERR, FI_EVENT to the EQ; EQ;
 * counters; MR; every op slot filled; close refused while in use. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uet/err.h"
#include "uetp.h"

struct fx {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
};

static struct fx fx;

/* A lo/IPv4 domain straight from our own getinfo. */
static void fx_open(void)
{
	struct fi_info *h = fi_allocinfo();

	fi_prov_ini();
	h->addr_format = FI_SOCKADDR_IN;
	h->domain_attr->name = strdup("lo");
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				  &fx.info), 0);
	fi_freeinfo(h);
	cr_assert_eq(uetp_fabric_open(fx.info->fabric_attr, &fx.fabric, NULL), 0);
	cr_assert_eq(fi_domain(fx.fabric, fx.info, &fx.domain, NULL), 0);
}

static void fx_close(void)
{
	if (fx.domain)
		cr_assert_eq(fi_close(&fx.domain->fid), 0);
	if (fx.fabric)
		cr_assert_eq(fi_close(&fx.fabric->fid), 0);
	fi_freeinfo(fx.info);
	memset(&fx, 0, sizeof(fx));
}

TestSuite(cq, .init = fx_open, .fini = fx_close);
TestSuite(av, .init = fx_open, .fini = fx_close);
TestSuite(eq, .init = fx_open, .fini = fx_close);
TestSuite(cntr, .init = fx_open, .fini = fx_close);
TestSuite(objs, .init = fx_open, .fini = fx_close);

static struct uetp_cq *cq_of(struct fid_cq *cq)
{
	return uet_container_of(cq, struct uetp_cq, fid);
}

static struct fid_cq *cq_new(enum fi_cq_format fmt, size_t size,
			     enum fi_wait_obj wait)
{
	struct fi_cq_attr a = { .format = fmt, .size = size,
				.wait_obj = wait };
	struct fid_cq *cq;

	cr_assert_eq(fi_cq_open(fx.domain, &a, &cq, NULL), 0);
	return cq;
}

static void push(struct fid_cq *cq, uintptr_t ctx, size_t len, bool err)
{
	struct uetp_cq_entry e = {
		.op_context = (void *)ctx,
		.flags = FI_RECV | FI_TAGGED,
		.len = len,
		.buf = (void *)(ctx * 2),
		.data = ctx * 3,
		.tag = ctx * 4,
		.src = ctx + 100,
		.is_err = err,
		.err = err ? FI_ETRUNC : 0,
		.prov_errno = err ? UET_ERR_TRUNC : 0,
		.olen = err ? 7 : 0,
	};

	if (err) {
		e.has_edata = true;
		e.edata.uet_err = UET_ERR_TRUNC;
		e.edata.prov_errno = UET_ERR_TRUNC;
		strcpy(e.edata.peer, "127.0.0.1:9");
	}
	uetp_cq_push(cq_of(cq), &e, false);
}

Test(cq, formats)
{
	static const struct {
		enum fi_cq_format fmt;
		size_t size;
	} f[] = {
		{ FI_CQ_FORMAT_CONTEXT, sizeof(struct fi_cq_entry) },
		{ FI_CQ_FORMAT_MSG, sizeof(struct fi_cq_msg_entry) },
		{ FI_CQ_FORMAT_DATA, sizeof(struct fi_cq_data_entry) },
		{ FI_CQ_FORMAT_TAGGED, sizeof(struct fi_cq_tagged_entry) },
	};

	for (size_t i = 0; i < 4; i++) {
		struct fid_cq *cq = cq_new(f[i].fmt, 8, FI_WAIT_NONE);
		uint8_t buf[2 * sizeof(struct fi_cq_tagged_entry)];
		struct fi_cq_tagged_entry t;

		memset(buf, 0xee, sizeof(buf));
		push(cq, 5, 50, false);
		cr_assert_eq(fi_cq_read(cq, buf, 2), 1);
		memcpy(&t, buf, sizeof(t));
		cr_assert_eq(t.op_context, (void *)5);
		/* nothing written beyond one entry of this format */
		cr_assert_eq(buf[f[i].size], 0xee);
		if (f[i].fmt >= FI_CQ_FORMAT_MSG) {
			cr_assert_eq(t.flags, FI_RECV | FI_TAGGED);
			cr_assert_eq(t.len, 50);
		}
		if (f[i].fmt >= FI_CQ_FORMAT_DATA) {
			cr_assert_eq(t.buf, (void *)10);
			cr_assert_eq(t.data, 15);
		}
		if (f[i].fmt == FI_CQ_FORMAT_TAGGED)
			cr_assert_eq(t.tag, 20);
		cr_assert_eq(fi_cq_read(cq, buf, 1), -FI_EAGAIN);
		fi_close(&cq->fid);
	}
}

Test(cq, unspec_format_is_context)
{
	struct fid_cq *cq = cq_new(FI_CQ_FORMAT_UNSPEC, 4, FI_WAIT_NONE);

	cr_assert_eq(cq_of(cq)->entry_size, sizeof(struct fi_cq_entry));
	fi_close(&cq->fid);
}

Test(cq, never_drops)
{
	struct fid_cq *cq = cq_new(FI_CQ_FORMAT_CONTEXT, 4, FI_WAIT_NONE);
	struct fi_cq_entry e[16];
	size_t got = 0;
	ssize_t n;

	/* reserved at post time, unreserved extras: all 1000 survive */
	for (uintptr_t i = 1; i <= 500; i++)
		cr_assert_eq(uetp_cq_reserve(cq_of(cq)), 0);
	for (uintptr_t i = 1; i <= 1000; i++) {
		struct uetp_cq_entry x = { .op_context = (void *)i };

		uetp_cq_push(cq_of(cq), &x, i <= 500);
	}
	cr_assert_eq(cq_of(cq)->reserved, 0);
	while ((n = fi_cq_read(cq, e, 16)) > 0) {
		for (ssize_t k = 0; k < n; k++)
			cr_assert_eq(e[k].op_context, (void *)(got + k + 1),
				     "order kept");
		got += (size_t)n;
	}
	cr_assert_eq(n, -FI_EAGAIN);
	cr_assert_eq(got, 1000);
	cr_assert_eq(cq_of(cq)->lost, 0);
	fi_close(&cq->fid);
}

Test(cq, error_entry_blocks_then_readerr)
{
	struct fid_cq *cq = cq_new(FI_CQ_FORMAT_TAGGED, 8, FI_WAIT_NONE);
	struct fi_cq_tagged_entry t[4];
	struct fi_cq_err_entry err;
	struct uetp_err_data mine;
	const char *s;

	push(cq, 1, 10, false);
	push(cq, 2, 20, true);
	push(cq, 3, 30, false);
	cr_assert_eq(fi_cq_read(cq, t, 4), 1, "stops at the error");
	cr_assert_eq(fi_cq_read(cq, t, 4), -FI_EAVAIL);

	/* provider-owned err_data when the caller gives no buffer */
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(err.op_context, (void *)2);
	cr_assert_eq(err.err, FI_ETRUNC);
	cr_assert_eq(err.olen, 7);
	cr_assert_eq(err.len, 20);
	cr_assert_eq(err.prov_errno, UET_ERR_TRUNC);
	cr_assert_not_null(err.err_data);
	cr_assert_eq(err.err_data_size, sizeof(struct uetp_err_data));
	s = fi_cq_strerror(cq, err.prov_errno, err.err_data, NULL, 0);
	cr_assert_not_null(strstr(s, "127.0.0.1:9"), "%s", s);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), -FI_EAGAIN);
	cr_assert_eq(fi_cq_read(cq, t, 4), 1);
	cr_assert_eq(t[0].op_context, (void *)3);

	/* the caller's buffer (fi_cq.3, api >= 1.5) */
	push(cq, 4, 40, true);
	memset(&mine, 0, sizeof(mine));
	memset(&err, 0, sizeof(err));
	err.err_data = &mine;
	err.err_data_size = sizeof(mine);
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(err.err_data, &mine);
	cr_assert_eq(mine.uet_err, UET_ERR_TRUNC);
	cr_assert_str_eq(mine.peer, "127.0.0.1:9");
	fi_close(&cq->fid);
}

/* A local cancel has no err_data: neither the caller's buffer nor its
 * size is trusted for it (libfabric's fi_recv_cancel reads the entry
 * into an uninitialized fi_cq_err_entry). */
Test(cq, error_entry_without_err_data_copies_nothing)
{
	struct fid_cq *cq = cq_new(FI_CQ_FORMAT_TAGGED, 8, FI_WAIT_NONE);
	struct uetp_cq_entry e = {
		.op_context = (void *)5,
		.flags = FI_RECV | FI_MSG,
		.src = FI_ADDR_NOTAVAIL,
		.is_err = true,
		.err = FI_ECANCELED,
		.prov_errno = UET_ERR_CANCELED,
	};
	struct fi_cq_err_entry err;
	unsigned char mine[8];

	uetp_cq_push(cq_of(cq), &e, false);
	memset(mine, 0xa5, sizeof(mine));
	memset(&err, 0, sizeof(err));
	err.err_data = mine;
	err.err_data_size = 1u << 30;	/* larger than the buffer */
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_eq(err.err, FI_ECANCELED);
	cr_assert_eq(err.op_context, (void *)5);
	cr_assert_eq(err.err_data_size, 0);
	for (size_t i = 0; i < sizeof(mine); i++)
		cr_assert_eq(mine[i], 0xa5);

	uetp_cq_push(cq_of(cq), &e, false);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_cq_readerr(cq, &err, 0), 1);
	cr_assert_null(err.err_data);
	cr_assert_eq(err.err_data_size, 0);
	fi_close(&cq->fid);
}

Test(cq, readfrom)
{
	struct fid_cq *cq = cq_new(FI_CQ_FORMAT_MSG, 8, FI_WAIT_NONE);
	struct fi_cq_msg_entry m[2];
	fi_addr_t src[2];

	push(cq, 1, 1, false);
	push(cq, 2, 2, false);
	cr_assert_eq(fi_cq_readfrom(cq, m, 2, src), 2);
	cr_assert_eq(src[0], 101);
	cr_assert_eq(src[1], 102);
	fi_close(&cq->fid);
}

Test(cq, sread_timeout_and_signal)
{
	struct fid_cq *cq = cq_new(FI_CQ_FORMAT_CONTEXT, 8, FI_WAIT_FD);
	struct fi_cq_entry e;
	uet_time t0;
	int fd = -1;

	cr_assert_eq(fi_control(&cq->fid, FI_GETWAIT, &fd), 0);
	cr_assert_geq(fd, 0);
	t0 = uetp_now();
	cr_assert_eq(fi_cq_sread(cq, &e, 1, NULL, 50), -FI_EAGAIN);
	cr_assert_geq(uetp_now() - t0, 45 * UET_MSEC, "slept the timeout");
	cr_assert_eq(fi_cq_signal(cq), 0);
	t0 = uetp_now();
	cr_assert_eq(fi_cq_sread(cq, &e, 1, NULL, 5000), -FI_EAGAIN);
	cr_assert_lt(uetp_now() - t0, 1000 * UET_MSEC, "signal wakes");
	push(cq, 9, 1, false);
	cr_assert_eq(fi_cq_sread(cq, &e, 1, NULL, 5000), 1);
	cr_assert_eq(e.op_context, (void *)9);
	fi_close(&cq->fid);
}

Test(cq, trywait)
{
	struct fid_cq *cq = cq_new(FI_CQ_FORMAT_CONTEXT, 8, FI_WAIT_FD);
	struct fid_cq *nowait = cq_new(FI_CQ_FORMAT_CONTEXT, 8, FI_WAIT_NONE);
	struct fid *f = &cq->fid;
	enum fi_wait_obj wo;

	cr_assert_eq(fi_control(&cq->fid, FI_GETWAITOBJ, &wo), 0);
	cr_assert_eq(wo, FI_WAIT_FD);
	cr_assert_eq(fi_trywait(fx.fabric, &f, 1), 0);
	push(cq, 1, 1, false);
	cr_assert_eq(fi_trywait(fx.fabric, &f, 1), -FI_EAGAIN);
	f = &nowait->fid;
	cr_assert_eq(fi_trywait(fx.fabric, &f, 1), -FI_EINVAL);
	fi_close(&cq->fid);
	fi_close(&nowait->fid);
}

Test(cq, bad_attrs)
{
	struct fi_cq_attr a = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fid_cq *cq;

	a.wait_obj = FI_WAIT_SET;	/* without its set */
	cr_assert_eq(fi_cq_open(fx.domain, &a, &cq, NULL), -FI_EINVAL);
	a.wait_obj = FI_WAIT_MUTEX_COND;
	cr_assert_eq(fi_cq_open(fx.domain, &a, &cq, NULL), -FI_ENOSYS);
	a.wait_obj = FI_WAIT_NONE;
	a.format = 99;
	cr_assert_eq(fi_cq_open(fx.domain, &a, &cq, NULL), -FI_ENOSYS);
	a.format = FI_CQ_FORMAT_CONTEXT;
	a.flags = FI_MORE;
	cr_assert_eq(fi_cq_open(fx.domain, &a, &cq, NULL), -FI_EBADFLAGS);
}

/* ---- AV ---- */

static struct sockaddr_in sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in s = { .sin_family = AF_INET };

	s.sin_port = htons(port);
	inet_pton(AF_INET, ip, &s.sin_addr);
	return s;
}

static struct fid_av *av_new(enum fi_av_type type, uint64_t flags)
{
	struct fi_av_attr a = { .type = type, .flags = flags };
	struct fid_av *av;

	cr_assert_eq(fi_av_open(fx.domain, &a, &av, NULL), 0);
	return av;
}

Test(av, insert_lookup_remove)
{
	struct fid_av *av = av_new(FI_AV_TABLE, 0);
	struct sockaddr_in s[3] = {
		sin_of("127.0.0.1", 5001), sin_of("127.0.0.2", 5002),
		sin_of("127.0.0.1", 5003),
	}, back;
	fi_addr_t fa[3];
	size_t len;

	cr_assert_eq(fi_av_insert(av, s, 3, fa, 0, NULL), 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(fa[i], (fi_addr_t)i, "table: indices in order");
		len = sizeof(back);
		cr_assert_eq(fi_av_lookup(av, fa[i], &back, &len), 0);
		cr_assert_eq(len, sizeof(back));
		cr_assert_eq(memcmp(&back, &s[i], sizeof(back)), 0);
	}
	/* short buffer: truncated, full size reported */
	len = 4;
	cr_assert_eq(fi_av_lookup(av, fa[1], &back, &len), 0);
	cr_assert_eq(len, sizeof(back));
	cr_assert_eq(fi_av_remove(av, &fa[1], 1, 0), 0);
	len = sizeof(back);
	cr_assert_eq(fi_av_lookup(av, fa[1], &back, &len), -FI_EINVAL);
	cr_assert_eq(fi_av_remove(av, &fa[1], 1, 0), -FI_EINVAL);
	fi_close(&av->fid);
}

Test(av, reverse_map)
{
	struct fid_av *av = av_new(FI_AV_MAP, 0);
	struct uetp_av *uav = uet_container_of(av, struct uetp_av, fid);
	struct sockaddr_in s;
	struct uet_addr a = { .af = UET_AF_INET };
	fi_addr_t fa;

	for (int i = 0; i < 300; i++) {
		s = sin_of("127.0.0.1", (uint16_t)(6000 + i));
		cr_assert_eq(fi_av_insert(av, &s, 1, &fa, 0, NULL), 1);
		cr_assert_eq(fa, (fi_addr_t)i);
	}
	a.ip[0] = 127;
	a.ip[3] = 1;
	a.port = 6123;
	cr_assert_eq(uetp_av_reverse(uav, &a), 123);
	a.port = 7000;
	cr_assert_eq(uetp_av_reverse(uav, &a), FI_ADDR_NOTAVAIL);
	fa = 123;
	cr_assert_eq(fi_av_remove(av, &fa, 1, 0), 0);
	a.port = 6123;
	cr_assert_eq(uetp_av_reverse(uav, &a), FI_ADDR_NOTAVAIL);
	a.port = 6124;
	cr_assert_eq(uetp_av_reverse(uav, &a), 124, "rest survives removal");
	fi_close(&av->fid);
}

Test(av, sync_err)
{
	struct fid_av *av = av_new(FI_AV_TABLE, 0);
	struct sockaddr_in s[3] = {
		sin_of("127.0.0.1", 5001),
		sin_of("127.0.0.1", 0),		/* no port: unreachable */
		sin_of("127.0.0.3", 5003),
	};
	fi_addr_t fa[3];
	int errs[3] = { -1, -1, -1 };

	cr_assert_eq(fi_av_insert(av, s, 3, fa, FI_SYNC_ERR, errs), 2);
	cr_assert_eq(errs[0], 0);
	cr_assert_eq(errs[1], -FI_EINVAL);
	cr_assert_eq(errs[2], 0);
	cr_assert_eq(fa[1], FI_ADDR_NOTAVAIL);
	cr_assert_eq(fi_av_insert(av, s, 1, fa, FI_AV_USER_ID, NULL),
		     -FI_EBADFLAGS);
	fi_close(&av->fid);
}

Test(av, uet_format_and_straddr)
{
	struct fid_av *av = av_new(FI_AV_TABLE, 0);
	struct uet_addr a = { .af = UET_AF_INET, .port = 4793,
			      .ip = { 127, 0, 0, 1 } };
	struct sockaddr_in s = sin_of("127.0.0.1", 4793);
	uint8_t name[UETP_ADDR_LEN];
	struct uetp_name n;
	char buf[128];
	size_t len = sizeof(buf);
	fi_addr_t fa;

	struct sockaddr_in back;
	size_t blen = sizeof(back);
	uint8_t mixed[UETP_ADDR_LEN + sizeof(s)];

	uetp_addr_name(&n, &a, 0);
	uetp_addr_encode(name, FI_FORMAT_UNSPEC, &n);
	/* the AV of an FI_SOCKADDR_IN domain also takes our own name form,
	 * even mixed in one array: each entry says what it is */
	memcpy(mixed, name, UETP_ADDR_LEN);
	memcpy(mixed + UETP_ADDR_LEN, &s, sizeof(s));
	cr_assert_eq(fi_av_insert(av, mixed, 2, NULL, 0, NULL), 2);
	cr_assert_eq(fi_av_lookup(av, 0, &back, &blen), 0);
	cr_assert_eq(blen, sizeof(back), "looked up in the AV's format");
	cr_assert_eq(memcmp(&back, &s, sizeof(s)), 0);
	cr_assert_eq(fi_av_straddr(av, name, buf, &len), buf);
	cr_assert(!strncmp(buf, "uet://127.0.0.1:4793/", 21), "%s", buf);
	len = sizeof(buf);
	fi_av_straddr(av, &s, buf, &len);
	cr_assert_str_eq(buf, "fi_sockaddr_in://127.0.0.1:4793");
	cr_assert_eq(len, strlen(buf) + 1);
	len = 5;
	fi_av_straddr(av, &s, buf, &len);
	cr_assert_eq(strlen(buf), 4, "truncated to the buffer");
	cr_assert_eq(len, strlen("fi_sockaddr_in://127.0.0.1:4793") + 1);
	cr_assert_eq(fi_av_insertsvc(av, "127.0.0.1", "4793", &fa, 0, NULL),
		     1);
	fi_close(&av->fid);
}

Test(av, insertsym)
{
	struct fid_av *av = av_new(FI_AV_TABLE, 0);
	struct uetp_av *uav = uet_container_of(av, struct uetp_av, fid);
	struct uet_addr a = { .af = UET_AF_INET, .ip = { 127, 0, 0, 255 } };
	fi_addr_t fa[6];

	/* 127.0.0.255 + 1 carries into the third byte */
	cr_assert_eq(fi_av_insertsym(av, "127.0.0.255", 2, "7000", 3, fa, 0,
				     NULL), 6);
	a.port = 7002;
	cr_assert_eq(uetp_av_reverse(uav, &a), 2);
	a.ip[2] = 1;
	a.ip[3] = 0;
	a.port = 7001;
	cr_assert_eq(uetp_av_reverse(uav, &a), 4);
	fi_close(&av->fid);
}

Test(av, event_to_eq)
{
	struct fi_eq_attr ea = { .size = 16, .wait_obj = FI_WAIT_UNSPEC };
	struct fid_av *av = av_new(FI_AV_TABLE, FI_EVENT);
	struct sockaddr_in s[2] = { sin_of("127.0.0.1", 5001),
				    sin_of("127.0.0.1", 0) };
	struct fi_eq_err_entry err;
	struct fi_eq_entry ev;
	struct fid_eq *eq;
	fi_addr_t fa[2];
	uint32_t event;

	cr_assert_eq(fi_av_insert(av, s, 1, fa, 0, NULL), -FI_ENOEQ);
	cr_assert_eq(fi_eq_open(fx.fabric, &ea, &eq, NULL), 0);
	cr_assert_eq(fi_av_bind(av, &eq->fid, 0), 0);
	cr_assert_eq(fi_av_insert(av, s, 2, fa, 0, (void *)0x77), 0);
	/* first the failed address (error entry), then the completion */
	cr_assert_eq(fi_eq_read(eq, &event, &ev, sizeof(ev), 0), -FI_EAVAIL);
	memset(&err, 0, sizeof(err));
	cr_assert_eq(fi_eq_readerr(eq, &err, 0), sizeof(err));
	cr_assert_eq(err.err, FI_EINVAL);
	cr_assert_eq(err.data, 1);
	cr_assert_eq(err.context, (void *)0x77);
	cr_assert_eq(fi_eq_sread(eq, &event, &ev, sizeof(ev), 1000, 0),
		     sizeof(ev));
	cr_assert_eq(event, FI_AV_COMPLETE);
	cr_assert_eq(ev.data, 1);
	cr_assert_eq(ev.context, (void *)0x77);
	cr_assert_eq(fi_close(&eq->fid), -FI_EBUSY, "bound to the AV");
	fi_close(&av->fid);
	cr_assert_eq(fi_close(&eq->fid), 0);
}

Test(av, refused_kinds)
{
	struct fi_av_attr a = { .type = FI_AV_TABLE };
	struct fid_av *av;

	/* named (shared) AVs: unit_av_test.c; receive contexts (scalable
	 * endpoints, unit_ctx_test.c) are 12-bit resource indices */
	a.rx_ctx_bits = 13;
	cr_assert_eq(fi_av_open(fx.domain, &a, &av, NULL), -FI_EINVAL);
	a.rx_ctx_bits = -1;
	cr_assert_eq(fi_av_open(fx.domain, &a, &av, NULL), -FI_EINVAL);
}

/* ---- EQ ---- */

Test(eq, write_read_sread)
{
	struct fi_eq_attr ea = { .size = 8, .wait_obj = FI_WAIT_FD,
				 .flags = FI_WRITE };
	struct fi_eq_entry in = { .context = (void *)5, .data = 6 }, out;
	struct fid_eq *eq, *ro;
	uint32_t event;
	uet_time t0;
	int fd;

	cr_assert_eq(fi_eq_open(fx.fabric, &ea, &eq, NULL), 0);
	cr_assert_eq(fi_control(&eq->fid, FI_GETWAIT, &fd), 0);
	t0 = uetp_now();
	cr_assert_eq(fi_eq_sread(eq, &event, &out, sizeof(out), 30, 0),
		     -FI_EAGAIN);
	cr_assert_geq(uetp_now() - t0, 25 * UET_MSEC);
	cr_assert_eq(fi_eq_write(eq, FI_NOTIFY, &in, sizeof(in), 0),
		     sizeof(in));
	cr_assert_eq(fi_eq_read(eq, &event, &out, 4, 0), -FI_ETOOSMALL);
	cr_assert_eq(fi_eq_read(eq, &event, &out, sizeof(out), FI_PEEK),
		     sizeof(out));
	cr_assert_eq(fi_eq_read(eq, &event, &out, sizeof(out), 0),
		     sizeof(out));
	cr_assert_eq(event, FI_NOTIFY);
	cr_assert_eq(out.data, 6);
	cr_assert_eq(fi_eq_read(eq, &event, &out, sizeof(out), 0),
		     -FI_EAGAIN);
	fi_close(&eq->fid);
	ea.flags = 0;
	cr_assert_eq(fi_eq_open(fx.fabric, &ea, &ro, NULL), 0);
	cr_assert_eq(fi_eq_write(ro, FI_NOTIFY, &in, sizeof(in), 0),
		     -FI_EINVAL, "writes need FI_WRITE");
	fi_close(&ro->fid);
}

/* ---- counters ---- */

Test(cntr, ops_and_wait)
{
	struct fi_cntr_attr a = { .events = FI_CNTR_EVENTS_COMP,
				  .wait_obj = FI_WAIT_UNSPEC };
	struct fid_cntr *c;
	uet_time t0;

	cr_assert_eq(fi_cntr_open(fx.domain, &a, &c, NULL), 0);
	cr_assert_eq(fi_cntr_read(c), 0);
	cr_assert_eq(fi_cntr_add(c, 5), 0);
	cr_assert_eq(fi_cntr_read(c), 5);
	cr_assert_eq(fi_cntr_set(c, 2), 0);
	cr_assert_eq(fi_cntr_read(c), 2);
	cr_assert_eq(fi_cntr_wait(c, 2, 10), 0);
	t0 = uetp_now();
	cr_assert_eq(fi_cntr_wait(c, 3, 40), -FI_ETIMEDOUT);
	cr_assert_geq(uetp_now() - t0, 35 * UET_MSEC);
	cr_assert_eq(fi_cntr_adderr(c, 2), 0);
	cr_assert_eq(fi_cntr_readerr(c), 2);
	cr_assert_eq(fi_cntr_seterr(c, 0), 0);
	cr_assert_eq(fi_cntr_readerr(c), 0);
	uetp_cntr_inc(uet_container_of(c, struct uetp_cntr, fid));
	cr_assert_eq(fi_cntr_read(c), 3);
	fi_close(&c->fid);
	a.events = 99;
	cr_assert_eq(fi_cntr_open(fx.domain, &a, &c, NULL), -FI_ENOSYS);
}

/* ---- MR and op tables ---- */

Test(objs, mr_local_only)
{
	char buf[64] = "";
	struct fid_mr *mr;

	cr_assert_eq(fi_mr_reg(fx.domain, buf, sizeof(buf), FI_SEND | FI_RECV,
			       0, 0, 0, &mr, NULL), 0);
	cr_assert_not_null(fi_mr_desc(mr));
	cr_assert_neq(fi_mr_key(mr), FI_KEY_NOTAVAIL);
	cr_assert_eq(fi_close(&fx.domain->fid), -FI_EBUSY, "MR open");
	cr_assert_eq(fi_close(&mr->fid), 0);
	/* remote access too (no endpoint yet: nothing to tell an engine) */
	cr_assert_eq(fi_mr_reg(fx.domain, buf, sizeof(buf), FI_REMOTE_WRITE,
			       0, 0, 0, &mr, NULL), 0);
	cr_assert_eq(fi_close(&mr->fid), 0);
	cr_assert_eq(fi_mr_reg(fx.domain, buf, sizeof(buf), FI_COLLECTIVE, 0,
			       0, 0, &mr, NULL), -FI_EINVAL);
}

#define SLOTS_SET(ops) do {						\
	void *const *p_ = (void *const *)((const char *)(ops) +	\
					  sizeof(size_t));		\
	size_t n_ = ((ops)->size - sizeof(size_t)) / sizeof(void *);	\
	cr_assert_gt(n_, 0);						\
	for (size_t i_ = 0; i_ < n_; i_++)				\
		cr_assert_not_null(p_[i_], #ops " slot %zu is NULL", i_); \
} while (0)

Test(objs, op_tables_complete)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fi_cntr_attr na = { .events = FI_CNTR_EVENTS_COMP };
	struct fi_eq_attr ea = { .size = 4 };
	struct fi_av_attr aa = { .type = FI_AV_TABLE };
	struct fid_cq *cq;
	struct fid_cntr *cn;
	struct fid_eq *eq;
	struct fid_av *av;
	struct fid_mr *mr;
	char b[8] = "";

	SLOTS_SET(fx.fabric->fid.ops);
	SLOTS_SET(fx.fabric->ops);
	SLOTS_SET(fx.domain->fid.ops);
	SLOTS_SET(fx.domain->ops);
	SLOTS_SET(fx.domain->mr);
	cr_assert_eq(fi_cq_open(fx.domain, &ca, &cq, NULL), 0);
	SLOTS_SET(cq->fid.ops);
	SLOTS_SET(cq->ops);
	cr_assert_eq(fi_cntr_open(fx.domain, &na, &cn, NULL), 0);
	SLOTS_SET(cn->fid.ops);
	SLOTS_SET(cn->ops);
	cr_assert_eq(fi_eq_open(fx.fabric, &ea, &eq, NULL), 0);
	SLOTS_SET(eq->fid.ops);
	SLOTS_SET(eq->ops);
	cr_assert_eq(fi_av_open(fx.domain, &aa, &av, NULL), 0);
	SLOTS_SET(av->fid.ops);
	SLOTS_SET(av->ops);
	cr_assert_eq(fi_mr_reg(fx.domain, b, 8, FI_SEND, 0, 0, 0, &mr, NULL),
		     0);
	SLOTS_SET(mr->fid.ops);
	SLOTS_SET(&uetp_msg_ops);
	SLOTS_SET(&uetp_tagged_ops);
	SLOTS_SET(&uetp_enosys_rma);
	SLOTS_SET(&uetp_enosys_atomic);
	SLOTS_SET(&uetp_enosys_collective);
	SLOTS_SET(&uetp_rma_ops);
	SLOTS_SET(&uetp_atomic_ops);
	cr_assert_eq(fi_query_atomic(fx.domain, FI_UINT64, FI_SUM, NULL, 0),
		     -FI_EINVAL);
	fi_close(&mr->fid);
	fi_close(&av->fid);
	fi_close(&eq->fid);
	fi_close(&cn->fid);
	fi_close(&cq->fid);
}

Test(objs, close_order)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_CONTEXT };
	struct fi_eq_attr ea = { .size = 4 };
	struct fid_cq *cq;
	struct fid_eq *eq;

	cr_assert_eq(fi_cq_open(fx.domain, &ca, &cq, NULL), 0);
	cr_assert_eq(fi_close(&fx.domain->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&fx.fabric->fid), -FI_EBUSY);
	cr_assert_eq(fi_close(&cq->fid), 0);
	cr_assert_eq(fi_eq_open(fx.fabric, &ea, &eq, NULL), 0);
	cr_assert_eq(fi_domain_bind(fx.domain, &eq->fid, 0), 0);
	cr_assert_eq(fi_close(&eq->fid), -FI_EBUSY, "bound to the domain");
	cr_assert_eq(fi_close(&fx.domain->fid), 0);
	fx.domain = NULL;
	cr_assert_eq(fi_close(&eq->fid), 0);
}
