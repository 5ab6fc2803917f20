/* Socket options shared by the socket ports (sockopt.h). */
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "uet/net.h"

#include "sockopt.h"

int uet_sockopt_set(int fd, int level, int name, int v)
{
	return setsockopt(fd, level, name, &v, sizeof(v)) ? -errno : 0;
}

int uet_sockopt_tos(int fd, bool v6, int tos)
{
	return v6 ? uet_sockopt_set(fd, IPPROTO_IPV6, IPV6_TCLASS, tos) :
		    uet_sockopt_set(fd, IPPROTO_IP, IP_TOS, tos);
}

int uet_sockopt_dont_fragment(int fd, bool v6)
{
	return v6 ? uet_sockopt_set(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER,
				    IPV6_PMTUDISC_DO) :
		    uet_sockopt_set(fd, IPPROTO_IP, IP_MTU_DISCOVER,
				    IP_PMTUDISC_DO);
}

uint8_t uet_sockopt_pkt_tos(uint8_t tos, uint8_t dscp, uint8_t ecn)
{
	ecn &= 3;
	return ecn == UET_ECN_NOT_ECT ? tos : (uint8_t)(dscp << 2 | ecn);
}

/* The FORCE option passes rmem_max/wmem_max when we may (CAP_NET_ADMIN).
 * Capped at INT_MAX / 2 as the kernel caps it before doubling: more
 * would turn negative as an int. */
void uet_sockopt_buf(int fd, int force, int plain, unsigned bytes)
{
	int v = bytes > INT_MAX / 2 ? INT_MAX / 2 : (int)bytes;

	if (!bytes)
		return;
	if (uet_sockopt_set(fd, SOL_SOCKET, force, v))
		(void)uet_sockopt_set(fd, SOL_SOCKET, plain, v);
}
