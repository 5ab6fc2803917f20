/* Address conversions shared by the socket ports (sockaddr.h). */
#include <netinet/in.h>
#include <string.h>

#include "sockaddr.h"

socklen_t uet_sockaddr_from(const struct uet_addr *a, uint16_t port,
			    struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->af == UET_AF_INET) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a->ip, 4);
		return sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, a->ip, 16);
		return sizeof(*s6);
	}
}

void uet_sockaddr_to(const struct sockaddr_storage *ss, struct uet_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		a->af = UET_AF_INET;
		a->port = ntohs(s4->sin_port);
		memcpy(a->ip, &s4->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		a->af = UET_AF_INET6;
		a->port = ntohs(s6->sin6_port);
		memcpy(a->ip, &s6->sin6_addr, 16);
	}
}

const char *uet_sockaddr_local_bad(const struct uet_addr *a)
{
	static const uint8_t zero[16], mapped[12] = { [10] = 0xff, 0xff };

	switch (a->af) {
	case UET_AF_INET:
		if (!memcmp(a->ip, zero, 4))
			return "unspecified address";
		if (a->ip[0] >= 224)	/* multicast, class E, broadcast */
			return "not a unicast address";
		return NULL;
	case UET_AF_INET6:
		if (!memcmp(a->ip, zero, 16))
			return "unspecified address";
		if (a->ip[0] == 0xff)
			return "multicast address";
		if (!memcmp(a->ip, mapped, 12))
			return "v4-mapped address (use UET_AF_INET)";
		if (a->ip[0] == 0xfe && (a->ip[1] & 0xc0) == 0x80)
			return "link-local address (needs an interface index)";
		return NULL;
	}
	return "no address family";
}
