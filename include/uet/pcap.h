/* pcap writer for UET packets: the FI_UET_PCAP tap and the uetgen tool.
 *
 * The engine hands us UET bytes only (UDP payload, or for raw IP the IP
 * payload starting with the entropy header); this writer synthesizes
 * Ethernet, IPv4/IPv6 and UDP headers around them so that tcpdump, tshark
 * and uetdump decode the file like a capture taken on the wire.
 *
 * Threading: a struct uet_pcap has no locks and no global state. One
 * writer may be used from several threads only if the caller serialises
 * the calls; separate writers are independent.
 *
 * Flushing: by default records are buffered by stdio and reach the file
 * when the buffer fills, on uet_pcap_flush() and on uet_pcap_close(). With
 * UET_PCAP_F_FLUSH every uet_pcap_write() flushes, so a crash loses nothing
 * (one write(2) per packet).
 *
 * Errors: functions return 0 or UET_ERR_INVAL / UET_ERR_NOMEM / UET_ERR_IO;
 * on UET_ERR_IO uet_pcap_errstr() says what failed.
 */
#ifndef UET_PCAP_H
#define UET_PCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/err.h"

/* Snap length of the written file; longer packets are truncated in the
 * record (the record keeps their real length). */
#define UET_PCAP_SNAPLEN	65535

/* Size of the buffer uet_pcap_open() fills on failure. */
#define UET_PCAP_ERRBUF_SIZE	256

/* uet_pcap_open flags */
#define UET_PCAP_F_FLUSH	0x1	/* flush after every packet */

/* Where a packet went, as the tap knows it. Addresses are in network
 * byte order; IPv4 uses the first 4 bytes of src/dst. */
struct uet_pcap_meta {
	bool ipv6;
	bool raw_ip;		/* IP-native: no UDP; entropy hdr first */
	uint8_t src[16];
	uint8_t dst[16];
	uint16_t src_port;	/* UDP source port: the one the packet left
				 * from (uet_udp_tx_port() of a packet sent;
				 * the entropy of one received) */
	uint16_t dst_port;	/* UDP destination port (the home port, or
				 * the spray port an answer went back to) */
	uint8_t ip_proto;	/* raw IP protocol; 0 means UET_IPPROTO */
	uint8_t dscp;		/* 6 bits */
	uint8_t ecn;		/* 2 bits */
	uint64_t ts_ns;		/* caller's clock, ns since the Unix epoch */
};

struct uet_pcap;

/* Create (truncate) `path` ("-" is stdout) as an Ethernet pcap file with
 * nanosecond timestamps when libpcap supports them. The file stays
 * locked (flock) while open: if another writer holds it, it is left
 * alone and the call returns UET_ERR_BUSY. Otherwise on failure returns
 * UET_ERR_NOMEM or UET_ERR_IO. Writes a message to errbuf on failure
 * (may be NULL, UET_PCAP_ERRBUF_SIZE bytes otherwise). */
int uet_pcap_open(struct uet_pcap **pcp, const char *path, unsigned flags,
		  char *errbuf);

/* Append one packet. `pkt` is the UDP payload, or for raw_ip the IP payload
 * (entropy header first). Returns 0, UET_ERR_INVAL when the packet cannot
 * be framed (too long for IP, bad meta) or UET_ERR_IO when writing failed. */
int uet_pcap_write(struct uet_pcap *pc, const struct uet_pcap_meta *meta,
		   const uint8_t *pkt, size_t len);

/* Push buffered records to the file. Returns 0 or UET_ERR_IO. */
int uet_pcap_flush(struct uet_pcap *pc);

/* Flush, close and free; NULL is allowed. Returns 0 or UET_ERR_IO (the
 * writer is freed either way; the message is then lost). */
int uet_pcap_close(struct uet_pcap *pc);

/* Message for the last failure on this writer ("" if none). */
const char *uet_pcap_errstr(const struct uet_pcap *pc);

/* Number of packets written so far. */
uint64_t uet_pcap_count(const struct uet_pcap *pc);

/* Build the Ethernet/IP/UDP framing of a packet of `len` UET bytes into buf
 * (at least UET_PCAP_FRAME_HDR_MAX bytes). Returns the header length or
 * UET_ERR_INVAL. Exposed for tests and tools that craft frames. */
#define UET_PCAP_FRAME_HDR_MAX	(14 + 40 + 8)
int uet_pcap_frame_hdr(uint8_t *buf, const struct uet_pcap_meta *meta,
		       const uint8_t *pkt, size_t len);

#endif
