/* fid_av: one table serves FI_AV_TABLE and FI_AV_MAP (fi_addr = index
 * either way, assigned in insertion order and never reused), with a hash
 * from address to index for FI_SOURCE / fi_cq_readfrom.
 *
 * An entry is what the engine needs to reach a peer: FA + UDP home port.
 * Inserts are synchronous; with FI_EVENT the result is also reported on
 * the bound EQ (FI_AV_COMPLETE, errors as EQ error entries).
 *
 * Named AVs (FI_SHARED_AV, fi_av_attr.name): the table lives in a POSIX
 * shared-memory segment named after the AV, so processes of one node
 * share it. The process that opens it without FI_READ creates it and is
 * its only writer; FI_READ opens map it read-only and see the writer's
 * inserts as they happen (the entry is written before the count that
 * publishes it). map_addr points at the segment's fi_addr_t array, entry
 * i holding i. The size is fixed at creation: attr->count, at least
 * UETP_AV_SHM_MIN entries. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uetp.h"

#define UETP_AV_SHM_MAGIC	0x55455441u	/* "UETA" */
#define UETP_AV_SHM_VERSION	1
#define UETP_AV_SHM_MIN		1024
#define UETP_AV_SHM_MAX		(1u << 20)	/* 36 MiB of segment */
#define UETP_AV_NAME_MAX	200

/* The segment: this header, fi_addr_t map[cap], entries[cap]. */
struct uetp_av_shm {
	uint32_t magic;
	uint32_t version;
	uint32_t entry_size;		/* sizeof(struct uetp_av_entry) */
	int32_t creator;		/* pid of the writer */
	uint64_t cap;
	atomic_uint_fast64_t count;	/* entries published */
	uint64_t pad;
};

static fi_addr_t *uetp_av_shm_map(struct uetp_av_shm *shm)
{
	return (fi_addr_t *)(shm + 1);
}

static struct uetp_av_entry *uetp_av_shm_table(struct uetp_av_shm *shm)
{
	return (struct uetp_av_entry *)(uetp_av_shm_map(shm) + shm->cap);
}

static size_t uetp_av_shm_size(uint64_t cap)
{
	return sizeof(struct uetp_av_shm) + cap * sizeof(fi_addr_t) +
	       cap * sizeof(struct uetp_av_entry);
}

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

	if (av->shm && av->count == av->cap)
		return -FI_ENOSPC;	/* a segment does not grow */
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
	if (av->shm) {
		uetp_av_shm_map(av->shm)[*out] = *out;
		/* readers see the entry once they see the count */
		atomic_store_explicit(&av->shm->count, av->count,
				      memory_order_release);
	}
	return 0;
}

/* A reader of a named AV catches up with the writer's inserts; lock
 * held. */
static void uetp_av_sync(struct uetp_av *av)
{
	size_t n;

	if (!av->shm || av->shm_name)
		return;
	n = (size_t)atomic_load_explicit(&av->shm->count,
					 memory_order_acquire);
	if (n > av->cap)
		n = av->cap;
	if (n == av->count)
		return;
	if (2 * n > av->hash_cap) {
		size_t old = av->count;

		av->count = n;
		if (uetp_av_rehash(av, n))
			av->count = old;	/* retried on the next call */
		return;
	}
	for (size_t i = av->count; i < n; i++)
		if (av->table[i].used)
			uetp_av_hash_add(av, i);
	av->count = n;
}

int uetp_av_get(struct uetp_av *av, fi_addr_t fi_addr, struct uet_addr *a)
{
	int ret = -FI_EINVAL;

	fi_addr = uetp_av_base(av, fi_addr);	/* fi_rx_addr's index off */
	uetp_lock_acquire(&av->lock);
	uetp_av_sync(av);
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
	uetp_av_sync(av);
	if (av->hash_cap) {
		i = uetp_av_hash(a) & (av->hash_cap - 1);
		while ((idx = av->hash[i])) {
			if (uet_addr_equal(&av->table[idx - 1].addr, a) &&
			    av->table[idx - 1].used) {
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

	struct uet_addr ip = *a;

	/* over raw IP the address is the whole name: a port means nothing */
	if (uetp_env.transport == UETP_TRANSPORT_IP)
		ip.port = 0;
	else if (!a->port)
		return -FI_EINVAL;	/* unreachable from this FEP */
	if (a->af != av->domain->iface.addr.af)
		return -FI_EINVAL;
	uetp_lock_acquire(&av->lock);
	ret = uetp_av_append(av, &ip, out);
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
	if (av->flags & FI_READ)
		return -FI_EOPNOTSUPP;	/* a read-only view of a named AV */
	if ((av->flags & FI_EVENT) && !av->eq)
		return -FI_ENOEQ;
	return 0;
}

static int uetp_av_insert(struct fid_av *av_fid, const void *addr,
			  size_t count, fi_addr_t *fi_addr, uint64_t flags,
			  void *context)
{
	struct uetp_av *av = uet_container_of(av_fid, struct uetp_av, fid);
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
	struct uetp_av *av = uet_container_of(av_fid, struct uetp_av, fid);
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
	struct uetp_av *av = uet_container_of(av_fid, struct uetp_av, fid);
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
	struct uetp_av *av = uet_container_of(av_fid, struct uetp_av, fid);
	int ret = 0;

	if (flags)
		return -FI_EBADFLAGS;
	if (av->flags & FI_READ)
		return -FI_EOPNOTSUPP;
	uetp_lock_acquire(&av->lock);
	for (size_t i = 0; i < count; i++) {
		if (fi_addr[i] >= av->count || !av->table[fi_addr[i]].used) {
			ret = -FI_EINVAL;
			continue;
		}
		av->table[fi_addr[i]].used = false;
		if (av->shm)
			uetp_av_shm_map(av->shm)[fi_addr[i]] =
				FI_ADDR_NOTAVAIL;
	}
	if (av->hash_cap && uetp_av_rehash(av, av->count))
		ret = -FI_ENOMEM;
	uetp_lock_release(&av->lock);
	return ret;
}

static int uetp_av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr,
			  void *addr, size_t *addrlen)
{
	struct uetp_av *av = uet_container_of(av_fid, struct uetp_av, fid);
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
	struct uetp_av *av = uet_container_of(fid, struct uetp_av, fid.fid);

	if (flags)
		return -FI_EBADFLAGS;
	if (bfid->fclass != FI_CLASS_EQ)
		return -FI_EINVAL;
	if (av->eq)
		return -FI_EALREADY;
	av->eq = uet_container_of(bfid, struct uetp_eq, fid.fid);
	atomic_fetch_add(&av->eq->ref, 1);
	return 0;
}

static int uetp_av_close(struct fid *fid)
{
	struct uetp_av *av = uet_container_of(fid, struct uetp_av, fid.fid);

	if (atomic_load(&av->ref))
		return -FI_EBUSY;
	if (av->eq)
		atomic_fetch_sub(&av->eq->ref, 1);
	atomic_fetch_sub(&av->domain->ref, 1);
	uetp_lock_destroy(&av->lock);
	if (av->shm) {
		munmap(av->shm, av->shm_len);
		if (av->shm_name)
			shm_unlink(av->shm_name);
		free(av->shm_name);
	} else {
		free(av->table);
	}
	free(av->hash);
	free(av);
	return 0;
}

/* "/uet-av-<name>": the name must not hold a '/' of its own. */
static int uetp_av_shm_path(const char *name, char *path, size_t cap)
{
	if (!*name || strlen(name) > UETP_AV_NAME_MAX ||
	    strchr(name + (*name == '/'), '/'))
		return -FI_EINVAL;
	snprintf(path, cap, "/uet-av-%s", name + (*name == '/'));
	return 0;
}

/* The writer: create the segment, or take over one whose creator is
 * gone (a crashed run); -FI_EBUSY while another writer lives. */
static int uetp_av_shm_create(struct uetp_av *av, const char *path,
			      size_t count)
{
	uint64_t cap = count > UETP_AV_SHM_MIN ? count : UETP_AV_SHM_MIN;
	size_t len;
	struct uetp_av_shm *shm;
	int fd, ret;

	if (cap > UETP_AV_SHM_MAX)
		cap = UETP_AV_SHM_MAX;	/* count is a hint (fi_av.3) */
	len = uetp_av_shm_size(cap);

	fd = shm_open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 && errno == EEXIST) {
		struct uetp_av_shm old;

		fd = shm_open(path, O_RDWR, 0600);
		if (fd < 0)
			return -errno;
		if (pread(fd, &old, sizeof(old), 0) == (ssize_t)sizeof(old) &&
		    old.magic == UETP_AV_SHM_MAGIC && old.creator > 0 &&
		    (kill(old.creator, 0) == 0 || errno != ESRCH)) {
			close(fd);
			return -FI_EBUSY;
		}
		/* stale: start it again */
		if (ftruncate(fd, 0)) {
			ret = -errno;
			close(fd);
			return ret;
		}
	}
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len)) {
		ret = -errno;
		goto err;
	}
	shm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED) {
		ret = -errno;
		goto err;
	}
	close(fd);
	shm->version = UETP_AV_SHM_VERSION;
	shm->entry_size = sizeof(struct uetp_av_entry);
	shm->creator = (int32_t)getpid();
	shm->cap = cap;
	atomic_init(&shm->count, 0);
	for (uint64_t i = 0; i < cap; i++)
		uetp_av_shm_map(shm)[i] = FI_ADDR_NOTAVAIL;
	/* the magic last: a reader trusts the header once it sees it */
	atomic_thread_fence(memory_order_release);
	shm->magic = UETP_AV_SHM_MAGIC;
	av->shm = shm;
	av->shm_len = len;
	av->table = uetp_av_shm_table(shm);
	av->cap = cap;
	av->shm_name = strdup(path);
	if (!av->shm_name) {
		munmap(shm, len);
		shm_unlink(path);
		av->shm = NULL;
		return -FI_ENOMEM;
	}
	return 0;
err:
	close(fd);
	shm_unlink(path);
	return ret;
}

/* A reader (FI_READ): map an existing segment read-only. */
static int uetp_av_shm_attach(struct uetp_av *av, const char *path)
{
	struct uetp_av_shm hdr, *shm;
	struct stat st;
	size_t len;
	int fd, ret;

	fd = shm_open(path, O_RDONLY, 0);
	if (fd < 0)
		return errno == ENOENT ? -FI_ENOENT : -errno;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(hdr) ||
	    pread(fd, &hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    hdr.magic != UETP_AV_SHM_MAGIC ||
	    hdr.version != UETP_AV_SHM_VERSION ||
	    hdr.entry_size != sizeof(struct uetp_av_entry)) {
		ret = -FI_EINVAL;	/* not ours, or not ready */
		goto out;
	}
	len = uetp_av_shm_size(hdr.cap);
	if ((size_t)st.st_size < len) {
		ret = -FI_EINVAL;
		goto out;
	}
	shm = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (shm == MAP_FAILED) {
		ret = -errno;
		goto out;
	}
	av->shm = shm;
	av->shm_len = len;
	av->table = uetp_av_shm_table(shm);
	av->cap = hdr.cap;
	ret = 0;
out:
	close(fd);
	return ret;
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
	struct uetp_domain *dom = uet_container_of(domain, struct uetp_domain,
						    fid);
	char path[UETP_AV_NAME_MAX + 16];
	struct uetp_av *av;
	int ret;

	if (!attr)
		return -FI_EINVAL;
	if (attr->rx_ctx_bits < 0 || attr->rx_ctx_bits > UETP_RX_CTX_BITS_MAX)
		return -FI_EINVAL;	/* receive contexts: 12-bit indices */
	if (attr->flags & ~(uint64_t)(FI_EVENT | FI_SYMMETRIC | FI_READ))
		return -FI_EBADFLAGS;
	if ((attr->flags & FI_READ) && !attr->name)
		return -FI_EINVAL;	/* read-only: someone else's AV */
	if (attr->name && uetp_av_shm_path(attr->name, path, sizeof(path)))
		return -FI_EINVAL;
	if (attr->type > FI_AV_TABLE)
		return -FI_EINVAL;
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	av->domain = dom;
	av->type = attr->type == FI_AV_UNSPEC ? FI_AV_TABLE : attr->type;
	av->flags = attr->flags;
	av->rx_ctx_bits = attr->rx_ctx_bits;
	av->addr_format = dom->info->addr_format;
	if (attr->name) {
		ret = (attr->flags & FI_READ) ?
		      uetp_av_shm_attach(av, path) :
		      uetp_av_shm_create(av, path, attr->count);
		if (ret) {
			free(av);
			return ret;
		}
		/* fi_av.3: where the fi_addr_t of every entry can be read */
		attr->map_addr = uetp_av_shm_map(av->shm);
	}
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
