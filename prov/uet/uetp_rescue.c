/* Rescue progress: under manual progress nothing moves while the
 * application is away from libfabric, and a NIC's transport would not
 * stop there. A packet of ours lost just before the application turned
 * to other work (computing, or waiting on a socket of its own, as
 * libfabric's fi_pingpong does between sizes) is never resent, and a
 * peer that retransmits to us is never answered, so the peer declares us
 * dead after its retry budget. So a thread per domain wakes every
 * FI_UET_RESCUE_MS and runs the pass of each endpoint the application
 * has not driven for that long: receive, timers, send. It stays out of
 * the way of an application that polls: an endpoint it drove recently,
 * or whose lock it holds, is skipped, and the thread never waits on a
 * lock. Data progress stays FI_PROGRESS_MANUAL: completions come soonest
 * when the application asks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "uetp.h"

struct uetp_rescue {
	pthread_t thread;
	pthread_mutex_t mx;
	pthread_cond_t cond;		/* CLOCK_MONOTONIC */
	bool stop;
	uet_time idle;
};

/* Runs the overdue endpoints' passes; skips the round when the domain's
 * list is being changed. */
static void uetp_rescue_pass(struct uetp_domain *dom, uet_time idle)
{
	struct uet_list *e;

	if (pthread_mutex_trylock(&dom->lock))
		return;
	for (e = dom->eps.next; e != &dom->eps; e = e->next) {
		struct uetp_ep *ep = uet_container_of(e, struct uetp_ep,
						       dom_entry);
		struct uetp_ep *io = uetp_ep_io(ep);
		uet_time now;

		if (!uetp_lock_try(&ep->lock))
			continue;	/* the application is in there */
		now = uetp_now();
		if (io->fep && now - io->polled_at >= idle) {
			/* an application asleep in a wait keeps its timer */
			bool armed = io->timer_armed;

			if (uetp_progress_io(io, now))
				io->rescues++;
			if (armed)
				uetp_progress_arm(io);
		}
		uetp_lock_release(&ep->lock);
	}
	pthread_mutex_unlock(&dom->lock);
}

static void *uetp_rescue_main(void *arg)
{
	struct uetp_domain *dom = arg;
	struct uetp_rescue *r = dom->rescue;
	struct timespec ts;

	pthread_mutex_lock(&r->mx);
	while (!r->stop) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)(r->idle % UET_SEC);
		ts.tv_sec += (time_t)(r->idle / UET_SEC) +
			     ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		if (pthread_cond_timedwait(&r->cond, &r->mx, &ts) != ETIMEDOUT)
			continue;	/* stop, or spurious */
		pthread_mutex_unlock(&r->mx);
		uetp_rescue_pass(dom, r->idle);
		pthread_mutex_lock(&r->mx);
	}
	pthread_mutex_unlock(&r->mx);
	return NULL;
}

int uetp_rescue_start(struct uetp_domain *dom)
{
	struct uetp_rescue *r;
	pthread_condattr_t ca;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r)
		return -FI_ENOMEM;
	r->idle = (uet_time)uetp_env.rescue_ms * UET_MSEC;
	pthread_mutex_init(&r->mx, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->cond, &ca);
	pthread_condattr_destroy(&ca);
	dom->rescue = r;
	ret = pthread_create(&r->thread, NULL, uetp_rescue_main, dom);
	if (ret) {
		dom->rescue = NULL;
		pthread_cond_destroy(&r->cond);
		pthread_mutex_destroy(&r->mx);
		free(r);
		return -ret;
	}
	return 0;
}

void uetp_rescue_stop(struct uetp_domain *dom)
{
	struct uetp_rescue *r = dom->rescue;

	if (!r)
		return;
	pthread_mutex_lock(&r->mx);
	r->stop = true;
	pthread_cond_signal(&r->cond);
	pthread_mutex_unlock(&r->mx);
	pthread_join(r->thread, NULL);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->mx);
	free(r);
	dom->rescue = NULL;
}
