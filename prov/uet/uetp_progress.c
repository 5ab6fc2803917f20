/* THE I/O loop (docs/architecture.md §4): the only place that moves packets
 * between the UDP port and the engine.
 *
 *   batch recv -> now = uetp_now() -> uet_fep_recv each
 *   -> uet_fep_handle_timeout if due -> uet_fep_poll_tx into a batch
 *   until 0 -> send
 *
 * It runs under the endpoint lock from CQ/counter reads and waits,
 * fi_trywait, data calls about to return -FI_EAGAIN, and the optional
 * progress thread (FI_UET_PROGRESS_THREAD), one per domain.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "uet/err.h"
#include "uet/rawip.h"
#include "uet/udp.h"
#include "uetp.h"

#define UETP_RX_ROUNDS		4	/* batches per call: bound the time */

/* The last error of either kind of port. */
static const char *uetp_net_errstr(const struct uet_net *net)
{
	return uet_rawip_is(net) ? uet_rawip_errstr(net) : uet_udp_errstr(net);
}

/* The port itself failed (not one packet): the endpoint cannot work on.
 * Said once, in the log and as an error event on its EQ, if it has one;
 * its operations then fail as to an unreachable peer. */
static void uetp_port_failed(struct uetp_ep *ep, const char *what)
{
	FI_WARN_SPARSE(&uetp_prov, FI_LOG_EP_DATA, "%s: %s\n", what,
		       uetp_net_errstr(ep->net));
	if (ep->port_failed)
		return;
	ep->port_failed = true;
	if (ep->eq)
		(void)uetp_eq_post(ep->eq, FI_NOTIFY, NULL, 0, -FI_EIO,
				   UET_ERR_IO, &ep->fid.fid,
				   ep->fid.fid.context, 0);
}
#define UETP_THREAD_MAX_SLEEP	100	/* ms: notice new endpoints */

static void uetp_ep_deliver(struct uetp_ep *ep, const struct uet_net_msg *m,
			    uet_time now)
{
	int rc = m->placed ?
		 uet_fep_recv_sg(ep->fep, &m->info, m->buf, m->len, m->ext,
				 m->ext_len, now) :
		 uet_fep_recv(ep->fep, &m->info, uet_net_msg_rx(m),
			      uet_net_msg_len(m), now);

	/* a dropped packet is counted by the engine (FI_UET_STATS); only
	 * a refusal of our own arguments is a bug worth a word */
	if (rc && !uet_err_is_drop(rc))
		FI_WARN_SPARSE(&uetp_prov, FI_LOG_EP_DATA, "recv: %s\n",
			       uet_err_str(rc));
}

static void uetp_ep_release_held(struct uetp_ep *ep, uet_time now)
{
	struct uetp_impair *imp = ep->impair;

	for (unsigned i = 0; i < imp->held; i++)
		uetp_ep_deliver(ep, &imp->hold[i], now);
	imp->held = 0;
}

/* FI_UET_IMPAIR: the network misbehaving, applied on receive. */
static void uetp_ep_deliver_impaired(struct uetp_ep *ep,
				     const struct uet_net_msg *m, uet_time now)
{
	struct uetp_impair *imp = ep->impair;
	unsigned act = uetp_impair_pick(imp);

	if (act & UETP_IMPAIR_DROP) {
		imp->dropped++;
		return;
	}
	if ((act & UETP_IMPAIR_REORDER) && uetp_impair_hold(imp, m)) {
		imp->reordered++;
		return;
	}
	uetp_ep_deliver(ep, m, now);
	if (act & UETP_IMPAIR_DUP) {
		imp->duplicated++;
		uetp_ep_deliver(ep, m, now);
	}
	/* held packets come after the one that overtook them */
	if (imp->held)
		uetp_ep_release_held(ep, now);
}

/* Direct placement (docs/choices.md §2.9): a plan for the next receive
 * of ep's port, if the engine has one. */
static bool uetp_ep_place(struct uetp_ep *ep, struct uet_fep_place *pl)
{
	if (!ep->place || !uet_fep_place(ep->fep, UETP_BATCH, pl))
		return false;
	uet_udp_place(ep->net, &pl->net);
	return true;
}

static void uetp_ep_disarm_timer(struct uetp_ep *ep)
{
	struct itimerspec its;
	uint64_t v;

	memset(&its, 0, sizeof(its));
	timerfd_settime(ep->timer_fd, 0, &its, NULL);
	while (read(ep->timer_fd, &v, sizeof(v)) > 0)
		;
	ep->timer_armed = false;
}

void uetp_progress_arm(struct uetp_ep *ep)
{
	struct itimerspec its;
	uet_time d;

	ep = uetp_ep_io(ep);	/* a context: its scalable endpoint's */
	d = uetp_progress_deadline(ep);

	if (d == UET_TIME_NONE) {
		if (ep->timer_armed)
			uetp_ep_disarm_timer(ep);
		return;
	}
	if (!d)
		d = 1;		/* 0 would disarm */
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(d / UET_SEC);
	its.it_value.tv_nsec = (long)(d % UET_SEC);
	if (!timerfd_settime(ep->timer_fd, TFD_TIMER_ABSTIME, &its, NULL))
		ep->timer_armed = true;
}

uet_time uetp_progress_deadline(struct uetp_ep *ep)
{
	ep = uetp_ep_io(ep);
	return ep->fep ? uet_fep_next_timeout(ep->fep) : UET_TIME_NONE;
}

/* The packets the socket did not take wait for the next call: their
 * payload may be the application's buffer, free for reuse once the lock
 * is released and a completion read, so it is copied into the packet
 * now (uet_fep_poll_tx_sg). */
static void uetp_progress_keep(struct uetp_ep *ep)
{
	unsigned i;

	for (i = ep->tx_off; i < ep->tx_pending; i++)
		uet_net_msg_flatten(&ep->tx_msgs[i]);
}

void uetp_progress_flush(struct uetp_ep *ep, uet_time now)
{
	struct uet_net_msg *m;
	struct uet_iov ext;
	bool sg, dry = false;
	ssize_t len;
	int n;

	ep = uetp_ep_io(ep);
	ep->tx_corked = 0;
	sg = uetp_env.tx_zcopy && (ep->net->ops->caps & UET_NET_CAP_SG);
	for (;;) {
		if (ep->tx_off == ep->tx_pending) {
			unsigned k = 0;

			/* The engine said it had nothing more, and sending
			 * does not call it: asking again is an empty pass
			 * over its queues (two per ping-pong round trip). */
			if (dry)
				return;
			ep->tx_off = ep->tx_pending = 0;
			while (k < UETP_TX_BATCH) {
				m = &ep->tx_msgs[k];
				memset(&m->info, 0, sizeof(m->info));
				len = uet_fep_poll_tx_sg(ep->fep, &m->info,
							 m->buf, m->cap,
							 sg ? &ext : NULL,
							 now);
				if (len <= 0) {
					dry = true;
					if (len < 0)
						FI_WARN_SPARSE(&uetp_prov,
							FI_LOG_EP_DATA,
							"poll_tx: %s\n",
							uet_err_str((int)len));
					break;
				}
				m->ext = sg ? ext.base : NULL;
				m->ext_len = sg ? ext.len : 0;
				m->len = (size_t)len - m->ext_len;
				m->info.ts = now;
				k++;
			}
			if (!k)
				return;
			ep->tx_pending = k;
		}
		n = ep->net->ops->send(ep->net, ep->tx_msgs + ep->tx_off,
				       ep->tx_pending - ep->tx_off);
		if (n > 0) {
			ep->tx_off += (unsigned)n;
			continue;
		}
		if (n == 0) {
			/* socket full: retry next time */
			uetp_progress_keep(ep);
			return;
		}
		if (n == UET_ERR_INVAL) {
			/* this one packet is refused (e.g. no route): lost
			 * like on a wire, the engine retransmits */
			ep->tx_off++;
			ep->tx_dropped++;
			continue;
		}
		uetp_port_failed(ep, "send");
		ep->tx_dropped += ep->tx_pending - ep->tx_off;
		ep->tx_off = ep->tx_pending;
	}
}

/* Corking, as TCP's autocork does for small writes: a send posted within
 * FI_UET_CORK_US of the previous one (a burst: a message-rate loop, a
 * halo exchange) or with FI_MORE leaves its packets in the engine until
 * the application's next progress call (CQ or counter read, wait,
 * trywait), a post that finds a batch's worth corked, or the rescue
 * thread (FI_UET_RESCUE_MS). The burst then leaves in a few sendmmsg
 * calls and GSO trains instead of a system call per message: 64 B
 * messages went from 160-210 to 570-655 thousand per second on loopback
 * (ft_bw, window 64; tcp 200). The first send of a burst, and so a lone
 * send or a ping-pong's, leaves at once. With a progress thread the
 * thread sends, as before. */
void uetp_progress_posted(struct uetp_ep *ep, size_t len, uint64_t flags,
			  uet_time now)
{
	uet_time cork = (uet_time)uetp_env.cork_us * UET_USEC;
	bool burst;

	ep = uetp_ep_io(ep);
	burst = cork && len <= UETP_CORK_MAX_LEN && ep->posted_at &&
		now - ep->posted_at < cork;
	if ((burst || (flags & FI_MORE)) && !ep->domain->prog &&
	    ep->tx_corked + 1 < UETP_BATCH) {
		ep->tx_corked++;
		ep->posted_at = now;
		return;
	}
	uetp_progress_flush(ep, now);
	/* From the end of the flush: its system call must not make the
	 * next post of a burst look late. */
	ep->posted_at = uetp_now();
}

bool uetp_progress_ep(struct uetp_ep *ep)
{
	uet_time now = uetp_now();

	ep = uetp_ep_io(ep);
	ep->polled_at = now;
	return uetp_progress_io(ep, now);
}

bool uetp_progress_io(struct uetp_ep *ep, uet_time now)
{
	bool busy = ep->tx_off != ep->tx_pending || ep->tx_corked;
	int n;

	if (!ep->fep)
		return false;
	if (ep->timer_armed)
		uetp_ep_disarm_timer(ep);
	for (int round = 0; round < UETP_RX_ROUNDS; round++) {
		struct uet_fep_place pl;
		bool plan = uetp_ep_place(ep, &pl);

		n = ep->net->ops->recv(ep->net, ep->rx_msgs, UETP_BATCH, now);
		if (n < 0)
			uetp_port_failed(ep, "receive");
		if (n <= 0)
			break;
		busy = true;
		/* Stamped after the receive, never before: an ACK's service
		 * time runs from here, and an early stamp (a round after a
		 * slow one) made senders' RTT samples too small. */
		now = uetp_now();
		/* every placed packet as planned, or all put back together
		 * before any is used: one's bytes may lie where another's go */
		if (plan && !uet_fep_place_settle(&pl, ep->rx_msgs,
						  (unsigned)n))
			ep->misplaced++;
		for (int i = 0; i < n; i++) {
			if (ep->impair)
				uetp_ep_deliver_impaired(ep, &ep->rx_msgs[i],
							 now);
			else
				uetp_ep_deliver(ep, &ep->rx_msgs[i], now);
		}
		if (n < UETP_BATCH)
			break;
	}
	if (ep->impair && ep->impair->held) {
		uetp_ep_release_held(ep, now);
		busy = true;
	}
	if (uet_fep_next_timeout(ep->fep) <= now) {
		uet_fep_handle_timeout(ep->fep, now);
		busy = true;
	}
	/* The engine has new packets only after a receive, a timeout or a
	 * post (which flushes itself): an idle pass (the common empty poll)
	 * skips asking it. */
	if (busy) {
		uetp_progress_flush(ep, now);
		ep->active_at = now;
	}
	return busy;
}

/* ---- endpoint sets of CQs and counters ---- */

int uetp_progress_set_add(struct uetp_epset *s, struct uetp_ep *ep)
{
	struct uetp_ep **eps;
	int ret = 0;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->count; i++)
		if (s->eps[i] == ep)
			goto out;
	if (s->count == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4;

		eps = realloc(s->eps, cap * sizeof(*eps));
		if (!eps) {
			ret = -FI_ENOMEM;
			goto out;
		}
		s->eps = eps;
		s->cap = cap;
	}
	s->eps[s->count++] = ep;
out:
	pthread_mutex_unlock(&s->lock);
	return ret;
}

void uetp_progress_set_del(struct uetp_epset *s, struct uetp_ep *ep)
{
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->count; i++) {
		if (s->eps[i] == ep) {
			s->eps[i] = s->eps[--s->count];
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
}

/* One pass over the set; *active: the last time any of its endpoints
 * moved a packet (0: none ever did). */
static uet_time uetp_progress_set_pass(struct uetp_epset *s,
				       uet_time *active)
{
	uet_time next = UET_TIME_NONE, d;

	*active = 0;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->count; i++) {
		struct uetp_ep *ep = s->eps[i];

		uetp_lock_acquire(&ep->lock);
		uetp_progress_ep(ep);
		d = uetp_progress_deadline(ep);
		if (ep->active_at > *active)
			*active = ep->active_at;
		uetp_lock_release(&ep->lock);
		if (d < next)
			next = d;
	}
	pthread_mutex_unlock(&s->lock);
	return next;
}

uet_time uetp_progress_set_run(struct uetp_epset *s)
{
	uet_time active;

	return uetp_progress_set_pass(s, &active);
}

/* A non-blocking read that found nothing to do. An application that polls
 * fi_cq_read in a loop never sleeps, so a peer process, or the kernel
 * thread that finishes its packets' receive (ksoftirqd), waiting for this
 * CPU would get it only when the scheduler tick preempts the poller: one
 * tick (4 ms at HZ=250) per window across a veth whenever CPUs are
 * shared. After a spin of nothing, every empty poll gives the CPU away;
 * when nobody else wants it, sched_yield returns at once.
 *
 * The spin adapts, per thread, between FI_UET_POLL_SPIN_US / 10 and all
 * of it. A peer that shares the CPU answers within the time we yield to
 * it, and each microsecond we spin first is one it waits (one CPU: a
 * ping-pong at 53 us one way with 50 us, 15 us with 5). A task that
 * keeps the CPU for a time slice, a batch job beside us, takes
 * milliseconds at each yield: yielding at every 5 us gap of a 64 KiB
 * transfer took it from 86 us to 1.3 ms. So a yield that lost the CPU
 * for UETP_SPIN_LONG spins or more sets the whole spin again, one that
 * came back sooner halves it, and one back at once (nobody else ran:
 * under half the shortest spin, which a peer spends before it yields
 * back) doubles it, for each yield costs a system call that a packet
 * may arrive during. */
#define UETP_SPIN_MIN_DIV	10	/* the shortest spin: the longest / 10 */
#define UETP_SPIN_LONG		4	/* a yield this many spins long: a hog */

uet_time uetp_progress_spin_next(uet_time spin, uet_time took, uet_time max)
{
	uet_time min = max / UETP_SPIN_MIN_DIV;

	if (took >= UETP_SPIN_LONG * max)
		return max;
	if (took < min / 2)
		return spin * 2 < max ? spin * 2 : max;
	return spin / 2 > min ? spin / 2 : min;
}

void uetp_progress_set_poll(struct uetp_epset *s)
{
	static __thread uet_time spin;
	uet_time active, max, t0;

	uetp_progress_set_pass(s, &active);
	if (uetp_env.poll_spin_us < 0)
		return;
	max = (uet_time)uetp_env.poll_spin_us * UET_USEC;
	if (spin < max / UETP_SPIN_MIN_DIV || spin > max)
		spin = max / UETP_SPIN_MIN_DIV;
	t0 = uetp_now();
	if (t0 - active < spin)
		return;
	sched_yield();
	spin = uetp_progress_spin_next(spin, uetp_now() - t0, max);
}

void uetp_progress_set_arm(struct uetp_epset *s)
{
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->count; i++) {
		struct uetp_ep *ep = s->eps[i];

		if (ep->domain->prog)
			continue;	/* the thread keeps time */
		uetp_lock_acquire(&ep->lock);
		uetp_progress_arm(ep);
		uetp_lock_release(&ep->lock);
	}
	pthread_mutex_unlock(&s->lock);
}

bool uetp_progress_set_tx_pending(struct uetp_epset *s)
{
	bool pending = false;

	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->count && !pending; i++)
		pending = s->eps[i]->tx_off != s->eps[i]->tx_pending ||
			  s->eps[i]->tx_corked;
	pthread_mutex_unlock(&s->lock);
	return pending;
}

/* ---- the optional progress thread ---- */

struct uetp_progress {
	pthread_t thread;
	int epfd;
	int efd;
	atomic_bool stop;
	atomic_uint_fast64_t sleep_until;
	unsigned gen;			/* dom->eps_gen last synced */
	size_t nfds;
	int fds[64];			/* sockets watched (polled if more) */
};

/* Keep the epoll set equal to the enabled endpoints' sockets; lock held. */
static void uetp_progress_sync_fds(struct uetp_domain *dom)
{
	struct uetp_progress *pg = dom->prog;
	struct epoll_event ev = { .events = EPOLLIN };
	struct uet_list *e;
	size_t n = 0;
	int fds[64];

	for (e = dom->eps.next; e != &dom->eps && n < 64; e = e->next) {
		struct uetp_ep *ep = uet_container_of(e, struct uetp_ep,
						       dom_entry);

		fds[n++] = ep->net->ops->fd(ep->net);
	}
	for (size_t i = 0; i < pg->nfds; i++)
		epoll_ctl(pg->epfd, EPOLL_CTL_DEL, pg->fds[i], NULL);
	for (size_t i = 0; i < n; i++) {
		ev.data.fd = fds[i];
		epoll_ctl(pg->epfd, EPOLL_CTL_ADD, fds[i], &ev);
		pg->fds[i] = fds[i];
	}
	pg->nfds = n;
}

static void *uetp_progress_main(void *arg)
{
	struct uetp_domain *dom = arg;
	struct uetp_progress *pg = dom->prog;
	struct epoll_event ev[16];
	struct uet_list *e;
	uet_time next, now, d;
	bool pending, many = false;
	uint64_t v;
	int ms;

	while (!atomic_load(&pg->stop)) {
		next = UET_TIME_NONE;
		pending = false;
		pthread_mutex_lock(&dom->lock);
		if (pg->gen != dom->eps_gen) {
			uetp_progress_sync_fds(dom);
			pg->gen = dom->eps_gen;
		}
		for (e = dom->eps.next; e != &dom->eps; e = e->next) {
			struct uetp_ep *ep = uet_container_of(e,
					struct uetp_ep, dom_entry);

			uetp_lock_acquire(&ep->lock);
			uetp_progress_ep(ep);
			d = uetp_progress_deadline(ep);
			pending |= ep->tx_off != ep->tx_pending;
			uetp_lock_release(&ep->lock);
			if (d < next)
				next = d;
		}
		many = pg->nfds == 64;
		pthread_mutex_unlock(&dom->lock);
		now = uetp_now();
		ms = uetp_wait_ms(next, now);
		if (ms < 0 || ms > UETP_THREAD_MAX_SLEEP)
			ms = UETP_THREAD_MAX_SLEEP;
		if ((pending || many) && ms > 1)
			ms = 1;
		atomic_store(&pg->sleep_until, now + (uet_time)ms * UET_MSEC);
		if (ms)
			epoll_wait(pg->epfd, ev, 16, ms);
		while (read(pg->efd, &v, sizeof(v)) > 0)
			;
	}
	return NULL;
}

int uetp_progress_start(struct uetp_domain *dom)
{
	struct uetp_progress *pg;
	struct epoll_event ev = { .events = EPOLLIN };
	int ret;

	pg = calloc(1, sizeof(*pg));
	if (!pg)
		return -FI_ENOMEM;
	pg->epfd = epoll_create1(EPOLL_CLOEXEC);
	pg->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (pg->epfd < 0 || pg->efd < 0) {
		ret = -FI_EMFILE;
		goto err;
	}
	ev.data.fd = pg->efd;
	if (epoll_ctl(pg->epfd, EPOLL_CTL_ADD, pg->efd, &ev)) {
		ret = -errno;
		goto err;
	}
	atomic_init(&pg->stop, false);
	atomic_init(&pg->sleep_until, 0);
	dom->prog = pg;
	ret = pthread_create(&pg->thread, NULL, uetp_progress_main, dom);
	if (ret) {
		dom->prog = NULL;
		ret = -ret;
		goto err;
	}
	return 0;
err:
	if (pg->epfd >= 0)
		close(pg->epfd);
	if (pg->efd >= 0)
		close(pg->efd);
	free(pg);
	return ret;
}

void uetp_progress_kick(struct uetp_domain *dom, uet_time deadline)
{
	struct uetp_progress *pg = dom->prog;
	uint64_t one = 1;

	if (!pg || deadline >= atomic_load(&pg->sleep_until))
		return;
	if (write(pg->efd, &one, sizeof(one)) < 0) {
		/* saturated: already readable */
	}
}

void uetp_progress_stop(struct uetp_domain *dom)
{
	struct uetp_progress *pg = dom->prog;
	uint64_t one = 1;

	if (!pg)
		return;
	atomic_store(&pg->stop, true);
	if (write(pg->efd, &one, sizeof(one)) < 0) {
		/* saturated: already readable */
	}
	pthread_join(pg->thread, NULL);
	close(pg->epfd);
	close(pg->efd);
	free(pg);
	dom->prog = NULL;
}
