/*
 * udp_bench.h: what the plain-UDP yardsticks (udp_floor.c, udp_ceiling.c)
 * share: the headers and UDP GSO/GRO option numbers, a fatal error, the
 * clock, publishing a bound port, and connecting to HOST PORT. Each
 * program is still built from its own .c file alone (cc -O2 -o udp_floor
 * udp_floor.c), this header beside it.
 */
#ifndef UDP_BENCH_H
#define UDP_BENCH_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT	103
#endif
#ifndef UDP_GRO
#define UDP_GRO		104
#endif

/* "PROGRAM: what: the errno's text", and exit 1. */
static void udp_bench_die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(errno));
	exit(1);
}

/* Seconds on the monotonic clock. */
static double udp_bench_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Bind fd to the IPv4 address addr (NULL: any) and a free port, and
 * write the port to file (NULL: stdout), so that a script can start the
 * other end. -1: addr is no IPv4 address; other failures are fatal. */
static int udp_bench_bind_publish(int fd, const char *addr, const char *file)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	FILE *f = stdout;

	if (addr && inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &al))
		udp_bench_die("bind");
	if (file && !(f = fopen(file, "w")))
		udp_bench_die(file);
	fprintf(f, "%u\n", ntohs(a.sin_port));
	if (f != stdout)
		fclose(f);
	else
		fflush(f);
	return 0;
}

/* Connect fd to HOST PORT (IPv4, UDP); failures are fatal. */
static void udp_bench_connect(int fd, const char *host, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_DGRAM }, *ai;

	if (getaddrinfo(host, port, &hints, &ai))
		udp_bench_die("getaddrinfo");
	if (connect(fd, ai->ai_addr, ai->ai_addrlen))
		udp_bench_die("connect");
	freeaddrinfo(ai);
}

#endif
