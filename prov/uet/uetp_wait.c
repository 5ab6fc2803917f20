/* Wait objects of CQs, counters and EQs (docs/architecture.md §8.7).
 *
 * One epoll fd per object: it holds an eventfd (fi_cq_signal, wakeups
 * from the progress thread) and, for CQs and counters, the UDP socket and
 * timerfd of every endpoint bound to them. The epoll fd is what
 * fi_control(FI_GETWAIT) hands to FI_WAIT_FD users: it turns readable when
 * a packet arrives, an engine deadline passes (timer armed by fi_trywait)
 * or someone signals, i.e. whenever progress might produce a completion.
 *
 * A wait set (fi_wait_open) is one such epoll fd shared by the CQs and
 * counters opened with FI_WAIT_SET: their endpoints' fds all land in it,
 * and fi_wait runs progress for every member, since with manual progress
 * nothing else would turn a readable socket into a completion.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "uetp.h"

bool uetp_wait_obj_ok(enum fi_wait_obj obj)
{
	return obj == FI_WAIT_NONE || obj == FI_WAIT_UNSPEC ||
	       obj == FI_WAIT_FD || obj == FI_WAIT_YIELD;
}

int uetp_wait_open(struct uetp_wait **waitp)
{
	struct uetp_wait *w;
	int ret;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -FI_ENOMEM;
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (w->epfd < 0) {
		ret = -errno;
		goto err1;
	}
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0) {
		ret = -errno;
		goto err2;
	}
	ret = uetp_wait_add_fd(w, w->efd);
	if (ret)
		goto err3;
	atomic_init(&w->armed, false);
	atomic_init(&w->ref, 1);
	*waitp = w;
	return 0;
err3:
	close(w->efd);
err2:
	close(w->epfd);
err1:
	free(w);
	return ret;
}

void uetp_wait_close(struct uetp_wait *w)
{
	if (!w || atomic_fetch_sub(&w->ref, 1) > 1)
		return;
	close(w->efd);
	close(w->epfd);
	free(w);
}

int uetp_wait_add_fd(struct uetp_wait *w, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };

	if (fd < 0)
		return 0;
	ev.data.fd = fd;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) && errno != EEXIST)
		return -errno;
	return 0;
}

void uetp_wait_del_fd(struct uetp_wait *w, int fd)
{
	if (fd >= 0)
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, fd, NULL);
}

void uetp_wait_signal(struct uetp_wait *w)
{
	uint64_t one = 1;

	if (write(w->efd, &one, sizeof(one)) < 0) {
		/* counter saturated: it is readable anyway */
	}
}

void uetp_wait_drain(struct uetp_wait *w)
{
	uint64_t v;

	while (read(w->efd, &v, sizeof(v)) > 0)
		;
}

int uetp_wait_wait(struct uetp_wait *w, int timeout_ms)
{
	struct epoll_event ev[8];
	int n;

	n = epoll_wait(w->epfd, ev, 8, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++)
		if (ev[i].data.fd == w->efd)
			uetp_wait_drain(w);
	return n;
}

int uetp_wait_ms(uet_time deadline, uet_time now)
{
	uet_time d;

	if (deadline == UET_TIME_NONE)
		return -1;
	if (deadline <= now)
		return 0;
	d = (deadline - now + UET_MSEC - 1) / UET_MSEC;
	return d > INT32_MAX ? INT32_MAX : (int)d;
}

/* ---- wait sets ---- */

struct uetp_waitset {
	struct fid_wait fid;
	struct uetp_fabric *fabric;
	struct uetp_wait *wait;
	pthread_mutex_t lock;		/* members */
	struct fid **members;		/* CQs and counters */
	size_t count, cap;
};

static struct fi_ops uetp_waitset_fi_ops;

/* One progress pass over the members: the earliest deadline, and whether
 * any has something to read. ws->lock held. */
static uet_time uetp_waitset_pass(struct uetp_waitset *ws, bool *ready)
{
	uet_time next = UET_TIME_NONE, d;

	*ready = false;
	for (size_t i = 0; i < ws->count; i++) {
		d = uetp_poll_progress(ws->members[i]);
		if (d < next)
			next = d;
	}
	for (size_t i = 0; i < ws->count && !*ready; i++)
		*ready = uetp_poll_ready(ws->members[i]);
	return next;
}

static bool uetp_waitset_ready(struct uetp_waitset *ws)
{
	bool ready = false;

	for (size_t i = 0; i < ws->count && !ready; i++)
		ready = uetp_poll_ready(ws->members[i]);
	return ready;
}

/* fi_poll.3: 0 once a member has a completion or event to read,
 * -FI_ETIMEDOUT when the timeout (ms, -1 forever) passes first. */
static int uetp_waitset_wait(struct fid_wait *fid, int timeout)
{
	struct uetp_waitset *ws = uet_container_of(fid, struct uetp_waitset,
						    fid);
	uet_time deadline = timeout < 0 ? UET_TIME_NONE :
			    uetp_now() + (uet_time)timeout * UET_MSEC;
	uet_time now, next;
	bool ready;

	for (;;) {
		pthread_mutex_lock(&ws->lock);
		next = uetp_waitset_pass(ws, &ready);
		pthread_mutex_unlock(&ws->lock);
		if (ready)
			return 0;
		now = uetp_now();
		if (deadline != UET_TIME_NONE && now >= deadline)
			return -FI_ETIMEDOUT;
		if (deadline < next)
			next = deadline;
		atomic_store(&ws->wait->armed, true);
		/* a completion pushed by another thread after the pass
		 * signalled the eventfd, or is seen here */
		pthread_mutex_lock(&ws->lock);
		ready = uetp_waitset_ready(ws);
		pthread_mutex_unlock(&ws->lock);
		if (!ready)
			uetp_wait_wait(ws->wait, uetp_wait_ms(next, now));
		atomic_store(&ws->wait->armed, false);
	}
}

int uetp_waitset_trywait(struct fid *fid)
{
	struct uetp_waitset *ws = uet_container_of(fid, struct uetp_waitset,
						    fid.fid);
	bool ready;

	atomic_store(&ws->wait->armed, true);
	uetp_wait_drain(ws->wait);
	pthread_mutex_lock(&ws->lock);
	uetp_waitset_pass(ws, &ready);
	for (size_t i = 0; !ready && i < ws->count; i++)
		ready = !uetp_poll_arm(ws->members[i]);
	pthread_mutex_unlock(&ws->lock);
	return ready ? -FI_EAGAIN : 0;
}

int uetp_waitset_join(struct fid_wait *set, struct fid *member,
		      struct uetp_wait **w)
{
	struct uetp_waitset *ws;
	struct fid **m;
	int ret = 0;

	if (!set || set->fid.fclass != FI_CLASS_WAIT ||
	    set->fid.ops != &uetp_waitset_fi_ops)
		return -FI_EINVAL;	/* none, or not one of ours */
	ws = uet_container_of(set, struct uetp_waitset, fid);
	pthread_mutex_lock(&ws->lock);
	if (ws->count == ws->cap) {
		size_t cap = ws->cap ? 2 * ws->cap : 4;

		m = realloc(ws->members, cap * sizeof(*m));
		if (!m) {
			ret = -FI_ENOMEM;
			goto out;
		}
		ws->members = m;
		ws->cap = cap;
	}
	ws->members[ws->count++] = member;
	atomic_fetch_add(&ws->wait->ref, 1);
	*w = ws->wait;
out:
	pthread_mutex_unlock(&ws->lock);
	return ret;
}

void uetp_waitset_leave(struct uetp_wait *w, struct fid *member)
{
	struct uetp_waitset *ws = w ? w->set : NULL;

	if (!ws)
		return;
	pthread_mutex_lock(&ws->lock);
	for (size_t i = 0; i < ws->count; i++) {
		if (ws->members[i] == member) {
			ws->members[i] = ws->members[--ws->count];
			break;
		}
	}
	pthread_mutex_unlock(&ws->lock);
}

static int uetp_waitset_control(struct fid *fid, int command, void *arg)
{
	struct uetp_waitset *ws = uet_container_of(fid, struct uetp_waitset,
						    fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (!arg)
			return -FI_EINVAL;
		*(int *)arg = ws->wait->epfd;
		return 0;
	case FI_GETWAITOBJ:
		if (!arg)
			return -FI_EINVAL;
		*(enum fi_wait_obj *)arg = FI_WAIT_FD;
		return 0;
	}
	return -FI_ENOSYS;
}

static int uetp_waitset_close(struct fid *fid)
{
	struct uetp_waitset *ws = uet_container_of(fid, struct uetp_waitset,
						    fid.fid);

	pthread_mutex_lock(&ws->lock);
	if (ws->count) {
		pthread_mutex_unlock(&ws->lock);
		return -FI_EBUSY;	/* CQs or counters still wait on it */
	}
	pthread_mutex_unlock(&ws->lock);
	ws->wait->set = NULL;
	uetp_wait_close(ws->wait);
	pthread_mutex_destroy(&ws->lock);
	free(ws->members);
	atomic_fetch_sub(&ws->fabric->ref, 1);
	free(ws);
	return 0;
}

static struct fi_ops uetp_waitset_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_waitset_close,
	.bind = uetp_enosys_bind,
	.control = uetp_waitset_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static struct fi_ops_wait uetp_waitset_ops = {
	.size = sizeof(struct fi_ops_wait),
	.wait = uetp_waitset_wait,
};

int uetp_waitset_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
		      struct fid_wait **waitset)
{
	struct uetp_fabric *fab = uet_container_of(fabric, struct uetp_fabric,
						    fid);
	struct uetp_waitset *ws;
	int ret;

	if (!attr || !waitset)
		return -FI_EINVAL;
	if (attr->flags)
		return -FI_EBADFLAGS;
	/* an epoll fd is what every member can wake */
	if (attr->wait_obj != FI_WAIT_UNSPEC && attr->wait_obj != FI_WAIT_FD)
		return -FI_ENOSYS;
	ws = calloc(1, sizeof(*ws));
	if (!ws)
		return -FI_ENOMEM;
	ret = uetp_wait_open(&ws->wait);
	if (ret) {
		free(ws);
		return ret;
	}
	ws->wait->set = ws;
	ws->fabric = fab;
	pthread_mutex_init(&ws->lock, NULL);
	ws->fid.fid.fclass = FI_CLASS_WAIT;
	ws->fid.fid.context = NULL;
	ws->fid.fid.ops = &uetp_waitset_fi_ops;
	ws->fid.ops = &uetp_waitset_ops;
	atomic_fetch_add(&fab->ref, 1);
	*waitset = &ws->fid;
	return 0;
}
