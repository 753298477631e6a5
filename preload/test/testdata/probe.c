// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * probe: reports the SO_PRIORITY and SO_SNDBUF the kernel gave its sockets, one "name value" line
 * each, so that tests see what a real program gets under the shim or a cgroup.
 *
 *   probe                report tcp, udp, tcp6, accepted, accepted-sndbuf, unix, sndbuf
 *   probe set N          also set SO_PRIORITY N on a TCP socket: "set RET PRIORITY"
 *   probe tos T          also set IP_TOS T on a TCP socket: "tos RET PRIORITY"
 *   probe set-tos N T U  on a TCP socket set SO_PRIORITY N, then IP_TOS T, then IP_TOS U:
 *                        "set-tos P Q R" is its priority after each
 *   probe listener N     set SO_PRIORITY N on a listener before accept: "listener-accepted P"
 *                        is the priority of the socket accept() returns
 *   probe fork           report, then from a forked child (no exec): "child-tcp P"
 *   probe bench N        time N socket()+close() pairs: "ns-per-socket X"
 *   probe threads        8 threads make 500 sockets each at once: "threads-wrong N" counts
 *                        those whose priority differs from the first socket's
 *   probe send A P N [Q] send N UDP datagrams to IPv4 address A port P, after setting SO_PRIORITY
 *                        Q itself if given: "sent N PRIORITY"
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
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

/* accepted reports the priority of a socket accept() returns on a loopback listener, whose own
 * SO_PRIORITY is set to listener_priority first unless that is negative; name prefixes the lines. */
static void accepted(const char *name, int listener_priority)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	int a = -1;
	int ok = listener_priority < 0 || setsockopt(l, SOL_SOCKET, SO_PRIORITY, &listener_priority,
						     sizeof(listener_priority)) == 0;

	if (ok && bind(l, (struct sockaddr *)&addr, len) == 0 && listen(l, 1) == 0 &&
	    getsockname(l, (struct sockaddr *)&addr, &len) == 0 &&
	    connect(c, (struct sockaddr *)&addr, len) == 0)
		a = accept(l, NULL, NULL);
	printf("%s %d\n", name, a < 0 ? -1 : priority(a));
	printf("%s-sndbuf %d\n", name, a < 0 ? -1 : sndbuf(a));
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

/* set_then_tos sets the socket's own priority, then two TOS values, and reports the priority
 * after each: the kernel moves it on IP_TOS only when the TOS changes (rt_tos2priority). */
static void set_then_tos(int prio, int tos1, int tos2)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	int p[3];

	setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio));
	p[0] = priority(fd);
	setsockopt(fd, IPPROTO_IP, IP_TOS, &tos1, sizeof(tos1));
	p[1] = priority(fd);
	setsockopt(fd, IPPROTO_IP, IP_TOS, &tos2, sizeof(tos2));
	p[2] = priority(fd);
	printf("set-tos %d %d %d\n", p[0], p[1], p[2]);
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

static void send_udp(const char *host, int port, int n, const char *prio)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int sent = 0, v, i;

	inet_pton(AF_INET, host, &to.sin_addr);
	if (prio) {
		v = atoi(prio);
		setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &v, sizeof(v));
	}
	for (i = 0; i < n; i++)
		sent += sendto(fd, "qjump", 5, 0, (struct sockaddr *)&to, sizeof(to)) == 5;
	printf("sent %d %d\n", sent, priority(fd));
	close(fd);
}

static int expected;
static int wrong;

static void *make_sockets(void *arg)
{
	int i, fd;

	for (i = 0; i < 500; i++) {
		fd = socket(AF_INET, i % 2 ? SOCK_STREAM : SOCK_DGRAM, 0);
		if (priority(fd) != expected)
			__atomic_add_fetch(&wrong, 1, __ATOMIC_RELAXED);
		close(fd);
	}
	return arg;
}

static void threads(void)
{
	pthread_t t[8];
	int fd = socket(AF_INET, SOCK_STREAM, 0), i;

	expected = priority(fd);
	close(fd);
	for (i = 0; i < 8; i++)
		pthread_create(&t[i], NULL, make_sockets, NULL);
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	printf("threads-wrong %d\n", wrong);
}

int main(int argc, char **argv)
{
	int fd;

	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "send")) {
		send_udp(argv[2], atoi(argv[3]), atoi(argv[4]), argc == 6 ? argv[5] : NULL);
		return 0;
	}

	if (argc == 2 && !strcmp(argv[1], "threads")) {
		threads();
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "listener")) {
		accepted("listener-accepted", atoi(argv[2]));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "set-tos")) {
		set_then_tos(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "bench")) {
		bench(atol(argv[2]));
		return 0;
	}
	report("tcp", SOCK_STREAM, AF_INET);
	report("udp", SOCK_DGRAM, AF_INET);
	report("tcp6", SOCK_STREAM, AF_INET6);
	accepted("accepted", -1);
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
