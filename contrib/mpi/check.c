/*
 * contrib/mpi/check.c: what an MPI application asks of the transport under
 * Open MPI's OFI MTL (pml cm), every byte checked: point-to-point at the
 * sizes around uet's inject, packet and eager limits, nonblocking all-pairs
 * traffic, wildcards and their status, probe of unexpected messages,
 * per-pair ordering, synchronous sends, a cancelled receive, truncation,
 * collectives, and one-sided puts and gets. Any rank count from 2.
 *
 *   mpirun -np N ... check [-v] prints "check: ok, N ranks, K checks" on
 *                               rank 0, or each failure, and exits 1;
 *                               -v names each part as it starts
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nranks, verbose;
static long checks, failures;

/* -v: each rank names each part as it starts (where a hang sits). */
static void phase(const char *what)
{
	if (verbose)
		fprintf(stderr, "rank %d: %s\n", rank, what);
}

#define CHECK(cond, ...)						\
	do {								\
		checks++;						\
		if (!(cond)) {						\
			failures++;					\
			fprintf(stderr, "rank %d: %s:%d: ", rank,	\
				__FILE__, __LINE__);			\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

/* The byte at offset i of a message from src with tag: any corruption,
 * shift or mix-up of senders shows. */
static unsigned char pat(int src, int tag, size_t i)
{
	return (unsigned char)(i * 131 + (size_t)src * 29 + (size_t)tag * 7 +
			       (i >> 11));
}

static void fill(unsigned char *b, size_t n, int src, int tag)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pat(src, tag, i);
}

/* The first wrong offset, or n. */
static size_t verify(const unsigned char *b, size_t n, int src, int tag)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != pat(src, tag, i))
			return i;
	return n;
}

static unsigned char *xmalloc(size_t n)
{
	unsigned char *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

/* Receive n bytes from `from` with tag into b (cleared first) and check
 * the count and every byte. */
static void recv_check(unsigned char *b, size_t n, int from, int tag,
		       const char *what)
{
	MPI_Status st;
	int cnt;

	memset(b, 0, n);
	MPI_Recv(b, (int)n, MPI_BYTE, from, tag, MPI_COMM_WORLD, &st);
	MPI_Get_count(&st, MPI_BYTE, &cnt);
	CHECK((size_t)cnt == n, "%s %zu: count %d", what, n, cnt);
	CHECK(verify(b, n, from, tag) == n, "%s %zu: byte %zu wrong", what, n,
	      verify(b, n, from, tag));
}

/* Rank 0 and rank 1 bounce each size both ways; the sizes sit around
 * uet's inject size (4 KiB), its 14-bit packet payload (16383), a
 * 1500-byte packet, and the large-message path. */
static void pingpong(void)
{
	static const size_t sizes[] = {
		0, 1, 63, 64, 1400, 1500, 4095, 4096, 4097, 8192, 16383,
		16384, 16385, 65536, 65537, 262144, 1048576, 4194305,
	};
	size_t max = 4194305;
	unsigned char *b = xmalloc(max);

	for (size_t k = 0; rank < 2 && k < sizeof(sizes) / sizeof(sizes[0]);
	     k++) {
		size_t n = sizes[k];
		int tag = (int)k;

		for (int rep = 0; rep < 3; rep++) {
			if (rank == 0) {
				fill(b, n, 0, tag);
				MPI_Send(b, (int)n, MPI_BYTE, 1, tag,
					 MPI_COMM_WORLD);
				recv_check(b, n, 1, tag, "pong");
			} else {
				recv_check(b, n, 0, tag, "ping");
				fill(b, n, 1, tag);
				MPI_Send(b, (int)n, MPI_BYTE, 0, tag,
					 MPI_COMM_WORLD);
			}
		}
	}
	free(b);
}

/* Every rank sends to every other at once, several tags, nonblocking,
 * receives posted after the sends (so some arrive unexpected). */
static void all_pairs(size_t n)
{
	int tags = 3, k = 0;
	int m = (nranks - 1) * tags;
	unsigned char *s = xmalloc(n * (size_t)m), *r = xmalloc(n * (size_t)m);
	MPI_Request *rq = calloc((size_t)(2 * m), sizeof(*rq));
	MPI_Status *st = calloc((size_t)(2 * m), sizeof(*st));

	for (int p = 0; p < nranks; p++) {
		if (p == rank)
			continue;
		for (int t = 0; t < tags; t++, k++) {
			fill(s + (size_t)k * n, n, rank, 100 + t);
			MPI_Isend(s + (size_t)k * n, (int)n, MPI_BYTE, p,
				  100 + t, MPI_COMM_WORLD, &rq[k]);
		}
	}
	k = 0;
	for (int p = 0; p < nranks; p++) {
		if (p == rank)
			continue;
		for (int t = tags - 1; t >= 0; t--, k++)
			MPI_Irecv(r + (size_t)k * n, (int)n, MPI_BYTE, p,
				  100 + t, MPI_COMM_WORLD, &rq[m + k]);
	}
	MPI_Waitall(2 * m, rq, st);
	k = 0;
	for (int p = 0; p < nranks; p++) {
		if (p == rank)
			continue;
		for (int t = tags - 1; t >= 0; t--, k++) {
			const unsigned char *b = r + (size_t)k * n;

			CHECK(st[m + k].MPI_SOURCE == p &&
			      st[m + k].MPI_TAG == 100 + t,
			      "all-pairs %zu: status %d/%d, want %d/%d", n,
			      st[m + k].MPI_SOURCE, st[m + k].MPI_TAG, p,
			      100 + t);
			CHECK(verify(b, n, p, 100 + t) == n,
			      "all-pairs %zu from %d tag %d: byte %zu", n, p,
			      100 + t, verify(b, n, p, 100 + t));
		}
	}
	free(s);
	free(r);
	free(rq);
	free(st);
}

/* Rank 0 takes one message from every other rank with MPI_ANY_SOURCE and
 * MPI_ANY_TAG after probing it: the status names the sender, its tag and
 * its size (each sender's own). */
static void wildcards(void)
{
	if (rank == 0) {
		for (int i = 1; i < nranks; i++) {
			MPI_Status st;
			unsigned char *b;
			int cnt;

			MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
				  &st);
			MPI_Get_count(&st, MPI_BYTE, &cnt);
			CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < nranks &&
			      st.MPI_TAG == 200 + st.MPI_SOURCE &&
			      cnt == 1000 * st.MPI_SOURCE + 7,
			      "probe: source %d tag %d count %d", st.MPI_SOURCE,
			      st.MPI_TAG, cnt);
			b = xmalloc((size_t)cnt);
			MPI_Recv(b, cnt, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
				 MPI_COMM_WORLD, &st);
			CHECK(verify(b, (size_t)cnt, st.MPI_SOURCE,
				     st.MPI_TAG) == (size_t)cnt,
			      "wildcard from %d: wrong data", st.MPI_SOURCE);
			free(b);
		}
	} else {
		size_t n = (size_t)(1000 * rank + 7);
		unsigned char *b = xmalloc(n);

		fill(b, n, rank, 200 + rank);
		MPI_Send(b, (int)n, MPI_BYTE, 0, 200 + rank, MPI_COMM_WORLD);
		free(b);
	}
}

/* Messages of one sender, tag and communicator match in the order sent,
 * whatever their sizes. */
static void ordering(void)
{
	enum { N = 64 };
	static const size_t len[] = { 8, 20000, 3, 70000 };
	unsigned char *b = xmalloc(70000);

	if (rank == 1) {
		MPI_Request rq[N];
		unsigned char *s = xmalloc(70000 * (size_t)N);

		for (int i = 0; i < N; i++) {
			size_t n = len[i % 4];

			fill(s + (size_t)i * 70000, n, 1, i);
			MPI_Isend(s + (size_t)i * 70000, (int)n, MPI_BYTE, 0,
				  300, MPI_COMM_WORLD, &rq[i]);
		}
		MPI_Waitall(N, rq, MPI_STATUSES_IGNORE);
		free(s);
	} else if (rank == 0) {
		for (int i = 0; i < N; i++) {
			size_t n = len[i % 4];
			MPI_Status st;
			int cnt;

			MPI_Recv(b, 70000, MPI_BYTE, 1, 300, MPI_COMM_WORLD,
				 &st);
			MPI_Get_count(&st, MPI_BYTE, &cnt);
			CHECK((size_t)cnt == n && verify(b, n, 1, i) == n,
			      "order: message %d has %d bytes or wrong data",
			      i, cnt);
		}
	}
	free(b);
}

/* MPI_Ssend returns only once the receive matched; a receive that never
 * matches is cancelled; a message longer than its receive reports
 * MPI_ERR_TRUNCATE without harming the next one. */
static void ssend_cancel_truncate(void)
{
	unsigned char b[4096];
	MPI_Status st;

	if (rank == 0) {
		MPI_Request rq;
		int flag = 0, err, cls;

		MPI_Irecv(b, 16, MPI_BYTE, 1, 999, MPI_COMM_WORLD, &rq);
		MPI_Cancel(&rq);
		MPI_Wait(&rq, &st);
		MPI_Test_cancelled(&st, &flag);
		CHECK(flag, "an unmatched receive was not cancelled");

		memset(b, 0, sizeof(b));
		MPI_Recv(b, 64, MPI_BYTE, 1, 400, MPI_COMM_WORLD, &st);
		CHECK(verify(b, 64, 1, 400) == 64, "ssend: wrong data");

		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		err = MPI_Recv(b, 100, MPI_BYTE, 1, 401, MPI_COMM_WORLD, &st);
		MPI_Error_class(err, &cls);
		CHECK(cls == MPI_ERR_TRUNCATE,
		      "1000 bytes into 100: error class %d, want %d", cls,
		      MPI_ERR_TRUNCATE);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
		MPI_Recv(b, 4096, MPI_BYTE, 1, 402, MPI_COMM_WORLD, &st);
		CHECK(verify(b, 4096, 1, 402) == 4096,
		      "after a truncation: wrong data");
	} else if (rank == 1) {
		fill(b, 64, 1, 400);
		MPI_Ssend(b, 64, MPI_BYTE, 0, 400, MPI_COMM_WORLD);
		fill(b, 1000, 1, 401);
		MPI_Send(b, 1000, MPI_BYTE, 0, 401, MPI_COMM_WORLD);
		fill(b, 4096, 1, 402);
		MPI_Send(b, 4096, MPI_BYTE, 0, 402, MPI_COMM_WORLD);
	}
}

static void collectives(void)
{
	size_t n = 1 << 20;
	unsigned char *b = xmalloc(n);
	double *x = (double *)(void *)xmalloc(4096 * sizeof(double));
	double *y = (double *)(void *)xmalloc(4096 * sizeof(double));
	int *s = (int *)(void *)xmalloc((size_t)nranks * 1024 * sizeof(int));
	int *r = (int *)(void *)xmalloc((size_t)nranks * 1024 * sizeof(int));
	double want = 0;

	if (rank == 0)
		fill(b, n, 0, 500);
	MPI_Bcast(b, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
	CHECK(verify(b, n, 0, 500) == n, "bcast 1 MiB: wrong data");

	for (int i = 0; i < 4096; i++)
		x[i] = rank + i * 0.5;
	MPI_Allreduce(x, y, 4096, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	for (int p = 0; p < nranks; p++)
		want += p;
	for (int i = 0; i < 4096; i++)
		if (y[i] != want + nranks * i * 0.5) {
			CHECK(0, "allreduce[%d] = %g", i, y[i]);
			break;
		}

	for (int p = 0; p < nranks; p++)
		for (int i = 0; i < 1024; i++)
			s[p * 1024 + i] = rank * 1000000 + p * 1024 + i;
	MPI_Alltoall(s, 1024, MPI_INT, r, 1024, MPI_INT, MPI_COMM_WORLD);
	for (int p = 0; p < nranks; p++)
		for (int i = 0; i < 1024; i++)
			if (r[p * 1024 + i] != p * 1000000 + rank * 1024 + i) {
				CHECK(0, "alltoall from %d [%d] = %d", p, i,
				      r[p * 1024 + i]);
				p = nranks;
				break;
			}
	checks++;
	free(b);
	free(x);
	free(y);
	free(s);
	free(r);
}

/* Each rank puts a block into its right neighbour's window and gets one
 * from its left neighbour's, between fences. */
static void one_sided(void)
{
	size_t n = 65536;
	unsigned char *w = xmalloc(2 * n), *g = xmalloc(n);
	unsigned char *src = xmalloc(n);
	int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
	MPI_Win win;

	fill(w + n, n, rank, 601);
	memset(w, 0, n);
	fill(src, n, rank, 600);
	MPI_Win_create(w, (MPI_Aint)(2 * n), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
		       &win);
	MPI_Win_fence(0, win);
	MPI_Put(src, (int)n, MPI_BYTE, right, 0, (int)n, MPI_BYTE, win);
	MPI_Get(g, (int)n, MPI_BYTE, left, (MPI_Aint)n, (int)n, MPI_BYTE,
		win);
	MPI_Win_fence(0, win);
	CHECK(verify(w, n, left, 600) == n, "put from %d: wrong data", left);
	CHECK(verify(g, n, left, 601) == n, "get from %d: wrong data", left);
	MPI_Win_free(&win);
	free(w);
	free(g);
	free(src);
}

int main(int argc, char **argv)
{
	long all_checks, all_failures;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (nranks < 2) {
		fprintf(stderr, "check: needs 2 ranks or more\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	verbose = argc > 1 && !strcmp(argv[1], "-v");
	phase("pingpong");
	pingpong();
	MPI_Barrier(MPI_COMM_WORLD);
	phase("all-pairs");
	all_pairs(1);
	all_pairs(5000);
	all_pairs(300000);
	MPI_Barrier(MPI_COMM_WORLD);
	phase("wildcards");
	wildcards();
	MPI_Barrier(MPI_COMM_WORLD);
	phase("ordering");
	ordering();
	phase("ssend, cancel, truncation");
	ssend_cancel_truncate();
	MPI_Barrier(MPI_COMM_WORLD);
	phase("collectives");
	collectives();
	phase("one-sided");
	one_sided();

	MPI_Reduce(&checks, &all_checks, 1, MPI_LONG, MPI_SUM, 0,
		   MPI_COMM_WORLD);
	MPI_Reduce(&failures, &all_failures, 1, MPI_LONG, MPI_SUM, 0,
		   MPI_COMM_WORLD);
	if (rank == 0) {
		if (all_failures)
			printf("check: %ld of %ld checks failed, %d ranks\n",
			       all_failures, all_checks, nranks);
		else
			printf("check: ok, %d ranks, %ld checks\n", nranks,
			       all_checks);
	}
	MPI_Finalize();
	return failures ? 1 : 0;
}
