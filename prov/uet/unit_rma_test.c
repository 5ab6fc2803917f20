/* RMA addressing and RMA errors, through the real engine on the mem net
 * under the fake clock (the counter test, with its second thread, on
 * loopback).
 *
 * The fixture asks as fabtests' fi_multi_mr does (libfabric 1.17): it
 * allows FI_MR_VIRT_ADDR among other bits, then writes to address 0 of
 * each region. uet addresses regions by offset unless an application
 * cannot do without virtual addresses (FI_MR_BASIC) or
 * FI_UET_MR_VIRT_ADDR=1 asks for them; either way a write to the wrong
 * address must end in an error completion, never in a wait.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "uet/err.h"
#include "uet/wire.h"
#include "uetp.h"

#include "test_util.h"

#define REGION		(64u * 1024)

static struct {
	struct uetp_test_pair p;
	uint8_t *mem[2];		/* b's regions */
	struct fid_mr *mr[2];
	struct fid_cntr *mr_cntr[2];
	uint8_t *local;			/* a's buffer */
} rx;

/* b's two regions, each with a FI_REMOTE_WRITE counter. */
static void regions_open(void)
{
	struct fi_cntr_attr na = { .events = FI_CNTR_EVENTS_COMP };

	for (int i = 0; i < 2; i++) {
		rx.mem[i] = calloc(1, REGION);
		cr_assert_eq(fi_cntr_open(rx.p.domain, &na, &rx.mr_cntr[i],
					  NULL), 0);
		uetp_test_own(&rx.p, &rx.mr_cntr[i]->fid);
		cr_assert_eq(fi_mr_reg(rx.p.domain, rx.mem[i], REGION,
				       FI_REMOTE_READ | FI_REMOTE_WRITE, 0,
				       (uint64_t)i + 1, FI_RMA_EVENT,
				       &rx.mr[i], NULL), 0);
		uetp_test_own(&rx.p, &rx.mr[i]->fid);
		cr_assert_eq(fi_mr_bind(rx.mr[i], &rx.mr_cntr[i]->fid,
					FI_REMOTE_WRITE), 0);
		cr_assert_eq(fi_mr_enable(rx.mr[i]), 0);
	}
}

static void rx_open_with(bool a_cq)
{
	struct fi_info *h = uetp_test_lo_hints(FI_EP_RDM, FI_RMA |
					       FI_RMA_EVENT | FI_MSG), *ia;
	struct uetp_test_side_attr sa = {
		.cq = { .format = FI_CQ_FORMAT_DATA, .size = 64 },
		.cntr = { .events = FI_CNTR_EVENTS_COMP,
			  .wait_obj = FI_WAIT_UNSPEC },
		.rw_cntrs = true,
	};

	h->mode = FI_CONTEXT;
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_ENDPOINT |
				  FI_MR_ALLOCATED | FI_MR_PROV_KEY |
				  FI_MR_VIRT_ADDR;
	uetp_test_getinfo(&rx.p, h);
	uetp_test_domain_open(&rx.p);
	/* a initiates only: without a CQ it has its counters alone */
	ia = fi_dupinfo(rx.p.info);
	if (!a_cq) {
		ia->caps = FI_RMA | FI_READ | FI_WRITE;
		ia->tx_attr->caps = ia->caps;
		ia->rx_attr->caps = 0;
		sa.cq.format = 0;
	}
	uetp_test_side_open(&rx.p.a, rx.p.domain, ia, &sa);
	fi_freeinfo(ia);
	sa.cq.format = FI_CQ_FORMAT_DATA;
	uetp_test_side_open(&rx.p.b, rx.p.domain, rx.p.info, &sa);
	uetp_test_link(&rx.p.a, &rx.p.b);
	uetp_test_link(&rx.p.b, &rx.p.a);
	regions_open();
	rx.local = calloc(1, REGION);
}

/* On the mem net under the fake clock: what does not wait on another
 * thread. */
static void rx_open(void)
{
	uetp_test_mem_start(NULL);
	rx_open_with(true);
}

static void rx_open_counters_only(void)
{
	rx_open_with(false);
}

static void rx_close(void)
{
	uetp_test_pair_close(&rx.p);
	for (int i = 0; i < 2; i++)
		free(rx.mem[i]);
	free(rx.local);
	memset(&rx, 0, sizeof(rx));
}

TestSuite(rma, .init = rx_open, .fini = rx_close, .timeout = 60);
/* Tests with their own fixture (Criterion would run a suite .init too). */
TestSuite(rma_env, .timeout = 60);

/* a's next completion, good or bad, within 10 s; -FI_EAVAIL has the
 * error entry in *ee. */
static ssize_t next_comp(struct fi_cq_err_entry *ee)
{
	uet_time end = uetp_now() + 10 * UET_SEC;
	struct fi_cq_data_entry e;
	ssize_t ret;

	do {
		ret = fi_cq_read(rx.p.a.cq, &e, 1);
		if (ret == -FI_EAVAIL) {
			memset(ee, 0, sizeof(*ee));
			cr_assert_eq(fi_cq_readerr(rx.p.a.cq, ee, 0), 1);
			return ret;
		}
		if (ret != -FI_EAGAIN)
			break;
		fi_cq_read(rx.p.b.cq, &e, 0);	/* the target's progress */
		uetp_test_idle(rx.p.domain);
	} while (uetp_now() < end);
	cr_assert_eq(ret, 1, "no completion within 10 s (%zd)", ret);
	return ret;
}

static void expect_ok(void)
{
	struct fi_cq_err_entry ee;

	cr_assert_eq(next_comp(&ee), 1, "error %d (prov_errno 0x%x)", ee.err,
		     ee.prov_errno);
}

static void expect_err(int err, int rc, void *ctx)
{
	struct fi_cq_err_entry ee;

	cr_assert_eq(next_comp(&ee), -FI_EAVAIL, "succeeded, want error %d",
		     err);
	cr_assert_eq(ee.op_context, ctx);
	cr_assert_eq(ee.err, err, "err %d, want %d", ee.err, err);
	cr_assert_eq(ee.prov_errno, rc, "prov_errno 0x%x, want 0x%x",
		     ee.prov_errno, rc);
}

static uint64_t key_of(int i)
{
	return fi_mr_key(rx.mr[i]);
}

/* Where region i starts, in this domain's addressing. */
static uint64_t base_of(int i)
{
	return (rx.p.info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ?
	       (uint64_t)(uintptr_t)rx.mem[i] : 0;
}

/* What fi_multi_mr does: a whole region written at address 0 of each,
 * with the regions' counters counting the writes. */
Test(rma, regions_addressed_by_offset)
{
	cr_assert_eq(rx.p.info->domain_attr->mr_mode, FI_MR_PROV_KEY,
		     "FI_MR_VIRT_ADDR granted though not needed");
	for (int i = 0; i < 2; i++) {
		memset(rx.local, 0xA0 + i, REGION);
		cr_assert_eq(fi_write(rx.p.a.ep, rx.local, REGION, NULL,
				      rx.p.a.peer, 0, key_of(i), NULL), 0);
		expect_ok();
	}
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(rx.mem[i][0], 0xA0 + i);
		cr_assert_eq(rx.mem[i][REGION - 1], 0xA0 + i);
		cr_assert_eq(fi_cntr_read(rx.mr_cntr[i]), 1);
	}
	/* the region's virtual address is beyond it: an error, promptly */
	cr_assert_eq(fi_write(rx.p.a.ep, rx.local, 64, NULL, rx.p.a.peer,
			      (uint64_t)(uintptr_t)rx.mem[1], key_of(1),
			      (void *)9), 0);
	expect_err(FI_EFAULT, UET_RC_BAD_ADDR, (void *)9);
	cr_assert_eq(fi_cntr_readerr(rx.p.a.wc), 1);
	cr_assert_eq(fi_cntr_read(rx.mr_cntr[1]), 1);
}

static void rx_open_virt(void)
{
	setenv("FI_UET_MR_VIRT_ADDR", "1", 1);
	rx_open();
}

/* FI_UET_MR_VIRT_ADDR=1: virtual addresses; fi_multi_mr's address 0 is
 * then outside every region and fails - with an error completion. */
Test(rma_env, regions_addressed_by_virtual_address, .init = rx_open_virt,
     .fini = rx_close)
{
	cr_assert_eq(rx.p.info->domain_attr->mr_mode,
		     FI_MR_VIRT_ADDR | FI_MR_PROV_KEY);
	memset(rx.local, 0x5A, REGION);
	cr_assert_eq(fi_write(rx.p.a.ep, rx.local, REGION, NULL, rx.p.a.peer,
			      base_of(0), key_of(0), NULL), 0);
	expect_ok();
	cr_assert_eq(rx.mem[0][REGION - 1], 0x5A);
	cr_assert_eq(fi_write(rx.p.a.ep, rx.local, REGION, NULL, rx.p.a.peer, 0,
			      key_of(1), (void *)3), 0);
	expect_err(FI_EFAULT, UET_RC_BAD_ADDR, (void *)3);
	cr_assert_eq(fi_cntr_read(rx.mr_cntr[1]), 0);
	cr_assert_eq(rx.mem[1][0], 0);
}

/* Every refused RMA completes with its error - one packet or many, in
 * either direction, with any flag - and the endpoint carries on. */
Test(rma, errors_always_complete)
{
	const uint64_t k = key_of(0), b = base_of(0), bad = k + 1000;
	struct iovec iov = { rx.local, REGION };
	struct fi_rma_iov riov = { b + REGION - 100, 512, k };
	struct fi_msg_rma msg = { .msg_iov = &iov, .iov_count = 1,
				  .rma_iov = &riov, .rma_iov_count = 1 };
	struct fi_cq_err_entry ee;
	uint64_t werr = 0, rerr = 0;
	uet_time end;

	/* writes: bad key, one packet and many; straddling the end */
	cr_assert_eq(fi_write(rx.p.a.ep, rx.local, 16, NULL, rx.p.a.peer, b, bad,
			      (void *)1), 0);
	expect_err(FI_EKEYREJECTED, UET_RC_BAD_MKEY, (void *)1);
	cr_assert_eq(fi_write(rx.p.a.ep, rx.local, REGION, NULL, rx.p.a.peer, b,
			      bad, (void *)2), 0);
	expect_err(FI_EKEYREJECTED, UET_RC_BAD_MKEY, (void *)2);
	cr_assert_eq(fi_write(rx.p.a.ep, rx.local, REGION, NULL, rx.p.a.peer,
			      b + 1, k, (void *)3), 0);
	expect_err(FI_EFAULT, UET_RC_BAD_ADDR, (void *)3);
	cr_assert_eq(fi_writedata(rx.p.a.ep, rx.local, 64, NULL, 7, rx.p.a.peer,
				  b, bad, (void *)4), 0);
	expect_err(FI_EKEYREJECTED, UET_RC_BAD_MKEY, (void *)4);
	werr += 4;
	/* delivery complete and fenced */
	iov.iov_len = 512;
	msg.context = (void *)5;
	cr_assert_eq(fi_writemsg(rx.p.a.ep, &msg, FI_DELIVERY_COMPLETE), 0);
	expect_err(FI_EFAULT, UET_RC_BAD_ADDR, (void *)5);
	riov.key = bad;
	riov.addr = b;
	msg.context = (void *)6;
	cr_assert_eq(fi_writemsg(rx.p.a.ep, &msg, FI_FENCE | FI_COMPLETION), 0);
	expect_err(FI_EKEYREJECTED, UET_RC_BAD_MKEY, (void *)6);
	werr += 2;
	/* reads: data in the ACK and in the return direction */
	cr_assert_eq(fi_read(rx.p.a.ep, rx.local, 16, NULL, rx.p.a.peer,
			     b + REGION - 8, k, (void *)7), 0);
	expect_err(FI_EFAULT, UET_RC_BAD_ADDR, (void *)7);
	cr_assert_eq(fi_read(rx.p.a.ep, rx.local, REGION, NULL, rx.p.a.peer,
			     b + 4096, k, (void *)8), 0);
	expect_err(FI_EFAULT, UET_RC_BAD_ADDR, (void *)8);
	cr_assert_eq(fi_read(rx.p.a.ep, rx.local, REGION, NULL, rx.p.a.peer, b,
			     bad, (void *)9), 0);
	expect_err(FI_EKEYREJECTED, UET_RC_BAD_MKEY, (void *)9);
	rerr += 3;
	/* an inject has no context: its error still comes, and counts */
	cr_assert_eq(fi_inject_write(rx.p.a.ep, rx.local, 8, rx.p.a.peer, b, bad),
		     0);
	expect_err(FI_EKEYREJECTED, UET_RC_BAD_MKEY, NULL);
	werr++;
	cr_assert_eq(fi_cntr_readerr(rx.p.a.wc), werr);
	cr_assert_eq(fi_cntr_readerr(rx.p.a.rc), rerr);
	cr_assert_eq(fi_cntr_read(rx.mr_cntr[0]), 0);
	/* nothing landed; and the endpoint still works */
	for (size_t i = 0; i < REGION; i++)
		cr_assert_eq(rx.mem[0][i], 0, "byte %zu written", i);
	memset(rx.local, 0x77, REGION);
	cr_assert_eq(fi_write(rx.p.a.ep, rx.local, REGION, NULL, rx.p.a.peer, b, k,
			      NULL), 0);
	expect_ok();
	cr_assert_eq(rx.mem[0][REGION - 1], 0x77);
	end = uetp_now() + UET_SEC;
	while (uetp_now() < end) {
		cr_assert_eq(fi_cq_readerr(rx.p.a.cq, &ee, 0), -FI_EAGAIN,
			     "a stray error entry");
		uetp_test_idle(rx.p.domain);
	}
}

/* The target's progress, from another thread, while a waits. */
static atomic_bool target_stop;

static void *target_progress(void *arg)
{
	(void)arg;
	while (!atomic_load(&target_stop))
		fi_cq_read(rx.p.b.cq, NULL, 0);
	return NULL;
}

/* Without a CQ the counter carries the error: fi_cntr_wait returns
 * -FI_EAVAIL as soon as it moves, rather than at its timeout. (Manual
 * progress: only a's wait handles a's packets, so the error arrives
 * during the wait, as fi_cntr.3 counts it.) */
Test(rma_env, errors_reach_counters, .init = rx_open_counters_only,
     .fini = rx_close)
{
	const uint64_t k = key_of(0), b = base_of(0);
	pthread_t th;
	uet_time t0;

	atomic_store(&target_stop, false);
	cr_assert_eq(pthread_create(&th, NULL, target_progress, NULL), 0);
	cr_assert_eq(fi_write(rx.p.a.ep, rx.local, REGION, NULL, rx.p.a.peer,
			      b + 8, k, NULL), 0);
	t0 = uetp_now();
	cr_assert_eq(fi_cntr_wait(rx.p.a.wc, 1, 20000), -FI_EAVAIL);
	cr_assert_lt(uetp_now() - t0, 10 * UET_SEC);
	cr_assert_eq(fi_cntr_readerr(rx.p.a.wc), 1);
	cr_assert_eq(fi_read(rx.p.a.ep, rx.local, 64, NULL, rx.p.a.peer, b,
			     k + 99, NULL), 0);
	cr_assert_eq(fi_cntr_wait(rx.p.a.rc, 1, 20000), -FI_EAVAIL);
	cr_assert_eq(fi_cntr_readerr(rx.p.a.rc), 1);
	cr_assert_eq(fi_write(rx.p.a.ep, rx.local, 64, NULL, rx.p.a.peer, b, k,
			      NULL), 0);
	cr_assert_eq(fi_cntr_wait(rx.p.a.wc, 1, 20000), 0);
	atomic_store(&target_stop, true);
	pthread_join(th, NULL);
}
