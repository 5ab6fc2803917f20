/* Addresses as the engine sees them: no socket headers, no libfabric. */
#ifndef UET_ADDR_H
#define UET_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* Same family, address and port. */
bool uet_addr_equal(const struct uet_addr *a, const struct uet_addr *b);
/* "192.0.2.1:4793" or "[2001:db8::1]:4793" (no port part when port is 0);
 * returns what snprintf returns. */
int uet_addr_str(char *buf, size_t cap, const struct uet_addr *a);

#endif
