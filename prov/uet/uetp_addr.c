/* Endpoint names in the three formats we speak.
 *
 * FI_SOCKADDR_IN / FI_SOCKADDR_IN6: the FA and the UDP home port, which is
 * also how a peer reaches the endpoint; PIDonFEP and resource index follow
 * from the port by the SES rule (uet/addr.h).
 *
 * FI_FORMAT_UNSPEC: a fixed 32-byte, big-endian layout (fi_uet.7):
 *   0  'U' 'E'    magic (never a valid sa_family, so formats never mix up)
 *   2  version    UETP_ADDR_VERSION
 *   3  af         4 or 6
 *   4  port       UDP home port (0 over raw IP)
 *   6  pid_on_fep 12 bits
 *   8  res_index  12 bits
 *   10 reserved   0
 *   12 job_id     24 bits, informative
 *   16 ip         16 bytes, IPv4 in the first 4
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "uet/addr.h"
#include "uetp.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

size_t uetp_addr_len(uint32_t addr_format, const struct uet_addr *a)
{
	switch (addr_format) {
	case FI_SOCKADDR_IN:
		return a->af == UET_AF_INET ? sizeof(struct sockaddr_in) : 0;
	case FI_SOCKADDR_IN6:
		return a->af == UET_AF_INET6 ? sizeof(struct sockaddr_in6) : 0;
	case FI_SOCKADDR:
		return a->af == UET_AF_INET ? sizeof(struct sockaddr_in) :
		       a->af == UET_AF_INET6 ? sizeof(struct sockaddr_in6) : 0;
	case FI_FORMAT_UNSPEC:
		return UETP_ADDR_LEN;
	}
	return 0;
}

void uetp_addr_encode(void *buf, uint32_t addr_format,
		      const struct uetp_name *n)
{
	const struct uet_addr *a = &n->addr;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	uint8_t *p = buf;

	if (addr_format == FI_FORMAT_UNSPEC) {
		memset(p, 0, UETP_ADDR_LEN);
		p[0] = UETP_ADDR_MAGIC0;
		p[1] = UETP_ADDR_MAGIC1;
		p[2] = UETP_ADDR_VERSION;
		p[3] = a->af;
		put16(p + 4, a->port);
		put16(p + 6, n->pid_on_fep & 0xfff);
		put16(p + 8, n->resource_index & 0xfff);
		put32(p + 12, n->job_id & UETP_JOB_ID_MAX);
		memcpy(p + 16, a->ip, 16);
		return;
	}
	if (a->af == UET_AF_INET) {
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = htons(a->port);
		memcpy(&sin.sin_addr, a->ip, 4);
		memcpy(buf, &sin, sizeof(sin));
	} else {
		memset(&sin6, 0, sizeof(sin6));
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons(a->port);
		memcpy(&sin6.sin6_addr, a->ip, 16);
		memcpy(buf, &sin6, sizeof(sin6));
	}
}

int uetp_addr_format_of(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	sa_family_t fam;

	if (!buf || (len && len < sizeof(fam)))
		return -1;
	if (p[0] == UETP_ADDR_MAGIC0 && p[1] == UETP_ADDR_MAGIC1)
		return (!len || len >= UETP_ADDR_LEN) ? FI_FORMAT_UNSPEC : -1;
	memcpy(&fam, buf, sizeof(fam));
	if (fam == AF_INET && (!len || len >= sizeof(struct sockaddr_in)))
		return FI_SOCKADDR_IN;
	if (fam == AF_INET6 && (!len || len >= sizeof(struct sockaddr_in6)))
		return FI_SOCKADDR_IN6;
	return -1;
}

ssize_t uetp_addr_decode(const void *buf, size_t len, struct uetp_name *n)
{
	const uint8_t *p = buf;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;

	memset(n, 0, sizeof(*n));
	switch (uetp_addr_format_of(buf, len)) {
	case FI_FORMAT_UNSPEC:
		if (p[2] != UETP_ADDR_VERSION ||
		    (p[3] != UET_AF_INET && p[3] != UET_AF_INET6))
			return -FI_EINVAL;
		n->addr.af = p[3];
		n->addr.port = get16(p + 4);
		n->pid_on_fep = get16(p + 6) & 0xfff;
		n->resource_index = get16(p + 8) & 0xfff;
		n->job_id = get32(p + 12) & UETP_JOB_ID_MAX;
		memcpy(n->addr.ip, p + 16, n->addr.af == UET_AF_INET ? 4 : 16);
		return UETP_ADDR_LEN;
	case FI_SOCKADDR_IN:
		memcpy(&sin, buf, sizeof(sin));
		n->addr.af = UET_AF_INET;
		n->addr.port = ntohs(sin.sin_port);
		memcpy(n->addr.ip, &sin.sin_addr, 4);
		break;
	case FI_SOCKADDR_IN6:
		memcpy(&sin6, buf, sizeof(sin6));
		n->addr.af = UET_AF_INET6;
		n->addr.port = ntohs(sin6.sin6_port);
		memcpy(n->addr.ip, &sin6.sin6_addr, 16);
		break;
	default:
		return -FI_EINVAL;
	}
	n->pid_on_fep = uet_addr_pid(&n->addr);
	n->resource_index = uet_addr_ri(&n->addr);
	return n->addr.af == UET_AF_INET ? (ssize_t)sizeof(sin) :
					   (ssize_t)sizeof(sin6);
}

void uetp_addr_name(struct uetp_name *n, const struct uet_addr *a,
			 uint32_t job_id)
{
	n->addr = *a;
	n->pid_on_fep = uet_addr_pid(a);
	n->resource_index = uet_addr_ri(a);
	n->job_id = job_id;
}

int uetp_addr_str(char *buf, size_t cap, uint32_t addr_format,
		  const struct uetp_name *n)
{
	char a[64];

	uet_addr_str(a, sizeof(a), &n->addr);
	if (n->addr.port == 0 && n->addr.af == UET_AF_INET6 &&
	    addr_format != FI_FORMAT_UNSPEC) {
		/* keep the brackets so the text parses back */
		char tmp[64];

		snprintf(tmp, sizeof(tmp), "[%s]:0", a);
		memcpy(a, tmp, sizeof(a));
	} else if (n->addr.port == 0 && addr_format != FI_FORMAT_UNSPEC) {
		size_t l = strlen(a);

		snprintf(a + l, sizeof(a) - l, ":0");
	}
	switch (addr_format) {
	case FI_FORMAT_UNSPEC:
		return snprintf(buf, cap, "uet://%s/pid=%u,ri=%u,job=%u", a,
				n->pid_on_fep, n->resource_index, n->job_id);
	default:
		return snprintf(buf, cap, "%s://%s",
				n->addr.af == UET_AF_INET ? "fi_sockaddr_in" :
				"fi_sockaddr_in6", a);
	}
}

int uetp_addr_resolve(const char *node, const char *service, int family,
		      bool numeric, bool passive, struct uet_addr *a)
{
	struct addrinfo hints, *res = NULL;
	struct uetp_name n;
	int ret;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = family;
	hints.ai_socktype = SOCK_DGRAM;
	if (numeric)
		hints.ai_flags |= AI_NUMERICHOST;
	if (passive)
		hints.ai_flags |= AI_PASSIVE;
	ret = getaddrinfo(node, service, &hints, &res);
	if (ret) {
		FI_INFO(&uetp_prov, FI_LOG_CORE, "cannot resolve %s:%s: %s\n",
			node ? node : "", service ? service : "",
			gai_strerror(ret));
		return -FI_ENODATA;
	}
	ret = -FI_ENODATA;
	for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
		if ((ai->ai_family == AF_INET || ai->ai_family == AF_INET6) &&
		    uetp_addr_decode(ai->ai_addr, ai->ai_addrlen, &n) > 0) {
			*a = n.addr;
			ret = 0;
			break;
		}
	}
	freeaddrinfo(res);
	return ret;
}
