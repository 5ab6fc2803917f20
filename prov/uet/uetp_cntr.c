/* fid_cntr: success and error counts of completed operations. Reading or
 * waiting runs progress on the bound endpoints (manual progress): those
 * bound with any fi_ep_bind flag, and for a counter bound to an MR
 * (fi_mr_bind, remote writes/reads into it) every enabled endpoint of
 * the domain, since the remote access may arrive through any of them. */
#include <sched.h>
#include <stdlib.h>

#include "uetp.h"

static struct fi_ops uetp_cntr_fi_ops;

void uetp_cntr_inc(struct uetp_cntr *cntr)
{
	atomic_fetch_add(&cntr->value, 1);
	if (cntr->wait && atomic_load(&cntr->wait->armed))
		uetp_wait_signal(cntr->wait);
}

void uetp_cntr_inc_err(struct uetp_cntr *cntr)
{
	atomic_fetch_add(&cntr->err, 1);
	if (cntr->wait && atomic_load(&cntr->wait->armed))
		uetp_wait_signal(cntr->wait);
}

static uint64_t uetp_cntr_read(struct fid_cntr *cntr_fid)
{
	struct uetp_cntr *cntr = uet_container_of(cntr_fid, struct uetp_cntr,
						   fid);

	uetp_progress_set_poll(&cntr->eps);
	uetp_trigger_run(cntr->domain);
	cntr->last_read = atomic_load(&cntr->value);
	return cntr->last_read;
}

static uint64_t uetp_cntr_readerr(struct fid_cntr *cntr_fid)
{
	struct uetp_cntr *cntr = uet_container_of(cntr_fid, struct uetp_cntr,
						   fid);

	uetp_progress_set_poll(&cntr->eps);
	uetp_trigger_run(cntr->domain);
	cntr->last_err = atomic_load(&cntr->err);
	return cntr->last_err;
}

static int uetp_cntr_add(struct fid_cntr *cntr_fid, uint64_t value)
{
	struct uetp_cntr *cntr = uet_container_of(cntr_fid, struct uetp_cntr,
						   fid);

	atomic_fetch_add(&cntr->value, value);
	if (cntr->wait)
		uetp_wait_signal(cntr->wait);
	uetp_trigger_run(cntr->domain);
	return 0;
}

static int uetp_cntr_set(struct fid_cntr *cntr_fid, uint64_t value)
{
	struct uetp_cntr *cntr = uet_container_of(cntr_fid, struct uetp_cntr,
						   fid);

	atomic_store(&cntr->value, value);
	if (cntr->wait)
		uetp_wait_signal(cntr->wait);
	uetp_trigger_run(cntr->domain);
	return 0;
}

static int uetp_cntr_adderr(struct fid_cntr *cntr_fid, uint64_t value)
{
	struct uetp_cntr *cntr = uet_container_of(cntr_fid, struct uetp_cntr,
						   fid);

	atomic_fetch_add(&cntr->err, value);
	if (cntr->wait)
		uetp_wait_signal(cntr->wait);
	return 0;
}

static int uetp_cntr_seterr(struct fid_cntr *cntr_fid, uint64_t value)
{
	struct uetp_cntr *cntr = uet_container_of(cntr_fid, struct uetp_cntr,
						   fid);

	atomic_store(&cntr->err, value);
	if (cntr->wait)
		uetp_wait_signal(cntr->wait);
	return 0;
}

/* fi_cntr.3: 0 once value >= threshold, -FI_ETIMEDOUT, or -FI_EAVAIL when
 * the error count moved while waiting. */
static int uetp_cntr_wait(struct fid_cntr *cntr_fid, uint64_t threshold,
			  int timeout)
{
	struct uetp_cntr *cntr = uet_container_of(cntr_fid, struct uetp_cntr,
						   fid);
	uet_time deadline = timeout < 0 ? UET_TIME_NONE :
			    uetp_now() + (uet_time)timeout * UET_MSEC;
	uint64_t err0 = atomic_load(&cntr->err);
	uet_time now, next;

	for (;;) {
		next = uetp_progress_set_run(&cntr->eps);
		uetp_trigger_run(cntr->domain);
		if (atomic_load(&cntr->value) >= threshold)
			return 0;
		if (atomic_load(&cntr->err) != err0)
			return -FI_EAVAIL;
		now = uetp_now();
		if (deadline != UET_TIME_NONE && now >= deadline)
			return -FI_ETIMEDOUT;
		if (deadline < next)
			next = deadline;
		if (uetp_progress_set_tx_pending(&cntr->eps) &&
		    next > now + UET_MSEC)
			next = now + UET_MSEC;
		if (!cntr->wait) {
			sched_yield();
			continue;
		}
		atomic_store(&cntr->wait->armed, true);
		/* an error counted by another thread (the progress thread)
		 * between the checks above and arming sent no signal: look
		 * again, or the wait sleeps to its timeout */
		if (atomic_load(&cntr->value) < threshold &&
		    atomic_load(&cntr->err) == err0)
			uetp_wait_wait(cntr->wait, uetp_wait_ms(next, now));
		atomic_store(&cntr->wait->armed, false);
	}
}

bool uetp_cntr_is(const struct fid *fid)
{
	return fid->fclass == FI_CLASS_CNTR && fid->ops == &uetp_cntr_fi_ops;
}

static int uetp_cntr_control(struct fid *fid, int command, void *arg)
{
	struct uetp_cntr *cntr = uet_container_of(fid, struct uetp_cntr,
						   fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (!cntr->wait)
			return -FI_ENODATA;
		*(int *)arg = cntr->wait->epfd;
		return 0;
	case FI_GETWAITOBJ:
		*(enum fi_wait_obj *)arg = cntr->wait_obj;
		return 0;
	case FI_GETOPSFLAG:
		if (!arg)
			return -FI_EINVAL;
		*(uint64_t *)arg = cntr->op_flags;
		return 0;
	case FI_SETOPSFLAG:
		if (!arg)
			return -FI_EINVAL;
		/* fi_cntr.3 defines no flag yet: keep what is set */
		cntr->op_flags = *(uint64_t *)arg;
		return 0;
	}
	return -FI_ENOSYS;
}

static int uetp_cntr_close(struct fid *fid)
{
	struct uetp_cntr *cntr = uet_container_of(fid, struct uetp_cntr,
						   fid.fid);

	if (atomic_load(&cntr->ref))
		return -FI_EBUSY;
	uetp_waitset_leave(cntr->wait, &cntr->fid.fid);
	uetp_wait_close(cntr->wait);
	free(cntr->eps.eps);
	pthread_mutex_destroy(&cntr->eps.lock);
	atomic_fetch_sub(&cntr->domain->ref, 1);
	free(cntr);
	return 0;
}

static struct fi_ops uetp_cntr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_cntr_close,
	.bind = uetp_enosys_bind,
	.control = uetp_cntr_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static struct fi_ops_cntr uetp_cntr_ops = {
	.size = sizeof(struct fi_ops_cntr),
	.read = uetp_cntr_read,
	.readerr = uetp_cntr_readerr,
	.add = uetp_cntr_add,
	.set = uetp_cntr_set,
	.wait = uetp_cntr_wait,
	.adderr = uetp_cntr_adderr,
	.seterr = uetp_cntr_seterr,
};

int uetp_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		   struct fid_cntr **cntrp, void *context)
{
	struct uetp_domain *dom = uet_container_of(domain, struct uetp_domain,
						    fid);
	struct fi_cntr_attr def = {
		.events = FI_CNTR_EVENTS_COMP,
		.wait_obj = FI_WAIT_UNSPEC,
	};
	struct uetp_cntr *cntr;
	int ret;

	if (!attr)
		attr = &def;
	if (attr->events != FI_CNTR_EVENTS_COMP)
		return -FI_ENOSYS;
	if (!uetp_wait_obj_ok(attr->wait_obj) &&
	    attr->wait_obj != FI_WAIT_SET)
		return -FI_ENOSYS;
	if (attr->flags)
		return -FI_EBADFLAGS;
	cntr = calloc(1, sizeof(*cntr));
	if (!cntr)
		return -FI_ENOMEM;
	cntr->domain = dom;
	cntr->wait_obj = attr->wait_obj == FI_WAIT_UNSPEC ? FI_WAIT_FD :
			 attr->wait_obj;
	if (attr->wait_obj == FI_WAIT_SET) {
		ret = uetp_waitset_join(attr->wait_set, &cntr->fid.fid,
					&cntr->wait);
		if (ret) {
			free(cntr);
			return ret;
		}
	} else if (attr->wait_obj != FI_WAIT_NONE) {
		ret = uetp_wait_open(&cntr->wait);
		if (ret) {
			free(cntr);
			return ret;
		}
	}
	atomic_init(&cntr->value, 0);
	atomic_init(&cntr->err, 0);
	atomic_init(&cntr->ref, 0);
	pthread_mutex_init(&cntr->eps.lock, NULL);
	cntr->fid.fid.fclass = FI_CLASS_CNTR;
	cntr->fid.fid.context = context;
	cntr->fid.fid.ops = &uetp_cntr_fi_ops;
	cntr->fid.ops = &uetp_cntr_ops;
	atomic_fetch_add(&dom->ref, 1);
	*cntrp = &cntr->fid;
	return 0;
}
