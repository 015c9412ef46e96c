/* The loopback redirect receiver (RFC 8252 section 7.3): a listener on
 * 127.0.0.1 only, any port, that takes exactly one redirect, the one that
 * carries this sign-in's state, and answers the browser with a short page.
 *
 * Anything on the machine (and any web page, through the browser) can
 * connect here, so no connection may hold up another: every connection is
 * read without blocking, all of them multiplexed with poll(2), each with its
 * own short deadline, at most MAX_CONNECTIONS at once (the oldest gives way
 * to a new one). A request with another state, or a malformed one, is
 * answered 400 and the wait goes on: it must not end the real sign-in. */

#include "oauth.h"
#include "monotime.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REQUEST_HEAD_MAX 16384
#define CONNECTION_TIMEOUT_MS 10000
#define MAX_CONNECTIONS 16
#define NOT_FOR_US "This address only receives a sign-in redirect."

int oauth_listener_open(struct oauth_listener *l, struct err *e)
{
	l->fd = -1;
	l->port = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return err_set(e, ERR_AUTH, "cannot open the sign-in listener: %s", strerror(errno));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t alen = sizeof a;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 64) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) < 0) {
		int saved = errno;
		close(fd);
		return err_set(e, ERR_AUTH, "cannot listen on 127.0.0.1 for the sign-in: %s", strerror(saved));
	}
	l->fd = fd;
	l->port = ntohs(a.sin_port);
	return 0;
}

void oauth_listener_close(struct oauth_listener *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

static void respond(int fd, const char *status, const char *title, const char *text)
{
	char body[1024];
	int blen = snprintf(body, sizeof body,
			    "<!doctype html><html><head><meta charset=\"utf-8\"><title>%s</title></head>"
			    "<body><h1>%s</h1><p>%s</p></body></html>\n",
			    title, title, text);
	char head[512];
	int hlen = snprintf(head, sizeof head,
			    "HTTP/1.1 %s\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n"
			    "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n",
			    status, blen);
	/* Best effort, and never a wait: the page is a courtesy. A short
	 * answer fits the socket buffer of a fresh connection. */
	if (send(fd, head, (size_t)hlen, MSG_NOSIGNAL | MSG_DONTWAIT) > 0)
		(void)send(fd, body, (size_t)blen, MSG_NOSIGNAL | MSG_DONTWAIT);
}

struct conn {
	int fd;
	long long deadline;
	size_t len;
	char *head; /* REQUEST_HEAD_MAX + 1 bytes: may carry the code */
};

static void conn_close(struct conn *c)
{
	if (c->head) {
		explicit_bzero(c->head, c->len);
		free(c->head);
	}
	close(c->fd);
	memset(c, 0, sizeof *c);
	c->fd = -1;
}

/* The request target of a complete request line (malloc'd), or NULL with
 * the connection answered (400, 405). */
static char *request_target(struct conn *c)
{
	char *head = c->head;
	char *sp1 = strchr(head, ' ');
	char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	char *eol = strpbrk(head, "\r\n");
	/* request-line = method SP request-target SP HTTP-version */
	if (!sp1 || !sp2 || !eol || sp2 > eol) {
		respond(c->fd, "400 Bad Request", "Bad request", NOT_FOR_US);
		return NULL;
	}
	if (sp1 - head != 3 || strncmp(head, "GET", 3) != 0) {
		respond(c->fd, "405 Method Not Allowed", "Method not allowed", NOT_FOR_US);
		return NULL;
	}
	return strndup(sp1 + 1, (size_t)(sp2 - sp1 - 1));
}

enum served {
	SERVED_WAIT,     /* answered (or still reading): keep waiting */
	SERVED_REFUSED,  /* answered 400: a redirect not for this sign-in */
	SERVED_ACCEPTED, /* the redirect with our state: cb filled */
};

/* Reads what connection c has; once its request line is in, answers it. */
static enum served serve(struct conn *c, const char *path, const char *state, struct oauth_callback *cb)
{
	ssize_t n = recv(c->fd, c->head + c->len, REQUEST_HEAD_MAX - c->len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return SERVED_WAIT;
	if (n <= 0) {
		conn_close(c);
		return SERVED_WAIT;
	}
	c->len += (size_t)n;
	c->head[c->len] = '\0';
	if (!memchr(c->head, '\n', c->len) && c->len < REQUEST_HEAD_MAX)
		return SERVED_WAIT;
	enum served r = SERVED_WAIT;
	char *target = request_target(c);
	if (!target)
		goto out;
	struct err ignored;
	err_clear(&ignored);
	int m = oauth_callback_parse(target, path, cb, &ignored);
	explicit_bzero(target, strlen(target));
	free(target);
	if (m == 0) {
		respond(c->fd, "404 Not Found", "Not found", NOT_FOR_US);
	} else if (m < 0 || !cb->state || strcmp(cb->state, state) != 0) {
		/* Forged, stale or broken: whoever sent it cannot end the
		 * wait for the real redirect. */
		oauth_callback_finish(cb);
		respond(c->fd, "400 Bad Request", "Not this sign-in",
			"This redirect does not belong to the sign-in catalyst-audit is waiting for.");
		r = SERVED_REFUSED;
	} else {
		if (cb->error)
			respond(c->fd, "200 OK", "Sign-in refused",
				"The authorization server refused the sign-in. The terminal says why.");
		else
			respond(c->fd, "200 OK", "Signed in",
				"catalyst-audit received the sign-in. You can close this window.");
		r = SERVED_ACCEPTED;
	}
out:
	/* Take what else the client sent (the rest of its head): closing on
	 * unread data would reset the connection under the page. */
	shutdown(c->fd, SHUT_WR);
	char rest[4096];
	while (recv(c->fd, rest, sizeof rest, MSG_DONTWAIT) > 0)
		;
	conn_close(c);
	return r;
}

/* Takes every connection waiting (the queue never fills up under a flood),
 * each into a free slot, else into the oldest connection's. */
static void accept_all(int lfd, struct conn *conns, long long deadline)
{
	for (int taken = 0; taken < 4 * MAX_CONNECTIONS; taken++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		char *head = malloc(REQUEST_HEAD_MAX + 1);
		if (!head) {
			close(fd);
			return;
		}
		size_t slot = 0;
		for (size_t i = 0; i < MAX_CONNECTIONS; i++) {
			if (conns[i].fd < 0) {
				slot = i;
				break;
			}
			if (conns[i].deadline < conns[slot].deadline)
				slot = i;
		}
		if (conns[slot].fd >= 0)
			conn_close(&conns[slot]);
		long long conn_deadline = monotime_ms() + CONNECTION_TIMEOUT_MS;
		conns[slot] = (struct conn){
			.fd = fd, .deadline = conn_deadline < deadline ? conn_deadline : deadline, .head = head};
	}
}

int oauth_listener_wait(struct oauth_listener *l, const char *path, const char *state, long timeout_s,
			struct oauth_callback *cb, struct err *e)
{
	memset(cb, 0, sizeof *cb);
	long limit_s = timeout_s > 0 ? timeout_s : OAUTH_DEFAULT_CALLBACK_TIMEOUT_S;
	long long deadline = monotime_ms() + limit_s * 1000LL;
	struct conn conns[MAX_CONNECTIONS];
	for (size_t i = 0; i < MAX_CONNECTIONS; i++)
		conns[i] = (struct conn){.fd = -1};
	size_t refused = 0;
	int rc = -1;
	while (1) {
		long long now = monotime_ms();
		if (now >= deadline) {
			err_set(e, ERR_AUTH,
				"no sign-in arrived at the loopback callback within %ld s%s; run login again",
				limit_s,
				refused ? " (redirects that did not carry this sign-in's state were refused)"
					: "");
			e->detail = ERR_DETAIL_TIMEOUT;
			goto out;
		}
		struct pollfd p[MAX_CONNECTIONS + 1];
		size_t who[MAX_CONNECTIONS + 1];
		nfds_t np = 0;
		long long wake = deadline;
		p[np++] = (struct pollfd){l->fd, POLLIN, 0};
		for (size_t i = 0; i < MAX_CONNECTIONS; i++) {
			if (conns[i].fd < 0)
				continue;
			if (conns[i].deadline <= now) {
				conn_close(&conns[i]); /* slow or silent: its time is up */
				continue;
			}
			if (conns[i].deadline < wake)
				wake = conns[i].deadline;
			who[np] = i;
			p[np++] = (struct pollfd){conns[i].fd, POLLIN, 0};
		}
		long long wait = wake - now;
		int r = poll(p, np, wait > 1000000 ? 1000000 : (int)wait);
		if (r < 0 && errno != EINTR) {
			err_set(e, ERR_AUTH, "sign-in listener: %s", strerror(errno));
			goto out;
		}
		if (r <= 0)
			continue;
		for (nfds_t k = 1; k < np; k++) {
			if (!p[k].revents)
				continue;
			enum served s = serve(&conns[who[k]], path, state, cb);
			if (s == SERVED_ACCEPTED) {
				rc = 0;
				goto out;
			}
			if (s == SERVED_REFUSED)
				refused++;
		}
		if (p[0].revents & POLLIN)
			accept_all(l->fd, conns, deadline);
	}
out:
	for (size_t i = 0; i < MAX_CONNECTIONS; i++)
		if (conns[i].fd >= 0)
			conn_close(&conns[i]);
	/* single use: whatever happened, the listener is done */
	oauth_listener_close(l);
	return rc;
}
