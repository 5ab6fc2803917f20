/* Flag words for uetdump: PDS prologue flags by type (docs/protocol.md §3.3)
 * and SES request flags (docs/protocol.md §5.2). */
#include <stdio.h>
#include <string.h>

#include "dump.h"

struct flag_name {
	unsigned mask;
	const char *name;
};

static const struct flag_name req_flags[] = {
	{ UET_PDS_F_SYN, "SYN" }, { UET_PDS_F_AR, "AR" },
	{ UET_PDS_F_RETX, "RETX" }, { 0, NULL },
};

/* The 2-bit REQ field (mask 0x06) is handled apart. */
static const struct flag_name ack_flags[] = {
	{ UET_PDS_F_P, "P" }, { UET_PDS_F_RETX, "RETX" },
	{ UET_PDS_F_M, "M" }, { 0, NULL },
};

static const struct flag_name nack_flags[] = {
	{ UET_PDS_F_NT, "NT" }, { UET_PDS_F_RETX, "RETX" },
	{ UET_PDS_F_M, "M" }, { 0, NULL },
};

static const struct flag_name rudi_flags[] = {
	{ UET_PDS_F_RETX, "RETX" }, { UET_PDS_F_M, "M" }, { 0, NULL },
};

static const struct flag_name ses_flags[] = {
	{ UET_SES_F_SOM, "SOM" }, { UET_SES_F_EOM, "EOM" },
	{ UET_SES_F_HD, "HD" }, { UET_SES_F_REL, "REL" },
	{ UET_SES_F_IE, "IE" }, { UET_SES_F_DC, "DC" }, { 0, NULL },
};

static void append(char *buf, size_t cap, const char *word)
{
	size_t n = strlen(buf);

	if (n + 1 >= cap)
		return;
	snprintf(buf + n, cap - n, "%s%s", n ? "," : "", word);
}

/* Names the known bits of `flags`, then any leftover bits in hex. */
static void words(char *buf, size_t cap, const struct flag_name *tab,
		  unsigned flags)
{
	char hex[16];

	for (; tab && tab->name; tab++) {
		if (flags & tab->mask) {
			append(buf, cap, tab->name);
			flags &= ~tab->mask;
		}
	}
	if (flags) {
		snprintf(hex, sizeof(hex), "0x%02x", flags);
		append(buf, cap, hex);
	}
}

void dump_flags_pds(char *buf, size_t cap, unsigned type, unsigned flags)
{
	const struct flag_name *tab = NULL;

	if (!cap)
		return;
	buf[0] = '\0';
	switch (type) {
	case UET_PDS_RUD_REQ:
	case UET_PDS_ROD_REQ:
	case UET_PDS_RUD_CC_REQ:
	case UET_PDS_ROD_CC_REQ:
	case UET_PDS_CTRL:
		tab = req_flags;
		break;
	case UET_PDS_ACK:
	case UET_PDS_ACK_CC:
	case UET_PDS_ACK_CCX:
		switch (flags & UET_PDS_F_REQ_MASK) {
		case UET_PDS_F_REQ_CLEAR:
			append(buf, cap, "REQ_CLEAR");
			break;
		case UET_PDS_F_REQ_CLOSE:
			append(buf, cap, "REQ_CLOSE");
			break;
		case UET_PDS_F_REQ_MASK:
			append(buf, cap, "REQ_3");
			break;
		}
		flags &= ~UET_PDS_F_REQ_MASK;
		tab = ack_flags;
		break;
	case UET_PDS_NACK:
	case UET_PDS_NACK_CCX:
		tab = nack_flags;
		break;
	case UET_PDS_RUDI_REQ:
	case UET_PDS_RUDI_RESP:
		tab = rudi_flags;
		break;
	}
	words(buf, cap, tab, flags);
}

void dump_flags_ses(char *buf, size_t cap, unsigned flags)
{
	if (!cap)
		return;
	buf[0] = '\0';
	words(buf, cap, ses_flags, flags);
}
