/* Addresses as the engine sees them: no socket headers, no libfabric. */
#ifndef UET_ADDR_H
#define UET_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum uet_af {
	UET_AF_NONE = 0,
	UET_AF_INET = 4,
	UET_AF_INET6 = 6,
};

/* A Fabric Address plus what reaches an endpoint behind it: the UDP port
 * (0 for raw IP). IPv4 addresses sit in ip[0..3], the rest zero. */
struct uet_addr {
	uint8_t af;			/* enum uet_af */
	uint16_t port;
	uint8_t ip[16];
};

/* Same family and address, any port: the same host's FEP address.
 * Inline, with a fixed length per family: the send path asks this of
 * every packet (uet_fep_config_mtu_to), and a call to memcmp with a
 * length it must read took 5.8% of a sender's own time across a veth. */
static inline bool uet_addr_same_fa(const struct uet_addr *a,
				    const struct uet_addr *b)
{
	if (a->af != b->af)
		return false;
	if (a->af == UET_AF_INET)
		return !memcmp(a->ip, b->ip, 4);
	if (a->af == UET_AF_INET6)
		return !memcmp(a->ip, b->ip, 16);
	return true;
}

/* Same family, address and port. */
static inline bool uet_addr_equal(const struct uet_addr *a,
				  const struct uet_addr *b)
{
	return a->port == b->port && uet_addr_same_fa(a, b);
}
/* A hash of what uet_addr_equal compares (the unused bytes of an IPv4
 * address are zero), mixed into every bit: for hash tables keyed by
 * address, which take its low bits. */
uint32_t uet_addr_hash(const struct uet_addr *a);
/* "192.0.2.1:4793" or "[2001:db8::1]:4793" (no port part when port is 0);
 * returns what snprintf returns. */
int uet_addr_str(char *buf, size_t cap, const struct uet_addr *a);

/* The SES addressing rule, one for the engine and the provider: a peer's
 * PIDonFEP and resource index follow from its address (a fep must be
 * configured with its own, or peers' requests are refused with
 * RC_BAD_PID / RC_BAD_INDEX). */

/* PIDonFEP of the endpoint at a: the low 12 bits of its UDP home port
 * (0 for raw IP, where there is one endpoint per address). */
uint16_t uet_addr_pid(const struct uet_addr *a);
/* Resource index of the endpoint at a: 0. Its receive context i (a
 * scalable endpoint's) is at resource index 0 + i (uet_op.rx_ctx). */
uint16_t uet_addr_ri(const struct uet_addr *a);

#endif
