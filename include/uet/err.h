/* uet engine error codes. The engine never includes libfabric: the provider
 * glue maps these to -FI_E* in one place. */
#ifndef UET_ERR_H
#define UET_ERR_H

#include <stdbool.h>

enum uet_err {
	UET_OK = 0,

	/* Wire decode: one code per kind of malformed input. */
	UET_ERR_WIRE_TRUNC = -1,	/* buffer ends inside a header */
	UET_ERR_WIRE_TYPE = -2,		/* reserved or unknown PDS type */
	UET_ERR_WIRE_NEXT_HDR = -3,	/* next_hdr not allowed for the PDS type */
	UET_ERR_WIRE_RESERVED = -4,	/* a reserved bit or field is non-zero */
	UET_ERR_WIRE_FLAGS = -5,	/* flag combination not allowed */
	UET_ERR_WIRE_CTL_TYPE = -6,	/* reserved control-packet type */
	UET_ERR_WIRE_OPCODE = -7,	/* reserved SES request/response opcode */
	UET_ERR_WIRE_VERSION = -8,	/* SES version other than 0 */
	UET_ERR_WIRE_CC_TYPE = -9,	/* reserved cc_type in ACK_CC */
	UET_ERR_WIRE_AMO = -10,		/* reserved atomic opcode or datatype */
	UET_ERR_WIRE_LENGTH = -11,	/* a length field disagrees with the packet */

	/* Wire encode. */
	UET_ERR_WIRE_RANGE = -20,	/* a field value does not fit its width */
	UET_ERR_WIRE_NOSPACE = -21,	/* output buffer too small */

	/* General. */
	UET_ERR_INVAL = -40,		/* bad argument */
	UET_ERR_NOMEM = -41,
	UET_ERR_IO = -42,		/* an I/O call in uet/net failed */
	UET_ERR_DROPPED = -43,		/* a packet not for us, or not now:
					 * dropped and counted */

	/* Operations (uet/fep.h). */
	UET_ERR_AGAIN = -60,		/* no resources now: progress, retry */
	UET_ERR_TRUNC = -61,		/* receive buffer shorter than message */
	UET_ERR_CANCELED = -62,		/* operation canceled */
	UET_ERR_PEER = -63,		/* peer unreachable: retries exhausted */
	UET_ERR_REMOTE = -64,		/* target answered an error return code */
	UET_ERR_NOENT = -65,		/* nothing to cancel with that context */
	UET_ERR_MSGSIZE = -66,		/* message longer than max_msg_size */
	UET_ERR_BUSY = -67,		/* in use (an MR key already registered) */
	UET_ERR_NOSYS = -68,		/* not implemented (yet) */

	/* Transport security (uet/tss): why a packet was dropped. */
	UET_ERR_TSS_AUTH = -80,		/* ICV does not verify */
	UET_ERR_TSS_REPLAY = -81,	/* TSC seen before from this source */
	UET_ERR_TSS_STALE = -82,	/* TSC or epoch older than the window */
	UET_ERR_TSS_SDI = -83,		/* unknown or disabled secure domain */
	UET_ERR_TSS_CLEAR = -84,	/* plaintext where TSS is required */
	UET_ERR_TSS_EXHAUSTED = -85,	/* TSC at its limit: rekey needed */
	UET_ERR_TSS_BINDING = -86,	/* JobID not the secure domain's */
};

/* Short stable name of an error code ("wire: truncated header"). */
const char *uet_err_str(int err);

/* What an error means for the caller (the ngtcp2 shape):
 * - a drop: uet_fep_recv dropped the packet and counted why; nothing to
 *   do (wire decode errors, TSS refusals, UET_ERR_DROPPED, and
 *   UET_ERR_NOMEM there: the peer resends);
 * - fatal: the object can no longer do its work (out of memory while
 *   opening, an I/O failure of a port): tell the application;
 * - anything else (UET_ERR_INVAL above all) is the caller's mistake. */
bool uet_err_is_drop(int err);
bool uet_err_is_fatal(int err);

#endif
