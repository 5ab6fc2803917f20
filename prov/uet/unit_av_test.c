/* Named AVs (FI_SHARED_AV, fi_av.3): the table in a POSIX shared-memory
 * segment, one writer, read-only views (FI_READ) in this process and in
 * another, that see the writer's inserts and removals as they happen;
 * map_addr; the segment gone with its writer; a segment left by a dead
 * writer taken over; names and flags refused.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>
#include <rdma/fi_errno.h>

#include "uetp.h"

static struct {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	char name[64];
} ax;

static void ax_open(void)
{
	struct fi_info *h = fi_allocinfo();

	fi_prov_ini();
	h->addr_format = FI_SOCKADDR_IN;
	h->domain_attr->name = strdup("lo");
	h->caps = FI_MSG | FI_SHARED_AV;
	cr_assert_eq(uetp_attr_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h,
				       &ax.info), 0);
	fi_freeinfo(h);
	cr_assert(ax.info->caps & FI_SHARED_AV, "FI_SHARED_AV advertised");
	cr_assert(ax.info->domain_attr->caps & FI_SHARED_AV);
	cr_assert_eq(uetp_fabric_open(ax.info->fabric_attr, &ax.fabric, NULL),
		     0);
	cr_assert_eq(fi_domain(ax.fabric, ax.info, &ax.domain, NULL), 0);
	/* one name per test process: tests may run side by side */
	snprintf(ax.name, sizeof(ax.name), "unit-av-%d", (int)getpid());
}

static void ax_close(void)
{
	if (ax.domain)
		cr_assert_eq(fi_close(&ax.domain->fid), 0);
	if (ax.fabric)
		cr_assert_eq(fi_close(&ax.fabric->fid), 0);
	fi_freeinfo(ax.info);
	memset(&ax, 0, sizeof(ax));
}

TestSuite(shared_av, .init = ax_open, .fini = ax_close, .timeout = 30);

static struct sockaddr_in sin_of(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sin;
}

static struct fid_av *av_named(uint64_t flags, void **map, int expect)
{
	struct fi_av_attr a = { .type = FI_AV_TABLE, .name = ax.name,
				.flags = flags };
	struct fid_av *av = NULL;

	cr_assert_eq(fi_av_open(ax.domain, &a, &av, NULL), expect,
		     "fi_av_open(%s, %#llx)", ax.name,
		     (unsigned long long)flags);
	if (map)
		*map = a.map_addr;
	return av;
}

static uint16_t port_at(struct fid_av *av, fi_addr_t fa)
{
	struct sockaddr_in sin;
	size_t len = sizeof(sin);

	if (fi_av_lookup(av, fa, &sin, &len))
		return 0;
	return ntohs(sin.sin_port);
}

Test(shared_av, reader_sees_writer)
{
	struct sockaddr_in s[2] = { sin_of(5001), sin_of(5002) };
	struct sockaddr_in s3 = sin_of(5003);
	fi_addr_t fa[2], f3, one = 1;
	struct fid_av *w, *r;
	fi_addr_t *wmap, *rmap;

	w = av_named(0, (void **)&wmap, 0);
	cr_assert_not_null(wmap, "map_addr");
	cr_assert_eq(wmap[0], FI_ADDR_NOTAVAIL, "nothing inserted yet");
	r = av_named(FI_READ, (void **)&rmap, 0);
	cr_assert_not_null(rmap);
	cr_assert_eq(fi_av_insert(w, s, 2, fa, 0, NULL), 2);
	cr_assert_eq(fa[0], 0);
	cr_assert_eq(fa[1], 1);
	/* the reader's own mapping shows the writer's fi_addrs */
	cr_assert_eq(rmap[0], 0);
	cr_assert_eq(rmap[1], 1);
	cr_assert_eq(port_at(r, 1), 5002);
	cr_assert_eq(fi_av_insert(r, &s3, 1, &f3, 0, NULL), -FI_EOPNOTSUPP,
		     "a read-only view");
	cr_assert_eq(fi_av_remove(r, fa, 1, 0), -FI_EOPNOTSUPP);
	/* later inserts and removals show up */
	cr_assert_eq(fi_av_insert(w, &s3, 1, &f3, 0, NULL), 1);
	cr_assert_eq(port_at(r, f3), 5003);
	cr_assert_eq(fi_av_remove(w, &one, 1, 0), 0);
	cr_assert_eq(port_at(r, 1), 0, "removed");
	cr_assert_eq(rmap[1], FI_ADDR_NOTAVAIL);
	/* reverse lookups (FI_SOURCE) on the reader too */
	{
		struct uet_addr a = { .af = UET_AF_INET, .port = 5003,
				      .ip = { 127, 0, 0, 1 } };

		cr_assert_eq(uetp_av_reverse(uet_container_of(r,
				struct uetp_av, fid), &a), f3);
	}
	cr_assert_eq(fi_close(&r->fid), 0);
	cr_assert_eq(fi_close(&w->fid), 0);
	/* the writer's close removes the segment */
	av_named(FI_READ, NULL, -FI_ENOENT);
}

Test(shared_av, reader_in_another_process)
{
	struct sockaddr_in s = sin_of(6001);
	struct fid_av *w;
	fi_addr_t fa;
	int status;
	pid_t pid;

	w = av_named(0, NULL, 0);
	cr_assert_eq(fi_av_insert(w, &s, 1, &fa, 0, NULL), 1);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		struct fi_av_attr a = { .type = FI_AV_TABLE, .name = ax.name,
					.flags = FI_READ };
		struct fid_av *r;
		fi_addr_t *map;

		if (fi_av_open(ax.domain, &a, &r, NULL))
			_exit(1);
		map = a.map_addr;
		if (map[0] != 0 || port_at(r, map[0]) != 6001)
			_exit(2);
		fi_close(&r->fid);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "child saw %d",
		     WEXITSTATUS(status));
	cr_assert_eq(fi_close(&w->fid), 0);
}

Test(shared_av, one_writer_and_stale_segments)
{
	struct fid_av *w;
	int status;
	pid_t pid;

	w = av_named(0, NULL, 0);
	av_named(0, NULL, -FI_EBUSY);
	cr_assert_eq(fi_close(&w->fid), 0);
	/* a writer that died without closing leaves its segment: the next
	 * writer takes it over, empty */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		struct fi_av_attr a = { .type = FI_AV_TABLE, .name = ax.name };
		struct sockaddr_in s = sin_of(7001);
		struct fid_av *av;

		if (fi_av_open(ax.domain, &a, &av, NULL) ||
		    fi_av_insert(av, &s, 1, NULL, 0, NULL) != 1)
			_exit(1);
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(WEXITSTATUS(status), 0);
	w = av_named(0, NULL, 0);
	cr_assert_eq(port_at(w, 0), 0, "taken over empty");
	cr_assert_eq(fi_close(&w->fid), 0);
}

Test(shared_av, refused)
{
	struct fi_av_attr a = { .type = FI_AV_TABLE, .flags = FI_READ };
	struct fid_av *av;

	cr_assert_eq(fi_av_open(ax.domain, &a, &av, NULL), -FI_EINVAL,
		     "FI_READ without a name");
	a.flags = 0;
	a.name = "a/b";
	cr_assert_eq(fi_av_open(ax.domain, &a, &av, NULL), -FI_EINVAL);
	a.name = "";
	cr_assert_eq(fi_av_open(ax.domain, &a, &av, NULL), -FI_EINVAL);
	av_named(FI_READ, NULL, -FI_ENOENT);
}

Test(shared_av, fixed_size)
{
	struct fi_av_attr a = { .type = FI_AV_TABLE, .name = ax.name,
				.count = 1 };
	struct sockaddr_in s;
	struct fid_av *av;
	size_t cap;
	fi_addr_t fa;

	cr_assert_eq(fi_av_open(ax.domain, &a, &av, NULL), 0);
	cap = uet_container_of(av, struct uetp_av, fid)->cap;
	cr_assert_geq(cap, 1024, "a small count still gets room");
	for (size_t i = 0; i < cap; i++) {
		s = sin_of((uint16_t)(1000 + i));
		cr_assert_eq(fi_av_insert(av, &s, 1, &fa, 0, NULL), 1);
	}
	s = sin_of(999);
	cr_assert_eq(fi_av_insert(av, &s, 1, &fa, FI_SYNC_ERR, (int[1]){0}),
		     0, "full");
	cr_assert_eq(fa, FI_ADDR_NOTAVAIL);
	cr_assert_eq(fi_close(&av->fid), 0);
}
