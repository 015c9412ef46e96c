/* The loopback redirect receiver (RFC 8252 section 7.3): a listener on
 * 127.0.0.1 only, any port, that takes exactly one request on the exact
 * callback path and answers the browser with a short page. */

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

int oauth_listener_open(struct oauth_listener *l, struct err *e)
{
	l->fd = -1;
	l->port = 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return err_set(e, ERR_AUTH, "cannot open the sign-in listener: %s", strerror(errno));
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t alen = sizeof a;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 8) < 0 ||
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
	/* Best effort: the browser's page is a courtesy, the code is in hand. */
	if (send(fd, head, (size_t)hlen, MSG_NOSIGNAL) > 0)
		(void)send(fd, body, (size_t)blen, MSG_NOSIGNAL);
}

/* Reads the request head; returns the request target (malloc'd) of a GET,
 * or NULL (an answer has been sent when it was not a GET). */
static char *read_target(int fd, long long deadline)
{
	char *head = malloc(REQUEST_HEAD_MAX + 1);
	if (!head)
		return NULL;
	size_t len = 0;
	char *target = NULL;
	while (len < REQUEST_HEAD_MAX) {
		long long left = deadline - monotime_ms();
		if (left <= 0)
			goto out;
		struct pollfd p = {fd, POLLIN, 0};
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			goto out;
		ssize_t n = recv(fd, head + len, REQUEST_HEAD_MAX - len, 0);
		if (n <= 0)
			goto out;
		len += (size_t)n;
		head[len] = '\0';
		if (memchr(head, '\n', len))
			break;
	}
	head[len] = '\0';
	/* request-line = method SP request-target SP HTTP-version */
	char *sp1 = strchr(head, ' ');
	char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	char *eol = strpbrk(head, "\r\n");
	if (!sp1 || !sp2 || !eol || sp2 > eol) {
		respond(fd, "400 Bad Request", "Bad request", "This address only receives a sign-in redirect.");
		goto out;
	}
	if (sp1 - head != 3 || strncmp(head, "GET", 3) != 0) {
		respond(fd, "405 Method Not Allowed", "Method not allowed",
			"This address only receives a sign-in redirect.");
		goto out;
	}
	target = strndup(sp1 + 1, (size_t)(sp2 - sp1 - 1));
out:
	/* the head carries the authorization code */
	explicit_bzero(head, REQUEST_HEAD_MAX + 1);
	free(head);
	return target;
}

int oauth_listener_wait(struct oauth_listener *l, const char *path, long timeout_s, struct oauth_callback *cb,
			struct err *e)
{
	memset(cb, 0, sizeof *cb);
	long long deadline =
		monotime_ms() + (timeout_s > 0 ? timeout_s : OAUTH_DEFAULT_CALLBACK_TIMEOUT_S) * 1000LL;
	while (1) {
		long long left = deadline - monotime_ms();
		if (left <= 0) {
			err_set(e, ERR_AUTH,
				"no sign-in arrived at the loopback callback within %ld s; run login again",
				timeout_s > 0 ? timeout_s : (long)OAUTH_DEFAULT_CALLBACK_TIMEOUT_S);
			e->detail = ERR_DETAIL_TIMEOUT;
			return -1;
		}
		struct pollfd p = {l->fd, POLLIN, 0};
		int r = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
		if (r < 0 && errno != EINTR)
			return err_set(e, ERR_AUTH, "sign-in listener: %s", strerror(errno));
		if (r <= 0)
			continue;
		int c = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;
		long long conn_deadline = monotime_ms() + CONNECTION_TIMEOUT_MS;
		if (conn_deadline > deadline)
			conn_deadline = deadline;
		char *target = read_target(c, conn_deadline);
		if (!target) {
			close(c);
			continue;
		}
		int m = oauth_callback_parse(target, path, cb, e);
		explicit_bzero(target, strlen(target));
		free(target);
		if (m == 0) {
			respond(c, "404 Not Found", "Not found", "This address only receives a sign-in redirect.");
			close(c);
			continue;
		}
		if (m < 0) {
			respond(c, "400 Bad Request", "Sign-in failed", "The sign-in redirect was malformed.");
			close(c);
			return -1;
		}
		if (cb->error)
			respond(c, "200 OK", "Sign-in refused",
				"The authorization server refused the sign-in. The terminal says why.");
		else
			respond(c, "200 OK", "Signed in",
				"catalyst-audit received the sign-in. You can close this window.");
		close(c);
		/* single use: whatever it was, the listener is done */
		oauth_listener_close(l);
		return 0;
	}
}
