/* uet libfabric provider: the glue between fi_* objects and the engine.
 *
 * Object map (docs/architecture.md §1):
 *   fabric  = a Fabric Plane, named by its subnet ("192.0.2.0/24");
 *   domain  = one interface address (the FEP's Fabric Address);
 *   ep      = one struct uet_fep with its own UDP home port;
 *   av      = table of peer addresses (FA + home port), fi_addr = index;
 *   cq/cntr = completion rings and counters fed by callbacks.complete;
 *   mr      = a region registered into the engine of every enabled
 *             endpoint of the domain (or of its FI_MR_ENDPOINT endpoint).
 *
 * Locking: every endpoint has one lock around its engine (the engine is
 * single-threaded); CQs, counters, AVs and EQs have their own. Order:
 * domain lock -> cq/cntr ep_lock -> ep lock -> av lock -> cq/cntr lock
 * (the domain lock guards its endpoint and MR lists). Under
 * FI_THREAD_DOMAIN without the progress thread the locks are no-ops.
 *
 * Progress (docs/architecture.md §4, §8.7): manual. The only I/O loop is
 * uetp_progress_ep(); it runs from CQ/counter reads and waits, fi_trywait,
 * before a data call returns -FI_EAGAIN, and in the optional progress
 * thread (FI_UET_PROGRESS_THREAD).
 */
#ifndef UETP_H
#define UETP_H

#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include "uet/addr.h"
#include "uet/fep.h"
#include "uet/impair.h"
#include "uet/list.h"
#include "uet/net.h"
#include "uet/time.h"

/* The provider as libfabric sees it (writable: the core fills context). */
extern struct fi_provider uetp_prov;
/* Our only exported symbol (FI_EXT_INI); tests call it directly. */
struct fi_provider *fi_prov_ini(void);

#define UETP_PROV_NAME		"uet"
#define UETP_VERSION		FI_VERSION(0, 1)
#define UETP_FI_VERSION		FI_VERSION(1, 17)
/* ep_attr->protocol_version: the UE 1.0 wire format (SES version 0). */
#define UETP_PROTO_VERSION	1

/* ---- capabilities (uetp_attr.c) ---- */

/* One-sided operations (uetp_rma.c, uetp_atomic.c) are advertised only
 * while the engine carries them end to end (fabtests ft_rma, ft_atomic:
 * every call flavour, error codes, remote counters, fences, clean and
 * impaired); the op tables answer -FI_ENOSYS for an endpoint opened
 * without them. Setting a cap to 0 here withdraws it everywhere. */
#define UETP_RMA_DIR_CAPS	(FI_READ | FI_WRITE | FI_REMOTE_READ | \
				 FI_REMOTE_WRITE)
#define UETP_RMA_CAP		FI_RMA
#define UETP_ATOMIC_CAP		FI_ATOMIC
#define UETP_ONE_SIDED_CAPS	(UETP_RMA_CAP | UETP_ATOMIC_CAP | \
				 ((UETP_RMA_CAP | UETP_ATOMIC_CAP) ? \
				  UETP_RMA_DIR_CAPS : 0ULL))
#define UETP_ONE_SIDED_SEC_CAPS	(FI_RMA_EVENT | FI_FENCE)

/* fi_endpoint.3 lists the caps that apply to tx_attr and rx_attr:
 * FI_LOCAL_COMM and FI_REMOTE_COMM are not among them (they are domain
 * and fi_info caps), and fabtests' fi_getinfo_test checks it. */
#define UETP_TX_CAPS	(FI_MSG | FI_TAGGED | FI_SEND | FI_TRIGGER | \
			 FI_NAMED_RX_CTX | \
			 (UETP_ONE_SIDED_CAPS & ~(uint64_t)(FI_REMOTE_READ | \
			  FI_REMOTE_WRITE)) | \
			 (UETP_ONE_SIDED_SEC_CAPS & FI_FENCE))
#define UETP_RX_CAPS	(FI_MSG | FI_TAGGED | FI_RECV | FI_DIRECTED_RECV | \
			 FI_MULTI_RECV | FI_SOURCE | FI_TRIGGER | \
			 (UETP_ONE_SIDED_CAPS & ~(uint64_t)(FI_READ | \
			  FI_WRITE)) | \
			 (UETP_ONE_SIDED_SEC_CAPS & FI_RMA_EVENT))
#define UETP_DOM_CAPS	(FI_LOCAL_COMM | FI_REMOTE_COMM | FI_SHARED_AV)
#define UETP_CAPS	(UETP_TX_CAPS | UETP_RX_CAPS | UETP_DOM_CAPS)
/* libfabric's split (fi_getinfo.3): primary caps are granted only when
 * asked for, secondary ones come with every entry. */
#define UETP_PRIMARY_CAPS	(FI_MSG | FI_TAGGED | FI_SEND | FI_RECV | \
				 FI_DIRECTED_RECV | FI_NAMED_RX_CTX | \
				 UETP_ONE_SIDED_CAPS)
/* FI_TRIGGER: uetp_trigger.c (FI_TRIGGER_THRESHOLD contexts);
 * FI_SHARED_AV: named AVs in shared memory (uetp_av.c). */
#define UETP_SECONDARY_CAPS	(FI_MULTI_RECV | FI_SOURCE | FI_TRIGGER | \
				 FI_SHARED_AV | \
				 FI_LOCAL_COMM | FI_REMOTE_COMM | \
				 UETP_ONE_SIDED_SEC_CAPS)

#define UETP_MSG_ORDER		FI_ORDER_SAS
#define UETP_COMP_ORDER		FI_ORDER_NONE
#define UETP_TX_OP_FLAGS	(FI_COMPLETION | FI_INJECT | \
				 FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE | \
				 FI_DELIVERY_COMPLETE)
#define UETP_RX_OP_FLAGS	(FI_COMPLETION | FI_MULTI_RECV)
/* libfabric's value for "all 64 tag bits usable" (FI_TAG_GENERIC). */
#define UETP_TAG_FORMAT		0xAAAAAAAAAAAAAAAAULL
#define UETP_MAX_MSG_SIZE	((size_t)1 << 30)
#define UETP_INJECT_SIZE	4096
#define UETP_IOV_LIMIT		4	/* UET_SES_IOV_MAX */
#define UETP_RMA_IOV_LIMIT	1	/* one (key, address) per operation */
#define UETP_RMA_IOV_MAX	((UETP_ONE_SIDED_CAPS & (FI_RMA | FI_ATOMIC)) ? \
				 UETP_RMA_IOV_LIMIT : 0)
#define UETP_CQ_DATA_SIZE	8
#define UETP_SIZE_MAX		65536	/* largest tx/rx size granted */
#define UETP_AUTH_KEY_SIZE	4	/* the JobID, a host-order uint32_t */
#define UETP_JOB_ID_MAX		0xFFFFFFu
#define UETP_MR_KEY_SIZE	8
#define UETP_EP_CNT		1024
#define UETP_CQ_CNT		1024
#define UETP_CNTR_CNT		1024
#define UETP_MR_CNT		65536

/* Largest UET packet we accept: 14-bit payload_length plus headers. */
#define UETP_PKT_MAX		(16384 + 256)
#define UETP_MTU_MIN		512
#define UETP_BATCH		32	/* packets per recv batch */
/* Packets per send batch: room for whole GSO trains (runs of up to 44
 * packets at MTU 1500, uetp_ep_engine.c), which a batch that ends mid-run
 * cuts in two. */
#define UETP_TX_BATCH		128
/* One UDP GSO train at most: IPv4's 65535 bytes less the IP and UDP
 * headers, and the kernel's UDP_MAX_SEGMENTS. */
#define UETP_TRAIN_BYTES	65507u
#define UETP_TRAIN_PKTS		64u
/* Loopback's window in bytes (uetp_ep_fit_runs), for packets larger than
 * a jumbo frame's: the receive buffer's size (UET_UDP_BUF_DEFAULT). */
#define UETP_JUMBO_MTU		9216u
#define UETP_LO_WINDOW		(4u << 20)

/* ---- parameters (uetp_init.c) ---- */

/* The FI_TC_* labels, FI_TC_BEST_EFFORT .. FI_TC_NETWORK_CTRL. */
#define UETP_TC_LABELS		(FI_TC_NETWORK_CTRL - FI_TC_LABEL + 1)

struct uetp_env {
	char *iface;			/* FI_UET_IFACE: comma-separated names */
	char *planes;			/* FI_UET_PLANES: comma-separated names */
	int udp_port;			/* FI_UET_UDP_PORT */
	int entropy_bits;		/* FI_UET_ENTROPY_BITS */
	int entropy_run;		/* FI_UET_ENTROPY_RUN, 0 = default */
	char *pcap;			/* FI_UET_PCAP */
	int progress_thread;		/* FI_UET_PROGRESS_THREAD */
	int allow_layering;		/* FI_UET_ALLOW_LAYERING */
	uint32_t job_id;		/* FI_UET_JOB_ID */
	size_t mtu;			/* FI_UET_MTU, 0 = from the interface */
	int host_path;			/* FI_UET_HOST_PATH */
	size_t tx_size, rx_size;	/* FI_UET_TX_SIZE / FI_UET_RX_SIZE */
	int rto_ms;			/* FI_UET_RTO_MS, 0 = engine default */
	int max_retx;			/* FI_UET_MAX_RETX, 0 = engine default */
	int rod;			/* FI_UET_ROD */
	char *impair;			/* FI_UET_IMPAIR */
	int stats;			/* FI_UET_STATS */
	size_t rndv_threshold;		/* FI_UET_RNDV_THRESHOLD, 0 = off */
	size_t unexp_max;		/* FI_UET_UNEXP_MAX, 0 = engine default */
	int rudi;			/* FI_UET_RUDI */
	int poll_spin_us;		/* FI_UET_POLL_SPIN_US, -1 = never yield */
	int rescue_ms;			/* FI_UET_RESCUE_MS, 0 = no rescue */
	int close_linger_ms;		/* FI_UET_CLOSE_LINGER_MS */
	int ack_hold_us;		/* FI_UET_ACK_HOLD_US */
	int cork_us;			/* FI_UET_CORK_US, 0 = never cork */
	int udp_gso;			/* FI_UET_UDP_GSO */
	int tx_zcopy;			/* FI_UET_TX_ZCOPY */
	int rx_place;			/* FI_UET_RX_PLACE */
	int window;			/* FI_UET_WINDOW, 0 = engine default */
	int max_pdcs;			/* FI_UET_MAX_PDCS, 0 = engine default */
	int unreach_hold_ms;		/* FI_UET_UNREACH_HOLD_MS, -1 = default */
	uint8_t tc_dscp[UETP_TC_LABELS];	/* FI_UET_TCLASS_DSCP */
	int mr_virt_addr;		/* FI_UET_MR_VIRT_ADDR */
	int cca;			/* FI_UET_CC: enum uet_cca */
	int lb;				/* FI_UET_LB: enum uet_lb_kind */
	int link_gbps;			/* FI_UET_LINK_GBPS, 0 = engine default */
	int base_rtt_us;		/* FI_UET_BASE_RTT_US, 0 = default */
	int loss_infer;			/* FI_UET_LOSS_INFER */
	int lb_delay;			/* FI_UET_LB_DELAY */
	int transport;			/* FI_UET_TRANSPORT: UETP_TRANSPORT_* */
	int ip_proto;			/* FI_UET_IP_PROTO */
	char *key_file;			/* FI_UET_KEY_FILE */
};

extern struct uetp_env uetp_env;

#define UETP_TRANSPORT_UDP	0	/* UET over UDP, port 4793 */
#define UETP_TRANSPORT_IP	1	/* UET over IP, FI_UET_IP_PROTO */

/* uetp_tss.c: the secure domain from FI_UET_KEY_FILE for an endpoint of
 * JobID job (cfg->mode UET_TSS_OFF without a key file); 0 or -FI_E*. */
struct uet_tss_cfg;
int uetp_tss_cfg(const char *path, uint32_t job, struct uet_tss_cfg *cfg);
/* FI_UET_STATS: the "uet tss" line of an endpoint in a secure domain. */
struct uet_fep;
void uetp_tss_stats_dump(const struct uet_fep *fep, const char *name);

#define UETP_DEFAULT_UDP_PORT	4793	/* IANA UET port (docs/protocol.md §1.2) */
#define UETP_DEFAULT_JOB_ID	0
#define UETP_DEFAULT_TX_SIZE	1024
#define UETP_DEFAULT_RX_SIZE	1024
/* Sends longer than this go by rendezvous (fi_uet.7 says why this). */
#define UETP_DEFAULT_RNDV_THRESHOLD	0
/* An idle poller spins this long before it yields (fi_uet.7 says why). */
#define UETP_DEFAULT_POLL_SPIN_US	50
#define UETP_DEFAULT_RESCUE_MS		5
#define UETP_DEFAULT_CLOSE_LINGER_MS	500
#define UETP_DEFAULT_ACK_HOLD_US	20
#define UETP_DEFAULT_CORK_US		4
/* Unexpected messages buffered per endpoint (fi_uet.7 says why more than
 * the engine's 4 MiB). */
#define UETP_DEFAULT_UNEXP_MAX		((size_t)64 << 20)
/* Longest send corking holds back: one that fills packets by itself
 * gains nothing from waiting for company. */
#define UETP_CORK_MAX_LEN		4096

/* ---- small helpers ---- */

struct uetp_lock {
	pthread_mutex_t mutex;
	bool on;
	/* Use that lock instead: the endpoints of one engine or of one
	 * shared receive context are one unit (uetp_srx.c, uetp_sep.c). */
	struct uetp_lock *to;
};

static inline void uetp_lock_init(struct uetp_lock *l, bool on)
{
	pthread_mutex_init(&l->mutex, NULL);
	l->on = on;
}

static inline void uetp_lock_destroy(struct uetp_lock *l)
{
	pthread_mutex_destroy(&l->mutex);
}

static inline void uetp_lock_acquire(struct uetp_lock *l)
{
	if (l->to)
		l = l->to;
	if (l->on)
		pthread_mutex_lock(&l->mutex);
}

static inline void uetp_lock_release(struct uetp_lock *l)
{
	if (l->to)
		l = l->to;
	if (l->on)
		pthread_mutex_unlock(&l->mutex);
}

/* Takes the lock if nobody holds it; a lock that is off is never free
 * (its owner does not say when it is inside). */
static inline bool uetp_lock_try(struct uetp_lock *l)
{
	if (l->to)
		l = l->to;
	return l->on && !pthread_mutex_trylock(&l->mutex);
}

/* Monotonic clock in ns: the engine's `now` (uetp_hooks.now). */
uet_time uetp_now(void);

/* Where the provider meets the outside world: the port an endpoint opens
 * and the clock. The defaults are the sockets and CLOCK_MONOTONIC; the
 * unit tests put the engine's mem port and a clock they advance here,
 * before opening endpoints. Hidden like every symbol but fi_prov_ini. */
struct uetp_ep;
struct uetp_hooks {
	/* Open ep's port (exact: that UDP port, 0: FI_UET_UDP_PORT's
	 * choice). Returns 0 or -FI_E*. */
	int (*port_open)(struct uetp_ep *ep, uint16_t exact,
			 struct uet_net **netp);
	uet_time (*now)(void);
};
extern struct uetp_hooks uetp_hooks;
int uetp_ep_port_open(struct uetp_ep *ep, uint16_t exact,
		      struct uet_net **netp);
uet_time uetp_clock_monotonic(void);

/* ---- addresses (uetp_addr.c) ---- */

/* The FI_FORMAT_UNSPEC name: a versioned fixed-size byte layout,
 * big-endian, documented in fi_uet.7. */
#define UETP_ADDR_LEN		32
#define UETP_ADDR_MAGIC0	0x55	/* 'U' */
#define UETP_ADDR_MAGIC1	0x45	/* 'E' */
#define UETP_ADDR_VERSION	1

struct uetp_name {
	struct uet_addr addr;		/* FA + UDP home port */
	uint16_t pid_on_fep;
	uint16_t resource_index;
	uint32_t job_id;
};

/* Bytes of a name in this format (0: format not ours). */
size_t uetp_addr_len(uint32_t addr_format, const struct uet_addr *a);
/* Encode a name into buf (at least uetp_addr_len bytes). */
void uetp_addr_encode(void *buf, uint32_t addr_format,
		      const struct uetp_name *n);
/* Decode a sockaddr_in/_in6 or a uet name; len 0 = trust the contents.
 * Returns the bytes consumed or -FI_EINVAL. */
ssize_t uetp_addr_decode(const void *buf, size_t len, struct uetp_name *n);
/* FI_SOCKADDR_IN(6) or FI_FORMAT_UNSPEC for the bytes at buf; -1 if none. */
int uetp_addr_format_of(const void *buf, size_t len);
/* Text form: "fi_sockaddr_in://127.0.0.1:4793", "uet://[::1]:4793/p.r.j". */
int uetp_addr_str(char *buf, size_t cap, uint32_t addr_format,
		  const struct uetp_name *n);
/* Fill a name for an endpoint at a, with the ids the SES derives. */
void uetp_addr_name(struct uetp_name *n, const struct uet_addr *a,
			 uint32_t job_id);
/* Resolve node/service (getaddrinfo) into an address; family 0 = any. */
int uetp_addr_resolve(const char *node, const char *service, int family,
		      bool numeric, bool passive, struct uet_addr *a);

/* ---- interfaces (uetp_iface.c) ---- */

struct uetp_iface {
	char name[IF_NAMESIZE];
	struct uet_addr addr;		/* port 0 */
	unsigned prefix;		/* subnet prefix length */
	bool loopback;
	unsigned mtu;			/* link MTU, 0 if unknown */
};

/* Usable interface addresses: up, IPv4/IPv6 (no link-local), filtered by
 * FI_UET_IFACE, loopback last. Caller frees *list. */
int uetp_iface_list(struct uetp_iface **list, size_t *count);
/* The subnet of an interface in CIDR form. */
void uetp_iface_cidr(const struct uetp_iface *ifc, char *buf, size_t cap);
/* Find the interface address a (port ignored). */
int uetp_iface_find(const struct uet_addr *a, struct uetp_iface *out);
/* a lies in the interface's subnet. */
bool uetp_iface_contains(const struct uetp_iface *ifc,
			 const struct uet_addr *a);
bool uetp_iface_same_ip(const struct uet_addr *a, const struct uet_addr *b);
bool uetp_iface_any_ip(const struct uet_addr *a);
/* UET packet MTU for an interface: link MTU - IP - UDP, or FI_UET_MTU
 * when the link carries it (else the link's, said once in the log). */
size_t uetp_iface_mtu(const struct uetp_iface *ifc);
/* UET packet size toward FEPs at ifc's own address (this host's: the
 * kernel takes them over its loopback), or 0 when that is not more than
 * mtu, FI_UET_MTU is set or FI_UET_HOST_PATH is off. */
size_t uetp_iface_host_mtu(const struct uetp_iface *ifc, size_t mtu);
/* The packet size for a wish (0: none) on a link carrying link bytes of
 * UDP payload; *clamped when the wish was too big. */
size_t uetp_iface_mtu_pick(size_t want, size_t link, bool *clamped);

/* ---- fi_info templates and hint matching (uetp_attr.c) ---- */

/* libfabric's private OFI_CORE_PROV_ONLY (1.17 ofi_util.h): the getinfo of
 * a utility provider looking for a core to layer over. */
#define UETP_CORE_PROV_ONLY	(1ULL << 59)
/* A prov_name list with uet as its core and no provider over it. */
bool uetp_names_direct(const char *list);
/* getinfo flags of a utility provider that may not have our DGRAM. */
bool uetp_layering_dgram(uint64_t flags);

int uetp_attr_getinfo(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info);
/* Check an fi_info given to fi_domain/fi_endpoint against what we can do. */
int uetp_attr_check(uint32_t version, const struct fi_info *info);
/* ---- errors (uetp_errno.c) ---- */

/* prov_errno encoding in CQ error entries (fi_uet.7):
 *   0x001..0x0ff  SES return code (UET_RC_*) from the target
 *   0x100 | code  PDS NACK code (UET_NACK_*)
 *   < 0           engine error (UET_ERR_*) without a code */
#define UETP_PE_NACK		0x100

/* Carried in err_data of a CQ error entry. */
struct uetp_err_data {
	int32_t uet_err;		/* UET_ERR_* */
	int32_t prov_errno;		/* as above */
	char peer[56];			/* peer address text, "" if unknown */
};

int uetp_errno(int uet_err);
int uetp_errno_rc(unsigned rc);
int uetp_errno_prov(int uet_err, int code);
/* Text for a prov_errno; err_data may be NULL. */
const char *uetp_errno_str(int prov_errno, const void *err_data, char *buf,
			  size_t len);

/* ---- wait objects (uetp_wait.c) ---- */

struct uetp_waitset;

struct uetp_wait {
	int epfd;			/* what fi_control(FI_GETWAIT) returns */
	int efd;			/* eventfd: signal and wakeups */
	atomic_bool armed;		/* someone is about to sleep */
	atomic_int ref;			/* owner, plus members of a wait set */
	struct uetp_waitset *set;	/* the wait set it belongs to, or NULL */
};

int uetp_wait_open(struct uetp_wait **waitp);
/* Drop a reference; the last one closes the fds. */
void uetp_wait_close(struct uetp_wait *w);
int uetp_wait_add_fd(struct uetp_wait *w, int fd);
void uetp_wait_del_fd(struct uetp_wait *w, int fd);
void uetp_wait_signal(struct uetp_wait *w);
void uetp_wait_drain(struct uetp_wait *w);
/* Sleep until an fd is readable or timeout_ms passes (-1: forever). */
int uetp_wait_wait(struct uetp_wait *w, int timeout_ms);
/* Milliseconds until a deadline (rounded up), -1 for UET_TIME_NONE. */
int uetp_wait_ms(uet_time deadline, uet_time now);
bool uetp_wait_obj_ok(enum fi_wait_obj obj);

/* Wait sets (fi_wait_open): a CQ or counter opened with FI_WAIT_SET
 * shares the set's struct uetp_wait; fi_wait runs progress for every
 * member. */
int uetp_waitset_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
		      struct fid_wait **waitset);
/* Join the set named in a CQ/counter attr: *w is the set's wait. */
int uetp_waitset_join(struct fid_wait *set, struct fid *member,
		      struct uetp_wait **w);
void uetp_waitset_leave(struct uetp_wait *w, struct fid *member);
int uetp_waitset_trywait(struct fid *set);

/* ---- poll sets (uetp_poll.c) ---- */

int uetp_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
		   struct fid_poll **pollset);
/* A CQ or counter has something to read (fi_poll, fi_wait). */
bool uetp_poll_ready(struct fid *fid);
/* Progress for a CQ or counter; the earliest engine deadline. */
uet_time uetp_poll_progress(struct fid *fid);
/* Before sleeping on its fd: arm the endpoints' timers; false when a
 * socket was full and the caller must not sleep long. */
bool uetp_poll_arm(struct fid *fid);

/* ---- fabric, domain (uetp_fabric.c, uetp_domain.c) ---- */

struct uetp_fabric {
	struct fid_fabric fid;
	char *name;
	atomic_int ref;			/* domains and EQs */
};

struct uetp_progress;

/* Triggered operations waiting for their counter (uetp_trigger.c). */
struct uetp_trig_queue {
	pthread_mutex_t lock;
	struct uet_list ops;
	atomic_size_t count;		/* read without the lock */
};

struct uetp_domain {
	struct fid_domain fid;
	struct uetp_fabric *fabric;
	struct fi_info *info;		/* our copy */
	uint32_t api_version;
	struct uetp_iface iface;	/* the FEP's interface address */
	uint32_t job_id;
	bool locking;
	size_t mtu;
	size_t host_mtu;		/* toward this host's FEPs; 0: mtu */
	struct uetp_eq *eq;
	atomic_int ref;			/* children */
	pthread_mutex_t lock;		/* eps, mrs, progress thread */
	struct uet_list eps;
	unsigned eps_gen;		/* bumped when eps changes */
	struct uetp_progress *prog;	/* NULL: no progress thread */
	struct uetp_rescue *rescue;	/* NULL: none (uetp_rescue.c) */
	/* memory regions (uetp_mr.c), under lock */
	uint64_t mr_mode;		/* FI_MR_* bits in force (BASIC and
					 * SCALABLE translated) */
	struct uet_list mrs;		/* every open MR */
	struct uetp_mr **mr_hash;	/* domain-wide keys, chained */
	size_t mr_hash_cap, mr_hash_count;
	uint32_t *amo_max;		/* uetp_atomic.c, built on first use */
	struct uetp_trig_queue trig;	/* FI_TRIGGER operations */
};

int uetp_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		void *context);
int uetp_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **dom, void *context);
int uetp_fabric_trywait(struct fid_fabric *fabric, struct fid **fids,
			int count);

/* ---- event queue (uetp_eq.c) ---- */

struct uetp_eq_entry;

struct uetp_eq {
	struct fid_eq fid;
	struct uetp_fabric *fabric;
	pthread_mutex_t lock;
	struct uetp_eq_entry *head, *tail;
	size_t count;
	size_t size;
	uint64_t flags;
	enum fi_wait_obj wait_obj;
	struct uetp_wait *wait;
	atomic_int ref;
	char errbuf[128];
};

int uetp_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		 struct fid_eq **eq, void *context);
/* Queue an event (err != 0: an error entry). Returns 0 or -FI_ENOMEM. */
int uetp_eq_post(struct uetp_eq *eq, uint32_t event, const void *buf,
		 size_t len, int err, int prov_errno, fid_t fid,
		 void *context, uint64_t data);

/* ---- completion queue (uetp_cq.c) ---- */

struct uetp_cq_entry {
	void *op_context;
	uint64_t flags;
	size_t len;
	void *buf;
	uint64_t data;
	uint64_t tag;
	fi_addr_t src;
	bool is_err;
	int err;			/* positive FI_E* */
	int prov_errno;
	size_t olen;
	bool has_edata;			/* edata says more than err does */
	struct uetp_err_data edata;
};

struct uetp_ep;

/* What an op signals on completion: the bound CQ/counter of its side. */
struct uetp_epset {
	pthread_mutex_t lock;		/* the "ep_lock" of the lock order */
	struct uetp_ep **eps;
	size_t count, cap;
};

struct uetp_cq {
	struct fid_cq fid;
	struct uetp_domain *domain;
	enum fi_cq_format format;
	size_t entry_size;
	enum fi_wait_obj wait_obj;
	enum fi_cq_wait_cond wait_cond;
	struct uetp_wait *wait;
	struct uetp_lock lock;		/* the ring */
	struct uetp_cq_entry *ring;
	size_t cap, head, count, reserved;
	uint64_t lost;			/* out of memory: entries not kept */
	struct uetp_epset eps;
	atomic_int ref;
	atomic_bool signaled;
	struct uetp_err_data err_data;	/* provider-owned err_data */
	char errbuf[160];
};

int uetp_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		 struct fid_cq **cq, void *context);
/* Keep room for one more entry (at post time). 0 or -FI_ENOMEM. */
int uetp_cq_reserve(struct uetp_cq *cq);
void uetp_cq_unreserve(struct uetp_cq *cq);
/* Add an entry; `reserved` consumes a reservation. Never drops unless
 * memory is exhausted (then counted in lost and logged). */
void uetp_cq_push(struct uetp_cq *cq, const struct uetp_cq_entry *e,
		  bool reserved);
size_t uetp_cq_count(struct uetp_cq *cq);

/* ---- counter (uetp_cntr.c) ---- */

struct uetp_cntr {
	struct fid_cntr fid;
	struct uetp_domain *domain;
	atomic_uint_fast64_t value;
	atomic_uint_fast64_t err;
	uint64_t last_read, last_err;	/* for fi_trywait */
	uint64_t op_flags;		/* FI_GETOPSFLAG / FI_SETOPSFLAG */
	enum fi_wait_obj wait_obj;
	struct uetp_wait *wait;
	struct uetp_epset eps;
	atomic_int ref;
};

int uetp_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
		   struct fid_cntr **cntr, void *context);
void uetp_cntr_inc(struct uetp_cntr *cntr);
void uetp_cntr_inc_err(struct uetp_cntr *cntr);
/* fid is one of our counters. */
bool uetp_cntr_is(const struct fid *fid);

/* ---- address vector (uetp_av.c) ---- */

struct uetp_av_entry {
	struct uet_addr addr;
	bool used;
};

struct uetp_av_shm;

struct uetp_av {
	struct fid_av fid;
	struct uetp_domain *domain;
	enum fi_av_type type;
	uint64_t flags;
	uint32_t addr_format;
	struct uetp_lock lock;
	struct uetp_av_entry *table;
	size_t count, cap;
	size_t *hash;			/* index + 1, 0 = empty */
	size_t hash_cap;
	struct uetp_eq *eq;
	atomic_int ref;
	int rx_ctx_bits;		/* fi_av_attr: scalable endpoints */
	/* FI_SHARED_AV: a named AV's table lives in a POSIX shared-memory
	 * segment (uetp_av.c); count is then what this process has seen */
	struct uetp_av_shm *shm;	/* NULL: a private AV */
	size_t shm_len;
	char *shm_name;			/* set when we created it */
};

int uetp_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		 struct fid_av **av, void *context);
/* fi_addr -> address; -FI_EINVAL if not in use. */
int uetp_av_get(struct uetp_av *av, fi_addr_t fi_addr, struct uet_addr *a);

/* fi_rx_addr (fi_endpoint.3): a receive context index in the top
 * rx_ctx_bits bits of an fi_addr_t. The AV entry and the index. */
static inline bool uetp_av_plain(const struct uetp_av *av, fi_addr_t a)
{
	return !av || !av->rx_ctx_bits || a == FI_ADDR_UNSPEC ||
	       a == FI_ADDR_NOTAVAIL;
}

static inline fi_addr_t uetp_av_base(const struct uetp_av *av, fi_addr_t a)
{
	return uetp_av_plain(av, a) ? a : a & (~0ULL >> av->rx_ctx_bits);
}

static inline uint16_t uetp_av_rx_ctx(const struct uetp_av *av, fi_addr_t a)
{
	return uetp_av_plain(av, a) ? 0 :
	       (uint16_t)(a >> (64 - av->rx_ctx_bits));
}
/* address -> fi_addr, FI_ADDR_NOTAVAIL if unknown. */
fi_addr_t uetp_av_reverse(struct uetp_av *av, const struct uet_addr *a);

/* ---- memory registration (uetp_mr.c) ---- */

/* One registration. The engine keeps its own MR table per endpoint
 * (struct uet_fep), so a domain MR is registered into the engine of every
 * enabled endpoint of the domain, and into each endpoint enabled later;
 * with FI_MR_ENDPOINT only into the endpoint it is bound to, once
 * fi_mr_enable'd. The engine's context of the MR is this struct (remote
 * completions find the MR's counter through it). */
struct uetp_mr {
	struct fid_mr mr_fid;
	struct uetp_domain *domain;
	struct uet_list dom_entry;	/* domain->mrs */
	struct uetp_mr *hnext;		/* domain->mr_hash chain */
	bool hashed;
	uint64_t access;		/* FI_* */
	uint64_t flags;			/* registration flags */
	void *base;
	size_t len;
	struct uetp_ep *ep;		/* FI_MR_ENDPOINT: bound endpoint */
	bool enabled;			/* in the engine(s) */
	struct uetp_cntr *cntr;		/* fi_mr_bind(cntr) */
	uint64_t cntr_flags;		/* FI_REMOTE_READ / FI_REMOTE_WRITE */
};

extern struct fi_ops_mr uetp_mr_ops;

/* The domain's FI_MR_* mode from the fi_info it was opened with. */
uint64_t uetp_mr_mode_bits(uint32_t version, uint64_t mr_mode);
/* Register every MR that belongs in ep's engine (fi_enable); domain->lock
 * held, ep->lock not. 0 or -FI_E*. */
int uetp_mr_ep_enable(struct uetp_ep *ep);
/* ep is closing: forget it in FI_MR_ENDPOINT MRs. domain->lock held. */
void uetp_mr_ep_close(struct uetp_ep *ep);

/* ---- impairments (uetp_impair.c) ---- */

struct uetp_impair_cfg {
	uint32_t drop_ppm, dup_ppm, reorder_ppm;
	uint64_t seed;
};

#define UETP_IMPAIR_HOLD	8	/* packets held back for reordering */

struct uetp_impair {
	struct uet_impair odds;		/* the decision is uet/impair.h's */
	uint64_t rng;			/* its uet/rand.h stream */
	uint64_t seq;			/* packets picked for */
	unsigned held;
	struct uet_net_msg hold[UETP_IMPAIR_HOLD];
	uint64_t dropped, duplicated, reordered;
};

/* "drop=0.05,dup=0.01,reorder=0.1,seed=7"; 0 or -FI_EINVAL. */
int uetp_impair_parse(const char *s, struct uetp_impair_cfg *cfg);
int uetp_impair_open(struct uetp_impair **imp,
		     const struct uetp_impair_cfg *cfg);
void uetp_impair_close(struct uetp_impair *imp);
/* Decide one received packet: bits of UETP_IMPAIR_*. */
#define UETP_IMPAIR_DROP	UET_IMPAIR_DROP
#define UETP_IMPAIR_DUP		UET_IMPAIR_DUP
#define UETP_IMPAIR_REORDER	UET_IMPAIR_REORDER
unsigned uetp_impair_pick(struct uetp_impair *imp);
/* Hold a copy of m back; false if the hold queue is full. */
bool uetp_impair_hold(struct uetp_impair *imp, const struct uet_net_msg *m);

/* ---- pcap tap (uetp_pcap.c) ---- */

int uetp_pcap_get(void);		/* open on first use (FI_UET_PCAP) */
void uetp_pcap_put(void);
void uetp_pcap_flush(void);
void uetp_pcap_cleanup(void);
/* dscp: what the port sends with (received packets show 0: the port
 * does not report theirs). */
void uetp_pcap_trace(const struct uet_net *net, int dir, uint8_t dscp,
		     const struct uet_pkt_info *pi, const uint8_t *pkt,
		     size_t len);

/* ---- traffic classes (uetp_tclass.c) ---- */

/* FI_UET_TCLASS_DSCP's default: RFC 4594-style code points. */
#define UETP_DEFAULT_TCLASS_DSCP "best_effort=0,low_latency=46," \
				 "dedicated_access=40,bulk_data=10," \
				 "scavenger=8,network_ctrl=48"

/* FI_TC_UNSPEC, a label or fi_tc_dscp_set(0..63). */
bool uetp_tclass_valid(uint32_t tc);
/* The endpoint's class: its own unless FI_TC_UNSPEC, else the domain's,
 * else FI_TC_BEST_EFFORT. */
uint32_t uetp_tclass_resolve(uint32_t ep_tc, uint32_t dom_tc);
/* The DSCP of a resolved class (uetp_env.tc_dscp for labels). */
uint8_t uetp_tclass_dscp(uint32_t tc);
/* Set table entries from "name=dscp,..." (names as in the default);
 * -FI_EINVAL, table unchanged, when any pair is wrong. */
int uetp_tclass_parse(const char *s, uint8_t table[UETP_TC_LABELS]);

/* ---- endpoint (uetp_ep.c, uetp_msg.c, uetp_tagged.c) ---- */

/* One posted operation; op.context for the engine points here. */
struct uetp_req {
	struct uetp_req *next;		/* free list */
	struct uetp_ep *owner;		/* whose free lists it returns to */
	struct uetp_srx *srx;		/* ... or this shared rx context's */
	void *context;			/* the application's */
	uint64_t flags;			/* FI_* for the CQ entry */
	struct uetp_cq *cq;
	struct uetp_cntr *cntr;
	uint8_t type;			/* UET_OP_* */
	uint8_t amo_kind;		/* atomics: UETP_AMO_* (CQ flags) */
	bool in_use;
	bool want_comp;
	bool reserved;			/* holds a CQ reservation */
	bool peek;			/* FI_PEEK receive */
	bool claimed;			/* FI_PEEK|FI_CLAIM matched, kept */
};

struct uetp_ep {
	struct fid_ep fid;
	struct uetp_domain *domain;
	struct fi_info *info;
	uint32_t addr_format;
	uint64_t caps;
	struct uetp_lock lock;
	struct uet_list dom_entry;	/* domain->eps (progress thread) */

	struct uetp_av *av;
	struct uetp_cq *tx_cq, *rx_cq;
	bool tx_selective, rx_selective;
	struct uetp_cntr *tx_cntr, *rx_cntr;
	struct uetp_cntr *rd_cntr, *wr_cntr;	/* FI_READ, FI_WRITE */
	struct uetp_cntr *rrd_cntr, *rwr_cntr;	/* FI_REMOTE_READ/WRITE */
	struct uetp_eq *eq;
	uint64_t tx_op_flags, rx_op_flags;
	size_t min_multi_recv;
	size_t iov_limit;
	size_t inject_size;
	bool enabled;

	/* the engine and its port */
	struct uet_fep_config cfg;
	struct uet_fep *fep;
	struct uet_net *net;
	unsigned entropy_bits;
	/* The traffic class every packet goes in (uetp_tclass.c): tx_attr's,
	 * else the domain's, else FI_TC_BEST_EFFORT; its DSCP is the port's.
	 * Kept for the congestion control contexts, one per destination and
	 * traffic class (docs/choices.md §9.1), once cms/ keys them by it. */
	uint32_t tclass;
	uint8_t dscp;
	struct uetp_name name;
	uint64_t rand_state;

	/* operations */
	struct uetp_req *reqs;
	size_t nreqs;
	struct uetp_req *tx_free, *rx_free;
	size_t tx_nfree, rx_nfree;	/* their lengths: fi_*_size_left */

	/* I/O batches */
	struct uet_net_msg rx_msgs[UETP_BATCH];
	struct uet_net_msg tx_msgs[UETP_TX_BATCH];
	uint8_t *rx_bufs, *tx_bufs;
	unsigned tx_pending, tx_off;
	unsigned tx_corked;		/* posts whose packets wait (corking) */
	uet_time posted_at;		/* the last send-side post */
	int timer_fd;
	bool timer_armed;
	uet_time active_at;		/* last progress pass that did work */
	uet_time polled_at;		/* last pass the application drove */
	uint64_t rescues;		/* passes uetp_rescue.c ran for it */
	struct uetp_impair *impair;
	bool pcap;
	bool place;			/* direct placement (FI_UET_RX_PLACE) */
	uint64_t misplaced;		/* batches whose placed packets were
					 * not what the plan said */
	uint64_t tx_dropped;		/* refused by the port */
	uet_time lingered;		/* close waited for quiet peers */
	bool port_failed;		/* a fatal port error was reported */

	/* contexts (uetp_stx.c, uetp_srx.c, uetp_sep.c) */
	struct uetp_stx *stx;		/* bound shared tx context */
	struct uetp_srx *srx;		/* bound shared rx context */
	struct uetp_sep *sep;		/* a scalable endpoint: its contexts */
	struct uetp_ep *base;		/* a tx/rx context: the scalable
					 * endpoint whose engine and port it
					 * posts to (no fep or port of its own) */
	uint16_t rx_index;		/* an rx context: its engine context */
};

/* The endpoint whose port, engine and I/O batches serve ep. */
static inline struct uetp_ep *uetp_ep_io(struct uetp_ep *ep)
{
	return ep->base ? ep->base : ep;
}

int uetp_ep_open(struct fid_domain *domain, struct fi_info *info,
		 struct fid_ep **ep, void *context);
/* Called by the engine (callbacks.complete). */
void uetp_ep_complete(void *user, const struct uet_completion *c);
/* Report req's completion c through ep (NULL: a shared rx context's
 * receive with no endpoint left to report to). */
void uetp_ep_complete_req(struct uetp_ep *ep, struct uetp_req *req,
			  const struct uet_completion *c);
/* A new engine on the same port, for a changed ep->cfg (before enable). */
int uetp_ep_engine_renew(struct uetp_ep *ep);

/* The endpoint's pieces (uetp_ep.c: fid ops and open; uetp_ep_engine.c:
 * engine callbacks, port and engine; uetp_ep_bind.c: bind and enable). */
void uetp_ep_config(struct uetp_ep *ep, const struct fi_info *info);
/* Entropy runs and the fixed window sized to c->mtu (what FI_UET_ENTROPY_RUN
 * and FI_UET_WINDOW leave to it). */
void uetp_ep_fit_runs(struct uet_fep_config *c);
int uetp_ep_reqs_alloc(struct uetp_ep *ep);
int uetp_ep_bufs_alloc(struct uetp_ep *ep);
/* (Re)open port and engine; exact = 0 follows FI_UET_UDP_PORT. */
int uetp_ep_engine_open(struct uetp_ep *ep, uint16_t exact);
void uetp_ep_engine_close(struct uetp_ep *ep);
/* fi_endpoint without the one-context check (scalable endpoints). */
int uetp_ep_create(struct fid_domain *domain, struct fi_info *info,
		   struct fid_ep **ep, void *context);
int uetp_ep_close(struct fid *fid);
int uetp_ep_control(struct fid *fid, int command, void *arg);
extern struct fi_ops_ep uetp_ep_ops;
extern struct fi_ops_cm uetp_ep_cm_ops;
int uetp_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int uetp_ep_enable(struct uetp_ep *ep);
void uetp_ep_unhook(struct uetp_ep *ep);
/* The endpoint's counters, one slot per fi_ep_bind flag. */
#define UETP_EP_CNTRS	6
void uetp_ep_cntrs(struct uetp_ep *ep, struct uetp_cntr ***slots);

/* Receives use the rx free list, everything else the tx one. */
static inline bool uetp_op_is_tx(uint8_t type)
{
	return type != UET_OP_RECV && type != UET_OP_TRECV;
}

/* Progress and wait hooks of a counter for this endpoint (MR counters
 * count remote events arriving through any endpoint of the domain). */
int uetp_ep_hook_cntr(struct uetp_ep *ep, struct uetp_cntr *cntr);
void uetp_ep_unhook_cntr(struct uetp_ep *ep, struct uetp_cntr *cntr);
bool uetp_ep_binds_cntr(struct uetp_ep *ep, const struct uetp_cntr *cntr);

/* A free request of the transmit or the receive list (NULL: none);
 * ep->lock held. */
struct uetp_req *uetp_ep_req_get(struct uetp_ep *ep, bool tx);
/* Give back a request that was never posted; ep->lock held. */
void uetp_ep_req_put(struct uetp_ep *ep, struct uetp_req *req);

/* The one post path (uetp_msg.c): every fi_ops_msg, fi_ops_tagged,
 * fi_ops_rma and fi_ops_atomic call ends in uetp_post_submit. */
struct uetp_post {
	uint8_t type;			/* UET_OP_* */
	const struct iovec *iov;
	size_t count;
	fi_addr_t addr;
	uint64_t tag, ignore, data;
	void *context;
	uint64_t flags;			/* FI_* */
};

/* Provider-specific flag bit (fabric.h: bits 60-63): an fi_inject-style
 * call, which never generates a completion. */
#define UETP_INJECT_OP		(1ULL << 60)

/* A message or tagged post: checks, its engine op, submit. */
ssize_t uetp_msg_post(struct uetp_ep *ep, const struct uetp_post *p);
/* Take a request for op (for FI_CLAIM alone, the one a peek claimed),
 * reserve its CQ entry, post, send. flags are FI_* (FI_COMPLETION,
 * FI_PEEK, UETP_INJECT_OP, ...); amo_kind is UETP_AMO_* for the CQ
 * flags of an atomic. */
ssize_t uetp_post_submit(struct uetp_ep *ep, struct uet_op *op,
			 uint64_t flags, void *context, uint8_t amo_kind);
/* The engine op of a transmit: buffers (within the iov and inject
 * limits; *total their bytes), flags, CQ data, peer. 0 or -FI_E*. */
int uetp_post_tx_op(struct uetp_ep *ep, const struct uetp_post *p,
		    struct uet_op *op, struct uet_iov *iov, size_t *total);
/* FI_* operation flags -> UET_OPF_* of a transmit. */
uint32_t uetp_post_tx_opf(uint64_t flags);
/* op->peer of addr; -FI_EINVAL without an AV or for an unknown addr. */
int uetp_post_peer(struct uetp_ep *ep, fi_addr_t addr, struct uet_op *op);
/* The engine op of a post, shared by endpoints and shared receive
 * contexts: buffers and matching fields (returns the bytes in them),
 * then for a receive the flags that shape it. */
size_t uetp_post_op_base(const struct uetp_post *p, struct uet_op *op,
			 struct uet_iov *iov);
void uetp_post_rx_flags(uint64_t f, size_t min_multi_recv, struct uet_op *op);
ssize_t uetp_ep_cancel(fid_t fid, void *context);

extern struct fi_ops_msg uetp_msg_ops;
extern struct fi_ops_tagged uetp_tagged_ops;

/* ---- shared contexts, scalable endpoints (uetp_stx.c, uetp_srx.c,
 * uetp_sep.c) ---- */

/* Contexts of one scalable endpoint: receive contexts are engine
 * contexts (UET resource indices), at most 12 bits of them. */
#define UETP_SEP_CTX_MAX	16
#define UETP_RX_CTX_BITS_MAX	12

/* A shared transmit context: attributes only; every endpoint bound to it
 * still sends from its own port and engine (fi_uet.7 says why). */
struct uetp_stx {
	struct fid_stx fid;
	struct uetp_domain *domain;
	struct fi_tx_attr attr;
	atomic_int ref;			/* bound endpoints */
};

/* A shared receive context: one engine receive queue (struct uet_rxq)
 * that the engines of its endpoints match against; its lock is theirs. */
struct uetp_srx {
	struct fid_ep fid;
	struct uetp_domain *domain;
	struct uetp_lock lock;
	struct uet_rxq *q;
	struct uetp_req *reqs, *free;
	size_t nreqs;
	uint64_t caps, op_flags;
	size_t min_multi_recv, iov_limit;
	struct uetp_ep **eps;		/* bound endpoints */
	size_t neps, cap;
};

/* A scalable endpoint's contexts (the endpoint itself owns the port and
 * the engine, with one engine receive context per rx context). */
struct uetp_sep {
	size_t tx_cnt, rx_cnt;
	struct uetp_ep **tx, **rx;	/* NULL until opened */
	struct uetp_ep **dead;		/* closed with operations in flight */
	size_t ndead, dead_cap;
};

int uetp_stx_open(struct fid_domain *domain, struct fi_tx_attr *attr,
		  struct fid_stx **stx, void *context);
int uetp_stx_bind_ep(struct uetp_ep *ep, struct uetp_stx *stx);
void uetp_stx_unbind_ep(struct uetp_ep *ep);

int uetp_srx_open(struct fid_domain *domain, struct fi_rx_attr *attr,
		  struct fid_ep **rx_ep, void *context);
/* fi_ep_bind(ep, srx) before fi_enable; ep's engine is renewed on the
 * shared queue and ep takes the srx lock. */
int uetp_srx_bind_ep(struct uetp_ep *ep, struct uetp_srx *srx);
/* ep closes (its lock, the srx's, held). */
void uetp_srx_unbind_ep(struct uetp_ep *ep);
/* Completion side of a shared receive: CQ, counter and selectivity of
 * the endpoint ep (NULL: none); then give req back to the srx. */
void uetp_srx_route(struct uetp_req *req, struct uetp_ep *ep);
void uetp_srx_req_free(struct uetp_srx *srx, struct uetp_req *req);

int uetp_sep_open(struct fid_domain *domain, struct fi_info *info,
		  struct fid_ep **sep, void *context);
/* The scalable endpoint ep has a new engine: its contexts post to it. */
void uetp_sep_engine_changed(struct uetp_ep *ep);

/* ---- FI_EP_DGRAM (uetp_dgram.c) ---- */

/* What a DGRAM endpoint does: untagged messages, nothing one-sided. */
#define UETP_DGRAM_CAPS	(FI_MSG | FI_SEND | FI_RECV | FI_DIRECTED_RECV | \
			 FI_MULTI_RECV | FI_SOURCE | FI_LOCAL_COMM | \
			 FI_REMOTE_COMM | FI_SHARED_AV)

/* Hints that leave room for a DGRAM entry (type unspecified or DGRAM). */
bool uetp_dgram_wanted(const struct fi_info *h);
/* Why hints (already passing uetp_attr.c's checks) exclude DGRAM; NULL
 * when they do not. */
const char *uetp_dgram_check(const struct fi_info *h);
/* Largest datagram on an interface: one UUD packet's payload. */
size_t uetp_dgram_max(const struct uetp_iface *ifc);
/* Turn an RDM entry built for ifc into the DGRAM one; -FI_ENODATA when
 * the hints' max_msg_size does not fit this interface. */
int uetp_dgram_info(struct fi_info *fi, const struct fi_info *h,
		    const struct uetp_iface *ifc);
bool uetp_dgram_ep(const struct fi_info *info);
/* Op tables and caps of a DGRAM endpoint (after the RDM defaults). */
void uetp_dgram_ep_init(struct uetp_ep *ep);

/* FI_UET_RUDI (uetp_rudi.c): is a region registered now with this access
 * and these flags IDEMPOTENT (key bit 63)? domain->lock held. */
bool uetp_rudi_mr(const struct uetp_domain *dom, uint64_t access,
		  uint64_t flags);

/* ---- RMA and atomics (uetp_rma.c, uetp_atomic.c) ---- */

/* uetp_post_submit of a prepared one-sided op (peer, iovs, key,
 * address filled), after refusing the flags one-sided ops do not take
 * (-FI_EBADFLAGS). */
ssize_t uetp_rma_submit(struct uetp_ep *ep, struct uet_op *op,
			uint64_t flags, void *context, uint8_t amo_kind);

/* What kind of atomic a request was (CQ flags, counters). */
#define UETP_AMO_NONE		0
#define UETP_AMO_BASE		1
#define UETP_AMO_FETCH		2
#define UETP_AMO_COMPARE	3

/* libfabric op/datatype -> UET (-1 when UET has none). */
int uetp_atomic_op(enum fi_op op);
int uetp_atomic_dt(enum fi_datatype dt);
/* Bytes of one element of dt, 0 if unknown. */
size_t uetp_atomic_dt_size(enum fi_datatype dt);
/* Largest element count of one atomic of this kind, 0 when the pair is
 * not supported (libfabric's rules and the engine's). */
size_t uetp_atomic_max_count(struct uetp_domain *dom, enum fi_datatype dt,
			     enum fi_op op, unsigned kind);
int uetp_atomic_query(struct fid_domain *domain, enum fi_datatype dt,
		      enum fi_op op, struct fi_atomic_attr *attr,
		      uint64_t flags);

extern struct fi_ops_rma uetp_rma_ops;
extern struct fi_ops_atomic uetp_atomic_ops;

/* ---- triggered operations (uetp_trigger.c, uetp_alias.c) ---- */

void uetp_trigger_init(struct uetp_trig_queue *q);
void uetp_trigger_fini(struct uetp_trig_queue *q);
/* Post the queued operations whose counter reached their threshold;
 * called where the application lets the provider progress. No lock
 * held. */
void uetp_trigger_run(struct uetp_domain *dom);
/* The FI_TRIGGER branches of the post paths: queue the operation, or
 * post it at once when the threshold is already met. */
ssize_t uetp_trigger_msg(struct uetp_ep *ep, const struct uetp_post *p);
ssize_t uetp_trigger_rma(struct uetp_ep *ep, uint8_t type,
			 const struct fi_msg_rma *msg, uint64_t flags);
ssize_t uetp_trigger_atomic(struct uetp_ep *ep, unsigned kind,
			    const struct fi_msg_atomic *msg,
			    const struct fi_ioc *compare, size_t compare_count,
			    const struct fi_ioc *result, size_t result_count,
			    uint64_t flags);
/* The endpoint closes: its operations still waiting are dropped (a
 * started one belongs to the endpoint already). */
void uetp_trigger_ep_close(struct uetp_ep *ep);
/* fi_ep_alias (fi_control FI_ALIAS on an endpoint). */
int uetp_alias_open(struct uetp_ep *ep, struct fi_alias *arg);
/* The endpoint a data-transfer call reached, directly or through an
 * alias, and the op flags of its calls without a flags argument: the
 * alias's, else the endpoint's. */
struct uetp_ep *uetp_alias_target(struct fid_ep *fid);
uint64_t uetp_alias_tx_flags(struct fid_ep *fid);
uint64_t uetp_alias_rx_flags(struct fid_ep *fid);

/* ---- the I/O loop (uetp_progress.c) ---- */

/* One pass for one endpoint; call with ep->lock held. */
/* One pass; true when it moved a packet or fired a timer. */
bool uetp_progress_ep(struct uetp_ep *ep);
/* Send what the engine has queued (after a post). ep->lock held. */
void uetp_progress_flush(struct uetp_ep *ep, uet_time now);
/* After a send-side post of len bytes: flush, or leave its packets for
 * the next pass when they may share system calls with the next post's
 * (corking, FI_UET_CORK_US). ep->lock held. */
void uetp_progress_posted(struct uetp_ep *ep, size_t len, uint64_t flags,
			  uet_time now);
/* Earliest deadline of the engine (ep->lock held). */
uet_time uetp_progress_deadline(struct uetp_ep *ep);
/* Arm the endpoint's timerfd to that deadline (FI_WAIT_FD users). */
void uetp_progress_arm(struct uetp_ep *ep);

/* The endpoints bound to a CQ or counter: progress every one of them. */
int uetp_progress_set_add(struct uetp_epset *s, struct uetp_ep *ep);
void uetp_progress_set_del(struct uetp_epset *s, struct uetp_ep *ep);
/* Run progress on every ep; returns the earliest engine deadline. */
uet_time uetp_progress_set_run(struct uetp_epset *s);
/* The same from a non-blocking read that may find nothing: a poller idle
 * for its spin (at most FI_UET_POLL_SPIN_US) yields the CPU on each
 * empty call. */
void uetp_progress_set_poll(struct uetp_epset *s);
/* The next idle spin of a poller whose yield took `took` after a spin
 * of `spin`, FI_UET_POLL_SPIN_US being `max` (uetp_progress.c). */
uet_time uetp_progress_spin_next(uet_time spin, uet_time took, uet_time max);
/* Arm the eps' timers (fi_trywait). */
void uetp_progress_set_arm(struct uetp_epset *s);
/* Some ep still has packets to send (socket was full, or corked). */
bool uetp_progress_set_tx_pending(struct uetp_epset *s);

/* The optional thread (FI_UET_PROGRESS_THREAD), one per domain. */
int uetp_progress_start(struct uetp_domain *dom);
/* One pass for ep (its I/O endpoint) at now, whoever drives it. */
bool uetp_progress_io(struct uetp_ep *ep, uet_time now);

/* ---- rescue progress (uetp_rescue.c) ---- */

/* Under manual progress, a thread per domain runs the passes of
 * endpoints the application has not driven for FI_UET_RESCUE_MS. */
int uetp_rescue_start(struct uetp_domain *dom);
void uetp_rescue_stop(struct uetp_domain *dom);
void uetp_progress_stop(struct uetp_domain *dom);
/* Wake the thread when a deadline earlier than its sleep appeared. */
void uetp_progress_kick(struct uetp_domain *dom, uet_time deadline);

/* ---- -FI_ENOSYS stubs (uetp_enosys.c) ---- */

extern struct fi_ops_rma uetp_enosys_rma;
extern struct fi_ops_atomic uetp_enosys_atomic;
extern struct fi_ops_collective uetp_enosys_collective;
extern struct fi_ops_msg uetp_enosys_msg;
extern struct fi_ops_tagged uetp_enosys_tagged;
extern struct fi_ops_ep uetp_enosys_ep;
extern struct fi_ops_cm uetp_enosys_cm;

int uetp_enosys_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int uetp_enosys_control(struct fid *fid, int command, void *arg);
int uetp_enosys_ops_open(struct fid *fid, const char *name, uint64_t flags,
		     void **ops, void *context);
int uetp_enosys_tostr(const struct fid *fid, char *buf, size_t len);
int uetp_enosys_ops_set(struct fid *fid, const char *name, uint64_t flags,
		    void *ops, void *context);
int uetp_enosys_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_pep **pep, void *context);
int uetp_enosys_query_collective(struct fid_domain *domain,
			     enum fi_collective_op coll,
			     struct fi_collective_attr *attr, uint64_t flags);
int uetp_enosys_endpoint2(struct fid_domain *domain, struct fi_info *info,
		      struct fid_ep **ep, uint64_t flags, void *context);
int uetp_enosys_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		   struct fid_ep **tx_ep, void *context);
int uetp_enosys_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
		   struct fid_ep **rx_ep, void *context);
int uetp_enosys_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen);
int uetp_enosys_connect(struct fid_ep *ep, const void *addr, const void *param,
		    size_t paramlen);
int uetp_enosys_listen(struct fid_pep *pep);
int uetp_enosys_accept(struct fid_ep *ep, const void *param, size_t paramlen);
int uetp_enosys_reject(struct fid_pep *pep, fid_t handle, const void *param,
		   size_t paramlen);
int uetp_enosys_shutdown(struct fid_ep *ep, uint64_t flags);
int uetp_enosys_join(struct fid_ep *ep, const void *addr, uint64_t flags,
		 struct fid_mc **mc, void *context);
int uetp_enosys_av_set(struct fid_av *av, struct fi_av_set_attr *attr,
		   struct fid_av_set **av_set, void *context);

#endif
