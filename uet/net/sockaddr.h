/* Engine addresses and socket addresses, for the ports that use sockets
 * (udp.c, rawip.c): one conversion each way and one rule for which
 * local addresses an endpoint can own. */
#ifndef UET_NET_SOCKADDR_H
#define UET_NET_SOCKADDR_H

#include <sys/socket.h>

#include "uet/addr.h"

/* a (its family and IP) with port, as a socket address; its length. */
socklen_t uet_sockaddr_from(const struct uet_addr *a, uint16_t port,
			    struct sockaddr_storage *ss);
/* The other way; the port is the one on the wire. */
void uet_sockaddr_to(const struct sockaddr_storage *ss, struct uet_addr *a);
/* A local address an endpoint can own: unicast, specified, reachable
 * without an interface index. NULL, or why not. */
const char *uet_sockaddr_local_bad(const struct uet_addr *a);

#endif
