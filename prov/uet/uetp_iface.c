/* Interface addresses: the FEPs we offer (docs/architecture.md §8.6).
 * getifaddrs() entries that are up and running, IPv4 and IPv6 (without
 * link-local: the engine's addresses carry no scope), filtered by
 * FI_UET_IFACE, loopback last; the subnet of each is its fabric name. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uetp.h"

static bool uetp_iface_wanted(const char *name)
{
	const char *p = uetp_env.iface;
	size_t n = strlen(name);

	if (!p)
		return true;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, name, n))
			return true;
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

static unsigned uetp_prefix_len(const uint8_t *mask, size_t bytes)
{
	unsigned n = 0;

	for (size_t i = 0; i < bytes; i++)
		for (int b = 7; b >= 0; b--) {
			if (!(mask[i] >> b & 1))
				return n;
			n++;
		}
	return n;
}

static bool uetp_iface_from_ifa(const struct ifaddrs *ifa,
				struct uetp_iface *ifc)
{
	const struct sockaddr_in *sin, *msk;
	const struct sockaddr_in6 *sin6, *msk6;

	memset(ifc, 0, sizeof(*ifc));
	if (ifa->ifa_addr->sa_family == AF_INET) {
		sin = (const struct sockaddr_in *)ifa->ifa_addr;
		msk = (const struct sockaddr_in *)ifa->ifa_netmask;
		ifc->addr.af = UET_AF_INET;
		memcpy(ifc->addr.ip, &sin->sin_addr, 4);
		ifc->prefix = msk ? uetp_prefix_len((const uint8_t *)
					&msk->sin_addr, 4) : 32;
	} else if (ifa->ifa_addr->sa_family == AF_INET6) {
		sin6 = (const struct sockaddr_in6 *)ifa->ifa_addr;
		msk6 = (const struct sockaddr_in6 *)ifa->ifa_netmask;
		/* link-local needs a scope id the engine's address lacks */
		if (IN6_IS_ADDR_LINKLOCAL(&sin6->sin6_addr) ||
		    IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr))
			return false;
		ifc->addr.af = UET_AF_INET6;
		memcpy(ifc->addr.ip, &sin6->sin6_addr, 16);
		ifc->prefix = msk6 ? uetp_prefix_len((const uint8_t *)
					&msk6->sin6_addr, 16) : 128;
	} else {
		return false;
	}
	snprintf(ifc->name, sizeof(ifc->name), "%s", ifa->ifa_name);
	ifc->loopback = !!(ifa->ifa_flags & IFF_LOOPBACK);
	return true;
}

int uetp_iface_list(struct uetp_iface **list, size_t *count)
{
	struct ifaddrs *ifas, *ifa;
	struct uetp_iface *out, ifc;
	size_t n = 0, cap = 0;
	int pass;

	*list = NULL;
	*count = 0;
	if (getifaddrs(&ifas))
		return -FI_ENODATA;
	for (ifa = ifas; ifa; ifa = ifa->ifa_next)
		cap++;
	out = calloc(cap ? cap : 1, sizeof(*out));
	if (!out) {
		freeifaddrs(ifas);
		return -FI_ENOMEM;
	}
	/* two passes keep getifaddrs order and put loopback last */
	for (pass = 0; pass < 2; pass++) {
		for (ifa = ifas; ifa; ifa = ifa->ifa_next) {
			if (!ifa->ifa_addr ||
			    (ifa->ifa_flags & (IFF_UP | IFF_RUNNING)) !=
			    (IFF_UP | IFF_RUNNING))
				continue;
			if (!uetp_iface_from_ifa(ifa, &ifc))
				continue;
			if (ifc.loopback != (pass == 1))
				continue;
			if (!uetp_iface_wanted(ifc.name))
				continue;
			out[n++] = ifc;
		}
	}
	freeifaddrs(ifas);
	if (!n) {
		free(out);
		return -FI_ENODATA;
	}
	*list = out;
	*count = n;
	return 0;
}

static void uetp_mask(uint8_t *ip, size_t bytes, unsigned prefix)
{
	for (size_t i = 0; i < bytes; i++) {
		unsigned bits = prefix > 8 * i ? prefix - 8 * i : 0;

		if (bits >= 8)
			continue;
		ip[i] &= (uint8_t)(0xff00 >> bits);
	}
}

void uetp_iface_cidr(const struct uetp_iface *ifc, char *buf, size_t cap)
{
	struct uet_addr net = ifc->addr;
	char a[64];

	net.port = 0;
	uetp_mask(net.ip, net.af == UET_AF_INET ? 4 : 16, ifc->prefix);
	uet_addr_str(a, sizeof(a), &net);
	snprintf(buf, cap, "%s/%u", a, ifc->prefix);
}

bool uetp_iface_contains(const struct uetp_iface *ifc,
				const struct uet_addr *a)
{
	struct uet_addr x = *a, y = ifc->addr;
	size_t bytes = a->af == UET_AF_INET ? 4 : 16;

	if (a->af != ifc->addr.af)
		return false;
	uetp_mask(x.ip, bytes, ifc->prefix);
	uetp_mask(y.ip, bytes, ifc->prefix);
	return !memcmp(x.ip, y.ip, bytes);
}

bool uetp_iface_same_ip(const struct uet_addr *a, const struct uet_addr *b)
{
	return a->af == b->af &&
	       !memcmp(a->ip, b->ip, a->af == UET_AF_INET ? 4 : 16);
}

bool uetp_iface_any_ip(const struct uet_addr *a)
{
	static const uint8_t zero[16];

	return !memcmp(a->ip, zero, a->af == UET_AF_INET ? 4 : 16);
}

int uetp_iface_find(const struct uet_addr *a, struct uetp_iface *out)
{
	struct uetp_iface *list;
	size_t n;
	int ret;

	ret = uetp_iface_list(&list, &n);
	if (ret)
		return ret;
	ret = -FI_ENODATA;
	for (size_t i = 0; i < n; i++) {
		if (uetp_iface_same_ip(&list[i].addr, a)) {
			*out = list[i];
			ret = 0;
			break;
		}
	}
	free(list);
	return ret;
}

size_t uetp_iface_mtu_pick(size_t want, size_t link, bool *clamped)
{
	if (link > UETP_PKT_MAX)
		link = UETP_PKT_MAX;
	if (link < UETP_MTU_MIN)
		link = UETP_MTU_MIN;
	*clamped = want > link;
	return want && want <= link ? want : link;
}

/* Bytes of UET one packet on the interface carries: after the IP header
 * and the UDP header, or over raw IP the entropy header. */
static size_t uetp_iface_link_mtu(const struct uetp_iface *ifc, int *ifmtu)
{
	struct ifreq ifr;
	size_t hdr;
	int fd;

	*ifmtu = 1500;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd >= 0) {
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifc->name);
		if (!ioctl(fd, SIOCGIFMTU, &ifr) && ifr.ifr_mtu > 0)
			*ifmtu = ifr.ifr_mtu;
		close(fd);
	}
	hdr = (ifc->addr.af == UET_AF_INET ? 20 : 40) +
	      (uetp_env.transport == UETP_TRANSPORT_IP ? 4 : 8);
	return (size_t)*ifmtu > hdr ? (size_t)*ifmtu - hdr : 0;
}

size_t uetp_iface_host_mtu(const struct uetp_iface *ifc, size_t mtu)
{
	struct uetp_iface lo = *ifc;
	bool clamped;
	size_t host;
	int ifmtu;

	if (!uetp_env.host_path || uetp_env.mtu)
		return 0;
	snprintf(lo.name, sizeof(lo.name), "lo");
	host = uetp_iface_mtu_pick(0, uetp_iface_link_mtu(&lo, &ifmtu),
				   &clamped);
	return host > mtu ? host : 0;
}

size_t uetp_iface_mtu(const struct uetp_iface *ifc)
{
	/* one warning per interface index (mod 64) and process */
	static atomic_uint_fast64_t warned;
	uint64_t bit;
	bool clamped;
	int ifmtu;
	size_t mtu;

	mtu = uetp_iface_mtu_pick(uetp_env.mtu,
				  uetp_iface_link_mtu(ifc, &ifmtu), &clamped);
	bit = 1ull << (if_nametoindex(ifc->name) % 64);
	if (clamped && !(atomic_fetch_or(&warned, bit) & bit))
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_MTU=%zu does not fit interface %s (MTU %d): "
			"packets of %zu bytes are sent instead\n",
			uetp_env.mtu, ifc->name, ifmtu, mtu);
	return mtu;
}
