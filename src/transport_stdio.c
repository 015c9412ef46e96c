/* The stdio transport: a child process (`/bin/sh -c COMMAND`) speaking
 * newline-delimited JSON-RPC on its stdin and stdout.
 *
 * SIGPIPE: a write to a pipe whose reader has gone raises SIGPIPE, and
 * MSG_NOSIGNAL exists only for sockets. We do not touch the process-wide
 * disposition (the program embedding us owns it): each write runs with
 * SIGPIPE blocked in the calling thread, and a SIGPIPE our write caused is
 * consumed with sigtimedwait before the mask is restored (the libpq way;
 * transport_sigpipe_block/restore). EPIPE then becomes an ordinary error. */

#include "transport.h"
#include "monotime.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "child.h"
#include "trace.h"

struct stdio_transport {
	struct transport base;
	long timeout_ms;
	long grace_ms;
	size_t max_line;

	/* One exchange reads at a time; writes have their own lock so that
	 * on_message can answer a server request from inside an exchange. */
	pthread_mutex_t exchange_lock;
	pthread_mutex_t write_lock;
	pthread_mutex_t state_lock;

	pid_t pid;
	bool exited; /* reaped; status is valid */
	int status;
	bool closed;
	int to_child;   /* the child's stdin; -1 once closed */
	int from_child; /* the child's stdout */
	struct buf in;  /* bytes read from the child, not yet handed up */

	/* Under --verbose: the child's stderr, read by its own thread. */
	int from_child_err; /* -1 when the child's stderr goes to /dev/null */
	pthread_t err_thread;
	bool err_thread_on;
	atomic_bool err_stop;
};

/* Reaps the child if it has exited, waiting up to wait_ms. Returns true
 * when it is gone. */
static bool child_reap(struct stdio_transport *st, long wait_ms)
{
	long long deadline = monotime_ms() + wait_ms;
	pthread_mutex_lock(&st->state_lock);
	while (!st->exited && st->pid > 0) {
		int status = 0;
		pid_t r = waitpid(st->pid, &status, WNOHANG);
		if (r == st->pid || (r < 0 && errno == ECHILD)) {
			st->exited = true;
			st->status = status;
			trace_printf("stdio", "server process %d ended (%s %d)", (int)st->pid,
				     WIFSIGNALED(status) ? "signal" : "status",
				     WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			break;
		}
		if (monotime_ms() >= deadline)
			break;
		pthread_mutex_unlock(&st->state_lock);
		monotime_sleep_ms(5);
		pthread_mutex_lock(&st->state_lock);
	}
	bool gone = st->exited || st->pid <= 0;
	pthread_mutex_unlock(&st->state_lock);
	return gone;
}

/* True once our child is reaped and no process is left in its group
 * (the group id cannot be reused while the group has members, and we stop
 * signalling it the moment it is empty). Waits up to wait_ms. */
static bool group_gone(struct stdio_transport *st, long wait_ms)
{
	long long deadline = monotime_ms() + wait_ms;
	while (1) {
		if (child_reap(st, 0) && (st->pid <= 0 || (kill(-st->pid, 0) < 0 && errno == ESRCH)))
			return true;
		if (monotime_ms() >= deadline)
			return false;
		monotime_sleep_ms(5);
	}
}

/* The error for a child that stopped talking before the response. */
static int child_gone_error(struct stdio_transport *st, const char *what, struct err *e)
{
	if (!child_reap(st, 1000))
		return err_set(e, ERR_PROTOCOL, "server process %s before the response", what);
	int s = st->status;
	if (WIFSIGNALED(s))
		return err_set(e, ERR_PROTOCOL, "server process was killed by signal %d before the response",
			       WTERMSIG(s));
	int code = WEXITSTATUS(s);
	return err_set(e, ERR_PROTOCOL, "server process exited with status %d before the response%s", code,
		       code == 127 ? " (command not found?)" : "");
}

static int write_all(struct stdio_transport *st, const char *body, size_t len, struct err *e)
{
	struct transport_sigpipe sp;
	transport_sigpipe_block(&sp);
	int r = 0;

	struct iovec iov[2] = {{(void *)body, len}, {"\n", 1}};
	int iovcnt = 2;
	struct iovec *v = iov;
	long long deadline = monotime_ms() + transport_send_timeout(st->timeout_ms);
	while (iovcnt > 0) {
		if (st->to_child < 0) {
			r = err_set(e, ERR_PROTOCOL, "server process's stdin is closed");
			goto out;
		}
		ssize_t n = writev(st->to_child, v, iovcnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				long long left = deadline - monotime_ms();
				if (left <= 0) {
					r = err_set(e, ERR_PROTOCOL,
						    "writing to the server process timed out after %ld ms",
						    st->timeout_ms);
					e->detail = ERR_DETAIL_TIMEOUT;
					goto out;
				}
				struct pollfd p = {st->to_child, POLLOUT, 0};
				poll(&p, 1, (int)(left > 1000 ? 1000 : left));
				continue;
			}
			if (errno == EPIPE) {
				r = child_gone_error(st, "closed its stdin", e);
				goto out;
			}
			r = err_set(e, ERR_PROTOCOL, "writing to the server process: %s", strerror(errno));
			goto out;
		}
		size_t done = (size_t)n;
		while (iovcnt > 0 && done >= v->iov_len) {
			done -= v->iov_len;
			v++;
			iovcnt--;
		}
		if (iovcnt > 0) {
			v->iov_base = (char *)v->iov_base + done;
			v->iov_len -= done;
		}
	}
out:
	transport_sigpipe_restore(&sp);
	return r;
}

static bool looks_like_json(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i < len && (s[i] == '{' || s[i] == '[');
}

/* Hands complete lines in st->in to cb until it returns non-zero. */
/* Over the size limit: the server would send it again. */
static int line_too_long(const struct stdio_transport *st, struct err *e)
{
	err_set(e, ERR_PROTOCOL, "server process sent a line over %zu bytes", st->max_line);
	if (e)
		e->detail = ERR_DETAIL_FINAL;
	return -1;
}

static int deliver_lines(struct stdio_transport *st, size_t *scanned, transport_on_message cb, void *ctx,
			 struct err *e)
{
	while (st->in.len > *scanned) {
		char *nl = memchr(st->in.data + *scanned, '\n', st->in.len - *scanned);
		if (!nl) {
			*scanned = st->in.len;
			break;
		}
		size_t n = (size_t)(nl - st->in.data);
		*nl = '\0';
		size_t len = n;
		if (len && st->in.data[len - 1] == '\r')
			st->in.data[--len] = '\0';
		int r = 0;
		if (len > st->max_line) {
			r = line_too_long(st, e);
		} else if (looks_like_json(st->in.data, len)) {
			trace_body("stdio", "<", st->in.data, len);
			r = transport_deliver(st->in.data, len, false, cb, ctx, e);
		} else if (len) {
			/* The spec forbids anything else on stdout; log lines
			 * from a careless server are skipped, not fatal. */
			trace_body("stdio", "< (not JSON, ignored)", st->in.data, len);
		}
		buf_consume(&st->in, n + 1);
		*scanned = 0;
		if (r != 0)
			return r;
	}
	if (st->in.len > st->max_line)
		return line_too_long(st, e);
	return 0;
}

static int read_reply(struct stdio_transport *st, transport_on_message cb, void *ctx, struct err *e)
{
	long long deadline = monotime_ms() + st->timeout_ms;
	size_t scanned = 0;
	char chunk[65536];
	while (1) {
		int r = deliver_lines(st, &scanned, cb, ctx, e);
		if (r < 0)
			return -1;
		if (r > 0)
			return 0;
		long long left = deadline - monotime_ms();
		if (left <= 0) {
			err_set(e, ERR_PROTOCOL, "no response from the server process within %ld ms",
				st->timeout_ms);
			e->detail = ERR_DETAIL_TIMEOUT;
			return -1;
		}
		struct pollfd p = {st->from_child, POLLIN, 0};
		int pr = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
		if (pr < 0 && errno != EINTR)
			return err_set(e, ERR_PROTOCOL, "waiting for the server process: %s", strerror(errno));
		if (pr <= 0)
			continue;
		ssize_t n = read(st->from_child, chunk, sizeof chunk);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return err_set(e, ERR_PROTOCOL, "reading from the server process: %s", strerror(errno));
		}
		if (n == 0) {
			/* A last message without its newline still counts. */
			if (st->in.len && st->in.len <= st->max_line && buf_append(&st->in, "\n", 1, e) == 0) {
				r = deliver_lines(st, &scanned, cb, ctx, e);
				if (r != 0)
					return r < 0 ? -1 : 0;
			}
			return child_gone_error(st, "closed its stdout", e);
		}
		if (buf_append(&st->in, chunk, (size_t)n, e) < 0)
			return -1;
	}
}

static int stdio_send(struct transport *t, const char *body, size_t len, bool expect_reply,
		      transport_on_message on_message, void *ctx, struct err *e)
{
	struct stdio_transport *st = (struct stdio_transport *)t;
	if (memchr(body, '\n', len) || memchr(body, '\0', len))
		return err_set(e, ERR_INTERNAL, "a stdio message must be one line of JSON");
	if (expect_reply)
		pthread_mutex_lock(&st->exchange_lock);
	pthread_mutex_lock(&st->write_lock);
	trace_body("stdio", ">", body, len);
	int r = write_all(st, body, len, e);
	pthread_mutex_unlock(&st->write_lock);
	if (r == 0 && expect_reply)
		r = read_reply(st, on_message, ctx, e);
	if (expect_reply)
		pthread_mutex_unlock(&st->exchange_lock);
	return r;
}

static int stdio_set_header(struct transport *t, const char *name, const char *value)
{
	return 0;
}

static void stdio_reset_session(struct transport *t)
{
}

/* The server's stderr under --verbose, a line at a time, through the trace:
 * neutralised and redacted like every other line that came from outside,
 * where the child writing to our stderr itself would reach the terminal raw.
 * Reads until EOF, or once stopped until nothing more is waiting (a process
 * that left the group may keep the pipe open). */
static void *err_reader(void *arg)
{
	struct stdio_transport *st = arg;
	/* A line keeps what trace_body shows and counts the rest; the server
	 * may log a token as readily as anything else, which it redacts. */
	char chunk[4096], line[TRACE_BODY_MAX];
	size_t len = 0;
	size_t after_stop = 0;
	for (;;) {
		bool stopping = atomic_load(&st->err_stop);
		struct pollfd p = {st->from_child_err, POLLIN, 0};
		int pr = poll(&p, 1, stopping ? 0 : 200);
		if (pr < 0 && errno != EINTR)
			break;
		if (pr <= 0) {
			if (stopping)
				break;
			continue;
		}
		ssize_t n = read(st->from_child_err, chunk, sizeof chunk);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] == '\n') {
				trace_body("stdio", "server stderr:", line, len);
				len = 0;
				continue;
			}
			if (len < sizeof line)
				line[len] = chunk[i];
			len++;
		}
		if (stopping && (after_stop += (size_t)n) > ((size_t)1 << 20))
			break;
	}
	if (len)
		trace_body("stdio", "server stderr:", line, len);
	return NULL;
}

static void stdio_close(struct transport *t)
{
	struct stdio_transport *st = (struct stdio_transport *)t;
	pthread_mutex_lock(&st->state_lock);
	bool was_closed = st->closed;
	st->closed = true;
	pthread_mutex_unlock(&st->state_lock);
	if (was_closed)
		return;

	pthread_mutex_lock(&st->write_lock);
	if (st->to_child >= 0)
		close(st->to_child);
	st->to_child = -1;
	pthread_mutex_unlock(&st->write_lock);

	/* EOF on stdin asks the server to leave; then TERM, then KILL, each
	 * after a grace period, always to the whole process group: the shell
	 * (dash) does not exec the command, so the server is its child, and
	 * may outlive it. */
	if (!group_gone(st, st->grace_ms)) {
		trace_printf("stdio", "server process group %d still running after %ld ms: SIGTERM", (int)st->pid,
			     st->grace_ms);
		kill(-st->pid, SIGTERM);
		if (!group_gone(st, st->grace_ms)) {
			trace_printf("stdio", "server process group %d ignored SIGTERM: SIGKILL", (int)st->pid);
			kill(-st->pid, SIGKILL);
			child_reap(st, 10000);
			group_gone(st, 2000);
		}
	}
	if (st->from_child >= 0)
		close(st->from_child);
	st->from_child = -1;
	if (st->err_thread_on) {
		atomic_store(&st->err_stop, true);
		pthread_join(st->err_thread, NULL);
		st->err_thread_on = false;
	}
	if (st->from_child_err >= 0)
		close(st->from_child_err);
	st->from_child_err = -1;
}

static void stdio_destroy(struct transport *t)
{
	struct stdio_transport *st = (struct stdio_transport *)t;
	stdio_close(t);
	buf_finish(&st->in);
	pthread_mutex_destroy(&st->exchange_lock);
	pthread_mutex_destroy(&st->write_lock);
	pthread_mutex_destroy(&st->state_lock);
	free(st);
}

static const struct transport_ops stdio_ops = {
	.name = "stdio",
	.send = stdio_send,
	.set_header = stdio_set_header,
	.reset_session = stdio_reset_session,
	.close = stdio_close,
	.destroy = stdio_destroy,
};

/* A pipe end moved to fd >= 3 (so dup2 onto 0..2 in the child never meets
 * itself), close-on-exec. */
static int high_fd(int fd)
{
	if (fd > 2)
		return fd;
	int h = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return h;
}

/* Pipes, fork and exec: on success the child runs in a group of its own
 * and st holds our ends of its stdin, stdout (and stderr when passed). */
static int stdio_spawn(struct stdio_transport *st, const struct transport_stdio_options *o, struct err *e)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1}, errfd = -1;
	if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 ||
	    (o->pass_stderr && pipe2(errp, O_CLOEXEC) < 0)) {
		err_set(e, ERR_INTERNAL, "pipe: %s", strerror(errno));
		goto fail;
	}
	in[0] = high_fd(in[0]);
	out[1] = high_fd(out[1]);
	if (o->pass_stderr) {
		errfd = high_fd(errp[1]);
		errp[1] = -1;
	} else {
		errfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (errfd >= 0)
			errfd = high_fd(errfd);
	}
	if (in[0] < 0 || out[1] < 0 || errfd < 0) {
		err_set(e, ERR_INTERNAL, "preparing the server's pipes: %s", strerror(errno));
		goto fail;
	}
	/* the server is the user's own command: it gets our environment but
	 * the token, which it did not ask for */
	char **env = child_environment(false, NULL);
	long max_fd = child_fd_limit();
	if (!env) {
		err_oom(e);
		goto fail;
	}
	pid_t pid = fork();
	if (pid < 0) {
		free(env);
		err_set(e, ERR_INTERNAL, "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		/* Only async-signal-safe calls until exec. */
		setpgid(0, 0);
		if (dup2(in[0], 0) < 0 || dup2(out[1], 1) < 0 || dup2(errfd, 2) < 0)
			_exit(127);
		child_exec_prepare(max_fd, env);
		execl("/bin/sh", "sh", "-c", o->command, (char *)NULL);
		_exit(127);
	}
	free(env);
	/* Both sides set the group, so signals reach it whoever runs first. */
	setpgid(pid, pid);
	st->pid = pid;
	st->closed = false;
	close(in[0]);
	close(out[1]);
	close(errfd);
	st->to_child = in[1];
	st->from_child = out[0];
	st->from_child_err = errp[0];
	return 0;

fail:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (errfd >= 0)
		close(errfd);
	return -1;
}

struct transport *transport_stdio_new(const struct transport_stdio_options *o, struct err *e)
{
	if (!o->command || !*o->command) {
		err_set(e, ERR_USAGE, "no command to run for the stdio transport");
		return NULL;
	}
	struct stdio_transport *st = calloc(1, sizeof *st);
	if (!st) {
		err_oom(e);
		return NULL;
	}
	st->base.ops = &stdio_ops;
	st->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 60000;
	st->grace_ms = o->grace_ms > 0 ? o->grace_ms : 2000;
	st->max_line = o->max_line ? o->max_line : TRANSPORT_DEFAULT_MAX_MESSAGE;
	pthread_mutex_init(&st->exchange_lock, NULL);
	pthread_mutex_init(&st->write_lock, NULL);
	pthread_mutex_init(&st->state_lock, NULL);
	/* Room for one line at the limit plus the read that passed it. */
	buf_init(&st->in, st->max_line + 65536 + 1);
	st->to_child = st->from_child = st->from_child_err = -1;
	st->pid = -1;
	st->closed = true; /* nothing to close until the child runs */
	if (stdio_spawn(st, o, e) < 0) {
		stdio_destroy(&st->base);
		return NULL;
	}
	if (o->pass_stderr) {
		/* Without its reader the server's log would fill the pipe and
		 * stall the server: no reader, no server. */
		int rc = pthread_create(&st->err_thread, NULL, err_reader, st);
		if (rc != 0) {
			err_set(e, ERR_INTERNAL, "starting the reader of the server's stderr: %s", strerror(rc));
			stdio_destroy(&st->base);
			return NULL;
		}
		st->err_thread_on = true;
	}
	fcntl(st->to_child, F_SETFL, fcntl(st->to_child, F_GETFL) | O_NONBLOCK);
	/* The command may hold a token (`--stdio 'server --token=...'`). */
	char *shown = trace_redact_dup(o->command);
	trace_printf("stdio", "started server process %d: %s", (int)st->pid,
		     shown ? shown : "(command not shown)");
	free(shown);
	return &st->base;
}

static struct transport *stdio_open(const struct transport_target *o, struct err *e)
{
	struct transport_stdio_options so = {
		.command = o->address,
		.pass_stderr = o->pass_stderr,
		.timeout_ms = o->timeout_ms,
	};
	return transport_stdio_new(&so, e);
}

/* A local server's command line, run with its stdio as the channel. */
const struct transport_kind transport_kind_stdio = {
	.name = "stdio",
	.open = stdio_open,
};
