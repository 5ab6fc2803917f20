/* Hosts: a fep each, driven like the provider's progress loop drives one
 * (see host.h). */
#include <string.h>

#include "uet/addr.h"
#include "uet/net.h"
#include "uet/rand.h"
#include "uet/wire.h"

#include "sim.h"

#define HOST_NIC_DEPTH	2	/* frames the NIC holds: on the wire, next */

struct uet_addr uet_host_addr(uint32_t i)
{
	struct uet_addr a = { .af = UET_AF_INET, .port = UET_HOST_PORT };

	i++;
	a.ip[0] = 10;
	a.ip[1] = (uint8_t)(i >> 16);
	a.ip[2] = (uint8_t)(i >> 8);
	a.ip[3] = (uint8_t)i;
	return a;
}

uint32_t uet_host_of(const struct uet_addr *a)
{
	uint32_t i;

	if (a->af != UET_AF_INET || a->ip[0] != 10)
		return UINT32_MAX;
	i = (uint32_t)a->ip[1] << 16 | (uint32_t)a->ip[2] << 8 | a->ip[3];
	return i ? i - 1 : UINT32_MAX;
}

/* A PRNG per host: start PSNs and PDC ids reproducible by seed. */
static void host_rand(void *user, void *buf, size_t len)
{
	struct uet_host *h = user;

	uet_rand_fill(&h->rand, buf, len);
}

static void host_complete(void *user, const struct uet_completion *c)
{
	struct uet_host *h = user;

	uet_flow_complete(h->sim, c);
}

static const struct uet_callbacks host_cb = {
	.complete = host_complete,
	.rand = host_rand,
};

int uet_host_open(struct uet_sim *s, struct uet_host *h, uint32_t idx,
		  const struct uet_fep_config *cfg)
{
	h->sim = s;
	h->idx = idx;
	h->addr = uet_host_addr(idx);
	h->cfg = *cfg;
	h->cfg.local = h->addr;
	/* The SES addressing rule the provider follows too (addr.h). */
	h->cfg.pid_on_fep = uet_addr_pid(&h->addr);
	h->rand = (s->cfg.seed + 1) * 0x9E3779B97F4A7C15ull + idx + 1;
	return uet_fep_open(&h->fep, &h->cfg, &host_cb, h,
			    uet_ps_to_ns(s->now));
}

void uet_host_close(struct uet_host *h)
{
	uet_fep_close(h->fep);
	h->fep = NULL;
}

/* Data (PDS requests, read responses) queues low; ACKs, NACKs and control
 * packets go at high priority (UE 1.0 §3.6.17 traffic classes). The PDS
 * type is the top 5 bits of the first byte (docs/protocol.md §3). */
static bool frame_is_ctl(const struct uet_frame *f)
{
	switch (f->data[0] >> 3) {
	case UET_PDS_RUD_REQ:
	case UET_PDS_ROD_REQ:
	case UET_PDS_RUDI_REQ:
	case UET_PDS_RUDI_RESP:
	case UET_PDS_UUD_REQ:
	case UET_PDS_RUD_CC_REQ:
	case UET_PDS_ROD_CC_REQ:
		return false;
	}
	return true;
}

/* One packet from poll_tx into a frame of the right size. */
static struct uet_frame *host_frame(struct uet_sim *s, struct uet_host *h,
				    struct uet_frame *big, size_t n,
				    const struct uet_pkt_info *pi)
{
	struct uet_frame *f = big;

	if (n <= UET_FRAME_SMALL) {
		f = uet_frame_alloc(&s->pool, (uint32_t)n);
		memcpy(f->data, big->data, n);
		uet_frame_free(&s->pool, big);
	}
	f->len = (uint32_t)n;
	f->src = h->idx;
	f->dst = uet_host_of(&pi->dst);
	f->sport = pi->home ? UET_HOST_PORT :
		   (uint16_t)(UET_HOST_SPRAY_BASE +
			      (pi->entropy & UET_HOST_SPRAY_MASK));
	f->dport = pi->dst.port;
	f->ecn = pi->ecn;
	f->hi = frame_is_ctl(f);
	return f;
}

void uet_host_sync(struct uet_sim *s, struct uet_host *h)
{
	const struct uet_link *nic =
		&s->topo.links[s->topo.nodes[h->idx].first];
	uet_time now = uet_ps_to_ns(s->now);
	uet_ps at;

	for (;;) {
		struct uet_frame *f;
		struct uet_pkt_info pi;
		ssize_t n;

		/* The NIC takes a packet when its wire is about to be free
		 * (one on the wire, one ready), as a NIC pulls from its
		 * send queue: the engine decides what goes, and stamps its
		 * send time, when it can go, not a window earlier. */
		if (nic->lo.n + nic->hi.n >= HOST_NIC_DEPTH)
			break;
		f = uet_frame_alloc(&s->pool, s->mtu);

		memset(&pi, 0, sizeof(pi));
		n = uet_fep_poll_tx(h->fep, &pi, f->data, f->cap, now);
		if (n <= 0) {
			uet_frame_free(&s->pool, f);
			if (n < 0)
				h->tx_errors++;
			break;
		}
		f = host_frame(s, h, f, (size_t)n, &pi);
		h->tx_frames++;
		if (f->dst >= s->nhosts) {
			s->no_route++;
			uet_frame_free(&s->pool, f);
			continue;
		}
		uet_sim_send(s, s->topo.nodes[h->idx].first, f);
	}
	/* A deadline inside the current nanosecond is due now, not in the
	 * past: the clock never goes back. */
	at = uet_ns_to_ps(uet_fep_next_timeout(h->fep));
	if (at < s->now)
		at = s->now;
	/* Due now with the NIC full is more to send (a ready ACK or CP,
	 * a resend): the NIC's next pull (uet_host_nic_free) runs it. */
	h->nic_due = at == s->now && nic->lo.n + nic->hi.n >= HOST_NIC_DEPTH;
	uet_tmq_set(&s->tmq, h->idx, h->nic_due ? UET_PS_NONE : at);
}

void uet_host_nic_free(struct uet_sim *s, struct uet_host *h)
{
	if (h->nic_due)
		uet_host_timeout(s, h);
	else
		uet_host_sync(s, h);
}

void uet_host_recv(struct uet_sim *s, struct uet_host *h, struct uet_frame *f)
{
	const struct uet_host *src = &s->hosts[f->src];
	struct uet_pkt_info pi;
	int rc;

	memset(&pi, 0, sizeof(pi));
	pi.src = src->addr;
	pi.src.port = f->sport;
	pi.dst = h->addr;
	pi.dst.port = f->dport;
	pi.entropy = f->sport;
	pi.ecn = f->ecn;
	pi.trimmed = f->trimmed;
	pi.home = f->dport == UET_HOST_PORT;
	pi.ts = uet_ps_to_ns(s->now);
	h->rx_frames++;
	s->delivered++;
	rc = uet_fep_recv(h->fep, &pi, f->data, f->len, pi.ts);
	if (rc)
		h->rx_refused++;
	else if (!f->trimmed && !f->hi)
		uet_flow_rx(s, f);
	uet_frame_free(&s->pool, f);
	uet_host_sync(s, h);
}

void uet_host_timeout(struct uet_sim *s, struct uet_host *h)
{
	uet_fep_handle_timeout(h->fep, uet_ps_to_ns(s->now));
	uet_host_sync(s, h);
}
