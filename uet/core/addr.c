/* Engine addresses: compare and print without socket headers. */
#include <stdio.h>
#include <string.h>

#include "uet/addr.h"

/* Two words of address and one of family and port, folded by multiplies
 * (splitmix64's finalizer): the tables mask the low bits, which FNV-1a
 * byte by byte also mixed well but at 112 instructions a call, eight
 * calls per ping-pong round trip. */
uint32_t uet_addr_hash(const struct uet_addr *a)
{
	uint64_t lo, hi, x;

	memcpy(&lo, a->ip, 8);
	memcpy(&hi, a->ip + 8, 8);
	x = lo ^ (hi * 0x9e3779b97f4a7c15ull) ^
	    (((uint64_t)a->port << 8 | a->af) * 0xc2b2ae3d27d4eb4full);
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (uint32_t)x;
}

/* RFC 5952 short form: the longest run (>= 2) of zero groups becomes "::". */
static int ip6_str(char *buf, size_t cap, const uint8_t *ip)
{
	uint16_t g[8];
	int best = -1, best_len = 0, run = 0, n = 0, i;

	for (i = 0; i < 8; i++) {
		g[i] = (uint16_t)(ip[2 * i] << 8 | ip[2 * i + 1]);
		run = g[i] ? 0 : run + 1;
		if (run > best_len && run >= 2) {
			best_len = run;
			best = i - run + 1;
		}
	}
	for (i = 0; i < 8; i++) {
		if (i == best) {
			n += snprintf(buf + n, cap > (size_t)n ? cap - n : 0, "::");
			i += best_len - 1;
			continue;
		}
		n += snprintf(buf + n, cap > (size_t)n ? cap - n : 0, "%s%x",
			      (i && i != best + best_len) ? ":" : "", g[i]);
	}
	return n;
}

int uet_addr_str(char *buf, size_t cap, const struct uet_addr *a)
{
	char ip[48];

	switch (a->af) {
	case UET_AF_INET:
		snprintf(ip, sizeof(ip), "%u.%u.%u.%u", a->ip[0], a->ip[1],
			 a->ip[2], a->ip[3]);
		return a->port ? snprintf(buf, cap, "%s:%u", ip, a->port) :
				 snprintf(buf, cap, "%s", ip);
	case UET_AF_INET6:
		ip6_str(ip, sizeof(ip), a->ip);
		return a->port ? snprintf(buf, cap, "[%s]:%u", ip, a->port) :
				 snprintf(buf, cap, "%s", ip);
	}
	return snprintf(buf, cap, "(none)");
}

uint16_t uet_addr_pid(const struct uet_addr *a)
{
	return a->port & 0xFFF;
}

uint16_t uet_addr_ri(const struct uet_addr *a)
{
	(void)a;
	return 0;
}
