/* Wait objects of CQs, counters and EQs (libfabric-provider.md §2.4).
 *
 * One epoll fd per object: it holds an eventfd (fi_cq_signal, wakeups
 * from the progress thread) and, for CQs and counters, the UDP socket and
 * timerfd of every endpoint bound to them. The epoll fd is what
 * fi_control(FI_GETWAIT) hands to FI_WAIT_FD users: it turns readable when
 * a packet arrives, an engine deadline passes (timer armed by fi_trywait)
 * or someone signals, i.e. whenever progress might produce a completion.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
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
	if (!w)
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
