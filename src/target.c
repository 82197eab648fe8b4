/* Live targets: the checks of -C, -p and -t against this system, the
 * header's description of them, and the command proftop starts and reaps. */
#include "config.h"

#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine.h"
#include "live.h"
#include "util.h"

void target_init(struct target *t)
{
	memset(t, 0, sizeof(*t));
	t->go_fd = t->exec_err_fd = -1;
}

void target_release(struct target *t)
{
	if (t->go_fd >= 0)
		close(t->go_fd);
	if (t->exec_err_fd >= 0)
		close(t->exec_err_fd);
	t->go_fd = t->exec_err_fd = -1;
	if (t->child && !t->child_done) {
		kill(t->child, SIGKILL);
		waitpid(t->child, NULL, 0);
		t->child_done = true;
	}
}

/* Whether process pid exists. */
static bool target_proc_exists(pid_t pid)
{
	char path[32];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return stat(path, &st) == 0;
}

/* The threads of process pid from /proc/PID/task, appended to *tids. */
static int target_list_threads(pid_t pid, pid_t **tids, size_t *n, size_t *cap)
{
	char path[64];
	struct dirent **ents;
	int nents, i;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	nents = scandir(path, &ents, NULL, NULL);
	if (nents < 0)
		return -errno;
	for (i = 0; i < nents; i++) {
		long tid = strtol(ents[i]->d_name, NULL, 10);

		if (tid > 0) {
			*tids = xgrow(*tids, cap, *n + 1, sizeof(**tids));
			(*tids)[(*n)++] = (pid_t)tid;
		}
		free(ents[i]);
	}
	free(ents);
	return 0;
}

/* Tgid of a thread, from /proc/TID/status; 0 if unknown. */
static pid_t target_thread_tgid(pid_t tid)
{
	char path[64], *buf, *p;
	pid_t tgid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (read_file(path, 1 << 16, &buf, NULL))
		return 0;
	p = strstr(buf, "\nTgid:");
	if (p)
		tgid = (pid_t)strtol(p + 6, NULL, 10);
	free(buf);
	return tgid;
}

static void target_format_ids(char *buf, size_t size, const char *what, const pid_t *ids, size_t n)
{
	size_t len = (size_t)snprintf(buf, size, "%s ", what), i;

	for (i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%d", i ? "," : "", (int)ids[i]);
}

/* Fork the command, stopped on a pipe until the events are open.  0, or
 * the exit status after a message. */
static int target_start_command(struct target *t, char **argv)
{
	int go[2], err[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		msg_error("cannot create a pipe: %s", strerror(errno));
		return 1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		msg_error("cannot fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		char c;
		int e_no;
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		close(go[1]);
		close(err[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e_no = errno;
		if (write(err[1], &e_no, sizeof(e_no)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	t->child = pid;
	t->go_fd = go[1];
	t->exec_err_fd = err[0];
	return 0;
}

int target_release_command(struct target *t, char **argv)
{
	int e_no;
	ssize_t n;

	if (write(t->go_fd, "x", 1) != 1) {
		msg_error("cannot start '%s': %s", argv[0], strerror(errno));
		return 1;
	}
	close(t->go_fd);
	t->go_fd = -1;
	/* Closed on a successful exec (O_CLOEXEC); an errno otherwise. */
	do
		n = read(t->exec_err_fd, &e_no, sizeof(e_no));
	while (n < 0 && errno == EINTR);
	close(t->exec_err_fd);
	t->exec_err_fd = -1;
	if (n == (ssize_t)sizeof(e_no)) {
		msg_error("cannot run '%s': %s", argv[0], strerror(e_no));
		waitpid(t->child, NULL, 0);
		t->child = 0;
		return 127;
	}
	return 0;
}

int target_check_cpus(const int *cpus, size_t ncpus)
{
	int *online;
	size_t n, i, j;
	int err = live_online_cpus(&online, &n);

	if (err) {
		msg_error("cannot read /sys/devices/system/cpu/online: %s", strerror(-err));
		return 1;
	}
	for (i = 0; i < ncpus; i++) {
		for (j = 0; j < n && online[j] != cpus[i]; j++)
			;
		if (j == n) {
			msg_error("CPU %d is not online (online CPUs: %d-%d)", cpus[i],
				  n ? online[0] : 0, n ? online[n - 1] : 0);
			free(online);
			return 2;
		}
	}
	free(online);
	return 0;
}

void target_describe(struct target *t, const struct engine_config *cfg)
{
	if (cfg->command)
		snprintf(t->name, sizeof(t->name), "command %s", cfg->command[0]);
	else if (cfg->npids)
		target_format_ids(t->name, sizeof(t->name), cfg->npids > 1 ? "pids" : "pid",
				  cfg->pids, cfg->npids);
	else if (cfg->ntids)
		target_format_ids(t->name, sizeof(t->name), cfg->ntids > 1 ? "tids" : "tid",
				  cfg->tids, cfg->ntids);
	else
		snprintf(t->name, sizeof(t->name), "system-wide");
	if (cfg->cpus) {
		size_t len = strlen(t->name);

		snprintf(t->name + len, sizeof(t->name) - len, ", %zu CPU%s", cfg->ncpus,
			 cfg->ncpus > 1 ? "s" : "");
	}
}

void target_reap(struct target *t)
{
	int st;

	if (!t->child || t->child_done)
		return;
	if (waitpid(t->child, &st, WNOHANG) == t->child) {
		t->child_done = true;
		t->child_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
}

void target_stop_command(struct target *t)
{
	size_t i;

	if (!t->child || t->child_done)
		return;
	kill(t->child, SIGTERM);
	for (i = 0; i < 200 && !t->child_done; i++) {
		target_reap(t);
		if (!t->child_done)
			usleep(10000);
	}
	if (!t->child_done) {
		int st;

		kill(t->child, SIGKILL);
		if (waitpid(t->child, &st, 0) == t->child) {
			t->child_done = true;
			t->child_status = 128 + SIGKILL;
		}
	}
}

int target_threads(struct target *t, const struct engine_config *cfg,
		   struct target_threads *out)
{
	size_t cap = 0, i;
	int status;

	for (i = 0; i < cfg->npids; i++) {
		if (!target_proc_exists(cfg->pids[i])) {
			msg_error("no such process: %d", (int)cfg->pids[i]);
			return 2;
		}
		if (target_list_threads(cfg->pids[i], &out->tids, &out->ntids, &cap)) {
			msg_error("cannot list the threads of process %d", (int)cfg->pids[i]);
			return 2;
		}
	}
	if (cfg->npids) {
		out->procs = xmalloc(cfg->npids * sizeof(*out->procs));
		memcpy(out->procs, cfg->pids, cfg->npids * sizeof(*out->procs));
		out->nprocs = cfg->npids;
		out->inherit = true;
	}
	for (i = 0; i < cfg->ntids; i++) {
		pid_t tgid = target_thread_tgid(cfg->tids[i]);

		if (!tgid) {
			msg_error("no such thread: %d", (int)cfg->tids[i]);
			return 2;
		}
		out->tids = xgrow(out->tids, &cap, out->ntids + 1, sizeof(*out->tids));
		out->tids[out->ntids++] = cfg->tids[i];
		out->procs = xrealloc(out->procs, (out->nprocs + 1) * sizeof(*out->procs));
		out->procs[out->nprocs++] = tgid;
	}
	if (cfg->command) {
		if ((status = target_start_command(t, cfg->command)) != 0)
			return status;
		out->tids = xgrow(out->tids, &cap, out->ntids + 1, sizeof(*out->tids));
		out->tids[out->ntids++] = t->child;
		out->inherit = true;
		out->enable_on_exec = true;
	}
	return 0;
}
