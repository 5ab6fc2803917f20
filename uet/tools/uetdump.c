/* uetdump: print UET packets from a pcap file or a live interface, one
 * line per packet like tcpdump, or every field with -v.
 *
 * Frames: Ethernet (up to 2 VLAN tags), Linux cooked v1/v2 or raw IP;
 * then IPv4/IPv6; then UDP to or from the UET port (UDP source port =
 * entropy, docs/protocol.md §1.2) or the UET IP protocol (entropy header
 * first, docs/protocol.md §1.3). Malformed packets are shown with the
 * decoder's reason and their bytes in hex; decoding continues with the next
 * packet. With -K, TSS packets are verified and decrypted with the key
 * files' secure domains and what is inside is decoded like a clear
 * packet. */
#include "config.h"

#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcap/pcap.h>

#include "dump.h"
#include "uet/err.h"
#include "uet/wire.h"
#include "../wire/be.h"

#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_IPV6	0x86DD
#define ETHERTYPE_VLAN	0x8100
#define ETHERTYPE_QINQ	0x88A8
#define IPPROTO_UDP_NUM	17
#define MAX_VLAN_TAGS	2

struct uetdump {
	bool verbose;
	bool any_port;		/* -a: every UDP packet is UET */
	bool nano;		/* pcap timestamps are in ns */
	uint16_t port;		/* UET UDP port */
	uint8_t proto;		/* UET raw IP protocol */
	int dlt;
	uint64_t packets;
	uint64_t uet;
	uint64_t malformed;
	uint64_t gso;		/* frames cut into several UET packets */
	struct dump_keys *keys;	/* -K */
	uint64_t decrypted;
	uint64_t unverified;	/* TSS packets no key opened */
};

/* Where the UET bytes of a frame are and who sent them. */
struct frame {
	bool ipv6;
	bool raw_ip;
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t sport;
	uint16_t dport;
	uint8_t ecn;		/* IP ECN bits */
	const uint8_t *uet;
	size_t uet_len;
	bool truncated;		/* capture shorter than the packet */
};

static pcap_t *live;		/* for the SIGINT handler */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uetdump [-av] [-c COUNT] [-K KEYFILE] [-p PORT] [-P PROTO] -r FILE [FILTER...]\n"
		"       uetdump [-av] [-c COUNT] [-K KEYFILE] [-p PORT] [-P PROTO] -i IFACE [FILTER...]\n"
		"Print Ultra Ethernet Transport packets.\n"
		"  -r FILE   read packets from a pcap file ('-' = stdin)\n"
		"  -i IFACE  capture live on IFACE (needs CAP_NET_RAW)\n"
		"  -p PORT   UET UDP port (default %u)\n"
		"  -a        decode every UDP packet as UET, whatever its ports\n"
		"            (FI_UET_PCAP captures; endpoints off the IANA port)\n"
		"  -P PROTO  UET IP protocol for raw-IP mode (default %u)\n"
		"  -K FILE   TSS key file (FI_UET_KEY_FILE format, mode 600):\n"
		"            verify and decrypt TSS packets of its secure domain\n"
		"            (may be repeated)\n"
		"  -c COUNT  stop after COUNT packets\n"
		"  -v        print every header field as name=value\n"
		"  -h        show this help\n"
		"FILTER is a pcap-filter(7) expression; live capture defaults to\n"
		"'udp port PORT or ip proto PROTO or ip6 proto PROTO' ('udp or ...'\n"
		"with -a).\n",
		UET_UDP_PORT, UET_IPPROTO);
}

static void print_time(const struct uetdump *d, const struct pcap_pkthdr *h)
{
	time_t sec = h->ts.tv_sec;
	unsigned long frac = h->ts.tv_usec;
	struct tm tm;

	if (!d->nano)
		frac *= 1000;
	localtime_r(&sec, &tm);
	printf("%02d:%02d:%02d.%09lu ", tm.tm_hour, tm.tm_min, tm.tm_sec,
	       frac);
}

static void print_hex(const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i % 16 == 0)
			printf("%s" DUMP_INDENT "0x%04zx:", i ? "\n" : "", i);
		printf(" %02x", b[i]);
	}
	if (n)
		putchar('\n');
}

static void print_addr(const struct frame *fr, const uint8_t *a, bool port,
		       uint16_t p)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(fr->ipv6 ? AF_INET6 : AF_INET, a, s, sizeof(s));
	if (port)
		printf("%s.%u", s, p);
	else
		printf("%s", s);
}

/* A frame uetdump cannot take apart: one line, counted as malformed. */
static void bad_frame(struct uetdump *d, const char *why, const uint8_t *b,
		      size_t n)
{
	d->malformed++;
	printf("malformed frame: %s\n", why);
	print_hex(b, n);
}

/* IPv6 extension headers that only carry options (docs/protocol.md §1.4). */
static bool ipv6_skippable(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 60 || nh == 135;
}

/* Returns 1 if the frame holds a UET packet, 0 if it is other traffic
 * (described in `why`), -1 if its IP/UDP framing is broken. */
static int parse_ip(const struct uetdump *d, struct frame *fr,
		    const uint8_t *b, size_t caplen, size_t wirelen,
		    const char **why)
{
	size_t hl, iplen, l4len, avail;
	uint8_t proto;

	if (caplen < 1) {
		*why = "truncated IP header";
		return -1;
	}
	fr->ipv6 = (b[0] >> 4) == 6;
	if ((b[0] >> 4) == 4) {
		if (caplen < 20 || (b[0] & 0xf) < 5 ||
		    caplen < (size_t)(b[0] & 0xf) * 4) {
			*why = "truncated IPv4 header";
			return -1;
		}
		hl = (size_t)(b[0] & 0xf) * 4;
		iplen = uet_be_get16(b + 2);
		if (iplen < hl || iplen > wirelen) {
			*why = "bad IPv4 total length";
			return -1;
		}
		if (uet_be_get16(b + 6) & 0x3fff) {
			*why = "IPv4 fragment";
			return 0;
		}
		proto = b[9];
		fr->ecn = b[1] & 0x3;
		memcpy(fr->src, b + 12, 4);
		memcpy(fr->dst, b + 16, 4);
		l4len = iplen - hl;
	} else if (fr->ipv6) {
		if (caplen < 40) {
			*why = "truncated IPv6 header";
			return -1;
		}
		l4len = uet_be_get16(b + 4);
		if (l4len + 40 > wirelen) {
			*why = "bad IPv6 payload length";
			return -1;
		}
		proto = b[6];
		fr->ecn = (b[1] >> 4) & 0x3;
		memcpy(fr->src, b + 8, 16);
		memcpy(fr->dst, b + 24, 16);
		hl = 40;
		while (ipv6_skippable(proto)) {
			size_t el;

			if (caplen < hl + 8) {
				*why = "truncated IPv6 extension header";
				return -1;
			}
			el = ((size_t)b[hl + 1] + 1) * 8;
			if (el > l4len) {
				*why = "bad IPv6 extension header length";
				return -1;
			}
			proto = b[hl];
			hl += el;
			l4len -= el;
		}
		if (proto == 44) {
			*why = "IPv6 fragment";
			return 0;
		}
	} else {
		*why = "not IP";
		return 0;
	}

	avail = caplen > hl ? caplen - hl : 0;
	b += hl;
	if (proto == d->proto) {
		fr->raw_ip = true;
		fr->uet = b;
		fr->uet_len = l4len < avail ? l4len : avail;
		fr->truncated = fr->uet_len < l4len;
		return 1;
	}
	if (proto != IPPROTO_UDP_NUM) {
		*why = "not UET (IP protocol)";
		return 0;
	}
	if (avail < 8) {
		*why = "truncated UDP header";
		return -1;
	}
	fr->sport = uet_be_get16(b);
	fr->dport = uet_be_get16(b + 2);
	if (!d->any_port && fr->sport != d->port && fr->dport != d->port) {
		*why = "not UET (UDP port)";
		return 0;
	}
	/* Ethernet padding may follow: trust the UDP length. */
	if (uet_be_get16(b + 4) < 8 || uet_be_get16(b + 4) > l4len) {
		*why = "bad UDP length";
		return -1;
	}
	l4len = uet_be_get16(b + 4) - 8;
	avail -= 8;
	fr->uet = b + 8;
	fr->uet_len = l4len < avail ? l4len : avail;
	fr->truncated = fr->uet_len < l4len;
	return 1;
}

/* Offset of the IP header in a link-layer frame, or -1 if not IP. */
static long link_offset(const struct uetdump *d, const uint8_t *b,
			size_t caplen, const char **why)
{
	size_t off;
	uint16_t et;
	int tags = 0;

	switch (d->dlt) {
	case DLT_RAW:
#ifdef DLT_IPV4
	case DLT_IPV4:
	case DLT_IPV6:
#endif
		return 0;
	case DLT_LINUX_SLL:
		if (caplen < 16)
			goto trunc;
		et = uet_be_get16(b + 14);
		off = 16;
		break;
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
		if (caplen < 20)
			goto trunc;
		et = uet_be_get16(b);
		off = 20;
		break;
#endif
	default:	/* DLT_EN10MB */
		if (caplen < 14)
			goto trunc;
		et = uet_be_get16(b + 12);
		off = 14;
		while (et == ETHERTYPE_VLAN || et == ETHERTYPE_QINQ) {
			if (++tags > MAX_VLAN_TAGS) {
				*why = "more than 2 VLAN tags";
				return -1;
			}
			if (caplen < off + 4)
				goto trunc;
			et = uet_be_get16(b + off + 2);
			off += 4;
		}
		break;
	}
	if (et != ETHERTYPE_IPV4 && et != ETHERTYPE_IPV6) {
		*why = "not IP";
		return -1;
	}
	return off;
trunc:
	*why = "truncated link-layer header";
	return -2;
}

static void frame_addr(struct uet_addr *a, const struct frame *fr,
		       const uint8_t *ip)
{
	memset(a, 0, sizeof(*a));
	a->af = fr->ipv6 ? UET_AF_INET6 : UET_AF_INET;
	memcpy(a->ip, ip, fr->ipv6 ? 16 : 4);
}

/* A TSS packet opened with -K: 1 and *clear decoded (its bytes in buf),
 * 0 when no key opened it (*why), -1 when what it decrypted to does not
 * decode (shown, counted malformed). */
static int open_tss(struct uetdump *d, const struct frame *fr,
		    const struct uet_pkt *p, struct uet_pkt *clear,
		    uint8_t *buf, const char **why)
{
	size_t off = p->has_entropy ? UET_ENTROPY_HDR_LEN : 0;
	const uint8_t *tss = fr->uet + off;
	size_t len = fr->uet_len - off;
	struct uet_addr src, dst;
	ssize_t n;
	int ret;

	frame_addr(&src, fr, fr->src);
	frame_addr(&dst, fr, fr->dst);
	n = dump_keys_open(d->keys, &src, &dst, tss, len, buf, why);
	if (n < 0) {
		if (fr->truncated)
			*why = "truncated capture";
		d->unverified++;
		return 0;
	}
	d->decrypted++;
	ret = uet_pkt_decode(clear, buf, (size_t)n, 0);
	if (ret >= 0 && clear->has_tss)
		ret = UET_ERR_WIRE_TYPE;	/* TSS inside TSS */
	if (ret < 0) {
		d->malformed++;
		dump_summary_tss(stdout, p, true);
		printf(" malformed: %s (%zd bytes)\n", uet_err_str(ret), n);
		if (d->verbose)
			dump_fields(stdout, p, NULL);
		print_hex(buf, (size_t)n);
		return -1;
	}
	return 1;
}

/* A frame of the GSO send it came from: "[gso 2/5]", or NULL. */
static void dump_uet(struct uetdump *d, const struct frame *fr,
		     const char *gso_tag)
{
	static uint8_t clear_buf[65536];
	struct uet_pkt pkt, clear;
	const char *why = NULL;
	bool opened = false;
	int ret;

	d->uet++;
	print_addr(fr, fr->src, !fr->raw_ip, fr->sport);
	printf(" > ");
	print_addr(fr, fr->dst, !fr->raw_ip, fr->dport);
	printf(": UET");
	if (!fr->raw_ip)	/* the entropy value rides in the port */
		printf(" ev %u", fr->sport == d->port && fr->dport != d->port ?
		       fr->dport : fr->sport);
	if (fr->ecn == 3)	/* congestion experienced */
		printf(" [CE]");
	if (gso_tag)
		printf(" %s", gso_tag);

	ret = uet_pkt_decode(&pkt, fr->uet, fr->uet_len,
			     fr->raw_ip ? UET_PKT_ENTROPY : 0);
	/* Not even an ICV after the TSS header: no TSS packet at all. */
	if (ret >= 0 && pkt.has_tss && !fr->truncated &&
	    pkt.payload_len < UET_TSS_ICV_LEN)
		ret = UET_ERR_WIRE_TRUNC;
	if (ret < 0) {
		d->malformed++;
		printf(" malformed: %s%s (%zu bytes)\n", uet_err_str(ret),
		       fr->truncated ? " [truncated capture]" : "",
		       fr->uet_len);
		print_hex(fr->uet, fr->uet_len);
		return;
	}
	if (pkt.has_tss && d->keys->n) {
		ret = open_tss(d, fr, &pkt, &clear, clear_buf, &why);
		if (ret < 0)
			return;
		opened = ret;
	}
	dump_summary(stdout, &pkt, opened ? &clear : NULL);
	if (why)
		printf(" [not verified: %s]", why);
	if (fr->truncated)
		printf(" [truncated capture]");
	putchar('\n');
	if (d->verbose)
		dump_fields(stdout, &pkt, opened ? &clear : NULL);
}

/* ---- UDP GSO trains ----
 *
 * A sender that hands UDP a train of equal packets in one send (UDP GSO,
 * as the provider does) is cut into datagrams by the kernel or the NIC.
 * A capture taken before the cut (on a veth, or on the sending host's own
 * side of the link) holds the whole train in one frame: one UDP payload
 * of several UET packets, each as long as the first (the GSO segment
 * size), the last one shorter. Nothing in the frame says that length.
 * The provider sends one PDC's packets in a train, an ACK at most behind
 * them, so a train starts with a request of PSN p and the next packet is
 * a request of the same PDC with PSN p + 1: the segment size is where
 * that next header lies and every piece decodes. A TSS train shows no
 * PSN and stays one frame (shown malformed if its length says so). */

#define GSO_PSN_OFF	4	/* a request's PSN, docs/protocol.md §4.1 */

/* Whether fr's payload is packets of s bytes (the last up to s), all of
 * them decoding, the first n - 1 requests of spdc from PSN psn on. */
static bool gso_fits(const struct frame *fr, size_t s, uint32_t psn,
		     uint16_t spdc)
{
	uint32_t i = 0;
	size_t off;

	for (off = 0; off < fr->uet_len; off += s, i++) {
		size_t n = fr->uet_len - off < s ? fr->uet_len - off : s;
		struct uet_pkt p;

		if (uet_pkt_decode(&p, fr->uet + off, n, 0) < 0)
			return false;
		if (off + s >= fr->uet_len)
			break;	/* the last: may be the ACK behind a train */
		if (p.has_tss || !uet_pds_is_req(p.pds.type) ||
		    p.pds.req.psn != psn + i || p.pds.req.spdcid != spdc)
			return false;
	}
	return true;
}

/* The segment size of a GSO train in fr, or 0 for a single packet. */
static size_t gso_seg(const struct frame *fr)
{
	const uint8_t *b = fr->uet;
	struct uet_pds_hdr h;
	uint32_t next;
	size_t s;
	int hl;

	if (fr->raw_ip || fr->truncated)
		return 0;	/* no GSO for raw IP; a cut capture can't tell */
	hl = uet_pds_hdr_decode(&h, b, fr->uet_len);
	if (hl < 0 || !uet_pds_is_req(h.type))
		return 0;
	next = h.req.psn + 1;
	for (s = (size_t)hl + 1; s + GSO_PSN_OFF + 4 <= fr->uet_len; s++)
		if (uet_be_get32(b + s + GSO_PSN_OFF) == next &&
		    gso_fits(fr, s, h.req.psn, h.req.spdcid))
			return s;
	return 0;
}

/* Each packet of a train on a line of its own, tagged with its place. */
static void dump_train(struct uetdump *d, const struct frame *fr, size_t s,
		       const struct pcap_pkthdr *h)
{
	size_t n = (fr->uet_len + s - 1) / s, i;
	char tag[32];

	d->gso++;
	for (i = 0; i < n; i++) {
		struct frame part = *fr;

		part.uet = fr->uet + i * s;
		part.uet_len = i + 1 < n ? s : fr->uet_len - i * s;
		if (i)
			print_time(d, h);
		snprintf(tag, sizeof(tag), "[gso %zu/%zu]", i + 1, n);
		dump_uet(d, &part, tag);
	}
}

static void on_packet(u_char *user, const struct pcap_pkthdr *h,
		      const u_char *bytes)
{
	struct uetdump *d = (struct uetdump *)user;
	struct frame fr;
	const char *why = "";
	size_t seg;
	long off;
	int ret;

	d->packets++;
	print_time(d, h);
	off = link_offset(d, bytes, h->caplen, &why);
	if (off == -2) {
		bad_frame(d, why, bytes, h->caplen);
		return;
	}
	if (off < 0) {
		printf("%s\n", why);
		return;
	}
	memset(&fr, 0, sizeof(fr));
	ret = parse_ip(d, &fr, bytes + off, h->caplen - off, h->len - off,
		       &why);
	if (ret < 0) {
		bad_frame(d, why, bytes, h->caplen);
		return;
	}
	if (ret == 0) {
		printf("%s\n", why);
		return;
	}
	seg = gso_seg(&fr);
	if (seg)
		dump_train(d, &fr, seg, h);
	else
		dump_uet(d, &fr, NULL);
}

static void on_signal(int sig)
{
	(void)sig;
	if (live)
		pcap_breakloop(live);
}

static bool parse_num(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-')
		return false;
	v = strtoul(s, &end, 0);
	if (*end || v > max)
		return false;
	*out = v;
	return true;
}

static pcap_t *open_live(const char *iface, struct uetdump *d)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p;
	int ret;

	p = pcap_create(iface, err);
	if (!p) {
		fprintf(stderr, "uetdump: %s\n", err);
		return NULL;
	}
	pcap_set_snaplen(p, 65535);
	pcap_set_immediate_mode(p, 1);
	d->nano = pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO) == 0;
	ret = pcap_activate(p);
	if (ret < 0) {
		fprintf(stderr, "uetdump: %s: %s\n", iface,
			ret == PCAP_ERROR ? pcap_geterr(p) :
			pcap_statustostr(ret));
		pcap_close(p);
		return NULL;
	}
	if (ret > 0)
		fprintf(stderr, "uetdump: %s: %s\n", iface,
			pcap_statustostr(ret));
	d->nano = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
	return p;
}

static char *join_args(int argc, char **argv)
{
	size_t n = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	s = calloc(1, n);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static bool link_supported(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_RAW:
	case DLT_LINUX_SLL:
#ifdef DLT_LINUX_SLL2
	case DLT_LINUX_SLL2:
#endif
#ifdef DLT_IPV4
	case DLT_IPV4:
	case DLT_IPV6:
#endif
		return true;
	}
	return false;
}

static int uetdump_main(struct dump_keys *keys, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct uetdump d = {
		.port = UET_UDP_PORT, .proto = UET_IPPROTO, .keys = keys,
	};
	const char *file = NULL, *iface = NULL;
	char err[PCAP_ERRBUF_SIZE], deflt[128];
	struct bpf_program prog;
	unsigned long v, count = 0;
	char *filter = NULL;
	pcap_t *p;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "r:i:p:P:c:K:avh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'r':
			file = optarg;
			break;
		case 'i':
			iface = optarg;
			break;
		case 'p':
			if (!parse_num(optarg, 65535, &v) || !v)
				goto bad_arg;
			d.port = v;
			break;
		case 'P':
			if (!parse_num(optarg, 255, &v))
				goto bad_arg;
			d.proto = v;
			break;
		case 'c':
			if (!parse_num(optarg, INT_MAX, &v) || !v)
				goto bad_arg;
			count = v;
			break;
		case 'K':
			if (dump_keys_add(keys, optarg, err, sizeof(err))) {
				fprintf(stderr, "uetdump: key file %s\n", err);
				return 1;
			}
			break;
		case 'a':
			d.any_port = true;
			break;
		case 'v':
			d.verbose = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (!file == !iface) {
		fprintf(stderr, "uetdump: give exactly one of -r FILE or -i IFACE\n");
		usage(stderr);
		return 1;
	}
	if (optind < argc) {
		filter = join_args(argc - optind, argv + optind);
		if (!filter) {
			fprintf(stderr, "uetdump: out of memory\n");
			return 1;
		}
	} else if (iface && d.any_port) {
		snprintf(deflt, sizeof(deflt), "udp or ip proto %u or ip6 proto %u",
			 d.proto, d.proto);
		filter = strdup(deflt);
	} else if (iface) {
		snprintf(deflt, sizeof(deflt),
			 "udp port %u or ip proto %u or ip6 proto %u",
			 d.port, d.proto, d.proto);
		filter = strdup(deflt);
	}

	if (file) {
		p = pcap_open_offline_with_tstamp_precision(file,
				PCAP_TSTAMP_PRECISION_NANO, err);
		if (!p) {
			fprintf(stderr, "uetdump: %s\n", err);
			free(filter);
			return 1;
		}
		d.nano = pcap_get_tstamp_precision(p) ==
			 PCAP_TSTAMP_PRECISION_NANO;
	} else {
		p = open_live(iface, &d);
		if (!p) {
			free(filter);
			return 1;
		}
	}
	d.dlt = pcap_datalink(p);
	if (!link_supported(d.dlt)) {
		fprintf(stderr, "uetdump: unsupported link type %s\n",
			pcap_datalink_val_to_name(d.dlt));
		ret = 1;
		goto out;
	}
	if (filter) {
		if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) ||
		    pcap_setfilter(p, &prog)) {
			fprintf(stderr, "uetdump: filter '%s': %s\n", filter,
				pcap_geterr(p));
			ret = 1;
			goto out;
		}
		pcap_freecode(&prog);
	}

	if (iface) {
		live = p;
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		fprintf(stderr, "uetdump: listening on %s, filter '%s'\n",
			iface, filter);
	}
	setvbuf(stdout, NULL, iface ? _IOLBF : _IOFBF, 0);
	if (pcap_loop(p, count ? (int)count : -1, on_packet,
		      (u_char *)&d) == PCAP_ERROR) {
		fprintf(stderr, "uetdump: %s\n", pcap_geterr(p));
		ret = 1;
	}
	fflush(stdout);
	fprintf(stderr, "uetdump: %" PRIu64 " packets, %" PRIu64 " UET, %"
		PRIu64 " malformed", d.packets, d.uet, d.malformed);
	if (d.gso)
		fprintf(stderr, ", %" PRIu64 " GSO frames cut", d.gso);
	if (d.keys->n)
		fprintf(stderr, ", %" PRIu64 " decrypted, %" PRIu64
			" not verified", d.decrypted, d.unverified);
	fputc('\n', stderr);
out:
	live = NULL;
	pcap_close(p);
	free(filter);
	return ret;
bad_arg:
	fprintf(stderr, "uetdump: bad value '%s' for -%c\n", optarg, c);
	return 1;
}

int main(int argc, char **argv)
{
	struct dump_keys keys = { 0 };
	int ret;

	ret = uetdump_main(&keys, argc, argv);
	dump_keys_free(&keys);
	return ret;
}
