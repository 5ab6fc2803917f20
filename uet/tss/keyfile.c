/* Key file parser: "name value" lines into a struct uet_tss_cfg. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet/err.h"
#include "keyfile.h"

static int kf_fail(char *err, size_t err_len, unsigned line, const char *why)
{
	snprintf(err, err_len, "line %u: %s", line, why);
	return UET_ERR_INVAL;
}

static bool kf_hex_key(const char *v, size_t n, uint8_t *key)
{
	if (n != 2 * UET_TSS_KEY_LEN)
		return false;
	for (size_t i = 0; i < UET_TSS_KEY_LEN; i++) {
		char b[3] = { v[2 * i], v[2 * i + 1], 0 };
		char *end;

		if (!isxdigit((unsigned char)b[0]) ||
		    !isxdigit((unsigned char)b[1]))
			return false;
		key[i] = (uint8_t)strtoul(b, &end, 16);
	}
	return true;
}

static bool kf_num(const char *v, unsigned long long max,
		   unsigned long long *out)
{
	char *end;

	if (!*v || *v == '-')
		return false;
	errno = 0;
	*out = strtoull(v, &end, 0);
	return !errno && !*end && *out <= max;
}

/* One "name value" line (both NUL-terminated). */
static int kf_line(const char *name, const char *v, size_t vlen,
		   struct uet_tss_cfg *cfg, bool *has_job, bool *seen_sdi)
{
	unsigned long long n;

	if (!strcmp(name, "key0") || !strcmp(name, "key1")) {
		unsigned an = name[3] - '0';

		if (!kf_hex_key(v, vlen, cfg->key[an]))
			return 1;
		cfg->has_key[an] = true;
	} else if (!strcmp(name, "mode")) {
		if (!strcmp(v, "direct"))
			cfg->mode = UET_TSS_DIRECT;
		else if (!strcmp(v, "cluster"))
			cfg->mode = UET_TSS_CLUSTER;
		else
			return 1;
	} else if (!strcmp(name, "sdi")) {
		if (!kf_num(v, 0xFFFFFF, &n))
			return 1;
		cfg->sdi = (uint32_t)n;
		*seen_sdi = true;
	} else if (!strcmp(name, "an")) {
		if (!kf_num(v, 1, &n))
			return 1;
		cfg->an = (uint8_t)n;
	} else if (!strcmp(name, "epoch")) {
		if (!kf_num(v, 0xFFFF, &n))
			return 1;
		cfg->epoch = (uint16_t)n;
	} else if (!strcmp(name, "rekey_shift")) {
		if (!kf_num(v, 47, &n))
			return 1;
		cfg->rekey_shift = (unsigned)n;
	} else if (!strcmp(name, "job")) {
		if (!kf_num(v, 0xFFFFFF, &n))
			return 1;
		cfg->job = (uint32_t)n;
		*has_job = true;
	} else {
		return 2;
	}
	return 0;
}

int uet_keyfile_parse(const char *text, struct uet_tss_cfg *cfg,
		      bool *has_job, char *err, size_t err_len)
{
	bool seen_sdi = false;
	unsigned line = 0;

	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = UET_TSS_DIRECT;
	*has_job = false;
	while (*text) {
		char buf[256], name[32], *v;
		size_t len = strcspn(text, "\n"), vlen;
		int rc;

		line++;
		if (len >= sizeof(buf))
			return kf_fail(err, err_len, line, "line too long");
		memcpy(buf, text, len);
		buf[len] = 0;
		text += len + (text[len] == '\n');
		if ((v = strchr(buf, '#')))
			*v = 0;
		v = buf + strspn(buf, " \t\r");
		if (!*v)
			continue;
		len = strcspn(v, " \t\r");
		if (len >= sizeof(name))
			return kf_fail(err, err_len, line, "unknown name");
		memcpy(name, v, len);
		name[len] = 0;
		v += len;
		v += strspn(v, " \t\r");
		vlen = strcspn(v, " \t\r");
		if (v[vlen + strspn(v + vlen, " \t\r")])
			return kf_fail(err, err_len, line,
				       "more than one value");
		v[vlen] = 0;
		rc = kf_line(name, v, vlen, cfg, has_job, &seen_sdi);
		explicit_bzero(buf, sizeof(buf));	/* may hold a key */
		if (rc == 2)
			return kf_fail(err, err_len, line, "unknown name");
		if (rc)
			return kf_fail(err, err_len, line,
				       !strncmp(name, "key", 3) ?
				       "a key is 64 hex digits" :
				       "bad value");
	}
	if (!seen_sdi)
		return kf_fail(err, err_len, line, "no sdi");
	if (!cfg->has_key[cfg->an])
		return kf_fail(err, err_len, line,
			       "no key for the slot 'an' selects");
	return 0;
}
