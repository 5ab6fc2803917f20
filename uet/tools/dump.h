/* uetdump printers: one summary line per packet, and with -v every wire
 * field as name=value (names from uet/tools/FIELDS.md). */
#ifndef UET_TOOLS_DUMP_H
#define UET_TOOLS_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "uet/addr.h"
#include "uet/wire.h"

/* Indentation of the lines that follow a summary line. */
#define DUMP_INDENT	"    "

/* Words for the 7-bit PDS flags of a packet of `type`, comma separated in
 * bit order from the lowest ("SYN,AR,RETX"); "" when no flag is set. */
void dump_flags_pds(char *buf, size_t cap, unsigned type, unsigned flags);
/* Same for the SES request flags ("SOM,EOM,HD"). */
void dump_flags_ses(char *buf, size_t cap, unsigned flags);

/* The entropy and TSS headers of a TSS packet, then "[decrypted]" or
 * how much is encrypted (no newline). */
void dump_summary_tss(FILE *f, const struct uet_pkt *p, bool decrypted);

/* The UET part of the summary line, after "src > dst: " (no newline).
 * For a TSS packet, clear is what it decrypted to (NULL: still sealed). */
void dump_summary(FILE *f, const struct uet_pkt *p,
		  const struct uet_pkt *clear);

/* Every field of every header in p (and in clear, p's decrypted TSS
 * payload, when not NULL), one DUMP_INDENT "name=value" line each. */
void dump_fields(FILE *f, const struct uet_pkt *p,
		 const struct uet_pkt *clear);

/* -K: the secure domains of the key files given. */
#define DUMP_KEYS_MAX	16

struct uet_tss;

struct dump_domain {
	struct uet_tss *tss;
	uint32_t sdi;
	bool has_key[2];	/* by AN */
};

struct dump_keys {
	unsigned n;
	struct dump_domain dom[DUMP_KEYS_MAX];
};

/* Adds the domain of key file path, refused (0 or -1, err says why)
 * unless the provider would take the file: see dump_keys.c. */
int dump_keys_add(struct dump_keys *ks, const char *path, char *err,
		  size_t err_len);
void dump_keys_free(struct dump_keys *ks);
/* pkt (len bytes from src to dst) starts with a TSS header: verifies it
 * with the domain its SDI names and decrypts it into out (room for len
 * bytes). The clear length, or an error and *why in a few words. */
ssize_t dump_keys_open(struct dump_keys *ks, const struct uet_addr *src,
		       const struct uet_addr *dst, const uint8_t *pkt,
		       size_t len, uint8_t *out, const char **why);

#endif
