/* coder-launch: what sandbox/seccomp.py's LAUNCHER does, without a Python start-up.
 * Usage (inside bwrap): coder-launch <self fd> <channel fd> <program hex> <command...>
 * Opens a sock_diag netlink socket, installs the filter with a user-notification listener,
 * sends both fds over the channel (SCM_RIGHTS), closes what it was given and execs. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

static int fail(const char *what) {
    fprintf(stderr, "coder: %s: %s\n", what, strerror(errno));
    return 126;
}

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "coder-launch: usage\n"); return 126; }
    int self = atoi(argv[1]), channel = atoi(argv[2]);
    size_t n = strlen(argv[3]) / 2;
    if (n == 0 || n % sizeof(struct sock_filter)) { fprintf(stderr, "coder-launch: program\n"); return 126; }
    unsigned char *code = malloc(n);
    if (!code) return fail("malloc");
    for (size_t i = 0; i < n; i++) {
        int hi = hex(argv[3][2 * i]), lo = hex(argv[3][2 * i + 1]);
        if (hi < 0 || lo < 0) { fprintf(stderr, "coder-launch: program\n"); return 126; }
        code[i] = (unsigned char)(hi << 4 | lo);
    }
    int diag = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 4 /* NETLINK_SOCK_DIAG */);
    if (diag < 0) return fail("sock_diag socket");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("no_new_privs");
    struct sock_fprog prog = {(unsigned short)(n / sizeof(struct sock_filter)), (struct sock_filter *)code};
    long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                            SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
    if (listener < 0)
        listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
    if (listener < 0) return fail("could not install the seccomp filter");
    int fds[2] = {(int)listener, diag};
    char byte = 'L';
    struct iovec iov = {&byte, 1};
    union { char buf[CMSG_SPACE(sizeof fds)]; struct cmsghdr align; } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.buf;
    msg.msg_controllen = sizeof control.buf;
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
    if (sendmsg(channel, &msg, 0) != 1) return fail("sending the listener");
    close(channel);
    close((int)listener);
    close(diag);
    close(self);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGXFSZ, SIG_DFL);
    execv(argv[4], argv + 4);
    fprintf(stderr, "coder: could not run %s: %s\n", argv[4], strerror(errno));
    return 127;
}
