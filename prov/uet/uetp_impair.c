/* FI_UET_IMPAIR: a misbehaving network for tests, applied by the progress
 * loop to received packets: drop, duplicate, or hold back (reorder).
 * The decision is the mem port's (uet/impair.h), from a stream seeded
 * here, so a run can be repeated; what is ours is the syntax and the
 * hold queue that stands in for a delay on a real port. */
#include <stdlib.h>
#include <string.h>

#include "uet/impair.h"
#include "uetp.h"

static int uetp_impair_rate(const char *v, size_t len, uint32_t *ppm)
{
	char buf[32], *end;
	double d;

	if (!len || len >= sizeof(buf))
		return -FI_EINVAL;
	memcpy(buf, v, len);
	buf[len] = '\0';
	d = strtod(buf, &end);
	if (*end || d < 0.0 || d > 1.0)
		return -FI_EINVAL;
	*ppm = (uint32_t)(d * UET_IMPAIR_PPM + 0.5);
	return 0;
}

int uetp_impair_parse(const char *s, struct uetp_impair_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->seed = 1;
	if (!s)
		return -FI_EINVAL;
	while (*s) {
		size_t len = strcspn(s, ",");
		const char *eq = memchr(s, '=', len);
		size_t klen, vlen;
		uint32_t *rate = NULL;

		if (!eq)
			return -FI_EINVAL;
		klen = (size_t)(eq - s);
		vlen = len - klen - 1;
		if (klen == 4 && !strncmp(s, "drop", 4))
			rate = &cfg->drop_ppm;
		else if (klen == 3 && !strncmp(s, "dup", 3))
			rate = &cfg->dup_ppm;
		else if (klen == 7 && !strncmp(s, "reorder", 7))
			rate = &cfg->reorder_ppm;
		if (rate) {
			if (uetp_impair_rate(eq + 1, vlen, rate))
				return -FI_EINVAL;
		} else if (klen == 4 && !strncmp(s, "seed", 4)) {
			char buf[24], *end;

			if (!vlen || vlen >= sizeof(buf))
				return -FI_EINVAL;
			memcpy(buf, eq + 1, vlen);
			buf[vlen] = '\0';
			cfg->seed = strtoull(buf, &end, 0);
			if (*end)
				return -FI_EINVAL;
		} else {
			return -FI_EINVAL;
		}
		s += len;
		if (*s == ',')
			s++;
	}
	return 0;
}

int uetp_impair_open(struct uetp_impair **impp,
		     const struct uetp_impair_cfg *cfg)
{
	struct uetp_impair *imp;

	imp = calloc(1, sizeof(*imp));
	if (!imp)
		return -FI_ENOMEM;
	imp->odds.drop_ppm = cfg->drop_ppm;
	imp->odds.dup_ppm = cfg->dup_ppm;
	imp->odds.reorder_ppm = cfg->reorder_ppm;
	imp->rng = cfg->seed;
	for (unsigned i = 0; i < UETP_IMPAIR_HOLD; i++) {
		imp->hold[i].buf = malloc(UETP_PKT_MAX);
		if (!imp->hold[i].buf) {
			uetp_impair_close(imp);
			return -FI_ENOMEM;
		}
		imp->hold[i].cap = UETP_PKT_MAX;
	}
	*impp = imp;
	return 0;
}

void uetp_impair_close(struct uetp_impair *imp)
{
	if (!imp)
		return;
	for (unsigned i = 0; i < UETP_IMPAIR_HOLD; i++)
		free(imp->hold[i].buf);
	free(imp);
}

unsigned uetp_impair_pick(struct uetp_impair *imp)
{
	return uet_impair_pick(&imp->odds, &imp->rng, imp->seq++);
}

bool uetp_impair_hold(struct uetp_impair *imp, const struct uet_net_msg *m)
{
	size_t len = uet_net_msg_len(m);
	struct uet_net_msg *h;

	if (imp->held == UETP_IMPAIR_HOLD || len > UETP_PKT_MAX)
		return false;
	h = &imp->hold[imp->held++];
	h->info = m->info;
	memcpy(h->buf, uet_net_msg_rx(m), len);	/* a lent packet too */
	h->len = len;
	return true;
}
