/* Memory regions: the key table of the target side of RMA and atomics
 * (docs/choices.md §6.1, §6.4).
 *
 * Keys are looked up on every RMA packet, so the table is open addressing
 * with linear probing over a power-of-two array, grown at half load
 * (allocation only at registration) and shrunk by backward-shift deletion
 * (no tombstones). A region deregistered while return data of a read is
 * still being sent from it leaves the table at once and lives on, marked
 * dead, until its last job lets go: the user's memory is never read again
 * (uet_mr_copy sees dead and the job sends zeros with RC_BAD_MKEY).
 *
 * This file uses nothing else of SES: the front door links it into
 * programs whose SES is a stand-in.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "iov.h"
#include "ses_int.h"

#define MR_CAP_MIN	16
#define MR_ACCESS	(UET_MR_REMOTE_READ | UET_MR_REMOTE_WRITE | \
			 UET_MR_REMOTE_ATOMIC | UET_MR_VIRT_ADDR | \
			 UET_MR_IDEMPOTENT)

static size_t mr_hash(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static struct uet_ses_mr **mr_slot(struct uet_ses *ses, uint64_t key)
{
	size_t i;

	if (!ses->mr_cap)
		return NULL;
	for (i = mr_hash(key, ses->mr_cap); ses->mr_slot[i];
	     i = (i + 1) & (ses->mr_cap - 1))
		if (ses->mr_slot[i]->key == key)
			return &ses->mr_slot[i];
	return NULL;
}

struct uet_ses_mr *uet_mr_find(struct uet_ses *ses, uint64_t key)
{
	struct uet_ses_mr **s = mr_slot(ses, key);

	return s ? *s : NULL;
}

static void mr_put(struct uet_ses_mr **slot, size_t cap, struct uet_ses_mr *mr)
{
	size_t i;

	for (i = mr_hash(mr->key, cap); slot[i]; i = (i + 1) & (cap - 1))
		;
	slot[i] = mr;
}

static int mr_grow(struct uet_ses *ses)
{
	size_t cap = ses->mr_cap ? 2 * ses->mr_cap : MR_CAP_MIN, i;
	struct uet_ses_mr **slot = uet_calloc(cap, sizeof(*slot));

	if (!slot)
		return UET_ERR_NOMEM;
	for (i = 0; i < ses->mr_cap; i++)
		if (ses->mr_slot[i])
			mr_put(slot, cap, ses->mr_slot[i]);
	uet_free(ses->mr_slot);
	ses->mr_slot = slot;
	ses->mr_cap = cap;
	return 0;
}

int uet_mr_add(struct uet_ses *ses, const struct uet_ses_mr *tmpl,
	       struct uet_ses_mr **out)
{
	struct uet_ses_mr *mr;

	if (uet_mr_find(ses, tmpl->key))
		return UET_ERR_BUSY;
	if (2 * (ses->mr_n + 1) > ses->mr_cap && mr_grow(ses))
		return UET_ERR_NOMEM;
	mr = uet_malloc(sizeof(*mr));
	if (!mr)
		return UET_ERR_NOMEM;
	*mr = *tmpl;
	mr->refs = 0;
	mr->dead = false;
	mr_put(ses->mr_slot, ses->mr_cap, mr);
	ses->mr_n++;
	if (out)
		*out = mr;
	return 0;
}

int uet_mr_remove(struct uet_ses *ses, uint64_t key)
{
	struct uet_ses_mr **s = mr_slot(ses, key), *mr;
	size_t i, j, h, mask = ses->mr_cap - 1;

	if (!s)
		return UET_ERR_NOENT;
	mr = *s;
	/* Backward shift: move later members of the probe run into the hole
	 * when their home slot does not lie cyclically in (hole, them]. */
	i = (size_t)(s - ses->mr_slot);
	ses->mr_slot[i] = NULL;
	for (j = (i + 1) & mask; ses->mr_slot[j]; j = (j + 1) & mask) {
		h = mr_hash(ses->mr_slot[j]->key, ses->mr_cap);
		if (((j - h) & mask) >= ((j - i) & mask)) {
			ses->mr_slot[i] = ses->mr_slot[j];
			ses->mr_slot[j] = NULL;
			i = j;
		}
	}
	ses->mr_n--;
	mr->owner = NULL;
	if (mr->refs)
		mr->dead = true;
	else
		uet_free(mr);
	return 0;
}

void uet_mr_unref(struct uet_ses_mr *mr)
{
	if (--mr->refs == 0 && mr->dead)
		uet_free(mr);
}

void uet_mr_fini(struct uet_ses *ses)
{
	size_t i;

	/* Return jobs are freed first (uet_ses_destroy): nothing refers to
	 * a region any more. */
	for (i = 0; i < ses->mr_cap; i++)
		uet_free(ses->mr_slot[i]);
	uet_free(ses->mr_slot);
	ses->mr_slot = NULL;
	ses->mr_cap = ses->mr_n = 0;
}

int uet_ses_mr_reg(struct uet_ses *ses, const struct uet_mr_attr *attr)
{
	struct uet_ses_mr mr;
	bool idem;

	if (!attr || (attr->access & ~MR_ACCESS) ||
	    (attr->key & UET_MKEY_RSVD_MASK) || (attr->len && !attr->base))
		return UET_ERR_INVAL;
	/* Key bit 63 says the region may be targeted idempotently; it must
	 * agree with the access asked for. */
	idem = attr->access & UET_MR_IDEMPOTENT;
	if (idem != !!(attr->key & UET_MKEY_IDEMPOTENT_SAFE))
		return UET_ERR_INVAL;
	if ((attr->access & UET_MR_VIRT_ADDR) &&
	    attr->len > UINT64_MAX - (uintptr_t)attr->base)
		return UET_ERR_INVAL;
	memset(&mr, 0, sizeof(mr));
	mr.key = attr->key;
	mr.iov[0].base = attr->base;
	mr.iov[0].len = attr->len;
	mr.iov_count = 1;
	mr.len = attr->len;
	mr.va = attr->access & UET_MR_VIRT_ADDR ? (uintptr_t)attr->base : 0;
	mr.access = attr->access;
	mr.context = attr->context;
	return uet_mr_add(ses, &mr, NULL);
}

int uet_ses_mr_dereg(struct uet_ses *ses, uint64_t key)
{
	/* The engine's own (rendezvous) keys are not the caller's. */
	if (key & UET_MKEY_RSVD_MASK)
		return UET_ERR_NOENT;
	return uet_mr_remove(ses, key);
}

uint8_t uet_mr_check(struct uet_ses *ses, uint64_t key, uint64_t addr,
		     uint64_t len, uint32_t need, const struct uet_addr *peer,
		     struct uet_ses_mr **mrp, uint64_t *offp)
{
	struct uet_ses_mr *mr = uet_mr_find(ses, key);
	uint64_t off;

	if (!mr)
		return UET_RC_BAD_MKEY;
	if ((mr->access & need) != need ||
	    (mr->owner && !uet_addr_equal(&mr->peer, peer)))
		return UET_RC_PERM_VIOLATION;
	/* [addr, addr + len) inside the region, without overflow. */
	if (addr < mr->va)
		return UET_RC_BAD_ADDR;
	off = addr - mr->va;
	if (off > mr->len || len > mr->len - off)
		return UET_RC_BAD_ADDR;
	*mrp = mr;
	*offp = off;
	return UET_RC_OK;
}

/* Copy len bytes between buf and the region at off (checked by the
 * caller); a dead region is not touched: reads give zeros. */
void uet_mr_copy(const struct uet_ses_mr *mr, uint64_t off, void *buf,
		 size_t len, bool to_mr)
{
	uint8_t *p = buf;
	size_t i;

	if (mr->dead) {
		if (!to_mr)
			memset(buf, 0, len);
		return;
	}
	for (i = 0; i < mr->iov_count && len; i++) {
		size_t n;

		if (off >= mr->iov[i].len) {
			off -= mr->iov[i].len;
			continue;
		}
		n = mr->iov[i].len - (size_t)off;
		if (n > len)
			n = len;
		if (to_mr)
			memcpy((uint8_t *)mr->iov[i].base + off, p, n);
		else
			memcpy(p, (const uint8_t *)mr->iov[i].base + off, n);
		p += n;
		len -= n;
		off = 0;
	}
}

/* [off, off + len) as one pointer when it lies in one iov (atomics). */
void *uet_mr_ptr(const struct uet_ses_mr *mr, uint64_t off, size_t len)
{
	if (mr->dead)
		return NULL;
	return uet_iov_span(mr->iov, mr->iov_count, off, len);
}
