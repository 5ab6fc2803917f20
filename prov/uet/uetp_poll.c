/* fid_poll: poll sets (fi_poll_open) over CQs and counters.
 *
 * fi_poll runs progress for every member (manual progress: nothing else
 * moves packets) and returns the context of each member with something
 * to read: a CQ holding an entry, a counter whose value or error count
 * moved since the application last read it (fi_cntr_read/readerr).
 * Entries stay in their CQ; the application reads them.
 */
#include <stdlib.h>

#include "uetp.h"

struct uetp_poll {
	struct fid_poll fid;
	struct uetp_domain *domain;
	pthread_mutex_t lock;		/* members */
	struct fid **members;
	size_t count, cap;
};

static struct uetp_epset *uetp_poll_eps(struct fid *fid)
{
	switch (fid->fclass) {
	case FI_CLASS_CQ:
		return &uet_container_of(fid, struct uetp_cq, fid.fid)->eps;
	case FI_CLASS_CNTR:
		return &uet_container_of(fid, struct uetp_cntr,
					  fid.fid)->eps;
	}
	return NULL;
}

static struct uetp_domain *uetp_poll_domain(struct fid *fid)
{
	switch (fid->fclass) {
	case FI_CLASS_CQ:
		return uet_container_of(fid, struct uetp_cq,
					 fid.fid)->domain;
	case FI_CLASS_CNTR:
		return uet_container_of(fid, struct uetp_cntr,
					 fid.fid)->domain;
	}
	return NULL;
}

bool uetp_poll_ready(struct fid *fid)
{
	struct uetp_cntr *cntr;

	switch (fid->fclass) {
	case FI_CLASS_CQ:
		return uetp_cq_count(uet_container_of(fid, struct uetp_cq,
						       fid.fid)) > 0;
	case FI_CLASS_CNTR:
		cntr = uet_container_of(fid, struct uetp_cntr, fid.fid);
		return atomic_load(&cntr->value) != cntr->last_read ||
		       atomic_load(&cntr->err) != cntr->last_err;
	}
	return false;
}

uet_time uetp_poll_progress(struct fid *fid)
{
	struct uetp_epset *eps = uetp_poll_eps(fid);
	uet_time next, now;

	if (!eps)
		return UET_TIME_NONE;
	next = uetp_progress_set_run(eps);
	uetp_trigger_run(uetp_poll_domain(fid));
	/* a full socket drains only by running again soon */
	if (uetp_progress_set_tx_pending(eps)) {
		now = uetp_now();
		if (next > now + UET_MSEC)
			next = now + UET_MSEC;
	}
	return next;
}

bool uetp_poll_arm(struct fid *fid)
{
	struct uetp_epset *eps = uetp_poll_eps(fid);

	if (!eps)
		return true;
	if (uetp_progress_set_tx_pending(eps))
		return false;
	uetp_progress_set_arm(eps);
	return true;
}

static int uetp_poll_poll(struct fid_poll *fid, void **context, int count)
{
	struct uetp_poll *ps = uet_container_of(fid, struct uetp_poll, fid);
	int n = 0;

	if (count < 0 || (count && !context))
		return -FI_EINVAL;
	pthread_mutex_lock(&ps->lock);
	/* the non-blocking flavour: an idle poller yields the CPU */
	for (size_t i = 0; i < ps->count; i++)
		uetp_progress_set_poll(uetp_poll_eps(ps->members[i]));
	if (ps->count)
		uetp_trigger_run(ps->domain);
	for (size_t i = 0; i < ps->count && n < count; i++)
		if (uetp_poll_ready(ps->members[i]))
			context[n++] = ps->members[i]->context;
	pthread_mutex_unlock(&ps->lock);
	return n;
}

static atomic_int *uetp_poll_ref(struct fid *fid)
{
	switch (fid->fclass) {
	case FI_CLASS_CQ:
		return &uet_container_of(fid, struct uetp_cq, fid.fid)->ref;
	case FI_CLASS_CNTR:
		return &uet_container_of(fid, struct uetp_cntr,
					  fid.fid)->ref;
	}
	return NULL;
}

static int uetp_poll_add(struct fid_poll *fid, struct fid *event_fid,
			 uint64_t flags)
{
	struct uetp_poll *ps = uet_container_of(fid, struct uetp_poll, fid);
	struct fid **m;
	int ret = 0;

	if (flags)
		return -FI_EBADFLAGS;
	if (!event_fid || !uetp_poll_eps(event_fid) ||
	    uetp_poll_domain(event_fid) != ps->domain)
		return -FI_EINVAL;
	pthread_mutex_lock(&ps->lock);
	for (size_t i = 0; i < ps->count; i++) {
		if (ps->members[i] == event_fid) {
			ret = -FI_EALREADY;
			goto out;
		}
	}
	if (ps->count == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 4;

		m = realloc(ps->members, cap * sizeof(*m));
		if (!m) {
			ret = -FI_ENOMEM;
			goto out;
		}
		ps->members = m;
		ps->cap = cap;
	}
	ps->members[ps->count++] = event_fid;
	/* the CQ or counter stays open while the set holds it */
	atomic_fetch_add(uetp_poll_ref(event_fid), 1);
out:
	pthread_mutex_unlock(&ps->lock);
	return ret;
}

static int uetp_poll_del(struct fid_poll *fid, struct fid *event_fid,
			 uint64_t flags)
{
	struct uetp_poll *ps = uet_container_of(fid, struct uetp_poll, fid);
	int ret = -FI_EINVAL;

	if (flags)
		return -FI_EBADFLAGS;
	pthread_mutex_lock(&ps->lock);
	for (size_t i = 0; i < ps->count; i++) {
		if (ps->members[i] == event_fid) {
			atomic_fetch_sub(uetp_poll_ref(event_fid), 1);
			ps->members[i] = ps->members[--ps->count];
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ps->lock);
	return ret;
}

static int uetp_poll_close(struct fid *fid)
{
	struct uetp_poll *ps = uet_container_of(fid, struct uetp_poll,
						 fid.fid);

	for (size_t i = 0; i < ps->count; i++)
		atomic_fetch_sub(uetp_poll_ref(ps->members[i]), 1);
	pthread_mutex_destroy(&ps->lock);
	free(ps->members);
	atomic_fetch_sub(&ps->domain->ref, 1);
	free(ps);
	return 0;
}

static struct fi_ops uetp_poll_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_poll_close,
	.bind = uetp_enosys_bind,
	.control = uetp_enosys_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static struct fi_ops_poll uetp_poll_ops = {
	.size = sizeof(struct fi_ops_poll),
	.poll = uetp_poll_poll,
	.poll_add = uetp_poll_add,
	.poll_del = uetp_poll_del,
};

int uetp_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
		   struct fid_poll **pollset)
{
	struct uetp_domain *dom = uet_container_of(domain, struct uetp_domain,
						    fid);
	struct uetp_poll *ps;

	if (!attr || !pollset)
		return -FI_EINVAL;
	if (attr->flags)
		return -FI_EBADFLAGS;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -FI_ENOMEM;
	ps->domain = dom;
	pthread_mutex_init(&ps->lock, NULL);
	ps->fid.fid.fclass = FI_CLASS_POLL;
	ps->fid.fid.ops = &uetp_poll_fi_ops;
	ps->fid.ops = &uetp_poll_ops;
	atomic_fetch_add(&dom->ref, 1);
	*pollset = &ps->fid;
	return 0;
}
