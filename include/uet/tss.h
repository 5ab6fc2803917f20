/* Transport security (TSS, docs/choices.md §11) as the provider configures
 * it: one secure domain per endpoint, bound to the endpoint's JobID, with
 * two key slots selected by the association number (AN). Keys reach the
 * engine from the provider (a key file), never from the application's
 * hints.
 */
#ifndef UET_TSS_PUB_H
#define UET_TSS_PUB_H

#include <stdbool.h>
#include <stdint.h>

#define UET_TSS_KEY_LEN		32	/* AES-256 */
#define UET_TSS_TSC_MAX		((1ull << 48) - 1)

enum uet_tss_mode {
	UET_TSS_OFF = 0,
	UET_TSS_DIRECT,		/* the SD key encrypts every packet */
	UET_TSS_CLUSTER,	/* per-source keys derived from the SD key */
};

struct uet_tss_cfg {
	enum uet_tss_mode mode;
	uint32_t sdi;			/* secure domain identifier, 24 bits */
	uint32_t job;			/* the JobID the SD is bound to */
	uint8_t key[2][UET_TSS_KEY_LEN];	/* by AN: SDK (direct), SDKi (cluster) */
	bool has_key[2];
	uint8_t an;			/* the slot we send with */
	uint16_t epoch;
	/* Our secure source identifier, sent in every packet. Unique among
	 * the domain's live sources: the provider draws it at random per
	 * endpoint, so a restarted process is a new source (its TSC starts
	 * again) and two processes on one address never share an IV. */
	uint32_t ssi;
	uint64_t tsc_start;		/* first TSC (random: see tss.c) */
	uint64_t tsc_limit;		/* no packet at or past it (0: 2^48 - 1) */
	unsigned rekey_shift;		/* cluster: new key every 2^shift TSCs
					 * (0: never) */
	uint16_t epoch_lifetime;	/* older epochs are refused (0: 16) */
	unsigned max_sources;		/* replay windows kept (0: 4096) */
};

/* Counters, named after the reference provider's (docs/choices.md §11.6). */
struct uet_tss_stats {
	uint64_t out_auth_pkts;		/* encrypted and sent */
	uint64_t out_invoke_fail;	/* not sent: TSC exhausted */
	uint64_t in_auth_pkts;		/* decrypted and verified */
	uint64_t in_auth_fail_pkts;	/* ICV did not verify */
	uint64_t in_replay_pkts;	/* TSC seen before */
	uint64_t in_late_pkts;		/* TSC or epoch too old */
	uint64_t in_errored_pkts;	/* unknown SDI, missing key slot */
	uint64_t in_invalid;		/* truncated, no SSI where needed */
	uint64_t in_binding_failure_pkts;	/* JobID not the SD's */
	uint64_t in_bypass_pkts;	/* plaintext refused */
	uint64_t sources;		/* replay windows in use */
	uint64_t keys_derived;		/* cluster-mode derivations */
};

#endif
