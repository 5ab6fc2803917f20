/* The TSS key file (FI_UET_KEY_FILE, uetdump -K): a secure domain's
 * parameters and keys as text, one "name value" per line, '#' comments:
 *
 *	sdi 0x000001		secure domain identifier (24 bits)
 *	mode direct		direct | cluster
 *	key0 <64 hex digits>	AN 0 key (SDK, or SDKi in cluster mode)
 *	key1 <64 hex digits>	AN 1 key (optional)
 *	an 0			slot to send with (default: 0)
 *	epoch 0
 *	rekey_shift 0		cluster: new key every 2^n TSCs (0: never)
 *	job 42			JobID the domain is bound to (default: the
 *				endpoint's)
 *
 * Parsing is pure (no file access): the caller reads the file and checks
 * who may read it.
 */
#ifndef UET_TSS_KEYFILE_H
#define UET_TSS_KEYFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "uet/tss.h"

/* Fills cfg (mode, sdi, keys, an, epoch, rekey_shift; job when given, and
 * *has_job says so). 0, or UET_ERR_INVAL with a one-line reason in err
 * (which never quotes key material). */
int uet_keyfile_parse(const char *text, struct uet_tss_cfg *cfg,
		      bool *has_job, char *err, size_t err_len);

#endif
