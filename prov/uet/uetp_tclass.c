/* Traffic classes (fi_endpoint.3 "Traffic Class").
 *
 * Every FI_TC_* label and every fi_tc_dscp_set() value is accepted in
 * tx_attr->tclass (the endpoint's) and domain_attr->tclass (the default
 * of endpoints that name none). A class becomes a DSCP, which the
 * endpoint's UDP port writes into the IP header of every packet it sends
 * (uet/udp.h: TOS = dscp << 2 | ecn, so ECN is untouched). Labels map by
 * FI_UET_TCLASS_DSCP, RFC 4594-style by default:
 *
 *   best_effort 0 (DF), low_latency 46 (EF), dedicated_access 40 (CS5),
 *   bulk_data 10 (AF11), scavenger 8 (CS1), network_ctrl 48 (CS6).
 *
 * libfabric 1.17 has no per-operation class (struct fi_msg and the other
 * message structs carry none, no fi_setopt names one): it is fixed when
 * the endpoint opens.
 */
#include <stdlib.h>
#include <string.h>

#include "uetp.h"

static const char *const uetp_tc_names[UETP_TC_LABELS] = {
	"best_effort", "low_latency", "dedicated_access", "bulk_data",
	"scavenger", "network_ctrl",
};

static bool uetp_tclass_is_label(uint32_t tc)
{
	return tc >= FI_TC_LABEL && tc - FI_TC_LABEL < UETP_TC_LABELS;
}

static bool uetp_tclass_is_dscp(uint32_t tc)
{
	return (tc & ~0xFFu) == FI_TC_DSCP && (tc & 0xFFu) <= 63;
}

bool uetp_tclass_valid(uint32_t tc)
{
	return tc == FI_TC_UNSPEC || uetp_tclass_is_label(tc) ||
	       uetp_tclass_is_dscp(tc);
}

uint32_t uetp_tclass_resolve(uint32_t ep_tc, uint32_t dom_tc)
{
	if (ep_tc != FI_TC_UNSPEC)
		return ep_tc;
	if (dom_tc != FI_TC_UNSPEC)
		return dom_tc;
	return FI_TC_BEST_EFFORT;
}

uint8_t uetp_tclass_dscp(uint32_t tc)
{
	if (uetp_tclass_is_dscp(tc))
		return fi_tc_dscp_get(tc);
	if (uetp_tclass_is_label(tc))
		return uetp_env.tc_dscp[tc - FI_TC_LABEL];
	return uetp_env.tc_dscp[0];	/* unresolved: best effort */
}

/* One "name=dscp" of len bytes into table; false when it is not one. */
static bool uetp_tclass_pair(const char *p, size_t len,
			     uint8_t table[UETP_TC_LABELS])
{
	const char *eq = memchr(p, '=', len);
	char num[4], *end;
	size_t nlen;
	long v;

	if (!eq || (size_t)(p + len - eq - 1) >= sizeof(num))
		return false;
	nlen = (size_t)(p + len - eq - 1);
	memcpy(num, eq + 1, nlen);
	num[nlen] = '\0';
	v = strtol(num, &end, 10);
	if (!nlen || *end || v < 0 || v > 63)
		return false;
	for (size_t i = 0; i < UETP_TC_LABELS; i++) {
		if (strlen(uetp_tc_names[i]) == (size_t)(eq - p) &&
		    !strncmp(p, uetp_tc_names[i], (size_t)(eq - p))) {
			table[i] = (uint8_t)v;
			return true;
		}
	}
	return false;
}

int uetp_tclass_parse(const char *s, uint8_t table[UETP_TC_LABELS])
{
	uint8_t t[UETP_TC_LABELS];
	const char *end;
	size_t len;

	memcpy(t, table, sizeof(t));
	while (s && *s) {
		end = strchr(s, ',');
		len = end ? (size_t)(end - s) : strlen(s);
		if (!uetp_tclass_pair(s, len, t))
			return -FI_EINVAL;
		s = end ? end + 1 : NULL;
	}
	memcpy(table, t, sizeof(t));
	return 0;
}
