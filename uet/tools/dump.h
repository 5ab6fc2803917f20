/* uetdump printers: one summary line per packet, and with -v every wire
 * field as name=value (names from uet/tools/FIELDS.md). */
#ifndef UET_TOOLS_DUMP_H
#define UET_TOOLS_DUMP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "uet/wire.h"

/* Indentation of the lines that follow a summary line. */
#define DUMP_INDENT	"    "

/* Words for the 7-bit PDS flags of a packet of `type`, comma separated in
 * bit order from the lowest ("SYN,AR,RETX"); "" when no flag is set. */
void dump_flags_pds(char *buf, size_t cap, unsigned type, unsigned flags);
/* Same for the SES request flags ("SOM,EOM,HD"). */
void dump_flags_ses(char *buf, size_t cap, unsigned flags);

/* The UET part of the summary line, after "src > dst: " (no newline). */
void dump_summary(FILE *f, const struct uet_pkt *p);

/* Every field of every header in p, one DUMP_INDENT "name=value" line each. */
void dump_fields(FILE *f, const struct uet_pkt *p);

#endif
