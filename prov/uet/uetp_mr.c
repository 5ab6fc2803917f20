/* Memory registration: fi_mr_reg/regv/regattr, fi_mr_bind, fi_mr_enable.
 *
 * A key is the UET mem_key peers put in their WRITE/READ/ATOMIC requests
 * (docs/choices.md §6.4): user keys must fit the 48-bit RKEY
 * field (bits 61:48 stay zero); with FI_MR_PROV_KEY we draw keys from the
 * kernel's CSPRNG (getrandom): without TSS the key and the JobID are all
 * that guard a region from anyone who can send to the endpoint, so a key
 * must not be guessable from the ones before it. Keys are unique in the domain (-FI_ENOKEY for a
 * duplicate, fi_mr.3), except under FI_MR_ENDPOINT with user keys, where
 * they only need to be unique per endpoint (the engine refuses the
 * duplicate at fi_mr_enable).
 *
 * Addresses: with FI_MR_VIRT_ADDR peers name the target by virtual
 * address, otherwise by offset from the start of the region (the engine's
 * UET_MR_VIRT_ADDR flag).
 *
 * The engine keeps an MR table per endpoint (struct uet_fep). A domain MR
 * goes into every enabled endpoint's engine and into each one enabled
 * later (uetp_mr_ep_enable); an FI_MR_ENDPOINT MR only into the endpoint
 * it is bound to, once enabled. Only MRs with remote access are given to
 * the engine: local-only registrations (FI_SEND, FI_RECV, FI_READ,
 * FI_WRITE) need nothing from it, we do not require FI_MR_LOCAL.
 *
 * Locking: domain->lock covers the list, the key hash and bindings; the
 * engine calls take each endpoint's lock inside it (the progress thread's
 * order).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "uet/err.h"
#include "uetp.h"

#define UETP_MR_ACCESS		(FI_SEND | FI_RECV | FI_READ | FI_WRITE | \
				 FI_REMOTE_READ | FI_REMOTE_WRITE)
#define UETP_MR_REMOTE		(FI_REMOTE_READ | FI_REMOTE_WRITE)

uint64_t uetp_mr_mode_bits(uint32_t version, uint64_t mr_mode)
{
	(void)version;
	/* fi_mr.3 "Basic Memory Registration": FI_MR_BASIC is the three
	 * bits below; FI_MR_SCALABLE (and unspecified) is none */
	if (mr_mode == FI_MR_BASIC)
		return FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	if (mr_mode == FI_MR_SCALABLE)
		return 0;
	return mr_mode;
}

/* ---- the domain's key hash ---- */

static size_t uetp_mr_slot(size_t cap, uint64_t key)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 17) & (cap - 1);
}

static struct uetp_mr *uetp_mr_find(struct uetp_domain *dom, uint64_t key)
{
	struct uetp_mr *m;

	if (!dom->mr_hash_cap)
		return NULL;
	for (m = dom->mr_hash[uetp_mr_slot(dom->mr_hash_cap, key)]; m;
	     m = m->hnext)
		if (m->mr_fid.key == key)
			return m;
	return NULL;
}

static int uetp_mr_hash_grow(struct uetp_domain *dom)
{
	size_t cap = dom->mr_hash_cap ? 2 * dom->mr_hash_cap : 64;
	struct uetp_mr **h = calloc(cap, sizeof(*h));

	if (!h)
		return -FI_ENOMEM;
	for (size_t i = 0; i < dom->mr_hash_cap; i++) {
		struct uetp_mr *m = dom->mr_hash[i], *next;

		for (; m; m = next) {
			size_t s = uetp_mr_slot(cap, m->mr_fid.key);

			next = m->hnext;
			m->hnext = h[s];
			h[s] = m;
		}
	}
	free(dom->mr_hash);
	dom->mr_hash = h;
	dom->mr_hash_cap = cap;
	return 0;
}

static int uetp_mr_hash_add(struct uetp_domain *dom, struct uetp_mr *mr)
{
	size_t s;
	int ret;

	if (dom->mr_hash_count >= dom->mr_hash_cap) {
		ret = uetp_mr_hash_grow(dom);
		if (ret)
			return ret;
	}
	s = uetp_mr_slot(dom->mr_hash_cap, mr->mr_fid.key);
	mr->hnext = dom->mr_hash[s];
	dom->mr_hash[s] = mr;
	dom->mr_hash_count++;
	mr->hashed = true;
	return 0;
}

static void uetp_mr_hash_del(struct uetp_domain *dom, struct uetp_mr *mr)
{
	struct uetp_mr **pp;

	if (!mr->hashed)
		return;
	pp = &dom->mr_hash[uetp_mr_slot(dom->mr_hash_cap, mr->mr_fid.key)];
	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == mr) {
			*pp = mr->hnext;
			dom->mr_hash_count--;
			break;
		}
	}
	mr->hashed = false;
}

/* ---- the engines ---- */

static bool uetp_mr_remote(const struct uetp_mr *mr)
{
	return !!(mr->access & UETP_MR_REMOTE);
}

static int uetp_mr_engine_reg(struct uetp_mr *mr, struct uetp_ep *ep)
{
	struct uet_mr_attr a = {
		.base = mr->base,
		.len = mr->len,
		.key = mr->mr_fid.key,
		.context = mr,
	};
	int ret;

	/* libfabric has no atomic access bit (fi_mr.3): remote access
	 * admits atomics too, and the engine applies FI_REMOTE_WRITE to
	 * those that modify and FI_REMOTE_READ to those that fetch */
	if (mr->access & FI_REMOTE_READ)
		a.access |= UET_MR_REMOTE_READ | UET_MR_REMOTE_ATOMIC;
	if (mr->access & FI_REMOTE_WRITE)
		a.access |= UET_MR_REMOTE_WRITE | UET_MR_REMOTE_ATOMIC;
	if (mr->domain->mr_mode & FI_MR_VIRT_ADDR)
		a.access |= UET_MR_VIRT_ADDR;
	if (a.key & UET_MKEY_IDEMPOTENT_SAFE)
		a.access |= UET_MR_IDEMPOTENT;
	uetp_lock_acquire(&ep->lock);
	ret = uet_fep_mr_reg(ep->fep, &a);
	uetp_lock_release(&ep->lock);
	if (ret == UET_ERR_BUSY)
		return -FI_ENOKEY;
	if (ret)
		FI_WARN(&uetp_prov, FI_LOG_MR, "engine refused key 0x%llx: %s\n",
			(unsigned long long)a.key, uet_err_str(ret));
	return uetp_errno(ret);
}

static void uetp_mr_engine_dereg(struct uetp_mr *mr, struct uetp_ep *ep)
{
	uetp_lock_acquire(&ep->lock);
	(void)uet_fep_mr_dereg(ep->fep, mr->mr_fid.key);
	uetp_lock_release(&ep->lock);
}

static bool uetp_mr_domain_scope(const struct uetp_mr *mr)
{
	return !(mr->domain->mr_mode & FI_MR_ENDPOINT);
}

/* Endpoints whose engine holds mr; domain->lock held. */
static void uetp_mr_dereg_all(struct uetp_mr *mr, struct uet_list *upto)
{
	struct uetp_domain *dom = mr->domain;
	struct uet_list *e;

	if (!mr->enabled || !uetp_mr_remote(mr))
		return;
	if (!uetp_mr_domain_scope(mr)) {
		if (mr->ep && mr->ep->enabled)
			uetp_mr_engine_dereg(mr, mr->ep);
		return;
	}
	for (e = dom->eps.next; e != &dom->eps && e != upto; e = e->next)
		uetp_mr_engine_dereg(mr, uet_container_of(e, struct uetp_ep,
							   dom_entry));
}

static int uetp_mr_reg_all(struct uetp_mr *mr)
{
	struct uetp_domain *dom = mr->domain;
	struct uet_list *e;
	int ret;

	if (!uetp_mr_remote(mr))
		return 0;
	for (e = dom->eps.next; e != &dom->eps; e = e->next) {
		ret = uetp_mr_engine_reg(mr, uet_container_of(e,
					 struct uetp_ep, dom_entry));
		if (ret) {
			uetp_mr_dereg_all(mr, e);
			return ret;
		}
	}
	return 0;
}

int uetp_mr_ep_enable(struct uetp_ep *ep)
{
	struct uetp_domain *dom = ep->domain;
	struct uet_list *e, *f;
	int ret;

	for (e = dom->mrs.next; e != &dom->mrs; e = e->next) {
		struct uetp_mr *mr = uet_container_of(e, struct uetp_mr,
						       dom_entry);

		if (!mr->enabled || !uetp_mr_remote(mr) ||
		    (!uetp_mr_domain_scope(mr) && mr->ep != ep))
			continue;
		ret = uetp_mr_engine_reg(mr, ep);
		if (ret)
			goto err;
	}
	return 0;
err:
	for (f = dom->mrs.next; f != e; f = f->next) {
		struct uetp_mr *mr = uet_container_of(f, struct uetp_mr,
						       dom_entry);

		if (mr->enabled && uetp_mr_remote(mr) &&
		    (uetp_mr_domain_scope(mr) || mr->ep == ep))
			uetp_mr_engine_dereg(mr, ep);
	}
	return ret;
}

void uetp_mr_ep_close(struct uetp_ep *ep)
{
	struct uetp_domain *dom = ep->domain;
	struct uet_list *e;

	for (e = dom->mrs.next; e != &dom->mrs; e = e->next) {
		struct uetp_mr *mr = uet_container_of(e, struct uetp_mr,
						       dom_entry);

		if (mr->ep == ep) {
			/* its engine goes with the endpoint */
			mr->ep = NULL;
			mr->enabled = false;
		}
	}
}

/* ---- counters ---- */

/* Reading an MR's counter must progress the endpoints its remote events
 * arrive through: every enabled endpoint of the domain (domain->lock). */
static int uetp_mr_cntr_hook(struct uetp_mr *mr)
{
	struct uetp_domain *dom = mr->domain;
	struct uet_list *e;
	int ret;

	for (e = dom->eps.next; e != &dom->eps; e = e->next) {
		ret = uetp_ep_hook_cntr(uet_container_of(e, struct uetp_ep,
					dom_entry), mr->cntr);
		if (ret)
			return ret;
	}
	return 0;
}

/* Does anything else still need ep hooked to cntr? */
static bool uetp_mr_cntr_needed(struct uetp_mr *mr, struct uetp_ep *ep)
{
	struct uetp_domain *dom = mr->domain;
	struct uet_list *e;

	if (uetp_ep_binds_cntr(ep, mr->cntr))
		return true;
	for (e = dom->mrs.next; e != &dom->mrs; e = e->next) {
		struct uetp_mr *m = uet_container_of(e, struct uetp_mr,
						      dom_entry);

		if (m != mr && m->cntr == mr->cntr)
			return true;
	}
	return false;
}

static void uetp_mr_cntr_unhook(struct uetp_mr *mr)
{
	struct uetp_domain *dom = mr->domain;
	struct uet_list *e;

	for (e = dom->eps.next; e != &dom->eps; e = e->next) {
		struct uetp_ep *ep = uet_container_of(e, struct uetp_ep,
						       dom_entry);

		if (!uetp_mr_cntr_needed(mr, ep))
			uetp_ep_unhook_cntr(ep, mr->cntr);
	}
}

/* ---- fid_mr ---- */

static int uetp_mr_close(struct fid *fid)
{
	struct uetp_mr *mr = uet_container_of(fid, struct uetp_mr,
					       mr_fid.fid);
	struct uetp_domain *dom = mr->domain;

	pthread_mutex_lock(&dom->lock);
	uetp_mr_dereg_all(mr, NULL);
	if (mr->cntr)
		uetp_mr_cntr_unhook(mr);
	uet_list_del(&mr->dom_entry);
	uetp_mr_hash_del(dom, mr);
	pthread_mutex_unlock(&dom->lock);
	if (mr->cntr)
		atomic_fetch_sub(&mr->cntr->ref, 1);
	atomic_fetch_sub(&dom->ref, 1);
	free(mr);
	return 0;
}

static int uetp_mr_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uetp_mr *mr = uet_container_of(fid, struct uetp_mr,
					       mr_fid.fid);
	struct uetp_domain *dom = mr->domain;
	struct uetp_cntr *cntr;
	struct uetp_ep *ep;
	int ret = 0;

	if (!bfid)
		return -FI_EINVAL;
	pthread_mutex_lock(&dom->lock);
	switch (bfid->fclass) {
	case FI_CLASS_EP:
		ep = uet_container_of(bfid, struct uetp_ep, fid.fid);
		if (flags)
			ret = -FI_EBADFLAGS;
		else if (uetp_mr_domain_scope(mr) || ep->domain != dom ||
			 mr->ep)
			ret = -FI_EINVAL;	/* not FI_MR_ENDPOINT */
		else if (mr->enabled)
			ret = -FI_EOPBADSTATE;
		else
			mr->ep = ep;
		break;
	case FI_CLASS_CNTR:
		cntr = uet_container_of(bfid, struct uetp_cntr, fid.fid);
		if (!flags || (flags & ~(uint64_t)UETP_MR_REMOTE))
			ret = -FI_EBADFLAGS;
		else if (cntr->domain != dom || mr->cntr)
			ret = -FI_EINVAL;
		else {
			mr->cntr_flags = flags;
			mr->cntr = cntr;
			atomic_fetch_add(&cntr->ref, 1);
			ret = uetp_mr_cntr_hook(mr);
		}
		break;
	default:
		ret = -FI_EINVAL;
	}
	pthread_mutex_unlock(&dom->lock);
	return ret;
}

/* fi_mr_enable: an FI_MR_ENDPOINT MR goes into its endpoint's engine. */
static int uetp_mr_enable(struct uetp_mr *mr)
{
	struct uetp_domain *dom = mr->domain;
	int ret = 0;

	pthread_mutex_lock(&dom->lock);
	if (mr->enabled)
		goto out;
	if (!mr->ep) {
		ret = -FI_EOPBADSTATE;	/* fi_mr_bind(ep) first */
		goto out;
	}
	if (mr->ep->enabled && uetp_mr_remote(mr))
		ret = uetp_mr_engine_reg(mr, mr->ep);
	if (!ret)
		mr->enabled = true;
out:
	pthread_mutex_unlock(&dom->lock);
	return ret;
}

static int uetp_mr_control(struct fid *fid, int command, void *arg)
{
	struct uetp_mr *mr = uet_container_of(fid, struct uetp_mr,
					       mr_fid.fid);

	(void)arg;
	switch (command) {
	case FI_ENABLE:
		return uetp_mr_enable(mr);
	}
	return -FI_ENOSYS;
}

static struct fi_ops uetp_mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_mr_close,
	.bind = uetp_mr_bind,
	.control = uetp_mr_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

/* ---- registration ---- */

static int uetp_mr_check(const struct uetp_domain *dom,
			 const struct fi_mr_attr *attr, uint64_t flags)
{
	uint32_t job;

	if (flags & ~(uint64_t)FI_RMA_EVENT)
		return -FI_EBADFLAGS;
	if (attr->iov_count != 1 || !attr->mr_iov)
		return -FI_EINVAL;	/* mr_iov_limit is 1 */
	if (!attr->mr_iov[0].iov_len)
		return -FI_EINVAL;	/* fi_mr.3: len must be > 0 */
	if (attr->access & ~(uint64_t)UETP_MR_ACCESS)
		return -FI_EINVAL;
	if (attr->offset)
		return -FI_EINVAL;	/* reserved, must be 0 */
	if (attr->iface != FI_HMEM_SYSTEM)
		return -FI_ENOSYS;
	if (FI_VERSION_GE(dom->api_version, FI_VERSION(1, 5)) &&
	    attr->auth_key_size) {
		/* every peer of ours shares the JobID already: a key naming
		 * our own job restricts nothing, another job is refused */
		if (attr->auth_key_size != UETP_AUTH_KEY_SIZE ||
		    !attr->auth_key)
			return -FI_EINVAL;
		memcpy(&job, attr->auth_key, sizeof(job));
		if (job != dom->job_id)
			return -FI_EINVAL;
	}
	if (!(dom->mr_mode & FI_MR_PROV_KEY) &&
	    (attr->requested_key & ~UET_MKEY_RKEY_MASK))
		return -FI_EKEYREJECTED;	/* RKEY is 48 bits */
	return 0;
}

/* 48 random bits from the kernel's CSPRNG, never from a counter. */
static int uetp_mr_random_key(uint64_t *key)
{
	uint64_t r;
	ssize_t n;

	do
		n = getrandom(&r, sizeof(r), 0);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(r)) {
		FI_WARN(&uetp_prov, FI_LOG_MR, "getrandom: %s\n",
			n < 0 ? strerror(errno) : "short read");
		return -FI_EIO;
	}
	*key = r & UET_MKEY_RKEY_MASK;
	return 0;
}

/* Choose the key and file the MR; domain->lock held. */
static int uetp_mr_key(struct uetp_domain *dom, struct uetp_mr *mr,
		       uint64_t requested)
{
	uint64_t key;

	if (dom->mr_mode & FI_MR_PROV_KEY) {
		/* FI_UET_RUDI: key bit 63 (uetp_rudi.c) */
		uint64_t idem = uetp_rudi_mr(dom, mr->access, mr->flags) ?
				UET_MKEY_IDEMPOTENT_SAFE : 0;

		do {
			int ret = uetp_mr_random_key(&key);

			if (ret)
				return ret;
		} while (!key || uetp_mr_find(dom, key | idem));
		mr->mr_fid.key = key | idem;
		return uetp_mr_hash_add(dom, mr);
	}
	mr->mr_fid.key = requested;
	if (!uetp_mr_domain_scope(mr))
		return 0;	/* per endpoint: the engine checks */
	if (uetp_mr_find(dom, requested))
		return -FI_ENOKEY;
	return uetp_mr_hash_add(dom, mr);
}

static int uetp_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			   uint64_t flags, struct fid_mr **mrp)
{
	struct uetp_domain *dom;
	struct uetp_mr *mr;
	int ret;

	if (!fid || fid->fclass != FI_CLASS_DOMAIN || !attr || !mrp)
		return -FI_EINVAL;
	dom = uet_container_of(fid, struct uetp_domain, fid.fid);
	ret = uetp_mr_check(dom, attr, flags);
	if (ret)
		return ret;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -FI_ENOMEM;
	mr->domain = dom;
	mr->access = attr->access;
	mr->flags = flags;
	mr->base = attr->mr_iov[0].iov_base;
	mr->len = attr->mr_iov[0].iov_len;
	uet_list_init(&mr->dom_entry);
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = attr->context;
	mr->mr_fid.fid.ops = &uetp_mr_fi_ops;
	mr->mr_fid.mem_desc = mr;

	pthread_mutex_lock(&dom->lock);
	ret = uetp_mr_key(dom, mr, attr->requested_key);
	if (ret)
		goto err;
	if (uetp_mr_domain_scope(mr)) {
		ret = uetp_mr_reg_all(mr);
		if (ret)
			goto err;
		mr->enabled = true;
	}
	uet_list_add_tail(&dom->mrs, &mr->dom_entry);
	pthread_mutex_unlock(&dom->lock);
	atomic_fetch_add(&dom->ref, 1);
	*mrp = &mr->mr_fid;
	return 0;
err:
	uetp_mr_hash_del(dom, mr);
	pthread_mutex_unlock(&dom->lock);
	free(mr);
	return ret;
}

static int uetp_mr_regv(struct fid *fid, const struct iovec *iov,
			size_t count, uint64_t access, uint64_t offset,
			uint64_t requested_key, uint64_t flags,
			struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key,
		.context = context,
		.iface = FI_HMEM_SYSTEM,
	};

	return uetp_mr_regattr(fid, &attr, flags, mr);
}

static int uetp_mr_reg(struct fid *fid, const void *buf, size_t len,
		       uint64_t access, uint64_t offset,
		       uint64_t requested_key, uint64_t flags,
		       struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return uetp_mr_regv(fid, &iov, 1, access, offset, requested_key,
			    flags, mr, context);
}

struct fi_ops_mr uetp_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = uetp_mr_reg,
	.regv = uetp_mr_regv,
	.regattr = uetp_mr_regattr,
};
