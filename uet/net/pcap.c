/* pcap writer: frames UET packets in Ethernet/IP/UDP and appends them to a
 * pcap file through libpcap. See include/uet/pcap.h for the contract. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "uet/pcap.h"
#include "uet/wire.h"

#define ETH_HDR_LEN	14
#define IPV4_HDR_LEN	20
#define IPV6_HDR_LEN	40
#define UDP_HDR_LEN	8

#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_IPV6	0x86DD
#define IPPROTO_UDP_NUM	17

struct uet_pcap {
	pcap_t *dead;
	pcap_dumper_t *dumper;
	unsigned flags;
	uint64_t count;
	uint8_t *frame;			/* UET_PCAP_SNAPLEN bytes */
	char err[UET_PCAP_ERRBUF_SIZE];
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void set_err(char *buf, const char *fmt, ...)
{
	va_list ap;

	if (!buf)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, UET_PCAP_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
}

/* RFC 1071 one's-complement sum of 16-bit big-endian words. */
static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

/* Locally administered unicast MAC 02:00 + the last 4 address bytes, so
 * the two directions of a conversation show distinct, stable MACs. */
static void put_mac(uint8_t *p, const uint8_t *addr, bool ipv6)
{
	const uint8_t *tail = addr + (ipv6 ? 12 : 0);

	p[0] = 0x02;
	p[1] = 0x00;
	memcpy(p + 2, tail, 4);
}

static void put_udp(uint8_t *p, const struct uet_pcap_meta *m, size_t ulen)
{
	put16(p, m->src_port);
	put16(p + 2, m->dst_port);
	put16(p + 4, ulen);
	put16(p + 6, 0);	/* IPv4: 0 = no checksum (RFC 768) */
}

int uet_pcap_frame_hdr(uint8_t *buf, const struct uet_pcap_meta *m,
		       const uint8_t *pkt, size_t len)
{
	uint8_t proto = m->raw_ip ? (m->ip_proto ? m->ip_proto : UET_IPPROTO) :
		IPPROTO_UDP_NUM;
	size_t l4 = len + (m->raw_ip ? 0 : UDP_HDR_LEN);
	uint8_t tos = (m->dscp & 0x3f) << 2 | (m->ecn & 0x3);
	uint8_t *ip = buf + ETH_HDR_LEN;
	uint8_t *udp;
	uint32_t sum;

	if (m->dscp > 0x3f || m->ecn > 3)
		return UET_ERR_INVAL;

	put_mac(buf, m->dst, m->ipv6);
	put_mac(buf + 6, m->src, m->ipv6);
	put16(buf + 12, m->ipv6 ? ETHERTYPE_IPV6 : ETHERTYPE_IPV4);

	if (!m->ipv6) {
		if (l4 + IPV4_HDR_LEN > 0xffff)
			return UET_ERR_INVAL;
		ip[0] = 0x45;			/* version 4, IHL 5 */
		ip[1] = tos;
		put16(ip + 2, l4 + IPV4_HDR_LEN);
		put16(ip + 4, 0);	/* ID unused with DF (RFC 6864) */
		put16(ip + 6, 0x4000);		/* DF, docs/protocol.md §1.4 */
		ip[8] = 64;
		ip[9] = proto;
		put16(ip + 10, 0);
		memcpy(ip + 12, m->src, 4);
		memcpy(ip + 16, m->dst, 4);
		put16(ip + 10, csum_fold(csum_add(0, ip, IPV4_HDR_LEN)));
		if (m->raw_ip)
			return ETH_HDR_LEN + IPV4_HDR_LEN;
		put_udp(ip + IPV4_HDR_LEN, m, l4);
		return ETH_HDR_LEN + IPV4_HDR_LEN + UDP_HDR_LEN;
	}

	if (l4 > 0xffff)
		return UET_ERR_INVAL;
	ip[0] = 0x60 | tos >> 4;
	ip[1] = (tos & 0x0f) << 4;		/* flow label 0 */
	ip[2] = 0;
	ip[3] = 0;
	put16(ip + 4, l4);
	ip[6] = proto;
	ip[7] = 64;
	memcpy(ip + 8, m->src, 16);
	memcpy(ip + 24, m->dst, 16);
	if (m->raw_ip)
		return ETH_HDR_LEN + IPV6_HDR_LEN;

	/* IPv6 forbids a zero UDP checksum (RFC 8200 §8.1): pseudo-header
	 * (addresses, length, next header) + UDP header + payload. */
	udp = ip + IPV6_HDR_LEN;
	put_udp(udp, m, l4);
	sum = csum_add(0, ip + 8, 32);
	sum += (uint32_t)(l4 >> 16) + (l4 & 0xffff);
	sum += IPPROTO_UDP_NUM;
	sum = csum_add(sum, udp, UDP_HDR_LEN);
	sum = csum_add(sum, pkt, len);
	sum = csum_fold(sum);
	put16(udp + 6, sum ? sum : 0xffff);
	return ETH_HDR_LEN + IPV6_HDR_LEN + UDP_HDR_LEN;
}

/* Open path for pc's dumper under an exclusive lock, and only then
 * truncate it: a second writer (another process given the same name)
 * gets UET_ERR_BUSY instead of emptying the first one's capture. */
static int pcap_file_take(struct uet_pcap *pc, const char *path,
			  char *errbuf)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		set_err(errbuf, "%s: %s", path, strerror(errno));
		return UET_ERR_IO;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		close(fd);
		if (e == EWOULDBLOCK) {
			set_err(errbuf, "%s: another capture is writing it",
				path);
			return UET_ERR_BUSY;
		}
		set_err(errbuf, "%s: flock: %s", path, strerror(e));
		return UET_ERR_IO;
	}
	/* A FIFO (a live Wireshark) has nothing to truncate. */
	if ((!fstat(fd, &st) && S_ISREG(st.st_mode) && ftruncate(fd, 0)) ||
	    !(f = fdopen(fd, "wb"))) {
		set_err(errbuf, "%s: %s", path, strerror(errno));
		close(fd);
		return UET_ERR_IO;
	}
	pc->dumper = pcap_dump_fopen(pc->dead, f);
	if (!pc->dumper)
		fclose(f);
	return 0;
}

int uet_pcap_open(struct uet_pcap **pcp, const char *path, unsigned flags,
		  char *errbuf)
{
	struct uet_pcap *pc;
	int ret = UET_ERR_IO;

	if (!pcp || !path || (flags & ~UET_PCAP_F_FLUSH)) {
		set_err(errbuf, "uet_pcap_open: invalid argument");
		return UET_ERR_INVAL;
	}
	pc = calloc(1, sizeof(*pc));
	if (!pc || !(pc->frame = malloc(UET_PCAP_SNAPLEN))) {
		free(pc);
		set_err(errbuf, "uet_pcap_open: out of memory");
		return UET_ERR_NOMEM;
	}
	pc->flags = flags;
#ifdef PCAP_TSTAMP_PRECISION_NANO
	pc->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB,
			UET_PCAP_SNAPLEN, PCAP_TSTAMP_PRECISION_NANO);
#else
	pc->dead = pcap_open_dead(DLT_EN10MB, UET_PCAP_SNAPLEN);
#endif
	if (!pc->dead) {
		set_err(errbuf, "pcap_open_dead failed");
		goto err;
	}
	if (!strcmp(path, "-"))
		pc->dumper = pcap_dump_open(pc->dead, path);
	else if ((ret = pcap_file_take(pc, path, errbuf)))
		goto err;
	if (!pc->dumper) {
		ret = UET_ERR_IO;
		set_err(errbuf, "%s: %s", path, pcap_geterr(pc->dead));
		goto err;
	}
	*pcp = pc;
	return 0;
err:
	if (pc->dead)
		pcap_close(pc->dead);
	free(pc->frame);
	free(pc);
	return ret;
}

static int check_file(struct uet_pcap *pc, const char *what)
{
	FILE *f = pcap_dump_file(pc->dumper);

	if (f && ferror(f)) {
		set_err(pc->err, "%s: %s", what, strerror(errno));
		clearerr(f);
		return UET_ERR_IO;
	}
	return 0;
}

int uet_pcap_write(struct uet_pcap *pc, const struct uet_pcap_meta *meta,
		   const uint8_t *pkt, size_t len)
{
	struct pcap_pkthdr ph;
	size_t cap;
	int hl;

	if (!pc || !meta || (!pkt && len))
		return UET_ERR_INVAL;
	hl = uet_pcap_frame_hdr(pc->frame, meta, pkt, len);
	if (hl < 0) {
		set_err(pc->err, "packet of %zu bytes cannot be framed", len);
		return hl;
	}
	cap = len;
	if (cap > UET_PCAP_SNAPLEN - (size_t)hl)
		cap = UET_PCAP_SNAPLEN - hl;
	if (cap)
		memcpy(pc->frame + hl, pkt, cap);

	memset(&ph, 0, sizeof(ph));
	ph.ts.tv_sec = meta->ts_ns / 1000000000u;
#ifdef PCAP_TSTAMP_PRECISION_NANO
	/* nanosecond dumpers take ns in tv_usec */
	ph.ts.tv_usec = meta->ts_ns % 1000000000u;
#else
	ph.ts.tv_usec = meta->ts_ns % 1000000000u / 1000u;
#endif
	ph.caplen = hl + cap;
	ph.len = hl + len;
	pcap_dump((u_char *)pc->dumper, &ph, pc->frame);
	if (check_file(pc, "pcap write"))
		return UET_ERR_IO;
	pc->count++;
	if (pc->flags & UET_PCAP_F_FLUSH)
		return uet_pcap_flush(pc);
	return 0;
}

int uet_pcap_flush(struct uet_pcap *pc)
{
	if (!pc)
		return UET_ERR_INVAL;
	if (pcap_dump_flush(pc->dumper)) {
		set_err(pc->err, "pcap flush: %s", strerror(errno));
		return UET_ERR_IO;
	}
	return 0;
}

int uet_pcap_close(struct uet_pcap *pc)
{
	int ret = 0;

	if (!pc)
		return 0;
	if (uet_pcap_flush(pc))
		ret = UET_ERR_IO;
	pcap_dump_close(pc->dumper);
	pcap_close(pc->dead);
	free(pc->frame);
	free(pc);
	return ret;
}

const char *uet_pcap_errstr(const struct uet_pcap *pc)
{
	return pc ? pc->err : "no pcap writer";
}

uint64_t uet_pcap_count(const struct uet_pcap *pc)
{
	return pc ? pc->count : 0;
}
