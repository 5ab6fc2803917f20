/* The raw IP port (uet/rawip.h): one SOCK_RAW socket of the UET protocol
 * bound to the endpoint's address.
 *
 * Zero copies on the common path: a packet is sent as two iovecs (its
 * entropy header, then the caller's bytes) and received the same way
 * into a small header scratch and the caller's buffer. IPv4 raw sockets
 * hand over the IP header too: the scratch takes a 20-byte header and the
 * entropy header; a header with options (rare) is fixed up by moving the
 * bytes that spilled into the caller's buffer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uet/rawip.h"
#include "uet/wire.h"
#include "sockaddr.h"
#include "sockopt.h"

#define RAW_IP4_HDR	20		/* without options */
#define RAW_ENT		UET_ENTROPY_HDR_LEN
#define RAW_HDR_MAX	(60 + RAW_ENT)	/* IPv4 with options + entropy */
#define RAW_MAX4	(65535u - 20 - RAW_ENT)
#define RAW_MAX6	(65535u - RAW_ENT)
#define RAW_BATCH_DEFAULT 64
#define RAW_BATCH_MAX	1024

union raw_cbuf {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int)) * 2];
};

struct raw_port {
	struct uet_net net;
	int af;
	int fd;
	uint8_t proto;
	uint8_t tos, dscp;
	unsigned batch;
	struct mmsghdr *mm;
	struct iovec *iov;		/* 2 per message */
	uint8_t (*hdr)[RAW_HDR_MAX];	/* per message: header scratch */
	struct sockaddr_storage *sa;
	union raw_cbuf *cbuf;
	struct uet_rawip_stats st;
	char err[192];
};

static const struct uet_net_ops raw_ops;
static __thread char raw_open_err[192];

static struct raw_port *raw_port(const struct uet_net *net)
{
	return (struct raw_port *)((const char *)net -
				   offsetof(struct raw_port, net));
}

void uet_rawip_config_default(struct uet_rawip_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->proto = UET_RAWIP_PROTO_DEFAULT;
	cfg->ecn = UET_ECN_ECT0;
	cfg->rcvbuf = cfg->sndbuf = 4u << 20;
	cfg->batch = RAW_BATCH_DEFAULT;
}

bool uet_rawip_is(const struct uet_net *net)
{
	return net && net->ops == &raw_ops;
}

uint8_t uet_rawip_proto(const struct uet_net *net)
{
	return uet_rawip_is(net) ? raw_port(net)->proto : 0;
}

const char *uet_rawip_errstr(const struct uet_net *net)
{
	if (!net)
		return raw_open_err;
	return uet_rawip_is(net) ? raw_port(net)->err : "not a raw IP port";
}

void uet_rawip_stats(const struct uet_net *net, struct uet_rawip_stats *st)
{
	if (!uet_rawip_is(net)) {
		memset(st, 0, sizeof(*st));
		return;
	}
	*st = raw_port(net)->st;
}

static const char *raw_local_bad(const struct uet_addr *a)
{
	if (a->port)
		return "ip->port must be 0 (raw IP has no ports)";
	return uet_sockaddr_local_bad(a);
}

static void raw_free(struct raw_port *p)
{
	if (p->fd >= 0)
		close(p->fd);
	free(p->mm);
	free(p->iov);
	free(p->hdr);
	free(p->sa);
	free(p->cbuf);
	free(p);
}

static int raw_socket(struct raw_port *p, const struct uet_rawip_config *cfg)
{
	bool v6 = p->af == AF_INET6;
	struct sockaddr_storage ss;
	socklen_t len;
	int rc;

	p->fd = socket(p->af, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       p->proto);
	if (p->fd < 0) {
		rc = errno;
		if (rc == EPERM || rc == EACCES)
			snprintf(raw_open_err, sizeof(raw_open_err),
				 "raw IP socket: %s: the process needs "
				 "CAP_NET_RAW (run as root, or setcap "
				 "cap_net_raw+ep on the program)",
				 strerror(rc));
		else
			snprintf(raw_open_err, sizeof(raw_open_err),
				 "raw IP socket: %s", strerror(rc));
		return UET_ERR_IO;
	}
	rc = uet_sockopt_tos(p->fd, v6, p->tos);
	if (!rc && v6)
		rc = uet_sockopt_set(p->fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1);
	if (!rc)
		rc = uet_sockopt_dont_fragment(p->fd, v6);
	if (rc) {
		snprintf(raw_open_err, sizeof(raw_open_err),
			 "setsockopt: %s", strerror(-rc));
		return UET_ERR_IO;
	}
	uet_sockopt_buf(p->fd, SO_RCVBUFFORCE, SO_RCVBUF, cfg->rcvbuf);
	uet_sockopt_buf(p->fd, SO_SNDBUFFORCE, SO_SNDBUF, cfg->sndbuf);
	len = uet_sockaddr_from(&p->net.local, 0, &ss);
	if (bind(p->fd, (struct sockaddr *)&ss, len)) {
		char s[64];

		rc = errno;
		uet_addr_str(s, sizeof(s), &p->net.local);
		snprintf(raw_open_err, sizeof(raw_open_err), "bind %s: %s", s,
			 strerror(rc));
		return rc == EADDRNOTAVAIL || rc == EINVAL ? UET_ERR_INVAL :
							     UET_ERR_IO;
	}
	return 0;
}

int uet_rawip_open(struct uet_net **portp, const struct uet_addr *ip,
		   const struct uet_rawip_config *cfg)
{
	struct uet_rawip_config def;
	struct raw_port *p;
	const char *bad;
	int rc;

	raw_open_err[0] = '\0';
	if (!cfg) {
		uet_rawip_config_default(&def);
		cfg = &def;
	}
	bad = raw_local_bad(ip);
	if (!bad && (cfg->ecn > UET_ECN_CE || cfg->dscp > 63 ||
		     cfg->batch > RAW_BATCH_MAX || !cfg->proto ||
		     cfg->proto == IPPROTO_RAW))
		bad = "bad configuration (ecn, dscp, batch or protocol)";
	if (bad) {
		snprintf(raw_open_err, sizeof(raw_open_err), "%s", bad);
		return UET_ERR_INVAL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->fd = -1;
	p->net.ops = &raw_ops;
	p->net.local.af = ip->af;
	memcpy(p->net.local.ip, ip->ip, ip->af == UET_AF_INET ? 4 : 16);
	p->af = ip->af == UET_AF_INET ? AF_INET : AF_INET6;
	p->proto = cfg->proto;
	p->dscp = cfg->dscp;
	p->tos = (uint8_t)(cfg->dscp << 2 | cfg->ecn);
	p->batch = cfg->batch ? cfg->batch : RAW_BATCH_DEFAULT;
	p->mm = calloc(p->batch, sizeof(*p->mm));
	p->iov = calloc(2 * (size_t)p->batch, sizeof(*p->iov));
	p->hdr = calloc(p->batch, sizeof(*p->hdr));
	p->sa = calloc(p->batch, sizeof(*p->sa));
	p->cbuf = calloc(p->batch, sizeof(*p->cbuf));
	if (!p->mm || !p->iov || !p->hdr || !p->sa || !p->cbuf)
		goto nomem;
	rc = raw_socket(p, cfg);
	if (rc) {
		raw_free(p);
		return rc;
	}
	*portp = &p->net;
	return 0;
nomem:
	if (p)
		raw_free(p);
	snprintf(raw_open_err, sizeof(raw_open_err), "out of memory");
	return UET_ERR_NOMEM;
}

static uint8_t raw_tos(const struct raw_port *p, const struct uet_net_msg *m)
{
	return uet_sockopt_pkt_tos(p->tos, p->dscp, m->info.ecn);
}

/* Message k: entropy header then the packet; TOS when not the default. */
static bool raw_tx_prep(struct raw_port *p, const struct uet_net_msg *m,
			unsigned k)
{
	struct msghdr *h = &p->mm[k].msg_hdr;
	struct uet_entropy_hdr e = { .entropy = m->info.entropy };
	size_t max = p->af == AF_INET ? RAW_MAX4 : RAW_MAX6;
	uint8_t tos = raw_tos(p, m);

	if (!m->buf || !m->len || m->len > max ||
	    m->info.dst.af != p->net.local.af) {
		snprintf(p->err, sizeof(p->err),
			 "send: packet of %zu bytes or destination of another "
			 "family", m->len);
		return false;
	}
	if (uet_entropy_hdr_encode(p->hdr[k], RAW_ENT, &e) != RAW_ENT)
		return false;
	memset(h, 0, sizeof(*h));
	h->msg_name = &p->sa[k];
	h->msg_namelen = uet_sockaddr_from(&m->info.dst, 0, &p->sa[k]);
	p->iov[2 * k].iov_base = p->hdr[k];
	p->iov[2 * k].iov_len = RAW_ENT;
	p->iov[2 * k + 1].iov_base = m->buf;
	p->iov[2 * k + 1].iov_len = m->len;
	h->msg_iov = &p->iov[2 * k];
	h->msg_iovlen = 2;
	if (tos != p->tos) {
		struct cmsghdr *c;

		h->msg_control = p->cbuf[k].buf;
		h->msg_controllen = CMSG_SPACE(sizeof(int));
		c = CMSG_FIRSTHDR(h);
		c->cmsg_level = p->af == AF_INET ? IPPROTO_IP : IPPROTO_IPV6;
		c->cmsg_type = p->af == AF_INET ? IP_TOS : IPV6_TCLASS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &(int){ tos }, sizeof(int));
	}
	return true;
}

static bool raw_unreachable(int err)
{
	return err == EHOSTUNREACH || err == ENETUNREACH ||
	       err == EHOSTDOWN || err == ENETDOWN || err == EPERM ||
	       err == ECONNREFUSED;
}

static int raw_send(struct uet_net *net, const struct uet_net_msg *msgs,
		    unsigned n)
{
	struct raw_port *p = raw_port(net);
	unsigned taken = 0;

	while (taken < n) {
		unsigned k = 0;
		int r, err;

		while (k < p->batch && taken + k < n &&
		       raw_tx_prep(p, &msgs[taken + k], k))
			k++;
		if (!k)
			return taken ? (int)taken : UET_ERR_INVAL;
		r = sendmmsg(p->fd, p->mm, k, 0);
		if (r > 0) {
			taken += (unsigned)r;
			p->st.sent += (unsigned)r;
			if ((unsigned)r < k)
				break;
			continue;
		}
		err = r < 0 ? errno : EAGAIN;
		if (err == EINTR)
			continue;
		if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) {
			p->st.would_block++;
			break;
		}
		snprintf(p->err, sizeof(p->err), "sendmmsg: %s",
			 strerror(err));
		if (raw_unreachable(err)) {
			p->st.unreachable++;
			taken++;	/* as a lost packet would be */
			continue;
		}
		if (taken)
			break;
		return err == EMSGSIZE || err == EINVAL ? UET_ERR_INVAL :
							  UET_ERR_IO;
	}
	return (int)taken;
}

/* Make message i of a recvmmsg into m: strip the IP header (IPv4) and
 * the entropy header, read TOS. false: malformed, drop it. */
static bool raw_rx_fill(struct raw_port *p, unsigned i,
			struct uet_net_msg *m, uet_time now)
{
	struct msghdr *h = &p->mm[i].msg_hdr;
	size_t got = p->mm[i].msg_len, head, lead, body;
	uint8_t *hd = p->hdr[i];
	struct uet_entropy_hdr e;

	memset(&m->info, 0, sizeof(m->info));
	m->placed = 0;
	m->info.dst = p->net.local;
	m->info.home = true;
	m->info.ts = now;
	uet_sockaddr_to(&p->sa[i], &m->info.src);
	m->info.src.port = 0;		/* the protocol number, for raw IP */
	if (p->af == AF_INET) {
		if (got < RAW_IP4_HDR)
			return false;
		head = (size_t)(hd[0] & 0x0f) * 4;
		m->info.ecn = hd[1] & 3;
		m->info.dscp = hd[1] >> 2;
	} else {
		struct cmsghdr *c;

		for (c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c))
			if (c->cmsg_level == IPPROTO_IPV6 &&
			    c->cmsg_type == IPV6_TCLASS &&
			    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
				int v;

				memcpy(&v, CMSG_DATA(c), sizeof(v));
				m->info.ecn = (uint8_t)(v & 3);
				m->info.dscp = (uint8_t)((v >> 2) & 63);
			}
		head = 0;
	}
	lead = p->iov[2 * i].iov_len;	/* bytes the scratch took */
	if (head < RAW_IP4_HDR && p->af == AF_INET)
		return false;
	if (got < head + RAW_ENT)
		return false;
	body = got - lead;		/* bytes in the caller's buffer */
	if (head + RAW_ENT > lead) {
		/* IPv4 options: the entropy header and maybe more spilled
		 * into the caller's buffer; move the packet down. */
		size_t spill = head + RAW_ENT - lead;
		uint8_t eh[RAW_ENT];

		if (body < spill)
			return false;
		memcpy(eh, m->buf + spill - RAW_ENT, RAW_ENT);
		memmove(m->buf, m->buf + spill, body - spill);
		body -= spill;
		if (uet_entropy_hdr_decode(&e, eh, RAW_ENT) < 0)
			return false;
	} else if (uet_entropy_hdr_decode(&e, hd + head, RAW_ENT) < 0) {
		return false;
	}
	m->info.entropy = e.entropy;
	m->len = body;
	if (h->msg_flags & MSG_TRUNC) {
		p->st.truncated++;
		m->len = m->cap;
	}
	return true;
}

static int raw_recv(struct uet_net *net, struct uet_net_msg *msgs,
		    unsigned n, uet_time now)
{
	struct raw_port *p = raw_port(net);
	unsigned lead = p->af == AF_INET ? RAW_IP4_HDR + RAW_ENT : RAW_ENT;
	unsigned cnt = n < p->batch ? n : p->batch, out = 0;
	int r;

	for (unsigned i = 0; i < cnt; i++) {
		struct msghdr *h = &p->mm[i].msg_hdr;

		memset(h, 0, sizeof(*h));
		p->iov[2 * i].iov_base = p->hdr[i];
		p->iov[2 * i].iov_len = lead;
		p->iov[2 * i + 1].iov_base = msgs[i].buf;
		p->iov[2 * i + 1].iov_len = msgs[i].cap;
		h->msg_name = &p->sa[i];
		h->msg_namelen = sizeof(p->sa[i]);
		h->msg_iov = &p->iov[2 * i];
		h->msg_iovlen = 2;
		h->msg_control = p->cbuf[i].buf;
		h->msg_controllen = sizeof(p->cbuf[i].buf);
	}
	do
		r = recvmmsg(p->fd, p->mm, cnt, MSG_DONTWAIT, NULL);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		snprintf(p->err, sizeof(p->err), "recvmmsg: %s",
			 strerror(errno));
		return UET_ERR_IO;
	}
	for (unsigned i = 0; i < (unsigned)r; i++) {
		if (!raw_rx_fill(p, i, &msgs[i], now)) {
			p->st.malformed++;
			continue;
		}
		/* After a dropped one (rare): close the gap by copying, the
		 * caller's buffers stay where they were. */
		if (out != i) {
			memcpy(msgs[out].buf, msgs[i].buf,
			       msgs[i].len < msgs[out].cap ? msgs[i].len :
							      msgs[out].cap);
			msgs[out].info = msgs[i].info;
			msgs[out].len = msgs[i].len < msgs[out].cap ?
					msgs[i].len : msgs[out].cap;
		}
		p->st.received++;
		out++;
	}
	return (int)out;
}

static int raw_fd(const struct uet_net *net)
{
	return raw_port(net)->fd;
}

static void raw_close(struct uet_net *net)
{
	raw_free(raw_port(net));
}

static const struct uet_net_ops raw_ops = {
	.name = "rawip",
	.send = raw_send,
	.recv = raw_recv,
	.fd = raw_fd,
	.close = raw_close,
};
