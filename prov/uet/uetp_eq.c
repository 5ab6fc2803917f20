/* fid_eq: on RDM endpoints only asynchronous AV inserts (FI_AV_COMPLETE)
 * and their errors arrive here, plus what the application writes. A small
 * mutex-protected list; waiting uses the common wait object. */
#include <stdlib.h>
#include <string.h>

#include "uetp.h"

struct uetp_eq_entry {
	struct uetp_eq_entry *next;
	uint32_t event;
	bool is_err;
	struct fi_eq_err_entry err;
	size_t len;
	uint8_t data[];
};

int uetp_eq_post(struct uetp_eq *eq, uint32_t event, const void *buf,
		 size_t len, int err, int prov_errno, fid_t fid,
		 void *context, uint64_t data)
{
	struct uetp_eq_entry *e;

	e = calloc(1, sizeof(*e) + len);
	if (!e)
		return -FI_ENOMEM;
	e->event = event;
	e->len = len;
	if (len)
		memcpy(e->data, buf, len);
	if (err) {
		e->is_err = true;
		e->err.fid = fid;
		e->err.context = context;
		e->err.data = data;
		e->err.err = err < 0 ? -err : err;
		e->err.prov_errno = prov_errno;
	}
	pthread_mutex_lock(&eq->lock);
	if (eq->tail)
		eq->tail->next = e;
	else
		eq->head = e;
	eq->tail = e;
	eq->count++;
	pthread_mutex_unlock(&eq->lock);
	if (eq->wait)
		uetp_wait_signal(eq->wait);
	return 0;
}

static ssize_t uetp_eq_read(struct fid_eq *eq_fid, uint32_t *event, void *buf,
			    size_t len, uint64_t flags)
{
	struct uetp_eq *eq = uet_container_of(eq_fid, struct uetp_eq, fid);
	struct uetp_eq_entry *e;
	ssize_t ret;

	pthread_mutex_lock(&eq->lock);
	e = eq->head;
	if (!e) {
		ret = -FI_EAGAIN;
	} else if (e->is_err) {
		ret = -FI_EAVAIL;
	} else if (len < e->len) {
		ret = -FI_ETOOSMALL;
	} else {
		if (event)
			*event = e->event;
		if (e->len)
			memcpy(buf, e->data, e->len);
		ret = (ssize_t)e->len;
		if (!(flags & FI_PEEK)) {
			eq->head = e->next;
			if (!eq->head)
				eq->tail = NULL;
			eq->count--;
			free(e);
		}
	}
	pthread_mutex_unlock(&eq->lock);
	return ret;
}

static ssize_t uetp_eq_readerr(struct fid_eq *eq_fid,
			       struct fi_eq_err_entry *buf, uint64_t flags)
{
	struct uetp_eq *eq = uet_container_of(eq_fid, struct uetp_eq, fid);
	uint32_t v = eq->fabric->fid.api_version;
	bool new_api = !v || !FI_VERSION_LT(v, FI_VERSION(1, 5));
	struct uetp_eq_entry *e;

	pthread_mutex_lock(&eq->lock);
	e = eq->head;
	if (!e || !e->is_err) {
		pthread_mutex_unlock(&eq->lock);
		return -FI_EAGAIN;
	}
	/* field by field: before API 1.5 the caller's struct ends at
	 * err_data (no err_data_size); our entries carry no err_data */
	buf->fid = e->err.fid;
	buf->context = e->err.context;
	buf->data = e->err.data;
	buf->err = e->err.err;
	buf->prov_errno = e->err.prov_errno;
	if (new_api && buf->err_data_size)
		buf->err_data_size = 0;	/* the caller's buffer stays empty */
	else
		buf->err_data = NULL;
	if (!(flags & FI_PEEK)) {
		eq->head = e->next;
		if (!eq->head)
			eq->tail = NULL;
		eq->count--;
		free(e);
	}
	pthread_mutex_unlock(&eq->lock);
	return sizeof(*buf);
}

static ssize_t uetp_eq_write(struct fid_eq *eq_fid, uint32_t event,
			     const void *buf, size_t len, uint64_t flags)
{
	struct uetp_eq *eq = uet_container_of(eq_fid, struct uetp_eq, fid);
	int ret;

	(void)flags;
	if (!(eq->flags & FI_WRITE))
		return -FI_EINVAL;
	ret = uetp_eq_post(eq, event, buf, len, 0, 0, NULL, NULL, 0);
	return ret ? ret : (ssize_t)len;
}

static ssize_t uetp_eq_sread(struct fid_eq *eq_fid, uint32_t *event,
			     void *buf, size_t len, int timeout,
			     uint64_t flags)
{
	struct uetp_eq *eq = uet_container_of(eq_fid, struct uetp_eq, fid);
	uet_time deadline = timeout < 0 ? UET_TIME_NONE :
			    uetp_now() + (uet_time)timeout * UET_MSEC;
	ssize_t ret;
	uet_time now;

	for (;;) {
		ret = uetp_eq_read(eq_fid, event, buf, len, flags);
		if (ret != -FI_EAGAIN)
			return ret;
		now = uetp_now();
		if (deadline != UET_TIME_NONE && now >= deadline)
			return -FI_EAGAIN;
		if (eq->wait)
			uetp_wait_wait(eq->wait, uetp_wait_ms(deadline, now));
		else
			sched_yield();
	}
}

static const char *uetp_eq_strerror(struct fid_eq *eq_fid, int prov_errno,
				    const void *err_data, char *buf,
				    size_t len)
{
	struct uetp_eq *eq = uet_container_of(eq_fid, struct uetp_eq, fid);

	if (!buf || !len) {
		buf = eq->errbuf;
		len = sizeof(eq->errbuf);
	}
	return uetp_errno_str(prov_errno, err_data, buf, len);
}

static int uetp_eq_control(struct fid *fid, int command, void *arg)
{
	struct uetp_eq *eq = uet_container_of(fid, struct uetp_eq, fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (!eq->wait)
			return -FI_ENODATA;
		*(int *)arg = eq->wait->epfd;
		return 0;
	case FI_GETWAITOBJ:
		*(enum fi_wait_obj *)arg = eq->wait_obj;
		return 0;
	}
	return -FI_ENOSYS;
}

static int uetp_eq_close(struct fid *fid)
{
	struct uetp_eq *eq = uet_container_of(fid, struct uetp_eq, fid.fid);
	struct uetp_eq_entry *e;

	if (atomic_load(&eq->ref))
		return -FI_EBUSY;
	while ((e = eq->head)) {
		eq->head = e->next;
		free(e);
	}
	uetp_wait_close(eq->wait);
	pthread_mutex_destroy(&eq->lock);
	atomic_fetch_sub(&eq->fabric->ref, 1);
	free(eq);
	return 0;
}

static struct fi_ops uetp_eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_eq_close,
	.bind = uetp_enosys_bind,
	.control = uetp_eq_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static struct fi_ops_eq uetp_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = uetp_eq_read,
	.readerr = uetp_eq_readerr,
	.write = uetp_eq_write,
	.sread = uetp_eq_sread,
	.strerror = uetp_eq_strerror,
};

int uetp_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		 struct fid_eq **eqp, void *context)
{
	struct uetp_fabric *fab = uet_container_of(fabric, struct uetp_fabric,
						    fid);
	struct uetp_eq *eq;
	int ret;

	if (!attr || !uetp_wait_obj_ok(attr->wait_obj))
		return attr ? -FI_ENOSYS : -FI_EINVAL;
	if (attr->flags & ~(uint64_t)FI_WRITE)
		return -FI_EBADFLAGS;
	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return -FI_ENOMEM;
	eq->fabric = fab;
	eq->size = attr->size;
	eq->flags = attr->flags;
	eq->wait_obj = attr->wait_obj == FI_WAIT_UNSPEC ? FI_WAIT_FD :
		       attr->wait_obj;
	if (attr->wait_obj != FI_WAIT_NONE) {
		ret = uetp_wait_open(&eq->wait);
		if (ret) {
			free(eq);
			return ret;
		}
	}
	pthread_mutex_init(&eq->lock, NULL);
	atomic_init(&eq->ref, 0);
	eq->fid.fid.fclass = FI_CLASS_EQ;
	eq->fid.fid.context = context;
	eq->fid.fid.ops = &uetp_eq_fi_ops;
	eq->fid.ops = &uetp_eq_ops;
	atomic_fetch_add(&fab->ref, 1);
	*eqp = &eq->fid;
	return 0;
}
