/* Reading another process's memory: process_vm_readv, which a page that
 * is not mapped stops short; /proc/PID/mem where that syscall is refused
 * (seccomp, an old kernel), with the same rule. */
#include "config.h"

#include "procmem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "errmsg.h"
#include "util.h"

/* Through /proc/PID/mem, up to the first byte that cannot be read. */
static ssize_t procmem_read_file(pid_t pid, uint64_t addr, uint8_t *buf, size_t size)
{
	char path[64];
	size_t done = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (done < size) {
		ssize_t n = pread(fd, buf + done, size - done, (off_t)(addr + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!done) {
				int err = n < 0 ? -errno : -EFAULT;

				close(fd);
				return err == -EIO ? -EFAULT : err;
			}
			break;
		}
		done += (size_t)n;
	}
	close(fd);
	return (ssize_t)done;
}

int procmem_read(pid_t pid, uint64_t addr, uint64_t size, size_t max, uint8_t **out, size_t *len,
		 struct errmsg *em)
{
	size_t want = size < max ? (size_t)size : max;
	uint8_t *buf = xmalloc(want ? want : 1);
	struct iovec local = { buf, want }, remote = { (void *)(uintptr_t)addr, want };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0 && (errno == ENOSYS || errno == EPERM))
		n = procmem_read_file(pid, addr, buf, want);
	else if (n < 0)
		n = -errno;
	if (n < 0 || (n == 0 && want)) {
		int err = n < 0 ? (int)n : -EFAULT;

		free(buf);
		return errmsg_set(em, err, "reading %zu bytes at 0x%llx of process %d: %s", want,
				  (unsigned long long)addr, (int)pid,
				  err == -ESRCH ? "it has exited" : strerror(-err));
	}
	*out = buf;
	*len = (size_t)n;
	return 0;
}
