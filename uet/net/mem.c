/* The mem port: an in-process network under the caller's clock, with
 * impairments chosen at random (seeded) or exactly (loss masks rotated per
 * packet, as in picoquic's simulated links). See uet/mem.h.
 */
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "uet/mem.h"
#include "uet/rand.h"

/* One packet in flight; its bytes sit at mn->bytes + index * mtu. */
struct mem_pkt {
	uet_time at;			/* delivery time */
	uint64_t order;			/* enqueue order: FIFO on equal times */
	struct uet_pkt_info info;
	uint32_t len;
};

/* A port and the link into it. */
struct uet_mem_port {
	struct uet_net net;		/* the caller's handle */
	struct uet_mem_net *mn;
	struct uet_mem_port *next;	/* in mn->ports */
	bool own;			/* impair overrides the net default */
	struct uet_mem_impair impair;
	uint64_t seq;			/* packets sent here since impair set */
	uet_time busy_until;		/* bottleneck: link free from then */
	uet_time last_at;		/* latest in-order delivery (FIFO) */
	uint32_t *heap;			/* queued, min-heap on (at, order) */
	unsigned nheap;
	uint16_t *spray;		/* its spray ports (mn->nspray) */
};

struct uet_mem_net {
	struct uet_mem_impair impair;	/* default of every port */
	unsigned pool;
	unsigned mtu;
	struct mem_pkt *pkts;		/* pool slots */
	uint8_t *bytes;			/* pool * mtu */
	uint32_t *free_list;		/* stack of free slots */
	unsigned nfree;
	uint64_t order;
	uint64_t rng;
	unsigned nspray;		/* spray ports per port, 2^k or 0 */
	uint32_t next_spray;		/* next spray port number to try */
	struct uet_mem_port *ports;
	struct uet_mem_stats st;
};

static const struct uet_net_ops mem_ops;

static struct uet_mem_port *mem_port(const struct uet_net *net)
{
	return (struct uet_mem_port *)((const char *)net -
				       offsetof(struct uet_mem_port, net));
}

/* Saturates below UET_TIME_NONE, which means "never". */
static uet_time mem_time_add(uet_time a, uet_time b)
{
	return b >= UET_TIME_NONE - a ? UET_TIME_NONE - 1 : a + b;
}

/* The per-packet odds of a link, for uet/impair.h to decide on. */
static struct uet_impair mem_odds(const struct uet_mem_impair *imp)
{
	struct uet_impair o = {
		.drop_ppm = imp->drop_ppm,
		.dup_ppm = imp->dup_ppm,
		.reorder_ppm = imp->reorder_ppm,
		.mark_ppm = imp->mark_ppm,
		.trim_ppm = imp->trim_ppm,
		.drop_mask = imp->drop_mask,
		.dup_mask = imp->dup_mask,
		.reorder_mask = imp->reorder_mask,
		.mark_mask = imp->mark_mask,
		.trim_mask = imp->trim_mask,
	};

	return o;
}

static bool mem_impair_ok(const struct uet_mem_impair *imp)
{
	struct uet_impair o = mem_odds(imp);

	return uet_impair_valid(&o);
}

static bool mem_before(const struct uet_mem_net *mn, uint32_t a, uint32_t b)
{
	const struct mem_pkt *x = &mn->pkts[a], *y = &mn->pkts[b];

	return x->at < y->at || (x->at == y->at && x->order < y->order);
}

static void mem_heap_push(struct uet_mem_port *p, uint32_t slot)
{
	unsigned i = p->nheap++, up;

	for (; i; i = up) {
		up = (i - 1) / 2;
		if (!mem_before(p->mn, slot, p->heap[up]))
			break;
		p->heap[i] = p->heap[up];
	}
	p->heap[i] = slot;
}

static uint32_t mem_heap_pop(struct uet_mem_port *p)
{
	uint32_t top = p->heap[0], last = p->heap[--p->nheap];
	unsigned i = 0, c;

	if (!p->nheap)
		return top;
	while ((c = 2 * i + 1) < p->nheap) {
		if (c + 1 < p->nheap &&
		    mem_before(p->mn, p->heap[c + 1], p->heap[c]))
			c++;
		if (!mem_before(p->mn, p->heap[c], last))
			break;
		p->heap[i] = p->heap[c];
		i = c;
	}
	p->heap[i] = last;
	return top;
}

static void mem_free_slot(struct uet_mem_net *mn, uint32_t slot)
{
	mn->free_list[mn->nfree++] = slot;
	mn->st.in_flight--;
}

static bool mem_same_ip(const struct uet_addr *a, const struct uet_addr *b)
{
	return a->af == b->af &&
	       !memcmp(a->ip, b->ip, a->af == UET_AF_INET ? 4 : 16);
}

/* The port that owns address a, home or spray (*home says which). */
static struct uet_mem_port *mem_port_find(struct uet_mem_net *mn,
					  const struct uet_addr *a, bool *home)
{
	struct uet_mem_port *p;
	unsigned i;

	for (p = mn->ports; p; p = p->next) {
		if (uet_addr_equal(&p->net.local, a)) {
			*home = true;
			return p;
		}
		if (!mem_same_ip(&p->net.local, a))
			continue;
		for (i = 0; i < mn->nspray; i++) {
			if (p->spray[i] == a->port) {
				*home = false;
				return p;
			}
		}
	}
	return NULL;
}

static bool mem_has_port(const uint16_t *v, unsigned n, uint16_t x)
{
	while (n--)
		if (*v++ == x)
			return true;
	return false;
}

static uint16_t mem_src_port(const struct uet_mem_port *p,
			     const struct uet_pkt_info *info)
{
	if (info->home || !p->mn->nspray)
		return p->net.local.port;
	return p->spray[info->entropy & (p->mn->nspray - 1)];
}

static bool mem_enqueue(struct uet_mem_port *dst, const struct mem_pkt *pkt,
			const uint8_t *buf)
{
	struct uet_mem_net *mn = dst->mn;
	uint32_t slot;

	if (!mn->nfree) {
		mn->st.overflow++;
		return false;
	}
	slot = mn->free_list[--mn->nfree];
	mn->pkts[slot] = *pkt;
	mn->pkts[slot].order = mn->order++;
	memcpy(mn->bytes + (size_t)slot * mn->mtu, buf, pkt->len);
	mem_heap_push(dst, slot);
	mn->st.in_flight++;
	return true;
}

/* Union of the random, masked and picked actions for packet seq, and its
 * jitter. Every draw a packet needs is made here, before any of them
 * matters, so that a mask or pick() choosing a packet does not shift the
 * random stream seen by the packets after it. */
static unsigned mem_actions(struct uet_mem_net *mn,
			    const struct uet_mem_impair *imp, uint64_t seq,
			    const struct uet_net_msg *seen, uet_time *jitter)
{
	struct uet_impair odds = mem_odds(imp);
	unsigned act = uet_impair_pick(&odds, &mn->rng, seq);

	*jitter = 0;
	if (imp->jitter)	/* uniform in [0, jitter] */
		*jitter = imp->jitter == UET_TIME_NONE ? uet_rand(&mn->rng) :
			  uet_rand(&mn->rng) % (imp->jitter + 1);
	if (imp->pick)
		act |= imp->pick(imp->pick_arg, seq, seen);
	return act;
}

static void mem_trim(struct uet_mem_net *mn, const struct uet_mem_impair *imp,
		     struct mem_pkt *pkt)
{
	if (uet_impair_trim(&pkt->info, &pkt->len, imp->trim_len))
		mn->st.trimmed++;
}

static void mem_mark(struct uet_mem_net *mn, struct mem_pkt *pkt)
{
	if (uet_impair_mark(&pkt->info))
		mn->st.ecn_marked++;
}

/* The bottleneck in front of dst: returns when the packet has crossed it,
 * or UET_TIME_NONE when it is tail-dropped. *prio is set for a packet
 * trimmed at a full queue: it skips the queue (UE 1.0 §3.6.17, "forward at high
 * priority"). */
static uet_time mem_bottleneck(struct uet_mem_port *dst,
			       const struct uet_mem_impair *imp,
			       struct mem_pkt *pkt, unsigned *act, bool *prio)
{
	struct uet_mem_net *mn = dst->mn;
	uet_time ts = pkt->info.ts, backlog, start;

	if (!imp->rate)
		return ts;
	backlog = dst->busy_until > ts ? dst->busy_until - ts : 0;
	if (imp->queue_max && backlog > imp->queue_max) {
		if (!imp->trim_when_full) {
			mn->st.tail_drop++;
			return UET_TIME_NONE;
		}
		if (!pkt->info.trimmed)
			mem_trim(mn, imp, pkt);
		*prio = true;
		return ts;
	}
	if (imp->ecn_backlog && backlog > imp->ecn_backlog)
		*act |= UET_MEM_MARK;
	start = mem_time_add(ts, backlog);
	/* Round up: the link never goes faster than its rate. len * 1e9 fits
	 * in 64 bits since len <= UET_MEM_MTU_MAX. */
	dst->busy_until = mem_time_add(start, ((uint64_t)pkt->len * UET_SEC +
					       imp->rate - 1) / imp->rate);
	return dst->busy_until;
}

static void mem_send_one(struct uet_mem_port *src, const struct uet_net_msg *m)
{
	struct uet_mem_net *mn = src->mn;
	const struct uet_mem_impair *imp;
	struct uet_mem_port *dst;
	struct uet_net_msg seen;
	struct mem_pkt pkt;
	bool prio = false, to_home = false;
	uet_time at, jitter;
	unsigned act;

	mn->st.sent++;
	dst = mem_port_find(mn, &m->info.dst, &to_home);
	if (!dst) {
		/* Like an ICMP unreachable nobody listens to. */
		mn->st.no_port++;
		return;
	}
	imp = dst->own ? &dst->impair : &mn->impair;

	memset(&pkt, 0, sizeof(pkt));
	pkt.info = m->info;
	pkt.info.src = src->net.local;
	pkt.info.src.port = mem_src_port(src, &m->info);
	/* What a UDP receiver sees: the raw source port (uet/udp.h). */
	pkt.info.entropy = pkt.info.src.port;
	pkt.info.dst = dst->net.local;
	pkt.info.dst.port = m->info.dst.port;
	pkt.info.home = to_home;
	pkt.info.trimmed = false;
	pkt.len = (uint32_t)m->len;

	seen = *m;
	seen.info = pkt.info;
	act = mem_actions(mn, imp, dst->seq++, &seen, &jitter);
	if (act & UET_MEM_DROP) {
		mn->st.dropped++;
		return;
	}
	if (!mn->nfree) {
		mn->st.overflow++;
		return;
	}
	if (act & UET_MEM_TRIM)
		mem_trim(mn, imp, &pkt);
	at = mem_bottleneck(dst, imp, &pkt, &act, &prio);
	if (at == UET_TIME_NONE)
		return;
	if (act & UET_MEM_MARK)
		mem_mark(mn, &pkt);

	at = mem_time_add(mem_time_add(at, imp->delay), jitter);
	if (!prio) {
		/* A link is a FIFO: jitter alone never reorders. */
		if (at < dst->last_at)
			at = dst->last_at;
		if (!(act & UET_MEM_REORDER))
			dst->last_at = at;
	}
	if (act & UET_MEM_REORDER) {
		at = mem_time_add(at, imp->reorder_delay ? imp->reorder_delay :
				  UET_MEM_REORDER_DELAY_DEFAULT);
		mn->st.reordered++;
	}
	pkt.at = at;

	if (!mem_enqueue(dst, &pkt, m->buf) || !(act & UET_MEM_DUP))
		return;
	/* The copy is one more packet to account for, queued or not. */
	mn->st.duplicated++;
	mem_enqueue(dst, &pkt, m->buf);
}

static int mem_send(struct uet_net *net, const struct uet_net_msg *msgs,
		    unsigned n)
{
	struct uet_mem_port *src = mem_port(net);
	unsigned i;

	if (n > INT_MAX)
		n = INT_MAX;
	for (i = 0; i < n; i++) {
		if (!msgs[i].buf || !msgs[i].len || msgs[i].len > src->mn->mtu)
			return i ? (int)i : UET_ERR_INVAL;
		mem_send_one(src, &msgs[i]);
	}
	return (int)i;
}

static int mem_recv(struct uet_net *net, struct uet_net_msg *msgs, unsigned n,
		    uet_time now)
{
	struct uet_mem_port *p = mem_port(net);
	struct uet_mem_net *mn = p->mn;
	unsigned i;

	if (n > INT_MAX)
		n = INT_MAX;
	for (i = 0; i < n && p->nheap && mn->pkts[p->heap[0]].at <= now; i++) {
		uint32_t slot = mem_heap_pop(p);
		const struct mem_pkt *pkt = &mn->pkts[slot];
		const uint8_t *bytes = mn->bytes + (size_t)slot * mn->mtu;
		struct uet_net_msg *m = &msgs[i];
		size_t copy = pkt->len < m->cap ? pkt->len : m->cap;

		m->info = pkt->info;
		m->info.ts = pkt->at;
		if (copy < pkt->len)
			mn->st.truncated++;
		if (copy)
			memcpy(m->buf, bytes, copy);
		m->len = copy;
		m->placed = 0;
		mem_free_slot(mn, slot);
		mn->st.delivered++;
	}
	return (int)i;
}

static int mem_fd(const struct uet_net *net)
{
	(void)net;
	return -1;
}

static void mem_close(struct uet_net *net)
{
	struct uet_mem_port *p = mem_port(net), **pp;
	struct uet_mem_net *mn = p->mn;

	/* What was still on the way arrives at nobody. */
	while (p->nheap) {
		mem_free_slot(mn, p->heap[--p->nheap]);
		mn->st.no_port++;
	}
	for (pp = &mn->ports; *pp != p; pp = &(*pp)->next)
		;
	*pp = p->next;
	free(p->heap);
	free(p->spray);
	free(p);
}

static const struct uet_net_ops mem_ops = {
	.name = "mem",
	.send = mem_send,
	.recv = mem_recv,
	.fd = mem_fd,
	.close = mem_close,
};

int uet_mem_net_create(struct uet_mem_net **netp,
		       const struct uet_mem_config *cfg)
{
	static const struct uet_mem_config none;
	struct uet_mem_net *mn;
	unsigned i;

	if (!cfg)
		cfg = &none;
	if (cfg->pool > UET_MEM_POOL_MAX || cfg->mtu > UET_MEM_MTU_MAX ||
	    cfg->spray_bits > UET_MEM_SPRAY_BITS_MAX ||
	    !mem_impair_ok(&cfg->impair))
		return UET_ERR_INVAL;
	mn = calloc(1, sizeof(*mn));
	if (!mn)
		return UET_ERR_NOMEM;
	mn->impair = cfg->impair;
	mn->pool = cfg->pool ? cfg->pool : UET_MEM_POOL_DEFAULT;
	mn->mtu = cfg->mtu ? cfg->mtu : UET_MEM_MTU_DEFAULT;
	mn->rng = cfg->seed;
	mn->nspray = cfg->spray_bits ? 1u << cfg->spray_bits : 0;
	mn->next_spray = UET_MEM_SPRAY_PORT_MIN;
	mn->pkts = calloc(mn->pool, sizeof(*mn->pkts));
	mn->bytes = malloc((size_t)mn->pool * mn->mtu);
	mn->free_list = calloc(mn->pool, sizeof(*mn->free_list));
	if (!mn->pkts || !mn->bytes || !mn->free_list) {
		uet_mem_net_destroy(mn);
		return UET_ERR_NOMEM;
	}
	/* Slot 0 on top: the first packets use the lowest addresses. */
	for (i = 0; i < mn->pool; i++)
		mn->free_list[i] = mn->pool - 1 - i;
	mn->nfree = mn->pool;
	*netp = mn;
	return 0;
}

void uet_mem_net_destroy(struct uet_mem_net *net)
{
	if (!net)
		return;
	while (net->ports)
		mem_close(&net->ports->net);
	free(net->pkts);
	free(net->bytes);
	free(net->free_list);
	free(net);
}

int uet_mem_net_set_impair(struct uet_mem_net *net,
			   const struct uet_mem_impair *imp)
{
	struct uet_mem_port *p;

	if (!mem_impair_ok(imp))
		return UET_ERR_INVAL;
	net->impair = *imp;
	for (p = net->ports; p; p = p->next)
		if (!p->own)
			p->seq = 0;
	return 0;
}

void uet_mem_net_stats(const struct uet_mem_net *net, struct uet_mem_stats *st)
{
	*st = net->st;
}

uet_time uet_mem_net_next_delivery(const struct uet_mem_net *net)
{
	const struct uet_mem_port *p;
	uet_time t = UET_TIME_NONE, at;

	for (p = net->ports; p; p = p->next) {
		at = uet_mem_port_next_delivery(&p->net);
		if (at < t)
			t = at;
	}
	return t;
}

int uet_mem_port_open(struct uet_net **portp, struct uet_mem_net *net,
		      const struct uet_addr *local)
{
	struct uet_mem_port *p;
	struct uet_addr a;
	unsigned i, tries;
	bool home;

	if (local->af != UET_AF_INET && local->af != UET_AF_INET6)
		return UET_ERR_INVAL;
	a = *local;
	if (a.af == UET_AF_INET)	/* uet/addr.h: the rest is zero */
		memset(a.ip + 4, 0, sizeof(a.ip) - 4);
	if (mem_port_find(net, &a, &home))
		return UET_ERR_INVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return UET_ERR_NOMEM;
	/* Room for the whole pool: any port may be sent everything. */
	p->heap = calloc(net->pool, sizeof(*p->heap));
	p->spray = calloc(net->nspray + 1, sizeof(*p->spray));
	if (!p->heap || !p->spray) {
		free(p->heap);
		free(p->spray);
		free(p);
		return UET_ERR_NOMEM;
	}
	p->net.ops = &mem_ops;
	p->net.local = a;
	p->mn = net;
	/* Spray ports like a kernel's ephemeral ones: the next free
	 * numbers, none of them an address already taken on this IP. */
	for (i = 0, tries = 0; i < net->nspray; tries++) {
		struct uet_addr s = a;

		if (tries > 65536u) {
			free(p->heap);
			free(p->spray);
			free(p);
			return UET_ERR_INVAL;
		}
		s.port = (uint16_t)net->next_spray;
		net->next_spray = net->next_spray == 65535u ?
			UET_MEM_SPRAY_PORT_MIN : net->next_spray + 1;
		if (s.port == a.port || mem_port_find(net, &s, &home) ||
		    mem_has_port(p->spray, i, s.port))
			continue;
		p->spray[i++] = s.port;
	}
	p->next = net->ports;
	net->ports = p;
	*portp = &p->net;
	return 0;
}

int uet_mem_port_set_impair(struct uet_net *port,
			    const struct uet_mem_impair *imp)
{
	struct uet_mem_port *p;

	if (port->ops != &mem_ops || (imp && !mem_impair_ok(imp)))
		return UET_ERR_INVAL;
	p = mem_port(port);
	p->own = imp != NULL;
	if (imp)
		p->impair = *imp;
	p->seq = 0;
	return 0;
}

uet_time uet_mem_port_next_delivery(const struct uet_net *port)
{
	const struct uet_mem_port *p = mem_port(port);

	return p->nheap ? p->mn->pkts[p->heap[0]].at : UET_TIME_NONE;
}

struct uet_addr uet_mem_port_tx_addr(const struct uet_net *port,
				     const struct uet_pkt_info *info)
{
	const struct uet_mem_port *p = mem_port(port);
	struct uet_addr a = port->local;

	a.port = mem_src_port(p, info);
	return a;
}
