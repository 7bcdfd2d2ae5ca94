/* SPDX-License-Identifier: MIT */
/*
 * The kernel constants bpftrace's scripts take from the headers they
 * #include (linux/sched.h's task states, signals, socket families and
 * types): bpftrace gets them from clang's preprocessor or the kernel's
 * BTF; trawl has neither at compile time, so the ones scripts use are
 * here, with the values of x86-64 Linux (asm-generic signals). A script's
 * own names ($var, @map, args.FIELD) never collide: these are bare names.
 */
#include "script-int.h"

static const struct {
	const char *name;
	int64_t value;
} consts[] = {
	/* include/linux/sched.h: task states (prev_state of sched_switch) */
	{"TASK_RUNNING", 0x0},
	{"TASK_INTERRUPTIBLE", 0x1},
	{"TASK_UNINTERRUPTIBLE", 0x2},
	{"__TASK_STOPPED", 0x4},
	{"__TASK_TRACED", 0x8},
	{"EXIT_DEAD", 0x10},
	{"EXIT_ZOMBIE", 0x20},
	{"EXIT_TRACE", 0x30},
	{"TASK_PARKED", 0x40},
	{"TASK_DEAD", 0x80},
	{"TASK_WAKEKILL", 0x100},
	{"TASK_WAKING", 0x200},
	{"TASK_NOLOAD", 0x400},
	{"TASK_NEW", 0x800},
	{"TASK_RTLOCK_WAIT", 0x1000},
	{"TASK_FREEZABLE", 0x2000},
	{"TASK_FROZEN", 0x8000},
	{"TASK_STATE_MAX", 0x10000},
	{"TASK_ANY", 0xffff},
	{"TASK_KILLABLE", 0x102},
	{"TASK_STOPPED", 0x104},
	{"TASK_TRACED", 0x8},
	{"TASK_IDLE", 0x402},
	{"TASK_NORMAL", 0x3},
	/* signals (asm-generic/signal.h, x86-64) */
	{"SIGHUP", 1},
	{"SIGINT", 2},
	{"SIGQUIT", 3},
	{"SIGILL", 4},
	{"SIGTRAP", 5},
	{"SIGABRT", 6},
	{"SIGIOT", 6},
	{"SIGBUS", 7},
	{"SIGFPE", 8},
	{"SIGKILL", 9},
	{"SIGUSR1", 10},
	{"SIGSEGV", 11},
	{"SIGUSR2", 12},
	{"SIGPIPE", 13},
	{"SIGALRM", 14},
	{"SIGTERM", 15},
	{"SIGSTKFLT", 16},
	{"SIGCHLD", 17},
	{"SIGCONT", 18},
	{"SIGSTOP", 19},
	{"SIGTSTP", 20},
	{"SIGTTIN", 21},
	{"SIGTTOU", 22},
	{"SIGURG", 23},
	{"SIGXCPU", 24},
	{"SIGXFSZ", 25},
	{"SIGVTALRM", 26},
	{"SIGPROF", 27},
	{"SIGWINCH", 28},
	{"SIGIO", 29},
	{"SIGPOLL", 29},
	{"SIGPWR", 30},
	{"SIGSYS", 31},
	{"SIGRTMIN", 32},
	{"SIGRTMAX", 64},
	/* include/linux/socket.h: address families */
	{"AF_UNSPEC", 0},
	{"AF_UNIX", 1},
	{"AF_LOCAL", 1},
	{"AF_INET", 2},
	{"AF_AX25", 3},
	{"AF_IPX", 4},
	{"AF_APPLETALK", 5},
	{"AF_BRIDGE", 7},
	{"AF_INET6", 10},
	{"AF_KEY", 15},
	{"AF_NETLINK", 16},
	{"AF_PACKET", 17},
	{"AF_CAN", 29},
	{"AF_BLUETOOTH", 31},
	{"AF_VSOCK", 40},
	{"AF_XDP", 44},
	{"PF_UNSPEC", 0},
	{"PF_UNIX", 1},
	{"PF_LOCAL", 1},
	{"PF_INET", 2},
	{"PF_INET6", 10},
	{"PF_NETLINK", 16},
	{"PF_PACKET", 17},
	/* include/linux/net.h: socket types */
	{"SOCK_STREAM", 1},
	{"SOCK_DGRAM", 2},
	{"SOCK_RAW", 3},
	{"SOCK_RDM", 4},
	{"SOCK_SEQPACKET", 5},
	{"SOCK_DCCP", 6},
	{"SOCK_PACKET", 10},
	/* include/uapi/linux/in.h: protocols */
	{"IPPROTO_IP", 0},
	{"IPPROTO_ICMP", 1},
	{"IPPROTO_TCP", 6},
	{"IPPROTO_UDP", 17},
	{"IPPROTO_IPV6", 41},
	{"IPPROTO_ICMPV6", 58},
	{"IPPROTO_SCTP", 132},
	{"IPPROTO_RAW", 255},
};

int tw_const_lookup(const char *name, size_t len, int64_t *value)
{
	for (size_t i = 0; i < TW_ARRAY_SIZE(consts); i++)
		if (strlen(consts[i].name) == len &&
		    !memcmp(consts[i].name, name, len)) {
			*value = consts[i].value;
			return 1;
		}
	return 0;
}
