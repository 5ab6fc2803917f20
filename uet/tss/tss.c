/* TSS packet pipeline (docs/choices.md §11.7) for one secure domain per fep.
 *
 * Choices (docs/choices.md §11):
 * - Every packet carries the SSI (SP = 1): over UDP several endpoints
 *   share an IP address, so the address cannot tell sources apart in the
 *   IV or the replay windows. The IV is SSI || epoch || TSC, XORed with
 *   the derived mask in cluster mode (docs/choices.md §11.2).
 * - The TSC starts where the provider says (a random value), so a
 *   restarted endpoint reusing a key does not walk the IVs of its former
 *   life; it is one counter per domain, not reset by AN rotation (IVs
 *   stay unique either way).
 * - Replay windows are kept per (source, AN), created only once a packet
 *   of that source has authenticated: unauthenticated bytes make no
 *   state. When max_sources are in use the least recently heard source
 *   gives up its window; a replayed packet of it then meets PDS's
 *   duplicate checks (docs/choices.md §11.5).
 * - Failed tags are counted, never latched into dropping the whole
 *   domain: anyone can send garbage, and a latch would let them.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "uet/err.h"
#include "uet/wire.h"
#include "aead.h"
#include "kdf.h"
#include "replay.h"
#include "tss.h"

#define TSS_HDR		UET_TSS_HDR_SSI_LEN
#define TSS_AAD_MAX	(16 + 16 + TSS_HDR)

struct tss_dkey {		/* a cluster-mode key (docs/choices.md §11.4) */
	bool valid;
	uint16_t epoch;
	uint32_t rekey;
	struct uet_aead aead;
	uint8_t mask[UET_AEAD_IV_LEN];
};

struct tss_src {
	struct tss_src *next;	/* hash chain */
	uint32_t id;		/* SSI, or IPv4 source without one */
	uint8_t an;
	uint16_t epoch;		/* of the window */
	uet_time last;
	struct uet_replay win;
	struct tss_dkey dk[2];	/* cluster: newest rekey first */
};

struct uet_tss {
	struct uet_tss_cfg cfg;
	struct uet_addr local;
	uint64_t tsc;
	struct uet_aead direct[2];	/* by AN, direct mode */
	struct tss_dkey own;		/* cluster: our own sending key */
	struct tss_src **bucket;
	size_t nbucket, nsrc;
	struct uet_tss_stats st;
};

static void dkey_drop(struct tss_dkey *d)
{
	if (d->valid)
		uet_aead_fini(&d->aead);
	d->valid = false;
}

static uint32_t tss_rekey(const struct uet_tss *t, uint64_t tsc)
{
	return t->cfg.rekey_shift ? (uint32_t)(tsc >> t->cfg.rekey_shift) : 0;
}

/* KDF(SDKi[an], "U1", epoch || rekey || id), docs/choices.md §11.3. */
static int dkey_derive(struct uet_tss *t, struct tss_dkey *d, unsigned an,
		       uint16_t epoch, uint32_t rekey, uint32_t id)
{
	uint8_t ctx[10], out[UET_KDF_OUT_LEN];
	int rc;

	ctx[0] = (uint8_t)(epoch >> 8);
	ctx[1] = (uint8_t)epoch;
	for (int i = 0; i < 4; i++) {
		ctx[2 + i] = (uint8_t)(rekey >> (24 - 8 * i));
		ctx[6 + i] = (uint8_t)(id >> (24 - 8 * i));
	}
	rc = uet_kdf_tss(t->cfg.key[an], "U1", ctx, sizeof(ctx), out);
	if (!rc)
		rc = uet_aead_init(&d->aead, out);
	if (!rc) {
		memcpy(d->mask, out + UET_AEAD_KEY_LEN, sizeof(d->mask));
		d->valid = true;
		d->epoch = epoch;
		d->rekey = rekey;
		t->st.keys_derived++;
	}
	memset(out, 0, sizeof(out));
	return rc;
}

int uet_tss_new(struct uet_tss **out, const struct uet_tss_cfg *cfg,
		const struct uet_addr *local)
{
	struct uet_tss *t;
	size_t n = 64;
	int rc = 0;

	if (!cfg || cfg->mode == UET_TSS_OFF || cfg->mode > UET_TSS_CLUSTER ||
	    cfg->sdi >> 24 || cfg->an > 1 || !cfg->has_key[cfg->an] ||
	    cfg->rekey_shift > 47 || !local)
		return UET_ERR_INVAL;
	t = uet_calloc(1, sizeof(*t));
	if (!t)
		return UET_ERR_NOMEM;
	t->cfg = *cfg;
	if (!t->cfg.tsc_limit || t->cfg.tsc_limit > UET_TSS_TSC_MAX)
		t->cfg.tsc_limit = UET_TSS_TSC_MAX;
	if (!t->cfg.epoch_lifetime)
		t->cfg.epoch_lifetime = 16;
	if (!t->cfg.max_sources)
		t->cfg.max_sources = 4096;
	t->local = *local;
	t->tsc = cfg->tsc_start & UET_TSS_TSC_MAX;
	while (n < t->cfg.max_sources)
		n <<= 1;
	t->nbucket = n;
	t->bucket = uet_calloc(n, sizeof(*t->bucket));
	if (!t->bucket)
		rc = UET_ERR_NOMEM;
	for (unsigned an = 0; an < 2 && !rc; an++)
		if (cfg->mode == UET_TSS_DIRECT && cfg->has_key[an])
			rc = uet_aead_init(&t->direct[an], cfg->key[an]);
	if (rc) {
		uet_tss_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void uet_tss_free(struct uet_tss *t)
{
	if (!t)
		return;
	for (size_t b = 0; t->bucket && b < t->nbucket; b++)
		while (t->bucket[b]) {
			struct tss_src *s = t->bucket[b];

			t->bucket[b] = s->next;
			dkey_drop(&s->dk[0]);
			dkey_drop(&s->dk[1]);
			uet_free(s);
		}
	uet_free(t->bucket);
	for (unsigned an = 0; an < 2; an++)
		if (t->direct[an].enc)
			uet_aead_fini(&t->direct[an]);
	dkey_drop(&t->own);
	memset(t->cfg.key, 0, sizeof(t->cfg.key));
	uet_free(t);
}

size_t uet_tss_overhead(void)
{
	return TSS_HDR + UET_AEAD_TAG_LEN;
}

/* IP source || IP destination || TSS header. */
static size_t tss_aad(uint8_t *aad, const struct uet_addr *src,
		      const struct uet_addr *dst, const uint8_t *hdr,
		      size_t hdr_len)
{
	size_t ip = src->af == UET_AF_INET6 ? 16 : 4, n = 0;

	memcpy(aad + n, src->ip, ip);
	n += ip;
	memcpy(aad + n, dst->ip, ip);
	n += ip;
	memcpy(aad + n, hdr, hdr_len);
	return n + hdr_len;
}

static void tss_iv(uint8_t iv[UET_AEAD_IV_LEN], uint32_t id, uint16_t epoch,
		   uint64_t tsc, const uint8_t *mask)
{
	uint64_t et = (uint64_t)epoch << 48 | (tsc & UET_TSS_TSC_MAX);

	for (int i = 0; i < 4; i++)
		iv[i] = (uint8_t)(id >> (24 - 8 * i));
	for (int i = 0; i < 8; i++)
		iv[4 + i] = (uint8_t)(et >> (56 - 8 * i));
	if (mask)
		for (int i = 0; i < UET_AEAD_IV_LEN; i++)
			iv[i] ^= mask[i];
}

static ssize_t tss_seal(struct uet_tss *t, const struct uet_addr *dst,
			uint8_t *buf, size_t len, size_t cap, bool moved)
{
	struct uet_tss_hdr h = {
		.sp = true, .an = t->cfg.an, .sdi = t->cfg.sdi,
		.ssi = t->cfg.ssi, .epoch = t->cfg.epoch, .tsc = t->tsc,
	};
	uint8_t aad[TSS_AAD_MAX], iv[UET_AEAD_IV_LEN];
	struct uet_aead *key = &t->direct[t->cfg.an];
	const uint8_t *mask = NULL;
	size_t aad_len;
	int rc;

	if (cap < len + uet_tss_overhead() || dst->af != t->local.af)
		return UET_ERR_INVAL;
	if (t->tsc >= t->cfg.tsc_limit) {
		t->st.out_invoke_fail++;
		return UET_ERR_TSS_EXHAUSTED;
	}
	if (t->cfg.mode == UET_TSS_CLUSTER) {
		uint32_t rk = tss_rekey(t, t->tsc);

		if (!t->own.valid || t->own.rekey != rk ||
		    t->own.epoch != t->cfg.epoch) {
			dkey_drop(&t->own);
			rc = dkey_derive(t, &t->own, t->cfg.an, t->cfg.epoch,
					 rk, t->cfg.ssi);
			if (rc)
				return rc;
		}
		key = &t->own.aead;
		mask = t->own.mask;
	}
	if (!moved)
		memmove(buf + TSS_HDR, buf, len);
	rc = uet_tss_hdr_encode(buf, TSS_HDR, &h);
	if (rc < 0)
		return rc;
	aad_len = tss_aad(aad, &t->local, dst, buf, TSS_HDR);
	tss_iv(iv, t->cfg.ssi, t->cfg.epoch, t->tsc, mask);
	rc = uet_aead_seal(key, iv, aad, aad_len, buf + TSS_HDR, len,
			   buf + TSS_HDR, buf + TSS_HDR + len);
	if (rc)
		return rc;
	t->tsc++;
	t->st.out_auth_pkts++;
	return (ssize_t)(len + uet_tss_overhead());
}

ssize_t uet_tss_seal(struct uet_tss *t, const struct uet_addr *dst,
		     uint8_t *buf, size_t len, size_t cap)
{
	return tss_seal(t, dst, buf, len, cap, false);
}

ssize_t uet_tss_seal_in_place(struct uet_tss *t, const struct uet_addr *dst,
			      uint8_t *buf, size_t len, size_t cap)
{
	return tss_seal(t, dst, buf, len, cap, true);
}

static size_t tss_slot(const struct uet_tss *t, uint32_t id, unsigned an)
{
	uint64_t k = ((uint64_t)id << 1 | an) * 0x9E3779B97F4A7C15ull;

	return (size_t)(k >> 32) & (t->nbucket - 1);
}

static struct tss_src *tss_find(const struct uet_tss *t, uint32_t id,
				unsigned an)
{
	struct tss_src *s = t->bucket[tss_slot(t, id, an)];

	while (s && (s->id != id || s->an != an))
		s = s->next;
	return s;
}

static void tss_unlink(struct uet_tss *t, struct tss_src *s)
{
	struct tss_src **pp = &t->bucket[tss_slot(t, s->id, s->an)];

	while (*pp != s)
		pp = &(*pp)->next;
	*pp = s->next;
	dkey_drop(&s->dk[0]);
	dkey_drop(&s->dk[1]);
	t->nsrc--;
}

/* A window for a source that just authenticated; at the limit the one
 * heard from least recently is reused (O(sources), only when full). */
static struct tss_src *tss_add(struct uet_tss *t, uint32_t id, unsigned an)
{
	struct tss_src *s = NULL;

	if (t->nsrc >= t->cfg.max_sources) {
		for (size_t b = 0; b < t->nbucket; b++)
			for (struct tss_src *c = t->bucket[b]; c; c = c->next)
				if (!s || c->last < s->last)
					s = c;
		tss_unlink(t, s);
	} else {
		s = uet_malloc(sizeof(*s));
		if (!s)
			return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->id = id;
	s->an = (uint8_t)an;
	s->next = t->bucket[tss_slot(t, id, an)];
	t->bucket[tss_slot(t, id, an)] = s;
	t->nsrc++;
	return s;
}

/* Older than our epoch by more than the lifetime (docs/choices.md §11.5). */
static bool tss_epoch_late(const struct uet_tss *t, uint16_t epoch)
{
	uint16_t age = (uint16_t)(t->cfg.epoch - epoch);

	return age < 0x8000 && age > t->cfg.epoch_lifetime;
}

/* The cluster key for a packet: a cached one, or derived into *tmp. */
static struct tss_dkey *tss_rx_dkey(struct uet_tss *t, struct tss_src *s,
				    const struct uet_tss_hdr *h, uint32_t id,
				    struct tss_dkey *tmp)
{
	uint32_t rk = tss_rekey(t, h->tsc);

	for (int i = 0; s && i < 2; i++)
		if (s->dk[i].valid && s->dk[i].epoch == h->epoch &&
		    s->dk[i].rekey == rk)
			return &s->dk[i];
	if (dkey_derive(t, tmp, h->an, h->epoch, rk, id))
		return NULL;
	return tmp;
}

/* Keep a fresh derivation in the source's cache, newest first. */
static void tss_keep_dkey(struct tss_src *s, struct tss_dkey *tmp)
{
	dkey_drop(&s->dk[1]);
	s->dk[1] = s->dk[0];
	s->dk[0] = *tmp;
	tmp->valid = false;
}

ssize_t uet_tss_open(struct uet_tss *t, const struct uet_addr *src,
		     const uint8_t *pkt, size_t len, uint8_t *out,
		     uet_time now)
{
	struct uet_tss_hdr h;
	struct tss_dkey tmp = { 0 }, *dk = NULL;
	struct uet_aead *key;
	struct tss_src *s;
	uint8_t aad[TSS_AAD_MAX], iv[UET_AEAD_IV_LEN];
	size_t hl, aad_len, clear;
	uint32_t id;
	bool fresh = false;
	int rc;

	rc = uet_tss_hdr_decode(&h, pkt, len);
	if (rc < 0 || src->af != t->local.af) {
		t->st.in_invalid++;
		return rc < 0 ? rc : UET_ERR_INVAL;
	}
	hl = h.sp ? UET_TSS_HDR_SSI_LEN : UET_TSS_HDR_LEN;
	if (len < hl + UET_AEAD_TAG_LEN ||
	    (!h.sp && src->af != UET_AF_INET)) {
		t->st.in_invalid++;	/* no ICV, or no source identity */
		return UET_ERR_WIRE_TRUNC;
	}
	if (h.sdi != t->cfg.sdi || !t->cfg.has_key[h.an]) {
		t->st.in_errored_pkts++;
		return UET_ERR_TSS_SDI;
	}
	if (tss_epoch_late(t, h.epoch)) {
		t->st.in_late_pkts++;
		return UET_ERR_TSS_STALE;
	}
	id = h.sp ? h.ssi : (uint32_t)src->ip[0] << 24 |
		(uint32_t)src->ip[1] << 16 | (uint32_t)src->ip[2] << 8 |
		src->ip[3];
	s = tss_find(t, id, h.an);
	if (s && h.epoch != s->epoch) {
		/* A newer epoch restarts the source's window (once the
		 * packet authenticates); an older one is late. */
		if ((uint16_t)(h.epoch - s->epoch) >= 0x8000) {
			t->st.in_late_pkts++;
			return UET_ERR_TSS_STALE;
		}
		fresh = true;
	}
	rc = s && !fresh ? uet_replay_check(&s->win, h.tsc) : 0;
	if (rc) {
		if (rc == UET_ERR_TSS_REPLAY)
			t->st.in_replay_pkts++;
		else
			t->st.in_late_pkts++;
		return rc;
	}
	if (t->cfg.mode == UET_TSS_CLUSTER) {
		dk = tss_rx_dkey(t, s, &h, id, &tmp);
		if (!dk) {
			t->st.in_errored_pkts++;
			return UET_ERR_IO;
		}
		key = &dk->aead;
	} else {
		key = &t->direct[h.an];
	}
	clear = len - hl - UET_AEAD_TAG_LEN;
	aad_len = tss_aad(aad, src, &t->local, pkt, hl);
	tss_iv(iv, id, h.epoch, h.tsc, dk ? dk->mask : NULL);
	rc = uet_aead_open(key, iv, aad, aad_len, pkt + hl, clear, out,
			   pkt + hl + clear);
	if (rc) {
		dkey_drop(&tmp);
		t->st.in_auth_fail_pkts++;
		return rc;
	}
	if (!s)
		s = tss_add(t, id, h.an);
	if (s) {
		if (fresh || !s->win.any) {
			memset(&s->win, 0, sizeof(s->win));
			s->epoch = h.epoch;
		}
		s->last = now;
		uet_replay_accept(&s->win, h.tsc);
		if (tmp.valid)
			tss_keep_dkey(s, &tmp);
	}
	dkey_drop(&tmp);
	t->st.in_auth_pkts++;
	return (ssize_t)clear;
}

ssize_t uet_tss_peek(struct uet_tss *t, const struct uet_addr *src,
		     const struct uet_addr *dst, const uint8_t *pkt,
		     size_t len, uint8_t *out, struct uet_tss_hdr *hdr)
{
	struct tss_dkey tmp = { 0 };
	struct uet_aead *key = NULL;
	uint8_t aad[TSS_AAD_MAX], iv[UET_AEAD_IV_LEN];
	size_t hl, clear;
	uint32_t id;
	int rc;

	rc = uet_tss_hdr_decode(hdr, pkt, len);
	if (rc < 0)
		return rc;
	hl = (size_t)rc;
	if (len < hl + UET_AEAD_TAG_LEN || src->af != dst->af ||
	    (!hdr->sp && src->af != UET_AF_INET))
		return UET_ERR_WIRE_TRUNC;
	if (hdr->sdi != t->cfg.sdi || !t->cfg.has_key[hdr->an])
		return UET_ERR_TSS_SDI;
	id = hdr->sp ? hdr->ssi : (uint32_t)src->ip[0] << 24 |
		(uint32_t)src->ip[1] << 16 | (uint32_t)src->ip[2] << 8 |
		src->ip[3];
	if (t->cfg.mode == UET_TSS_CLUSTER) {
		rc = dkey_derive(t, &tmp, hdr->an, hdr->epoch,
				 tss_rekey(t, hdr->tsc), id);
		if (rc)
			return rc;
		key = &tmp.aead;
	} else {
		key = &t->direct[hdr->an];
	}
	clear = len - hl - UET_AEAD_TAG_LEN;
	tss_iv(iv, id, hdr->epoch, hdr->tsc, tmp.valid ? tmp.mask : NULL);
	rc = uet_aead_open(key, iv, aad,
			   tss_aad(aad, src, dst, pkt, hl), pkt + hl, clear,
			   out, pkt + hl + clear);
	dkey_drop(&tmp);
	return rc ? rc : (ssize_t)clear;
}

void uet_tss_bypass(struct uet_tss *t)
{
	t->st.in_bypass_pkts++;
}

bool uet_tss_bound(struct uet_tss *t, uint32_t job)
{
	if (job == t->cfg.job)
		return true;
	t->st.in_binding_failure_pkts++;
	return false;
}

int uet_tss_rotate(struct uet_tss *t, unsigned an,
		   const uint8_t key[UET_TSS_KEY_LEN])
{
	struct uet_aead a = { 0 };
	int rc;

	if (an > 1)
		return UET_ERR_INVAL;
	if (t->cfg.mode == UET_TSS_DIRECT) {
		rc = uet_aead_init(&a, key);
		if (rc)
			return rc;
		if (t->direct[an].enc)
			uet_aead_fini(&t->direct[an]);
		t->direct[an] = a;
	}
	memcpy(t->cfg.key[an], key, UET_TSS_KEY_LEN);
	t->cfg.has_key[an] = true;
	t->cfg.an = (uint8_t)an;
	/* Keys derived from the slot's old key are stale now. */
	dkey_drop(&t->own);
	for (size_t b = 0; b < t->nbucket; b++)
		for (struct tss_src *s = t->bucket[b]; s; s = s->next)
			if (s->an == an) {
				dkey_drop(&s->dk[0]);
				dkey_drop(&s->dk[1]);
				memset(&s->win, 0, sizeof(s->win));
			}
	return 0;
}

void uet_tss_stats(const struct uet_tss *t, struct uet_tss_stats *st)
{
	*st = t->st;
	st->sources = t->nsrc;
}
