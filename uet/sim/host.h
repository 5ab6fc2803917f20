/* A host: one real engine instance (struct uet_fep) behind a NIC link.
 *
 * The simulator is the fep's driver loop, as the provider's progress
 * function is: it hands the fep every frame that reaches the host
 * (uet_fep_recv), runs its timeouts when due, and after either drains
 * uet_fep_poll_tx into the NIC's queue, which is unlimited (the sender's
 * own backlog; the NIC link's rate paces it), then re-arms the fep's
 * deadline. Only the public engine API is used.
 *
 * Addresses: host i is 10.a.b.c with a.b.c = i + 1, at the UET port; a
 * packet the engine sprays leaves from UDP port UET_HOST_SPRAY_BASE +
 * its entropy value (what the fabric hashes), one it sends from home
 * (SYN phase) from the home port, as the UDP port does (uet/udp.h).
 */
#ifndef UET_SIM_HOST_H
#define UET_SIM_HOST_H

#include <stdint.h>

#include "uet/addr.h"
#include "uet/fep.h"

#include "frame.h"

#define UET_HOST_PORT		4793
#define UET_HOST_SPRAY_BASE	0xC000u
#define UET_HOST_SPRAY_MASK	0x3FFFu

struct uet_sim;

struct uet_host {
	struct uet_sim *sim;
	uint32_t idx;
	struct uet_fep *fep;
	struct uet_fep_config cfg;
	struct uet_addr addr;
	uint64_t rand;		/* callbacks.rand state */
	uint32_t flows_out, flows_in;
	uint64_t fep_bytes;	/* heap uet_fep_open took */
	uint64_t rx_frames, tx_frames;
	uint64_t rx_refused;	/* uet_fep_recv said no */
	uint64_t tx_errors;	/* uet_fep_poll_tx failed */
	uet_ps last_timeout;
	bool nic_due;		/* a deadline waits for room in the NIC */
	uint64_t same_time;	/* timeouts since the clock last moved */
};

struct uet_addr uet_host_addr(uint32_t i);
/* The host at address a, or UINT32_MAX. */
uint32_t uet_host_of(const struct uet_addr *a);
/* Open h's fep with cfg (local filled in): 0 or the engine's UET_ERR_*. */
int uet_host_open(struct uet_sim *s, struct uet_host *h, uint32_t idx,
		  const struct uet_fep_config *cfg);
void uet_host_close(struct uet_host *h);
/* A frame reached the host: to the fep, then sync. Frees f. */
void uet_host_recv(struct uet_sim *s, struct uet_host *h,
		   struct uet_frame *f);
/* h's NIC can take another packet. */
void uet_host_nic_free(struct uet_sim *s, struct uet_host *h);
/* The fep's deadline passed. */
void uet_host_timeout(struct uet_sim *s, struct uet_host *h);
/* Drain the fep's packets into the NIC and re-arm its deadline: after
 * every call into the fep. */
void uet_host_sync(struct uet_sim *s, struct uet_host *h);

#endif
