/* uetdump -K: the secure domains of key files, and the TSS packets of a
 * capture opened with them through uet_tss_peek (no replay state: a
 * capture may hold a packet twice, and both are shown).
 *
 * A key file is refused unless the provider would accept it too
 * (prov/uet/uetp_tss.c): a regular file, not a symbolic link, owned by
 * the user or root, with no permission bit for group or others. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump.h"
#include "uet/err.h"
#include "../tss/keyfile.h"
#include "../tss/tss.h"

#define KEY_FILE_MAX	(64u << 10)	/* as FI_UET_KEY_FILE */

/* Reads path into buf (NUL-terminated) after the checks; 0, or -1 with
 * the reason in err. */
static int keys_read(const char *path, char *buf, size_t cap, char *err,
		     size_t err_len)
{
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, err_len, "%s", errno == ELOOP ?
			 "a symbolic link; give the file itself" :
			 strerror(errno));
		return -1;
	}
	/* Checked on the open file: what was checked is what is read. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		snprintf(err, err_len, "not a regular file");
	else if (st.st_mode & (S_IRWXG | S_IRWXO))
		snprintf(err, err_len, "group or others may access it "
			 "(mode %03o); refusing its keys: chmod 600 it",
			 (unsigned)(st.st_mode & 0777));
	else if (st.st_uid != geteuid() && st.st_uid != 0)
		snprintf(err, err_len, "owned by uid %u, neither this user "
			 "nor root; refusing its keys", (unsigned)st.st_uid);
	else
		ret = 0;
	while (!ret && n < cap - 1) {
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, err_len, "%s", strerror(errno));
			ret = -1;
		}
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (!ret && n == cap - 1) {
		snprintf(err, err_len, "longer than %u bytes", KEY_FILE_MAX);
		ret = -1;
	}
	buf[n] = '\0';
	close(fd);
	return ret;
}

int dump_keys_add(struct dump_keys *ks, const char *path, char *err,
		  size_t err_len)
{
	static const struct uet_addr any = { .af = UET_AF_INET };
	struct uet_tss_cfg cfg;
	struct dump_domain *d;
	char why[160];
	char *text;
	bool has_job;
	int rc;

	if (ks->n == DUMP_KEYS_MAX) {
		snprintf(err, err_len, "%s: more than %u key files", path,
			 DUMP_KEYS_MAX);
		return -1;
	}
	text = malloc(KEY_FILE_MAX);
	if (!text) {
		snprintf(err, err_len, "%s: out of memory", path);
		return -1;
	}
	memset(&cfg, 0, sizeof(cfg));
	rc = keys_read(path, text, KEY_FILE_MAX, why, sizeof(why));
	if (!rc && uet_keyfile_parse(text, &cfg, &has_job, why, sizeof(why)))
		rc = -1;
	explicit_bzero(text, KEY_FILE_MAX);
	free(text);
	d = &ks->dom[ks->n];
	/* The slot the file sends with is of no concern to a reader. */
	if (!rc && !cfg.has_key[cfg.an])
		cfg.an = !cfg.an;
	if (!rc && uet_tss_new(&d->tss, &cfg, &any)) {
		snprintf(why, sizeof(why), "cannot set up its secure domain");
		rc = -1;
	}
	if (!rc) {
		d->sdi = cfg.sdi;
		d->has_key[0] = cfg.has_key[0];
		d->has_key[1] = cfg.has_key[1];
		ks->n++;
	} else {
		snprintf(err, err_len, "%s: %s", path, why);
	}
	explicit_bzero(&cfg, sizeof(cfg));
	return rc;
}

void dump_keys_free(struct dump_keys *ks)
{
	for (unsigned i = 0; i < ks->n; i++)
		uet_tss_free(ks->dom[i].tss);
	ks->n = 0;
}

ssize_t dump_keys_open(struct dump_keys *ks, const struct uet_addr *src,
		       const struct uet_addr *dst, const uint8_t *pkt,
		       size_t len, uint8_t *out, const char **why)
{
	struct uet_tss_hdr h;
	ssize_t rc = UET_ERR_TSS_SDI;
	bool sdi = false;

	if (uet_tss_hdr_decode(&h, pkt, len) < 0) {
		*why = "bad TSS header";
		return UET_ERR_WIRE_TRUNC;
	}
	/* Several files may name one domain (old and new keys): any that
	 * verifies will do. */
	for (unsigned i = 0; i < ks->n; i++) {
		struct dump_domain *d = &ks->dom[i];

		if (d->sdi != h.sdi)
			continue;
		sdi = true;
		if (!d->has_key[h.an])
			continue;
		rc = uet_tss_peek(d->tss, src, dst, pkt, len, out, &h);
		if (rc >= 0)
			return rc;
	}
	if (!sdi)
		*why = "unknown SDI";
	else if (rc == UET_ERR_TSS_SDI)
		*why = h.an ? "no key for AN 1" : "no key for AN 0";
	else if (rc == UET_ERR_TSS_AUTH)
		*why = "authentication failed";
	else if (rc == UET_ERR_WIRE_TRUNC && !h.sp &&
		 src->af == UET_AF_INET6)
		*why = "no SSI, which IPv6 needs";
	else if (rc == UET_ERR_WIRE_TRUNC)
		*why = "too short for its ICV";
	else
		*why = uet_err_str((int)rc);
	return rc;
}
