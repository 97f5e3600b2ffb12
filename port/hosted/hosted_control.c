/* The down-channel of the hosted port (docs/CONTROL.md): command frames from MSAMP_CONTROL, a FIFO
 * (created with mode 0600 when the path does not exist), read by msamp_transport_read() from the
 * poller that drains the ring (the writer thread, or the allocating thread while the program is
 * single-threaded: docs/HOSTED.md): no thread of its own, never a blocking call.
 * - Opened at the first poll, read-only, non-blocking, close-on-exec, at a high descriptor number;
 *   its identity (st_dev, st_ino) is checked before each read, so a program that closed the
 *   descriptor and got the number back for a file of its own never has that file read.
 * - A FIFO without a writer reads as end of file: nothing to do. drain opens it to write, sends
 *   its frames and may close it; the next writer is read the same way.
 * - Each poll reads at most the bytes the core asks for (MSAMP_CFG_CONTROL_READ). Not in a fork
 *   child (msamp_hosted_running is 0 there): the parent's poller reads the commands. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdatomic.h>

#include "hosted.h"

enum { CTL_UNTRIED, CTL_OPEN, CTL_OFF };
static int ctl_state = CTL_UNTRIED; /* the poller's alone (one poller at a time) */
static int ctl_fd = -1;
static dev_t ctl_dev;
static ino_t ctl_ino;

static void ctl_open(void)
{
    const char *path = getenv("MSAMP_CONTROL");
    struct stat st;

    ctl_state = CTL_OFF;
    if (path == NULL || *path == '\0')
        return;
    if (stat(path, &st) != 0 && errno == ENOENT && mkfifo(path, 0600) != 0 && errno != EEXIST) {
        msamp_hosted_say("msamp: cannot create the control FIFO MSAMP_CONTROL=%s%s; no commands\n",
                         path, "");
        return;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        msamp_hosted_say("msamp: cannot open MSAMP_CONTROL=%s%s; no commands\n", path, "");
        return;
    }
    fd = msamp_hosted_fd_high(fd, 25); /* next to the output's (hosted_transport.c) */
    if (fstat(fd, &st) != 0) {
        close(fd);
        return;
    }
    ctl_fd = fd;
    ctl_dev = st.st_dev;
    ctl_ino = st.st_ino;
    ctl_state = CTL_OPEN;
}

int msamp_hosted_control_read(uint8_t *buf, size_t max)
{
    if (!atomic_load_explicit(&msamp_hosted_running, memory_order_relaxed))
        return 0;
    if (ctl_state == CTL_UNTRIED)
        ctl_open();
    if (ctl_state != CTL_OPEN)
        return 0;
    int saved = errno;
    struct stat st;
    if (fstat(ctl_fd, &st) != 0 || st.st_dev != ctl_dev || st.st_ino != ctl_ino) {
        ctl_state = CTL_OFF; /* the program closed it (and maybe reused the number): leave it */
        msamp_hosted_say("msamp: the control FIFO's descriptor was closed by the program%s%s; no "
                         "more commands\n", "", "");
        errno = saved;
        return 0;
    }
    ssize_t n = read(ctl_fd, buf, max);
    errno = saved;
    return n > 0 ? (int)n : 0;
}
