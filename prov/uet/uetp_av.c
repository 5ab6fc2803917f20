/* fid_av: one table serves FI_AV_TABLE and FI_AV_MAP (fi_addr = index
 * either way, assigned in insertion order and never reused), with a hash
 * from address to index for FI_SOURCE / fi_cq_readfrom.
 *
 * An entry is what the engine needs to reach a peer: FA + UDP home port.
 * Inserts are synchronous; with FI_EVENT the result is also reported on
 * the bound EQ (FI_AV_COMPLETE, errors as EQ error entries). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uetp.h"

static uint64_t uetp_av_hash(const struct uet_addr *a)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */
	size_t n = a->af == UET_AF_INET ? 4 : 16;

	h = (h ^ a->af) * 1099511628211ULL;
	h = (h ^ (a->port >> 8)) * 1099511628211ULL;
	h = (h ^ (a->port & 0xff)) * 1099511628211ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ a->ip[i]) * 1099511628211ULL;
	return h;
}

/* Lock held. */
static void uetp_av_hash_add(struct uetp_av *av, size_t idx)
{
	size_t i = uetp_av_hash(&av->table[idx].addr) & (av->hash_cap - 1);

	while (av->hash[i]) {
		/* keep the first index of an address inserted twice */
		if (uet_addr_equal(&av->table[av->hash[i] - 1].addr,
				   &av->table[idx].addr))
			return;
		i = (i + 1) & (av->hash_cap - 1);
	}
	av->hash[i] = idx + 1;
}

/* Lock held; rebuild with room for `need` entries at load <= 1/2. */
static int uetp_av_rehash(struct uetp_av *av, size_t need)
{
	size_t cap = av->hash_cap ? av->hash_cap : 64;
	size_t *hash;

	while (cap < 2 * need)
		cap *= 2;
	hash = calloc(cap, sizeof(*hash));
	if (!hash)
		return -FI_ENOMEM;
	free(av->hash);
	av->hash = hash;
	av->hash_cap = cap;
	for (size_t i = 0; i < av->count; i++)
		if (av->table[i].used)
			uetp_av_hash_add(av, i);
	return 0;
}

/* Lock held. */
static int uetp_av_append(struct uetp_av *av, const struct uet_addr *a,
			  fi_addr_t *out)
{
	struct uetp_av_entry *t;
	size_t cap;
	int ret;

	if (av->count == av->cap) {
		cap = av->cap ? 2 * av->cap : 64;
		t = realloc(av->table, cap * sizeof(*t));
		if (!t)
			return -FI_ENOMEM;
		av->table = t;
		av->cap = cap;
	}
	if (2 * (av->count + 1) > av->hash_cap) {
		ret = uetp_av_rehash(av, av->count + 1);
		if (ret)
			return ret;
	}
	av->table[av->count].addr = *a;
	av->table[av->count].used = true;
	uetp_av_hash_add(av, av->count);
	*out = av->count++;
	return 0;
}

int uetp_av_get(struct uetp_av *av, fi_addr_t fi_addr, struct uet_addr *a)
{
	int ret = -FI_EINVAL;

	uetp_lock_acquire(&av->lock);
	if (fi_addr < av->count && av->table[fi_addr].used) {
		*a = av->table[fi_addr].addr;
		ret = 0;
	}
	uetp_lock_release(&av->lock);
	return ret;
}

fi_addr_t uetp_av_reverse(struct uetp_av *av, const struct uet_addr *a)
{
	fi_addr_t ret = FI_ADDR_NOTAVAIL;
	size_t i, idx;

	uetp_lock_acquire(&av->lock);
	if (av->hash_cap) {
		i = uetp_av_hash(a) & (av->hash_cap - 1);
		while ((idx = av->hash[i])) {
			if (uet_addr_equal(&av->table[idx - 1].addr, a)) {
				ret = idx - 1;
				break;
			}
			i = (i + 1) & (av->hash_cap - 1);
		}
	}
	uetp_lock_release(&av->lock);
	return ret;
}

/* Bytes of the address at addr. Every form we take says what it is (the
 * sockaddr family, or our name's magic, which is no family), so the
 * contents decide rather than the domain's addr_format. */
static size_t uetp_av_stride(const void *addr)
{
	switch (uetp_addr_format_of(addr, 0)) {
	case FI_SOCKADDR_IN:
		return sizeof(struct sockaddr_in);
	case FI_SOCKADDR_IN6:
		return sizeof(struct sockaddr_in6);
	case FI_FORMAT_UNSPEC:
		return UETP_ADDR_LEN;
	}
	return 0;
}

/* One address in; 0 or a negative error for FI_SYNC_ERR / the EQ. */
static int uetp_av_insert_one(struct uetp_av *av, const struct uet_addr *a,
			      fi_addr_t *out)
{
	int ret;

	if (a->af != av->domain->iface.addr.af || !a->port)
		return -FI_EINVAL;	/* unreachable from this FEP */
	uetp_lock_acquire(&av->lock);
	ret = uetp_av_append(av, a, out);
	uetp_lock_release(&av->lock);
	return ret;
}

struct uetp_av_batch {
	fi_addr_t *fi_addr;
	int *errors;			/* FI_SYNC_ERR */
	size_t done;
	int first_err;
};

static void uetp_av_batch_result(struct uetp_av *av, struct uetp_av_batch *b,
				 size_t i, int ret, fi_addr_t a, void *context)
{
	if (b->fi_addr)
		b->fi_addr[i] = ret ? FI_ADDR_NOTAVAIL : a;
	if (b->errors)
		b->errors[i] = ret;
	if (!ret) {
		b->done++;
		return;
	}
	if (!b->first_err)
		b->first_err = ret;
	if ((av->flags & FI_EVENT) && av->eq)
		uetp_eq_post(av->eq, FI_AV_COMPLETE, NULL, 0, ret, 0,
			     &av->fid.fid, context, i);
}

static int uetp_av_batch_end(struct uetp_av *av, struct uetp_av_batch *b,
			     void *context)
{
	struct fi_eq_entry ev = {
		.fid = &av->fid.fid,
		.context = context,
		.data = b->done,
	};

	if (av->flags & FI_EVENT) {
		uetp_eq_post(av->eq, FI_AV_COMPLETE, &ev, sizeof(ev), 0, 0,
			     NULL, NULL, 0);
		return 0;
	}
	return (int)b->done;
}

static int uetp_av_flags_ok(struct uetp_av *av, uint64_t flags)
{
	if (flags & ~(uint64_t)(FI_MORE | FI_SYNC_ERR))
		return -FI_EBADFLAGS;
	if ((av->flags & FI_EVENT) && !av->eq)
		return -FI_ENOEQ;
	return 0;
}

static int uetp_av_insert(struct fid_av *av_fid, const void *addr,
			  size_t count, fi_addr_t *fi_addr, uint64_t flags,
			  void *context)
{
	struct uetp_av *av = uetp_container_of(av_fid, struct uetp_av, fid);
	struct uetp_av_batch b = {
		.fi_addr = fi_addr,
		.errors = (flags & FI_SYNC_ERR) ? context : NULL,
	};
	const uint8_t *p = addr;
	struct uetp_name n;
	fi_addr_t a = FI_ADDR_NOTAVAIL;
	size_t stride;
	int ret;

	ret = uetp_av_flags_ok(av, flags);
	if (ret)
		return ret;
	if (count && !addr)
		return -FI_EINVAL;
	for (size_t i = 0; i < count; i++) {
		stride = uetp_av_stride(p);
		if (!stride || uetp_addr_decode(p, stride, &n) < 0) {
			/* without a stride the rest cannot be found */
			for (size_t j = i; j < count; j++)
				uetp_av_batch_result(av, &b, j, -FI_EINVAL,
						     a, context);
			break;
		}
		ret = uetp_av_insert_one(av, &n.addr, &a);
		uetp_av_batch_result(av, &b, i, ret, a, context);
		p += stride;
	}
	return uetp_av_batch_end(av, &b, context);
}

static int uetp_av_insertsvc(struct fid_av *av_fid, const char *node,
			     const char *service, fi_addr_t *fi_addr,
			     uint64_t flags, void *context)
{
	struct uetp_av *av = uetp_container_of(av_fid, struct uetp_av, fid);
	struct uetp_av_batch b = {
		.fi_addr = fi_addr,
		.errors = (flags & FI_SYNC_ERR) ? context : NULL,
	};
	struct uet_addr a;
	fi_addr_t fa = FI_ADDR_NOTAVAIL;
	int ret;

	ret = uetp_av_flags_ok(av, flags);
	if (ret)
		return ret;
	if (!node || !service)
		return -FI_EINVAL;
	ret = uetp_addr_resolve(node, service,
				av->domain->iface.addr.af == UET_AF_INET ?
				AF_INET : AF_INET6, false, false, &a);
	if (!ret)
		ret = uetp_av_insert_one(av, &a, &fa);
	uetp_av_batch_result(av, &b, 0, ret ? -FI_EINVAL : 0, fa, context);
	return uetp_av_batch_end(av, &b, context);
}

/* node: a numeric address, incremented nodecnt times; service: a port,
 * incremented svccnt times (fi_av.3). */
static int uetp_av_insertsym(struct fid_av *av_fid, const char *node,
			     size_t nodecnt, const char *service,
			     size_t svccnt, fi_addr_t *fi_addr,
			     uint64_t flags, void *context)
{
	struct uetp_av *av = uetp_container_of(av_fid, struct uetp_av, fid);
	struct uetp_av_batch b = {
		.fi_addr = fi_addr,
		.errors = (flags & FI_SYNC_ERR) ? context : NULL,
	};
	struct uet_addr base, a;
	fi_addr_t fa = FI_ADDR_NOTAVAIL;
	size_t k = 0;
	int ret;

	ret = uetp_av_flags_ok(av, flags);
	if (ret)
		return ret;
	if (!node || !service || !nodecnt || !svccnt)
		return -FI_EINVAL;
	ret = uetp_addr_resolve(node, service,
				av->domain->iface.addr.af == UET_AF_INET ?
				AF_INET : AF_INET6, true, false, &base);
	if (ret)
		return -FI_EINVAL;
	for (size_t i = 0; i < nodecnt; i++) {
		for (size_t j = 0; j < svccnt; j++, k++) {
			int n = base.af == UET_AF_INET ? 4 : 16;
			unsigned carry = (unsigned)i;

			a = base;
			/* add i to the address, big-endian */
			for (int byte = n - 1; byte >= 0 && carry; byte--) {
				carry += a.ip[byte];
				a.ip[byte] = (uint8_t)carry;
				carry >>= 8;
			}
			ret = base.port + j > 65535 ? -FI_EINVAL : 0;
			a.port = (uint16_t)(base.port + j);
			if (!ret)
				ret = uetp_av_insert_one(av, &a, &fa);
			uetp_av_batch_result(av, &b, k, ret, fa, context);
		}
	}
	return uetp_av_batch_end(av, &b, context);
}

static int uetp_av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr,
			  size_t count, uint64_t flags)
{
	struct uetp_av *av = uetp_container_of(av_fid, struct uetp_av, fid);
	int ret = 0;

	if (flags)
		return -FI_EBADFLAGS;
	uetp_lock_acquire(&av->lock);
	for (size_t i = 0; i < count; i++) {
		if (fi_addr[i] >= av->count || !av->table[fi_addr[i]].used) {
			ret = -FI_EINVAL;
			continue;
		}
		av->table[fi_addr[i]].used = false;
	}
	if (av->hash_cap && uetp_av_rehash(av, av->count))
		ret = -FI_ENOMEM;
	uetp_lock_release(&av->lock);
	return ret;
}

static int uetp_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr,
			  void *addr, size_t *addrlen)
{
	struct uetp_av *av = uetp_container_of(av_fid, struct uetp_av, fid);
	uint8_t tmp[UETP_ADDR_LEN > sizeof(struct sockaddr_in6) ?
		    UETP_ADDR_LEN : sizeof(struct sockaddr_in6)];
	struct uetp_name n;
	struct uet_addr a;
	size_t len;

	if (!addrlen || uetp_av_get(av, fi_addr, &a))
		return -FI_EINVAL;
	uetp_addr_name(&n, &a, av->domain->job_id);
	len = uetp_addr_len(av->addr_format, &a);
	if (!len)
		len = uetp_addr_len(FI_SOCKADDR, &a);
	uetp_addr_encode(tmp, len == UETP_ADDR_LEN ? FI_FORMAT_UNSPEC :
			 FI_SOCKADDR, &n);
	if (addr)
		memcpy(addr, tmp, *addrlen < len ? *addrlen : len);
	*addrlen = len;
	return 0;
}

static const char *uetp_av_straddr(struct fid_av *av_fid, const void *addr,
				   char *buf, size_t *len)
{
	struct uetp_name n;
	char tmp[160];
	int fmt, need;

	(void)av_fid;
	fmt = uetp_addr_format_of(addr, 0);
	if (fmt < 0 || uetp_addr_decode(addr, 0, &n) < 0)
		need = snprintf(tmp, sizeof(tmp), "(not a uet address)");
	else
		need = uetp_addr_str(tmp, sizeof(tmp), (uint32_t)fmt, &n);
	if (buf && *len)
		snprintf(buf, *len, "%s", tmp);
	*len = (size_t)need + 1;
	return buf;
}

static int uetp_av_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uetp_av *av = uetp_container_of(fid, struct uetp_av, fid.fid);

	if (flags)
		return -FI_EBADFLAGS;
	if (bfid->fclass != FI_CLASS_EQ)
		return -FI_EINVAL;
	if (av->eq)
		return -FI_EALREADY;
	av->eq = uetp_container_of(bfid, struct uetp_eq, fid.fid);
	atomic_fetch_add(&av->eq->ref, 1);
	return 0;
}

static int uetp_av_close(struct fid *fid)
{
	struct uetp_av *av = uetp_container_of(fid, struct uetp_av, fid.fid);

	if (atomic_load(&av->ref))
		return -FI_EBUSY;
	if (av->eq)
		atomic_fetch_sub(&av->eq->ref, 1);
	atomic_fetch_sub(&av->domain->ref, 1);
	uetp_lock_destroy(&av->lock);
	free(av->table);
	free(av->hash);
	free(av);
	return 0;
}

static struct fi_ops uetp_av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_av_close,
	.bind = uetp_av_bind,
	.control = uetp_enosys_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static struct fi_ops_av uetp_av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = uetp_av_insert,
	.insertsvc = uetp_av_insertsvc,
	.insertsym = uetp_av_insertsym,
	.remove = uetp_av_remove,
	.lookup = uetp_av_lookup,
	.straddr = uetp_av_straddr,
	.av_set = uetp_enosys_av_set,
};

int uetp_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		 struct fid_av **avp, void *context)
{
	struct uetp_domain *dom = uetp_container_of(domain, struct uetp_domain,
						    fid);
	struct uetp_av *av;

	if (!attr)
		return -FI_EINVAL;
	if (attr->name || (attr->flags & FI_READ) || attr->rx_ctx_bits)
		return -FI_ENOSYS;	/* shared / named AVs, scalable eps */
	if (attr->flags & ~(uint64_t)(FI_EVENT | FI_SYMMETRIC))
		return -FI_EBADFLAGS;
	if (attr->type > FI_AV_TABLE)
		return -FI_EINVAL;
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	av->domain = dom;
	av->type = attr->type == FI_AV_UNSPEC ? FI_AV_TABLE : attr->type;
	av->flags = attr->flags;
	av->addr_format = dom->info->addr_format;
	uetp_lock_init(&av->lock, dom->locking);
	atomic_init(&av->ref, 0);
	av->fid.fid.fclass = FI_CLASS_AV;
	av->fid.fid.context = context;
	av->fid.fid.ops = &uetp_av_fi_ops;
	av->fid.ops = &uetp_av_ops;
	atomic_fetch_add(&dom->ref, 1);
	*avp = &av->fid;
	return 0;
}
