/* Pieces without sockets: endpoint names in every format, the error map
 * and the text fi_cq_strerror prints, the FI_UET_IMPAIR parser and its
 * draws, subnet names, the packet size an interface allows, entropy
 * runs and the fixed window by packet size, the idle poller's spin. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <criterion/criterion.h>

#include "uet/addr.h"
#include "uet/err.h"
#include "uet/wire.h"
#include "uetp.h"

static struct uet_addr v4(const char *s, uint16_t port)
{
	struct uet_addr a = { .af = UET_AF_INET, .port = port };

	cr_assert_eq(inet_pton(AF_INET, s, a.ip), 1);
	return a;
}

static struct uet_addr v6(const char *s, uint16_t port)
{
	struct uet_addr a = { .af = UET_AF_INET6, .port = port };

	cr_assert_eq(inet_pton(AF_INET6, s, a.ip), 1);
	return a;
}

Test(addr, sockaddr_in_roundtrip)
{
	struct uetp_name n, m;
	struct sockaddr_in sin;
	struct uet_addr a = v4("192.0.2.9", 4793);

	uetp_addr_name(&n, &a, 5);
	cr_assert_eq(uetp_addr_len(FI_SOCKADDR_IN, &a), sizeof(sin));
	cr_assert_eq(uetp_addr_len(FI_SOCKADDR_IN6, &a), 0);
	uetp_addr_encode(&sin, FI_SOCKADDR_IN, &n);
	cr_assert_eq(sin.sin_family, AF_INET);
	cr_assert_eq(ntohs(sin.sin_port), 4793);
	cr_assert_eq(uetp_addr_format_of(&sin, sizeof(sin)), FI_SOCKADDR_IN);
	cr_assert_eq(uetp_addr_decode(&sin, sizeof(sin), &m),
		     (ssize_t)sizeof(sin));
	cr_assert(uet_addr_equal(&m.addr, &a));
	/* the SES rule, not a copy of it */
	cr_assert_eq(m.pid_on_fep, uet_addr_pid(&a));
	cr_assert_eq(m.resource_index, uet_addr_ri(&a));
	cr_assert_eq(uetp_addr_decode(&sin, 8, &m), -FI_EINVAL);
}

Test(addr, sockaddr_in6_roundtrip)
{
	struct uetp_name n, m;
	struct sockaddr_in6 sin6;
	struct uet_addr a = v6("2001:db8::7", 50000);

	uetp_addr_name(&n, &a, 0);
	cr_assert_eq(uetp_addr_len(FI_SOCKADDR_IN6, &a), sizeof(sin6));
	uetp_addr_encode(&sin6, FI_SOCKADDR_IN6, &n);
	cr_assert_eq(sin6.sin6_family, AF_INET6);
	cr_assert_eq(uetp_addr_decode(&sin6, sizeof(sin6), &m),
		     (ssize_t)sizeof(sin6));
	cr_assert(uet_addr_equal(&m.addr, &a));
}

Test(addr, uet_format_layout)
{
	struct uet_addr a = v4("10.1.2.3", 0xC001);
	uint8_t b[UETP_ADDR_LEN];
	struct uetp_name n, m;

	uetp_addr_name(&n, &a, 0x123456);
	uetp_addr_encode(b, FI_FORMAT_UNSPEC, &n);
	cr_assert_eq(b[0], 'U');
	cr_assert_eq(b[1], 'E');
	cr_assert_eq(b[2], UETP_ADDR_VERSION);
	cr_assert_eq(b[3], 4);
	cr_assert_eq(b[4], 0xC0);
	cr_assert_eq(b[5], 0x01);
	cr_assert_eq((b[6] << 8 | b[7]), n.pid_on_fep);
	cr_assert_eq(b[12], 0x00);
	cr_assert_eq(b[13], 0x12);
	cr_assert_eq(b[14], 0x34);
	cr_assert_eq(b[15], 0x56);
	cr_assert_eq(b[16], 10);
	cr_assert_eq(b[19], 3);
	cr_assert_eq(uetp_addr_format_of(b, sizeof(b)), FI_FORMAT_UNSPEC);
	cr_assert_eq(uetp_addr_decode(b, sizeof(b), &m), UETP_ADDR_LEN);
	cr_assert(uet_addr_equal(&m.addr, &a));
	cr_assert_eq(m.job_id, 0x123456);
	b[2] = 9;	/* unknown version */
	cr_assert_eq(uetp_addr_decode(b, sizeof(b), &m), -FI_EINVAL);
	cr_assert_eq(uetp_addr_format_of(b, 16), -1);	/* too short */
}

Test(addr, text)
{
	struct uet_addr a = v4("127.0.0.1", 4793), b = v6("::1", 0);
	struct uetp_name n;
	char buf[128];

	uetp_addr_name(&n, &a, 0);
	uetp_addr_str(buf, sizeof(buf), FI_SOCKADDR_IN, &n);
	cr_assert_str_eq(buf, "fi_sockaddr_in://127.0.0.1:4793");
	uetp_addr_str(buf, sizeof(buf), FI_FORMAT_UNSPEC, &n);
	cr_assert(!strncmp(buf, "uet://127.0.0.1:4793/pid=", 25), "%s", buf);
	uetp_addr_name(&n, &b, 0);
	uetp_addr_str(buf, sizeof(buf), FI_SOCKADDR_IN6, &n);
	cr_assert_str_eq(buf, "fi_sockaddr_in6://[::1]:0");
}

Test(addr, resolve)
{
	struct uet_addr a;

	cr_assert_eq(uetp_addr_resolve("127.0.0.1", "99", AF_INET, true,
				       false, &a), 0);
	cr_assert_eq(a.af, UET_AF_INET);
	cr_assert_eq(a.port, 99);
	cr_assert_eq(a.ip[0], 127);
	cr_assert_eq(uetp_addr_resolve("not-an-ip", "1", AF_INET, true,
				       false, &a), -FI_ENODATA);
}

Test(errmap, engine_codes)
{
	cr_assert_eq(uetp_errno(UET_OK), 0);
	cr_assert_eq(uetp_errno(UET_ERR_AGAIN), -FI_EAGAIN);
	cr_assert_eq(uetp_errno(UET_ERR_TRUNC), -FI_ETRUNC);
	cr_assert_eq(uetp_errno(UET_ERR_CANCELED), -FI_ECANCELED);
	cr_assert_eq(uetp_errno(UET_ERR_PEER), -FI_EHOSTUNREACH);
	cr_assert_eq(uetp_errno(UET_ERR_MSGSIZE), -FI_EMSGSIZE);
	cr_assert_eq(uetp_errno(UET_ERR_NOMEM), -FI_ENOMEM);
	cr_assert_eq(uetp_errno(UET_ERR_INVAL), -FI_EINVAL);
	cr_assert_eq(uetp_errno(UET_ERR_WIRE_TRUNC), -FI_EIO);
	cr_assert_eq(uetp_errno(-9999), -FI_EOTHER);
}

Test(errmap, return_codes)
{
	cr_assert_eq(uetp_errno_rc(UET_RC_OK), 0);
	cr_assert_eq(uetp_errno_rc(UET_RC_BAD_JOB_ID), -FI_EACCES);
	cr_assert_eq(uetp_errno_rc(UET_RC_UNSUPPORTED_SIZE), -FI_EMSGSIZE);
	cr_assert_eq(uetp_errno_rc(UET_RC_CANCELLED), -FI_ECANCELED);
	cr_assert_eq(uetp_errno_rc(UET_RC_UNDELIVERABLE), -FI_EHOSTUNREACH);
	cr_assert_eq(uetp_errno_rc(UET_RC_BAD_MKEY), -FI_EKEYREJECTED);
	cr_assert_eq(uetp_errno_rc(UET_RC_DROPPED), -FI_EIO);
}

Test(errmap, prov_errno_and_text)
{
	struct uetp_err_data ed = { .peer = "192.0.2.1:4793" };
	char buf[160];
	int pe;

	pe = uetp_errno_prov(UET_ERR_REMOTE, UET_RC_BAD_JOB_ID);
	cr_assert_eq(pe, UET_RC_BAD_JOB_ID);
	uetp_errno_str(pe, NULL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "BAD_JOB_ID"), "%s", buf);

	pe = uetp_errno_prov(UET_ERR_PEER, UET_NACK_NO_SES_MSG_AVAIL);
	cr_assert_eq(pe, UETP_PE_NACK | UET_NACK_NO_SES_MSG_AVAIL);
	uetp_errno_str(pe, &ed, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, "NO_SES_MSG_AVAIL"), "%s", buf);
	cr_assert_not_null(strstr(buf, "192.0.2.1:4793"), "%s", buf);

	pe = uetp_errno_prov(UET_ERR_PEER, 0);
	cr_assert_eq(pe, UET_ERR_PEER);
	uetp_errno_str(pe, NULL, buf, sizeof(buf));
	cr_assert_not_null(strstr(buf, uet_err_str(UET_ERR_PEER)), "%s", buf);
}

Test(impair, parse)
{
	struct uetp_impair_cfg c;

	cr_assert_eq(uetp_impair_parse("drop=0.05,dup=0.01,reorder=0.1,seed=7",
				       &c), 0);
	cr_assert_eq(c.drop_ppm, 50000);
	cr_assert_eq(c.dup_ppm, 10000);
	cr_assert_eq(c.reorder_ppm, 100000);
	cr_assert_eq(c.seed, 7);
	cr_assert_eq(uetp_impair_parse("drop=1", &c), 0);
	cr_assert_eq(c.drop_ppm, 1000000);
	cr_assert_eq(c.seed, 1);
	cr_assert_eq(uetp_impair_parse("drop=1.5", &c), -FI_EINVAL);
	cr_assert_eq(uetp_impair_parse("loss=0.1", &c), -FI_EINVAL);
	cr_assert_eq(uetp_impair_parse("drop", &c), -FI_EINVAL);
	cr_assert_eq(uetp_impair_parse("drop=x", &c), -FI_EINVAL);
}

/* Rates come out near what was asked, and a seed repeats a run. */
Test(impair, draws)
{
	struct uetp_impair_cfg c;
	struct uetp_impair *a, *b;
	unsigned drops = 0, dups = 0, same = 0;

	cr_assert_eq(uetp_impair_parse("drop=0.2,dup=0.05,seed=42", &c), 0);
	cr_assert_eq(uetp_impair_open(&a, &c), 0);
	cr_assert_eq(uetp_impair_open(&b, &c), 0);
	for (int i = 0; i < 100000; i++) {
		unsigned x = uetp_impair_pick(a), y = uetp_impair_pick(b);

		drops += !!(x & UETP_IMPAIR_DROP);
		dups += !!(x & UETP_IMPAIR_DUP);
		cr_assert_eq(x & UETP_IMPAIR_REORDER, 0);
		same += x == y;
	}
	cr_assert(drops > 19000 && drops < 21000, "drops %u", drops);
	cr_assert(dups > 4500 && dups < 5500, "dups %u", dups);
	cr_assert_eq(same, 100000);
	uetp_impair_close(a);
	uetp_impair_close(b);
}

Test(impair, hold_copies)
{
	struct uetp_impair_cfg c = { .seed = 1 };
	struct uetp_impair *imp;
	uint8_t pkt[4] = { 1, 2, 3, 4 };
	struct uet_net_msg m = { .buf = pkt, .len = 4, .cap = 4 };

	cr_assert_eq(uetp_impair_open(&imp, &c), 0);
	for (int i = 0; i < UETP_IMPAIR_HOLD; i++)
		cr_assert(uetp_impair_hold(imp, &m));
	cr_assert(!uetp_impair_hold(imp, &m), "hold queue is bounded");
	pkt[0] = 9;
	cr_assert_eq(imp->hold[0].buf[0], 1, "held packets are copies");
	cr_assert_eq(imp->hold[0].len, 4);
	uetp_impair_close(imp);
}

/* A packet the port lent (rx_lend) is gone at its next recv: holding it
 * copies it whole into the hold queue's own buffer. */
Test(impair, hold_copies_a_lent_packet)
{
	struct uetp_impair_cfg c = { .seed = 1 };
	struct uetp_impair *imp;
	uint8_t own[4] = { 0 }, port[6] = { 5, 6, 7, 8, 9, 10 };
	struct uet_net_msg m = { .buf = own, .cap = 4, .ext = port,
				 .ext_len = 6 };

	cr_assert_eq(uetp_impair_open(&imp, &c), 0);
	cr_assert(uetp_impair_hold(imp, &m));
	memset(port, 0, sizeof(port));
	cr_assert_eq(imp->hold[0].len, 6);
	cr_assert_eq(imp->hold[0].ext_len, 0);
	cr_assert_eq(imp->hold[0].buf[0], 5);
	cr_assert_eq(imp->hold[0].buf[5], 10);
	cr_assert_eq(uet_net_msg_rx(&imp->hold[0]), imp->hold[0].buf);
	uetp_impair_close(imp);
}

Test(iface, cidr)
{
	struct uetp_iface ifc = { .prefix = 24 };
	char buf[64];

	ifc.addr = v4("192.0.2.77", 0);
	uetp_iface_cidr(&ifc, buf, sizeof(buf));
	cr_assert_str_eq(buf, "192.0.2.0/24");
	ifc.prefix = 20;
	ifc.addr = v4("10.1.47.5", 0);
	uetp_iface_cidr(&ifc, buf, sizeof(buf));
	cr_assert_str_eq(buf, "10.1.32.0/20");
	ifc.prefix = 64;
	ifc.addr = v6("fd00::2", 0);
	uetp_iface_cidr(&ifc, buf, sizeof(buf));
	cr_assert_str_eq(buf, "fd00::/64");
	ifc.prefix = 128;
	ifc.addr = v6("::1", 0);
	uetp_iface_cidr(&ifc, buf, sizeof(buf));
	cr_assert_str_eq(buf, "::1/128");
}

Test(iface, list_loopback_last)
{
	struct uetp_iface *list;
	size_t n;
	bool lo = false;

	cr_assert_eq(uetp_iface_list(&list, &n), 0);
	for (size_t i = 0; i < n; i++) {
		if (list[i].loopback)
			lo = true;
		else
			cr_assert(!lo, "%s after loopback", list[i].name);
		cr_assert(list[i].addr.af == UET_AF_INET ||
			  list[i].addr.af == UET_AF_INET6);
		/* no link-local: it would need a scope id */
		cr_assert(!(list[i].addr.af == UET_AF_INET6 &&
			    list[i].addr.ip[0] == 0xfe &&
			    (list[i].addr.ip[1] & 0xc0) == 0x80));
	}
	cr_assert(lo, "loopback missing");
	free(list);
}

/* FI_UET_MTU against what the link carries: a wish that fits is kept, one
 * that does not becomes the link's, and the link is kept within the
 * packet sizes the engine supports. */
Test(iface, mtu_pick)
{
	bool clamped;

	cr_assert_eq(uetp_iface_mtu_pick(0, 1472, &clamped), 1472);
	cr_assert_not(clamped);
	cr_assert_eq(uetp_iface_mtu_pick(1000, 1472, &clamped), 1000);
	cr_assert_not(clamped);
	cr_assert_eq(uetp_iface_mtu_pick(1472, 1472, &clamped), 1472);
	cr_assert_not(clamped);
	cr_assert_eq(uetp_iface_mtu_pick(8972, 1472, &clamped), 1472);
	cr_assert(clamped);
	cr_assert_eq(uetp_iface_mtu_pick(9000, 65508, &clamped), 9000);
	cr_assert_not(clamped);
	cr_assert_eq(uetp_iface_mtu_pick(0, 65508, &clamped), UETP_PKT_MAX);
	cr_assert_eq(uetp_iface_mtu_pick(0, 100, &clamped), UETP_MTU_MIN);
}

/* FI_UET_HOST_PATH: FEPs of this host get the loopback's packet size
 * when it is more than the interface's, unless turned off or FI_UET_MTU
 * asks for a size. */
Test(iface, host_mtu_from_the_loopback)
{
	struct uetp_iface ifc = { .name = "eth9", .addr = { .af = UET_AF_INET } };
	size_t host;

	uetp_env.host_path = 1;
	uetp_env.mtu = 0;
	host = uetp_iface_host_mtu(&ifc, 1400);
	/* lo's MTU is 65536 unless someone lowered it */
	cr_assert_gt(host, 1400);
	cr_assert_leq(host, UETP_PKT_MAX);
	cr_assert_eq(uetp_iface_host_mtu(&ifc, host), 0, "not more than mtu");
	uetp_env.mtu = 1400;
	cr_assert_eq(uetp_iface_host_mtu(&ifc, 1400), 0, "FI_UET_MTU holds");
	uetp_env.mtu = 0;
	uetp_env.host_path = 0;
	cr_assert_eq(uetp_iface_host_mtu(&ifc, 1400), 0, "turned off");
}

/* Runs and the fixed window by packet size (docs/choices.md §2.8): a GSO
 * train's worth of small packets per run and four runs to a window; the
 * engine's 16 and 64 for jumbo frames; 4 MiB in flight over loopback's
 * 16 KB packets; what the environment set, untouched. */
static struct uet_fep_config fitted(size_t mtu)
{
	struct uet_fep_config c;

	uet_fep_config_default(&c);
	c.mtu = mtu;
	uetp_ep_fit_runs(&c);
	return c;
}

Test(runs, fit_the_packet_size)
{
	struct uet_fep_config c;

	uetp_env.entropy_run = 0;
	uetp_env.window = 0;
	c = fitted(1472);
	cr_assert_eq(c.entropy_run, UETP_TRAIN_BYTES / 1472);
	cr_assert_eq(c.window, 4u * (UETP_TRAIN_BYTES / 1472));
	c = fitted(8972);
	cr_assert_eq(c.entropy_run, 16);
	cr_assert_eq(c.window, 64);
	c = fitted(UETP_PKT_MAX);
	cr_assert_eq(c.entropy_run, 16);
	cr_assert_eq(c.window, UETP_LO_WINDOW / UETP_PKT_MAX);
	cr_assert_geq((size_t)c.window * UETP_PKT_MAX, (4u << 20) - UETP_PKT_MAX);
	uetp_env.entropy_run = 8;
	uetp_env.window = 32;
	c = fitted(1472);
	cr_assert_eq(c.entropy_run, 16, "the engine's, FI_UET_ENTROPY_RUN "
		     "is uetp_ep_config's to apply");
	cr_assert_eq(c.window, 64);
	c = fitted(UETP_PKT_MAX);
	cr_assert_eq(c.window, 64);
	uetp_env.entropy_run = 0;
	uetp_env.window = 0;
}

/* FI_UET_POLL_SPIN_US 50: the spin lives between 5 and 50 us. */
Test(spin, follows_what_a_yield_took)
{
	uet_time max = 50 * UET_USEC, min = 5 * UET_USEC;

	/* back at once: nobody else wanted the CPU, spin longer */
	cr_assert_eq(uetp_progress_spin_next(min, 1 * UET_USEC, max), 2 * min);
	cr_assert_eq(uetp_progress_spin_next(40 * UET_USEC, 0, max), max);
	/* a peer ran until it answered: spin less, down to a tenth */
	cr_assert_eq(uetp_progress_spin_next(max, 12 * UET_USEC, max),
		     max / 2);
	cr_assert_eq(uetp_progress_spin_next(8 * UET_USEC, 12 * UET_USEC, max),
		     min);
	cr_assert_eq(uetp_progress_spin_next(min, 150 * UET_USEC, max), min);
	/* a time slice went to another task: all of the spin again */
	cr_assert_eq(uetp_progress_spin_next(min, 200 * UET_USEC, max), max);
	cr_assert_eq(uetp_progress_spin_next(min, 3 * UET_MSEC, max), max);
	/* 0: yield on every empty poll */
	cr_assert_eq(uetp_progress_spin_next(0, 3 * UET_MSEC, 0), 0);
	cr_assert_eq(uetp_progress_spin_next(0, 0, 0), 0);
}
