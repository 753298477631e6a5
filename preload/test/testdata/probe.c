// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * probe: reports the SO_PRIORITY and SO_SNDBUF the kernel gave its sockets, one "name value" line
 * each, so that tests see what a real program gets under the shim or a cgroup.
 *
 *   probe                report tcp, udp, tcp6, accepted, accepted-sndbuf, unix, sndbuf
 *   probe set N          also set SO_PRIORITY N on a TCP socket: "set RET PRIORITY"
 *   probe tos T          also set IP_TOS T on a TCP socket: "tos RET PRIORITY"
 *   probe fork           report, then from a forked child (no exec): "child-tcp P"
 *   probe bench N        time N socket()+close() pairs: "ns-per-socket X"
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int priority(int fd)
{
	int v = -1;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_PRIORITY, &v, &len) < 0)
		return -1;
	return v;
}

static void report(const char *name, int type, int domain)
{
	int fd = socket(domain, type, 0);

	printf("%s %d\n", name, priority(fd));
	close(fd);
}

static int sndbuf(int fd)
{
	int v = -1;
	socklen_t len = sizeof(v);

	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &len) < 0)
		return -1;
	return v;
}

/* accepted reports the priority of a socket accept() returns on a loopback listener. */
static void accepted(void)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	int a = -1;

	if (bind(l, (struct sockaddr *)&addr, len) == 0 && listen(l, 1) == 0 &&
	    getsockname(l, (struct sockaddr *)&addr, &len) == 0 &&
	    connect(c, (struct sockaddr *)&addr, len) == 0)
		a = accept(l, NULL, NULL);
	printf("accepted %d\n", a < 0 ? -1 : priority(a));
	printf("accepted-sndbuf %d\n", a < 0 ? -1 : sndbuf(a));
	close(a);
	close(c);
	close(l);
}

static void set_option(const char *name, int level, int opt, int v)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int ret = setsockopt(fd, level, opt, &v, sizeof(v));

	printf("%s %d %d\n", name, ret, priority(fd));
	close(fd);
}

static void bench(long n)
{
	struct timespec a, b;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		close(socket(AF_INET, SOCK_DGRAM, 0));
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("ns-per-socket %.1f\n",
	       ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc == 3 && !strcmp(argv[1], "bench")) {
		bench(atol(argv[2]));
		return 0;
	}
	report("tcp", SOCK_STREAM, AF_INET);
	report("udp", SOCK_DGRAM, AF_INET);
	report("tcp6", SOCK_STREAM, AF_INET6);
	accepted();
	report("unix", SOCK_STREAM, AF_UNIX);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	printf("sndbuf %d\n", sndbuf(fd));
	close(fd);
	if (argc == 3 && !strcmp(argv[1], "set"))
		set_option("set", SOL_SOCKET, SO_PRIORITY, atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "tos"))
		set_option("tos", IPPROTO_IP, IP_TOS, atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "fork")) {
		fflush(stdout);
		if (fork() == 0) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			printf("child-tcp %d\n", priority(fd));
			return 0;
		}
		wait(NULL);
	}
	return 0;
}
