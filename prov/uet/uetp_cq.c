/* fid_cq: a ring of completions in the four libfabric formats.
 *
 * Never drops a completion: every operation reserves its entry when it is
 * posted (the ring grows then, where -FI_EAGAIN can still be returned), so
 * the engine callback always finds room. Only the extra entries of a
 * multi-receive buffer are added unreserved; if memory runs out for
 * those, the loss is counted and logged.
 *
 * Error entries sit in the same ring, in order: fi_cq_read returns what
 * precedes the first error, then -FI_EAVAIL until fi_cq_readerr takes it.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "uetp.h"

static size_t uetp_cq_entry_size(enum fi_cq_format f)
{
	switch (f) {
	case FI_CQ_FORMAT_CONTEXT:
		return sizeof(struct fi_cq_entry);
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	case FI_CQ_FORMAT_TAGGED:
		return sizeof(struct fi_cq_tagged_entry);
	default:
		return 0;
	}
}

static void uetp_cq_fill(const struct uetp_cq *cq, void *dst,
			 const struct uetp_cq_entry *e)
{
	struct fi_cq_tagged_entry t = {
		.op_context = e->op_context,
		.flags = e->flags,
		.len = e->len,
		.buf = e->buf,
		.data = e->data,
		.tag = e->tag,
	};

	/* the four formats are prefixes of the tagged one */
	memcpy(dst, &t, cq->entry_size);
}

/* Make room for `need` entries; lock held. */
static int uetp_cq_grow(struct uetp_cq *cq, size_t need)
{
	struct uetp_cq_entry *ring;
	size_t cap = cq->cap ? cq->cap : 16;

	while (cap < need)
		cap *= 2;
	if (cap == cq->cap)
		return 0;
	ring = malloc(cap * sizeof(*ring));
	if (!ring)
		return -FI_ENOMEM;
	for (size_t i = 0; i < cq->count; i++)
		ring[i] = cq->ring[(cq->head + i) % cq->cap];
	free(cq->ring);
	cq->ring = ring;
	cq->cap = cap;
	cq->head = 0;
	return 0;
}

int uetp_cq_reserve(struct uetp_cq *cq)
{
	int ret = 0;

	uetp_lock_acquire(&cq->lock);
	if (cq->count + cq->reserved + 1 > cq->cap)
		ret = uetp_cq_grow(cq, cq->count + cq->reserved + 1);
	if (!ret)
		cq->reserved++;
	uetp_lock_release(&cq->lock);
	return ret;
}

void uetp_cq_unreserve(struct uetp_cq *cq)
{
	uetp_lock_acquire(&cq->lock);
	if (cq->reserved)
		cq->reserved--;
	uetp_lock_release(&cq->lock);
}

void uetp_cq_push(struct uetp_cq *cq, const struct uetp_cq_entry *e,
		  bool reserved)
{
	uetp_lock_acquire(&cq->lock);
	if (reserved && cq->reserved) {
		cq->reserved--;
	} else if (cq->count + cq->reserved + 1 > cq->cap &&
		   uetp_cq_grow(cq, cq->count + cq->reserved + 1)) {
		cq->lost++;
		uetp_lock_release(&cq->lock);
		FI_WARN(&uetp_prov, FI_LOG_CQ,
			"out of memory: completion lost (%llu so far)\n",
			(unsigned long long)cq->lost);
		return;
	}
	cq->ring[(cq->head + cq->count) % cq->cap] = *e;
	cq->count++;
	uetp_lock_release(&cq->lock);
	if (cq->wait && atomic_load(&cq->wait->armed))
		uetp_wait_signal(cq->wait);
}

size_t uetp_cq_count(struct uetp_cq *cq)
{
	size_t n;

	uetp_lock_acquire(&cq->lock);
	n = cq->count;
	uetp_lock_release(&cq->lock);
	return n;
}

/* An empty ring starts again at slot 0: a ping-pong then keeps using the
 * same few slots, in cache and paged in, instead of walking the whole ring
 * (a first touch of each page is a page fault); lock held. */
static void uetp_cq_rewind(struct uetp_cq *cq)
{
	if (!cq->count)
		cq->head = 0;
}

static ssize_t uetp_cq_take(struct uetp_cq *cq, void *buf, size_t count,
			    fi_addr_t *src_addr)
{
	struct uetp_cq_entry *e;
	uint8_t *p = buf;
	ssize_t n = 0;

	uetp_lock_acquire(&cq->lock);
	while ((size_t)n < count && cq->count) {
		e = &cq->ring[cq->head];
		if (e->is_err)
			break;
		uetp_cq_fill(cq, p, e);
		if (src_addr)
			src_addr[n] = e->src;
		p += cq->entry_size;
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
		n++;
	}
	uetp_cq_rewind(cq);
	if (!n)
		n = cq->count && cq->ring[cq->head].is_err ? -FI_EAVAIL :
							     -FI_EAGAIN;
	uetp_lock_release(&cq->lock);
	return n;
}

static ssize_t uetp_cq_readfrom(struct fid_cq *cq_fid, void *buf, size_t count,
				fi_addr_t *src_addr)
{
	struct uetp_cq *cq = uet_container_of(cq_fid, struct uetp_cq, fid);

	if (cq->wait)
		atomic_store(&cq->wait->armed, false);
	/* Completions already queued go out without a progress pass (its
	 * recvmmsg is a system call), as libfabric's utility CQ does: a
	 * receive that arrived while the application polled its send CQ is
	 * read at once. Progress runs when the queue is empty. */
	if (count) {
		ssize_t n = uetp_cq_take(cq, buf, count, src_addr);

		if (n != -FI_EAGAIN)
			return n;
	}
	uetp_progress_set_poll(&cq->eps);
	uetp_trigger_run(cq->domain);
	return uetp_cq_take(cq, buf, count, src_addr);
}

static ssize_t uetp_cq_read(struct fid_cq *cq_fid, void *buf, size_t count)
{
	return uetp_cq_readfrom(cq_fid, buf, count, NULL);
}

static ssize_t uetp_cq_readerr(struct fid_cq *cq_fid,
			       struct fi_cq_err_entry *buf, uint64_t flags)
{
	struct uetp_cq *cq = uet_container_of(cq_fid, struct uetp_cq, fid);
	bool new_api = !FI_VERSION_LT(cq->domain->api_version,
				      FI_VERSION(1, 5));
	struct uetp_cq_entry *e;
	size_t n, elen;

	(void)flags;
	uetp_lock_acquire(&cq->lock);
	if (!cq->count || !cq->ring[cq->head].is_err) {
		uetp_lock_release(&cq->lock);
		return -FI_EAGAIN;
	}
	e = &cq->ring[cq->head];
	buf->op_context = e->op_context;
	buf->flags = e->flags;
	buf->len = e->len;
	buf->buf = e->buf;
	buf->data = e->data;
	buf->tag = e->tag;
	buf->olen = e->olen;
	buf->err = e->err;
	buf->prov_errno = e->prov_errno;
	/* fi_cq.3: from 1.5 on the application may supply the err_data
	 * buffer; before, err_data_size does not exist in its struct. An
	 * entry without err_data touches neither buffer: 0 bytes copied. */
	elen = e->has_edata ? sizeof(e->edata) : 0;
	if (new_api && buf->err_data_size && buf->err_data) {
		n = buf->err_data_size < elen ? buf->err_data_size : elen;
		if (n)
			memcpy(buf->err_data, &e->edata, n);
		buf->err_data_size = n;
	} else {
		cq->err_data = e->edata;
		buf->err_data = elen ? &cq->err_data : NULL;
		if (new_api)
			buf->err_data_size = elen;
	}
	cq->head = (cq->head + 1) % cq->cap;
	cq->count--;
	uetp_cq_rewind(cq);
	uetp_lock_release(&cq->lock);
	return 1;
}

static ssize_t uetp_cq_sreadfrom(struct fid_cq *cq_fid, void *buf,
				 size_t count, fi_addr_t *src_addr,
				 const void *cond, int timeout)
{
	struct uetp_cq *cq = uet_container_of(cq_fid, struct uetp_cq, fid);
	uet_time deadline = timeout < 0 ? UET_TIME_NONE :
			    uetp_now() + (uet_time)timeout * UET_MSEC;
	size_t threshold = 1;
	uet_time now, next;
	ssize_t ret;

	if (cq->wait_cond == FI_CQ_COND_THRESHOLD && cond)
		threshold = *(const size_t *)cond;
	if (threshold > count)
		threshold = count;
	if (!threshold)
		threshold = 1;
	for (;;) {
		next = uetp_progress_set_run(&cq->eps);
		uetp_trigger_run(cq->domain);
		uetp_lock_acquire(&cq->lock);
		ret = cq->count >= threshold ||
		      (cq->count && cq->ring[cq->head].is_err);
		uetp_lock_release(&cq->lock);
		if (ret) {
			ret = uetp_cq_take(cq, buf, count, src_addr);
			if (ret != -FI_EAGAIN)
				return ret;
		}
		if (atomic_exchange(&cq->signaled, false))
			return -FI_EAGAIN;
		now = uetp_now();
		if (deadline != UET_TIME_NONE && now >= deadline)
			return -FI_EAGAIN;
		if (deadline < next)
			next = deadline;
		if (uetp_progress_set_tx_pending(&cq->eps) && next > now + UET_MSEC)
			next = now + UET_MSEC;
		if (!cq->wait) {
			sched_yield();
			continue;
		}
		atomic_store(&cq->wait->armed, true);
		/* a completion pushed by another thread since the check
		 * signalled the eventfd: the wait returns at once */
		if (!uetp_cq_count(cq))
			uetp_wait_wait(cq->wait, uetp_wait_ms(next, now));
		atomic_store(&cq->wait->armed, false);
	}
}

static ssize_t uetp_cq_sread(struct fid_cq *cq_fid, void *buf, size_t count,
			     const void *cond, int timeout)
{
	return uetp_cq_sreadfrom(cq_fid, buf, count, NULL, cond, timeout);
}

static int uetp_cq_signal(struct fid_cq *cq_fid)
{
	struct uetp_cq *cq = uet_container_of(cq_fid, struct uetp_cq, fid);

	atomic_store(&cq->signaled, true);
	if (cq->wait)
		uetp_wait_signal(cq->wait);
	return 0;
}

static const char *uetp_cq_strerror(struct fid_cq *cq_fid, int prov_errno,
				    const void *err_data, char *buf,
				    size_t len)
{
	struct uetp_cq *cq = uet_container_of(cq_fid, struct uetp_cq, fid);

	if (!buf || !len) {
		buf = cq->errbuf;
		len = sizeof(cq->errbuf);
	}
	return uetp_errno_str(prov_errno, err_data, buf, len);
}

static int uetp_cq_control(struct fid *fid, int command, void *arg)
{
	struct uetp_cq *cq = uet_container_of(fid, struct uetp_cq, fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (!cq->wait)
			return -FI_ENODATA;
		*(int *)arg = cq->wait->epfd;
		return 0;
	case FI_GETWAITOBJ:
		*(enum fi_wait_obj *)arg = cq->wait_obj;
		return 0;
	}
	return -FI_ENOSYS;
}

static int uetp_cq_close(struct fid *fid)
{
	struct uetp_cq *cq = uet_container_of(fid, struct uetp_cq, fid.fid);

	if (atomic_load(&cq->ref))
		return -FI_EBUSY;
	uetp_waitset_leave(cq->wait, &cq->fid.fid);
	uetp_wait_close(cq->wait);
	free(cq->eps.eps);
	pthread_mutex_destroy(&cq->eps.lock);
	uetp_lock_destroy(&cq->lock);
	atomic_fetch_sub(&cq->domain->ref, 1);
	free(cq->ring);
	free(cq);
	return 0;
}

static struct fi_ops uetp_cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_cq_close,
	.bind = uetp_enosys_bind,
	.control = uetp_cq_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static struct fi_ops_cq uetp_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = uetp_cq_read,
	.readfrom = uetp_cq_readfrom,
	.readerr = uetp_cq_readerr,
	.sread = uetp_cq_sread,
	.sreadfrom = uetp_cq_sreadfrom,
	.signal = uetp_cq_signal,
	.strerror = uetp_cq_strerror,
};

int uetp_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		 struct fid_cq **cqp, void *context)
{
	struct uetp_domain *dom = uet_container_of(domain, struct uetp_domain,
						    fid);
	struct uetp_cq *cq;
	int ret;

	if (!attr)
		return -FI_EINVAL;
	if (attr->flags & ~(uint64_t)FI_AFFINITY)
		return -FI_EBADFLAGS;
	if (!uetp_wait_obj_ok(attr->wait_obj) &&
	    attr->wait_obj != FI_WAIT_SET)
		return -FI_ENOSYS;
	if (attr->wait_cond > FI_CQ_COND_THRESHOLD)
		return -FI_EINVAL;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	cq->domain = dom;
	cq->format = attr->format == FI_CQ_FORMAT_UNSPEC ?
		     FI_CQ_FORMAT_CONTEXT : attr->format;
	cq->entry_size = uetp_cq_entry_size(cq->format);
	if (!cq->entry_size) {
		ret = -FI_ENOSYS;
		goto err1;
	}
	cq->wait_cond = attr->wait_cond;
	cq->wait_obj = attr->wait_obj == FI_WAIT_UNSPEC ? FI_WAIT_FD :
		       attr->wait_obj;
	if (attr->wait_obj == FI_WAIT_SET) {
		ret = uetp_waitset_join(attr->wait_set, &cq->fid.fid,
					&cq->wait);
		if (ret)
			goto err1;
	} else if (attr->wait_obj != FI_WAIT_NONE) {
		ret = uetp_wait_open(&cq->wait);
		if (ret)
			goto err1;
	}
	ret = uetp_cq_grow(cq, attr->size ? attr->size :
			   uetp_env.tx_size + uetp_env.rx_size);
	if (ret)
		goto err2;
	uetp_lock_init(&cq->lock, dom->locking);
	pthread_mutex_init(&cq->eps.lock, NULL);
	atomic_init(&cq->ref, 0);
	atomic_init(&cq->signaled, false);
	cq->fid.fid.fclass = FI_CLASS_CQ;
	cq->fid.fid.context = context;
	cq->fid.fid.ops = &uetp_cq_fi_ops;
	cq->fid.ops = &uetp_cq_ops;
	atomic_fetch_add(&dom->ref, 1);
	*cqp = &cq->fid;
	return 0;
err2:
	uetp_waitset_leave(cq->wait, &cq->fid.fid);
	uetp_wait_close(cq->wait);
err1:
	free(cq);
	return ret;
}
