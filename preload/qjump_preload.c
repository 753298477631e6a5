// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * libqjump-preload.so: puts an unmodified program on a QJump level.
 *
 * Loaded with LD_PRELOAD, it wraps socket() so that every AF_INET and AF_INET6 socket the program
 * makes carries SO_PRIORITY = the level (the dataplane maps skb->priority to a level through a
 * table that is the identity by default) and, when asked, SO_SNDBUF: a send buffer sized to the
 * level's budget pushes back on the application early instead of queueing bytes the level may not
 * send for many epochs. Unix and other sockets are untouched.
 *
 * Accepted sockets need a wrapper too: the kernel clones them from the listener, which copies the
 * locked send buffer and the mark, but on 6.x kernels not sk_priority (an accepted TCP socket
 * starts at priority 0 whatever the listener's). accept() and accept4() therefore give the new
 * socket the listener's priority, as inheritance would; test/shim_test.go checks both facts.
 *
 * The environment is read once, in the constructor:
 *   QJUMP_LEVEL    0..7, the level (no level: the shim does nothing)
 *   QJUMP_SNDBUF   bytes for SO_SNDBUF, 1..2^31-1 (unset: the kernel's default)
 *   QJUMP_VERBOSE  1: say what the shim does on stderr
 *   QJUMP_ENFORCE  1: a program's own SO_PRIORITY is refused (it keeps the level)
 *
 * The shim must never change what the program does: a malformed value or a failed setsockopt is
 * reported once on stderr and the program runs on as if the shim were not there. The socket path
 * takes no lock and allocates nothing; the state it reads is written before main() runs, and the
 * report-once flags are atomic, so it is thread-safe and fork-safe. Children inherit the level
 * through the environment (exec-safe).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define QJUMP_LEVELS 8

/* Reasons for a report; each is printed at most once per process. */
enum report {
	REPORT_BAD_LEVEL,
	REPORT_BAD_SNDBUF,
	REPORT_BAD_VERBOSE,
	REPORT_BAD_ENFORCE,
	REPORT_PRIORITY_FAILED,
	REPORT_SNDBUF_FAILED,
	REPORT_ENFORCED,
	REPORT_COUNT,
};

static struct {
	bool has_level;
	int priority; /* SO_PRIORITY for the level: the identity table */
	int sndbuf; /* 0: leave the kernel's default */
	bool verbose;
	bool enforce;
} cfg;

static int reported[REPORT_COUNT];

typedef int (*socket_fn)(int, int, int);
typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);
typedef int (*accept4_fn)(int, struct sockaddr *, socklen_t *, int);

static socket_fn real_socket;
static setsockopt_fn real_setsockopt;
static accept4_fn real_accept4;

/* say writes one line to stderr without stdio: no allocation, no lock, safe in any thread. */
static void say(const char *fmt, ...)
{
	char line[256];
	int saved = errno;
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), "qjump-preload[%d]: ", (int)getpid());
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(line) - 1)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0)
		; /* nowhere left to report to */
	errno = saved;
}

/* once returns true the first time it is called for r in this process. */
static bool once(enum report r)
{
	return __atomic_exchange_n(&reported[r], 1, __ATOMIC_RELAXED) == 0;
}

/* parse_int reads a whole decimal number in [min, max]; anything else is malformed. */
static bool parse_int(const char *s, long min, long max, int *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = (int)v;
	return true;
}

/* parse_flag reads 0 or 1; unset is 0. */
static void parse_flag(const char *name, enum report bad, bool *out)
{
	const char *s = getenv(name);
	int v;

	if (!s)
		return;
	if (parse_int(s, 0, 1, &v)) {
		*out = v;
		return;
	}
	if (once(bad))
		say("ignoring %s=\"%.40s\": need 0 or 1", name, s);
}

static void parse_env(void)
{
	const char *level = getenv("QJUMP_LEVEL");
	const char *sndbuf = getenv("QJUMP_SNDBUF");

	parse_flag("QJUMP_VERBOSE", REPORT_BAD_VERBOSE, &cfg.verbose);
	parse_flag("QJUMP_ENFORCE", REPORT_BAD_ENFORCE, &cfg.enforce);
	if (level) {
		cfg.has_level = parse_int(level, 0, QJUMP_LEVELS - 1, &cfg.priority);
		if (!cfg.has_level && once(REPORT_BAD_LEVEL))
			say("ignoring QJUMP_LEVEL=\"%.40s\": need a level from 0 to 7; "
			    "sockets keep the default priority",
			    level);
	}
	if (sndbuf && !parse_int(sndbuf, 1, INT_MAX, &cfg.sndbuf) && once(REPORT_BAD_SNDBUF))
		say("ignoring QJUMP_SNDBUF=\"%.40s\": need bytes from 1 to %d", sndbuf, INT_MAX);
	if (cfg.verbose)
		say("level %s, send buffer %d bytes (0: kernel default), enforce %d",
		    cfg.has_level ? level : "none", cfg.sndbuf, cfg.enforce);
}

/* resolve finds libc's functions; dlsym may allocate, so this runs once, before main(). */
static void resolve(void)
{
	if (!real_socket)
		real_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
	if (!real_setsockopt)
		real_setsockopt = (setsockopt_fn)dlsym(RTLD_NEXT, "setsockopt");
	if (!real_accept4)
		real_accept4 = (accept4_fn)dlsym(RTLD_NEXT, "accept4");
}

__attribute__((constructor)) static void qjump_preload_init(void)
{
	int saved = errno;

	resolve();
	parse_env();
	errno = saved;
}

/* The syscalls are the fallback if libc's symbols cannot be found (or before the constructor). */
static int sys_socket(int domain, int type, int protocol)
{
	if (real_socket)
		return real_socket(domain, type, protocol);
	return (int)syscall(SYS_socket, domain, type, protocol);
}

static int sys_setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (real_setsockopt)
		return real_setsockopt(fd, level, name, val, len);
	return (int)syscall(SYS_setsockopt, fd, level, name, val, len);
}

static int sys_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	if (real_accept4)
		return real_accept4(fd, addr, len, flags);
	return (int)syscall(SYS_accept4, fd, addr, len, flags);
}

static bool is_ip(int domain)
{
	return domain == AF_INET || domain == AF_INET6;
}

/* is_ip_socket asks the kernel for fd's family, so that enforce leaves unix sockets alone. */
static bool is_ip_socket(int fd)
{
	int domain = 0;
	socklen_t len = sizeof(domain);

	return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && is_ip(domain);
}

/*
 * apply_priority sets the level's priority on fd and says whether it could; errno is the
 * caller's to restore. A failure is about that socket only: a program that drops its privileges
 * after opening its sockets (ping opens its raw sockets first, then a UDP socket it never sends
 * on) has its traffic on the level and one socket without it, so the report names the socket.
 */
static bool apply_priority(int fd)
{
	if (!cfg.has_level)
		return false;
	if (sys_setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &cfg.priority, sizeof(cfg.priority)) == 0)
		return true;
	if (once(REPORT_PRIORITY_FAILED))
		say("cannot set SO_PRIORITY %d on socket %d: %s%s; that socket keeps the default "
		    "priority (said for the first such socket only)",
		    cfg.priority, fd, strerror(errno),
		    errno == EPERM ? " (priority 7 needs CAP_NET_ADMIN or CAP_NET_RAW)" : "");
	return false;
}

static void apply_sndbuf(int fd)
{
	if (!cfg.sndbuf)
		return;
	if (sys_setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &cfg.sndbuf, sizeof(cfg.sndbuf)) == 0)
		return;
	if (once(REPORT_SNDBUF_FAILED))
		say("cannot set SO_SNDBUF %d: %s; sockets keep the default send buffer", cfg.sndbuf,
		    strerror(errno));
}

int socket(int domain, int type, int protocol)
{
	int fd = sys_socket(domain, type, protocol);
	int saved = errno;
	bool prioritised;

	if (fd < 0 || !is_ip(domain))
		return fd;
	prioritised = apply_priority(fd);
	apply_sndbuf(fd);
	if (cfg.verbose && cfg.has_level) {
		if (prioritised)
			say("socket %d: priority %d", fd, cfg.priority);
		else
			say("socket %d: default priority", fd);
	}
	errno = saved;
	return fd;
}

/* sets_priority says whether a setsockopt changes sk_priority: SO_PRIORITY itself, and IP_TOS,
 * which the kernel turns into a priority as a side effect (rt_tos2priority). */
static bool sets_priority(int level, int name)
{
	return (level == SOL_SOCKET && name == SO_PRIORITY) ||
	       (level == IPPROTO_IP && name == IP_TOS);
}

/* on_level says whether fd's priority is the level's; errno is left as it was. */
static bool on_level(int fd)
{
	int prio = -1;
	socklen_t len = sizeof(prio);
	int saved = errno;
	bool on = getsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, &len) == 0 && prio == cfg.priority;

	errno = saved;
	return on;
}

/* set_own_priority is the program's own SO_PRIORITY: with QJUMP_ENFORCE it is refused on an IP
 * socket (it succeeds without effect, so the program carries on); without, it is the program's. */
static int set_own_priority(int fd, const void *val, socklen_t len)
{
	if (!cfg.enforce || !is_ip_socket(fd))
		return sys_setsockopt(fd, SOL_SOCKET, SO_PRIORITY, val, len);
	if (once(REPORT_ENFORCED))
		say("refused the program's SO_PRIORITY: QJUMP_ENFORCE keeps level %d", cfg.priority);
	return 0;
}

/*
 * set_tos is the program's IP_TOS, which the kernel turns into a priority when the TOS changes.
 * The program asked for a marking, not a priority, so a socket on the level stays on it. A socket
 * the program moved to a priority of its own is left as Linux leaves it, IP_TOS's priority
 * included: without QJUMP_ENFORCE the program's own setting wins, and the shim must not change
 * what it does. With QJUMP_ENFORCE the level always wins.
 *
 * Whether the program moved it is read from the socket, whose priority is the level until the
 * program sets another: the record goes with the socket through dup(), SCM_RIGHTS and exec, where
 * a table by descriptor in the shim would be lost or stale, and it takes no lock or memory.
 */
static int set_tos(int fd, const void *val, socklen_t len)
{
	bool keep_level = cfg.enforce || on_level(fd);
	int ret = sys_setsockopt(fd, IPPROTO_IP, IP_TOS, val, len);
	int saved = errno;

	if (ret == 0 && keep_level)
		apply_priority(fd);
	errno = saved;
	return ret;
}

/* setsockopt keeps the level when the program touches the priority (set_own_priority, set_tos);
 * everything else goes straight to libc. */
int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (!cfg.has_level || !sets_priority(level, name))
		return sys_setsockopt(fd, level, name, val, len);
	if (level == SOL_SOCKET)
		return set_own_priority(fd, val, len);
	return set_tos(fd, val, len);
}

/* inherit gives an accepted socket its listener's priority, which the kernel does not copy. With
 * QJUMP_ENFORCE the listener has the level anyway; without, a program that moved its listener to
 * another priority gets that one, as it would if the kernel inherited it. */
static void inherit(int listener, int fd)
{
	int prio = cfg.priority;
	socklen_t len = sizeof(prio);
	int saved = errno;

	if (!is_ip_socket(fd))
		return;
	if (!cfg.enforce && getsockopt(listener, SOL_SOCKET, SO_PRIORITY, &prio, &len) < 0)
		prio = cfg.priority;
	if (sys_setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio)) < 0 &&
	    once(REPORT_PRIORITY_FAILED))
		say("cannot set SO_PRIORITY %d on an accepted socket: %s", prio, strerror(errno));
	errno = saved;
}

int accept4(int listener, struct sockaddr *addr, socklen_t *len, int flags)
{
	int fd = sys_accept4(listener, addr, len, flags);

	if (fd >= 0 && cfg.has_level)
		inherit(listener, fd);
	return fd;
}

int accept(int listener, struct sockaddr *addr, socklen_t *len)
{
	return accept4(listener, addr, len, 0);
}
