/* SPDX-License-Identifier: BSD-2-Clause */
/* Endpoint setup, polling and message patterns of the fault tests. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault.h"

#define FAULT_IP	"127.0.0.1"

static void fault_warn(const char *what, int ret)
{
	fprintf(stderr, "%s: %d (%s)\n", what, ret, fi_strerror(-ret));
}

int fault_ep_open(struct fault_ep *e, const char *prov)
{
	struct fi_cq_attr cq_attr;
	struct fi_av_attr av_attr;
	struct fi_info *hints;
	size_t len;
	int ret;

	memset(e, 0, sizeof(*e));
	hints = fi_allocinfo();
	if (!hints)
		return -FI_ENOMEM;
	hints->caps = FI_MSG;
	hints->mode = FI_CONTEXT;
	hints->ep_attr->type = FI_EP_RDM;
	hints->addr_format = FI_SOCKADDR_IN;
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	hints->fabric_attr->prov_name = strdup(prov);
	/* Bind to loopback: the sprayer and the peers live there. */
	ret = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
			 FAULT_IP, NULL, FI_SOURCE, hints, &e->info);
	fi_freeinfo(hints);
	if (ret) {
		fault_warn("fi_getinfo", ret);
		return ret;
	}
	/* From here on, a failure closes what was opened. */
	ret = fi_fabric(e->info->fabric_attr, &e->fabric, NULL);
	if (ret) {
		fault_warn("fi_fabric", ret);
		goto fail;
	}
	ret = fi_domain(e->fabric, e->info, &e->domain, NULL);
	if (ret) {
		fault_warn("fi_domain", ret);
		goto fail;
	}
	memset(&av_attr, 0, sizeof(av_attr));
	av_attr.type = FI_AV_TABLE;
	ret = fi_av_open(e->domain, &av_attr, &e->av, NULL);
	if (ret) {
		fault_warn("fi_av_open", ret);
		goto fail;
	}
	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.format = FI_CQ_FORMAT_MSG;
	cq_attr.wait_obj = FI_WAIT_NONE;
	cq_attr.size = 1024;
	ret = fi_cq_open(e->domain, &cq_attr, &e->txcq, NULL);
	if (!ret)
		ret = fi_cq_open(e->domain, &cq_attr, &e->rxcq, NULL);
	if (ret) {
		fault_warn("fi_cq_open", ret);
		goto fail;
	}
	ret = fi_endpoint(e->domain, e->info, &e->ep, NULL);
	if (ret) {
		fault_warn("fi_endpoint", ret);
		goto fail;
	}
	ret = fi_ep_bind(e->ep, &e->av->fid, 0);
	if (!ret)
		ret = fi_ep_bind(e->ep, &e->txcq->fid, FI_TRANSMIT);
	if (!ret)
		ret = fi_ep_bind(e->ep, &e->rxcq->fid, FI_RECV);
	if (ret) {
		fault_warn("fi_ep_bind", ret);
		goto fail;
	}
	ret = fi_enable(e->ep);
	if (ret) {
		fault_warn("fi_enable", ret);
		goto fail;
	}
	len = sizeof(e->name);
	ret = fi_getname(&e->ep->fid, &e->name, &len);
	if (ret) {
		fault_warn("fi_getname", ret);
		goto fail;
	}
	if (len != sizeof(struct sockaddr_in) ||
	    e->name.sin_family != AF_INET) {
		fprintf(stderr, "fi_getname: not a sockaddr_in (len %zu)\n",
			len);
		ret = -FI_EINVAL;
		goto fail;
	}
	return 0;
fail:
	fault_ep_close(e);
	return ret;
}

void fault_ep_close(struct fault_ep *e)
{
	/* Endpoint first: with FI_UET_STATS it prints its counters here. */
	if (e->ep)
		fi_close(&e->ep->fid);
	if (e->txcq)
		fi_close(&e->txcq->fid);
	if (e->rxcq)
		fi_close(&e->rxcq->fid);
	if (e->av)
		fi_close(&e->av->fid);
	if (e->domain)
		fi_close(&e->domain->fid);
	if (e->fabric)
		fi_close(&e->fabric->fid);
	if (e->info)
		fi_freeinfo(e->info);
	memset(e, 0, sizeof(*e));
}

void fault_addr_str(char *buf, size_t cap, const struct sockaddr_in *sin)
{
	char ip[INET_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
	snprintf(buf, cap, "%s %u", ip, (unsigned)ntohs(sin->sin_port));
}

int fault_addr_parse(const char *s, struct sockaddr_in *sin)
{
	char ip[64];
	const char *sep = strpbrk(s, ": ");
	char *end;
	unsigned long port;
	size_t n;

	if (!sep)
		return -1;
	n = (size_t)(sep - s);
	if (n == 0 || n >= sizeof(ip))
		return -1;
	memcpy(ip, s, n);
	ip[n] = '\0';
	port = strtoul(sep + 1, &end, 10);
	if (*end || port == 0 || port > 65535)
		return -1;
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, ip, &sin->sin_addr) == 1 ? 0 : -1;
}

int fault_av_insert(struct fault_ep *e, const struct sockaddr_in *sin,
		    fi_addr_t *fa)
{
	int ret = fi_av_insert(e->av, sin, 1, fa, 0, NULL);

	if (ret != 1) {
		fprintf(stderr, "fi_av_insert: %d\n", ret);
		return ret < 0 ? ret : -FI_EINVAL;
	}
	return 0;
}

int fault_cq_poll(struct fid_cq *cq, struct fault_comp *c)
{
	struct fi_cq_msg_entry ent;
	struct fi_cq_err_entry err;
	ssize_t ret;

	memset(c, 0, sizeof(*c));
	ret = fi_cq_read(cq, &ent, 1);
	if (ret == 1) {
		c->op = ent.op_context;
		c->len = ent.len;
		return 1;
	}
	if (ret == -FI_EAGAIN)
		return 0;
	if (ret != -FI_EAVAIL)
		return (int)ret;
	memset(&err, 0, sizeof(err));
	ret = fi_cq_readerr(cq, &err, 0);
	if (ret != 1)
		return ret < 0 ? (int)ret : -FI_EOTHER;
	c->op = err.op_context;
	c->len = err.len;
	c->err = err.err ? err.err : FI_EOTHER;
	c->prov_errno = err.prov_errno;
	snprintf(c->errstr, sizeof(c->errstr), "%s",
		 fi_cq_strerror(cq, err.prov_errno, err.err_data, NULL, 0));
	return 1;
}

unsigned long fault_stray;

static void fault_mark(const struct fault_comp *c)
{
	struct fault_op *op = c->op;

	if (!op || !op->busy) {
		fault_stray++;
		return;
	}
	op->busy = false;
	op->err = c->err;
	op->prov_errno = c->prov_errno;
	op->rlen = c->len;
	op->t_done = fault_now();
	snprintf(op->errstr, sizeof(op->errstr), "%s", c->errstr);
}

int fault_progress(struct fault_ep *e, fault_comp_fn on_comp, void *user)
{
	struct fid_cq *cqs[2] = { e->txcq, e->rxcq };
	struct fault_comp c;
	int n = 0;

	for (int i = 0; i < 2; i++) {
		int ret;

		while ((ret = fault_cq_poll(cqs[i], &c)) == 1) {
			n++;
			fault_mark(&c);
			if (on_comp)
				on_comp(user, cqs[i], &c);
		}
		if (ret < 0)
			return ret;
	}
	return n;
}

int fault_wait(struct fault_ep *e, struct fault_op *op, double deadline,
	       fault_comp_fn on_comp, void *user)
{
	while (op->busy) {
		int ret = fault_progress(e, on_comp, user);

		if (ret < 0)
			return ret;
		if (op->busy && fault_now() > deadline)
			return -FI_ETIMEDOUT;
	}
	return 0;
}

/* Retry a post while it says -FI_EAGAIN, progressing in between. */
static int fault_post(struct fault_ep *e, struct fault_op *op, bool send,
		      fi_addr_t dst, size_t cap, double deadline,
		      fault_comp_fn on_comp, void *user)
{
	ssize_t ret;

	/* Busy before the call: its completion may be read at once. */
	op->busy = true;
	op->err = 0;
	op->t_post = fault_now();
	for (;;) {
		ret = send ? fi_send(e->ep, op->buf, op->len, NULL, dst,
				     &op->ctx) :
			     fi_recv(e->ep, op->buf, cap, NULL, FI_ADDR_UNSPEC,
				     &op->ctx);
		if (ret != -FI_EAGAIN)
			break;
		if (fault_now() > deadline) {
			ret = -FI_ETIMEDOUT;
			break;
		}
		ret = fault_progress(e, on_comp, user);
		if (ret < 0)
			break;
	}
	if (ret)
		op->busy = false;
	return (int)ret;
}

int fault_post_send(struct fault_ep *e, struct fault_op *op, fi_addr_t dst,
		    double deadline, fault_comp_fn on_comp, void *user)
{
	return fault_post(e, op, true, dst, 0, deadline, on_comp, user);
}

int fault_post_recv(struct fault_ep *e, struct fault_op *op, size_t cap,
		    double deadline, fault_comp_fn on_comp, void *user)
{
	return fault_post(e, op, false, FI_ADDR_UNSPEC, cap, deadline,
			  on_comp, user);
}

double fault_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double fault_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Pattern byte: a cheap hash of (magic, seq, offset). */
static uint8_t fault_pat(uint32_t magic, uint32_t seq, size_t off)
{
	uint32_t x = magic ^ (seq * 0x9E3779B1u) ^ ((uint32_t)off * 0x85EBCA6Bu);

	x ^= x >> 15;
	x *= 0x2C1B3C6Du;
	x ^= x >> 12;
	return (uint8_t)x;
}

void fault_msg_fill(uint8_t *buf, size_t len, uint32_t magic, uint32_t seq,
		    uint32_t flags)
{
	put32(buf, magic);
	put32(buf + 4, seq);
	put32(buf + 8, (uint32_t)len);
	put32(buf + 12, flags);
	for (size_t i = FAULT_HDR_LEN; i < len; i++)
		buf[i] = fault_pat(magic, seq, i);
}

int fault_msg_check(const uint8_t *buf, size_t len, uint32_t magic,
		    uint32_t *seq, uint32_t *flags, char *why, size_t cap)
{
	uint32_t s;

	if (len < FAULT_HDR_LEN) {
		snprintf(why, cap, "short message: %zu bytes", len);
		return -1;
	}
	if (get32(buf) != magic) {
		snprintf(why, cap, "magic 0x%08x, want 0x%08x", get32(buf),
			 magic);
		return -1;
	}
	s = get32(buf + 4);
	if (get32(buf + 8) != len) {
		snprintf(why, cap, "seq %u: %zu bytes, header says %u", s, len,
			 get32(buf + 8));
		return -1;
	}
	for (size_t i = FAULT_HDR_LEN; i < len; i++) {
		if (buf[i] != fault_pat(magic, s, i)) {
			snprintf(why, cap, "seq %u: byte %zu is 0x%02x, want "
				 "0x%02x", s, i, buf[i], fault_pat(magic, s, i));
			return -1;
		}
	}
	*seq = s;
	*flags = get32(buf + 12);
	return 0;
}
