/* Socket options the socket ports (udp.c, rawip.c) set alike. */
#ifndef UET_NET_SOCKOPT_H
#define UET_NET_SOCKOPT_H

#include <stdbool.h>
#include <stdint.h>

/* An int option; 0 or -errno. */
int uet_sockopt_set(int fd, int level, int name, int v);

/* The default TOS / traffic class of what the socket sends (ECN bits
 * included); 0 or -errno. */
int uet_sockopt_tos(int fd, bool v6, int tos);

/* DF set, never fragment locally, where the kernel has it; 0 or -errno. */
int uet_sockopt_dont_fragment(int fd, bool v6);

/* The TOS byte of one packet: the socket's default tos, or dscp with the
 * packet's own ECN codepoint when it asks for one. */
uint8_t uet_sockopt_pkt_tos(uint8_t tos, uint8_t dscp, uint8_t ecn);

/* A buffer size (0: the kernel's default): force is SO_RCVBUFFORCE or
 * SO_SNDBUFFORCE, plain the option to fall back on (SO_RCVBUF, SO_SNDBUF). */
void uet_sockopt_buf(int fd, int force, int plain, unsigned bytes);

#endif
