/* Reading a history from bytes: the event list is found anywhere in the
 * document by walking it in place (json_scan.h), then read one element at
 * a time, each tokenised and handed to the decoder (event_decode.c). A big
 * list is read by two threads, each from its half. Nothing is decoded into
 * a tree: a mapped file's pages are given back as the walk passes them. */
#include "event_decode.h"
#include "file_in.h"
#include "parallel.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* A mapped input is given back in steps of this, keeping a margin. */
#define RELEASE_STEP (1u << 20)
#define RELEASE_MARGIN (256u << 10)
/* Lists at least this big are parsed in two threads. */
#define SPLIT_MIN (4u << 20)
#define SPLIT_SEARCH (1u << 20)

struct walk {
	struct jscan s;
	struct dec d;
	struct jscan_keys keys; /* of the envelope objects being walked */
	bool found;             /* an event list was read */
	bool empty_list;        /* an empty array under a key like "events" */
	bool release;           /* the input is a private file mapping: drop what was read */
	size_t released;        /* bytes before this were given back */
	unsigned threads;       /* the threads setting (parallel.h) */
	bool payload_text;      /* event_parse_options */
	atomic_bool *cancel;
};

static int walk_value(struct walk *w, int depth, const char *key, size_t key_len);

/* Gives back the pages of a mapped file that the parse has passed: the
 * mapping is private and read-only, so they are simply read again from
 * the page cache if the run fields point back into them. Without this a
 * 60 MB file stays resident next to the ~90 MB model. */
void event_input_release(const char *buf, size_t pos, size_t *released)
{
	size_t page = 4096;
	size_t upto = pos > RELEASE_MARGIN ? (pos - RELEASE_MARGIN) & ~(page - 1) : 0;
	size_t from = *released & ~(page - 1);
	if (upto <= from + RELEASE_STEP)
		return;
	uintptr_t base = (uintptr_t)buf;
	uintptr_t lo = (base + from + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t hi = (base + upto) & ~(uintptr_t)(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
	*released = upto;
}

static void release_behind(struct walk *w)
{
	event_input_release(w->s.buf, w->s.pos, &w->released);
}

enum run_stop {
	STOP_END,   /* the closing ']' */
	STOP_SPLIT, /* the next element begins exactly at the split point */
	STOP_PAST,  /* the split point was inside an element */
};

static int next_element(struct walk *w)
{
	struct dec *d = &w->d;
	d->index++;
	d->off = w->s.pos;
	int rc = jscan_tokenise(&w->s, &d->toks, d->e);
	if (rc < 0) {
		dec_tokenise_failed(d, rc);
		if (d->e && !strstr(d->e->msg, "byte"))
			err_prefix(d->e, "event %zu at byte %zu", d->index, d->off);
		return -1;
	}
	return 0;
}

/* Decodes events from the one already tokenised (at d.off) up to the
 * closing ']', or, with a split point, until the next element would begin
 * at or after it. */
static int read_run(struct walk *w, size_t split, enum run_stop *stop)
{
	struct dec *d = &w->d;
	struct jscan *s = &w->s;
	for (;;) {
		if (dec_event(d) < 0)
			return -1;
		jscan_skip_ws(s);
		if (s->pos >= s->len)
			return err_set(
				d->e, ERR_INPUT,
				"not JSON at byte %zu: unexpected end of input after event %zu (truncated file?)",
				s->len, d->index);
		if (s->buf[s->pos] == ']') {
			s->pos++;
			*stop = STOP_END;
			return 0;
		}
		if (s->buf[s->pos] != ',')
			return err_set(d->e, ERR_INPUT,
				       "not JSON at byte %zu: expected ',' or ']' after event %zu", s->pos,
				       d->index);
		s->pos++;
		jscan_skip_ws(s);
		if (split && s->pos >= split) {
			*stop = s->pos == split ? STOP_SPLIT : STOP_PAST;
			return 0;
		}
		if (w->cancel && atomic_load_explicit(w->cancel, memory_order_relaxed))
			return err_set(d->e, ERR_INTERNAL, "cancelled");
		if (w->release)
			release_behind(w);
		if (next_element(w) < 0)
			return -1;
	}
}

/* The second half of a large event list, parsed by another thread. */
struct half {
	struct walk w;
	struct err err;
	size_t start;
	int rc;
	struct parallel_task *task;
	atomic_bool cancel;
};

static void half_main(void *arg)
{
	struct half *h = arg;
	struct walk *w = &h->w;
	enum event_dialect dia;
	enum run_stop stop;
	h->rc = -1;
	w->s.pos = h->start;
	w->d.off = h->start;
	w->d.index = 0;
	if (jscan_tokenise(&w->s, &w->d.toks, &h->err) < 0 ||
	    !dec_looks_like_event(&w->d.toks, &w->d.scratch, &w->d.scratch_cap, &dia))
		return;
	h->rc = read_run(w, 0, &stop);
}

static struct half *half_start(const struct walk *main, size_t start)
{
	struct half *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->start = start;
	h->w.s = main->s;
	h->w.release = main->release;
	h->w.released = start;
	atomic_init(&h->cancel, false);
	h->w.cancel = &h->cancel;
	if (dec_init(&h->w.d, false, &h->err) < 0)
		goto fail;
	h->w.payload_text = h->w.d.payload_text = main->payload_text;
	/* No thread to be had: this one reads the whole list. */
	if (!(h->task = parallel_start(half_main, h)))
		goto fail;
	return h;
fail:
	event_log_free(h->w.d.log);
	free(h);
	return NULL;
}

/* Joins; returns the finished half, or NULL (and frees it) when it failed
 * or was cancelled. */
static struct half *half_join(struct half *h, bool cancel)
{
	if (cancel)
		atomic_store(&h->cancel, true);
	parallel_join(h->task);
	dec_finish(&h->w.d);
	if (cancel || h->rc < 0) {
		event_log_free(h->w.d.log);
		free(h);
		return NULL;
	}
	return h;
}

/* A split point near the middle of the rest of the list: a '{' that
 * follows "}," — a guess, since it might lie inside a string; the guess is
 * accepted only if the first half's own parse arrives exactly there. */
static size_t find_split(const char *buf, size_t from, size_t len)
{
	size_t mid = from + (len - from) / 2;
	size_t limit = mid + SPLIT_SEARCH < len ? mid + SPLIT_SEARCH : len;
	for (size_t p = mid; p < limit; p++) {
		if (buf[p] != '}')
			continue;
		size_t q = p + 1;
		while (q < limit && (buf[q] == ' ' || buf[q] == '\n' || buf[q] == '\r' || buf[q] == '\t'))
			q++;
		if (q >= limit || buf[q] != ',')
			continue;
		q++;
		while (q < limit && (buf[q] == ' ' || buf[q] == '\n' || buf[q] == '\r' || buf[q] == '\t'))
			q++;
		if (q < limit && buf[q] == '{')
			return q;
	}
	return 0;
}

/* d.toks holds the first element, which starts at w->d.off. */
static int read_events(struct walk *w)
{
	enum run_stop stop;
	struct half *h = NULL;
	size_t split = 0;
	if (parallel_wanted(w->threads, w->s.len - w->s.pos, SPLIT_MIN) &&
	    (split = find_split(w->s.buf, w->s.pos, w->s.len)))
		h = half_start(w, split);
	if (!h)
		return read_run(w, 0, &stop);
	if (read_run(w, split, &stop) < 0) {
		half_join(h, true);
		return -1;
	}
	if (stop == STOP_END) {
		half_join(h, true);
		return 0;
	}
	if (stop == STOP_SPLIT && (h = half_join(h, false))) {
		size_t end = h->w.s.pos;
		struct event_log *second = h->w.d.log;
		free(h);
		if (event_log_take(w->d.log, second) < 0)
			return err_oom(w->d.e);
		w->s.pos = end;
		return 0;
	}
	/* The guess was wrong, or the second half failed: carry on here, so
	 * any error names the right event. */
	if (h)
		half_join(h, true);
	if (next_element(w) < 0)
		return -1;
	return read_run(w, 0, &stop);
}

static int walk_array(struct walk *w, int depth, const char *key, size_t key_len)
{
	struct jscan *s = &w->s;
	size_t open = s->pos;
	s->pos++;
	jscan_skip_ws(s);
	if (s->pos < s->len && s->buf[s->pos] == ']') {
		s->pos++;
		if ((depth == 0 && !key) || (key && event_key_names_list(key, key_len)))
			w->empty_list = true;
		return 0;
	}
	if (w->found) {
		s->pos = open;
		return jscan_skip_value(s, w->d.e);
	}
	if (s->pos < s->len && s->buf[s->pos] == '{') {
		size_t first = s->pos;
		struct err tmp;
		err_clear(&tmp);
		int rc = jscan_tokenise(s, &w->d.toks, &tmp);
		if (rc == JSCAN_ERROR) {
			*w->d.e = tmp;
			return -1;
		}
		enum event_dialect dia;
		if (rc == 0 && dec_looks_like_event(&w->d.toks, &w->d.scratch, &w->d.scratch_cap, &dia)) {
			w->found = true;
			w->d.index = 0;
			w->d.off = first;
			return read_events(w);
		}
		s->pos = first;
	}
	/* Not an event list: look inside its elements. */
	for (;;) {
		if (walk_value(w, depth + 1, NULL, 0) < 0)
			return -1;
		jscan_skip_ws(s);
		if (s->pos >= s->len)
			return err_set(w->d.e, ERR_INPUT,
				       "not JSON at byte %zu: unexpected end of input (truncated file?)", s->len);
		if (s->buf[s->pos] == ']') {
			s->pos++;
			return 0;
		}
		if (s->buf[s->pos] != ',')
			return err_set(w->d.e, ERR_INPUT, "not JSON at byte %zu: expected ',' or ']'", s->pos);
		s->pos++;
	}
}

/* A propagated history beside the events (Dapr 1.18): small, and read
 * into a tree once, unlike the events. */
static int read_propagated(struct walk *w)
{
	struct jscan *s = &w->s;
	size_t start = s->pos;
	if (jscan_skip_value(s, w->d.e) < 0)
		return -1;
	json_error_t je;
	json_t *doc = json_loadb(s->buf + start, s->pos - start, JSON_REJECT_DUPLICATES, &je);
	if (!doc)
		return err_set(w->d.e, ERR_INPUT, "propagated history at byte %zu: %s", start, je.text);
	int rc = event_log_read_propagated(w->d.log, doc, w->d.e);
	json_decref(doc);
	if (rc < 0)
		err_prefix(w->d.e, "at byte %zu", start);
	return rc;
}

static int walk_object(struct walk *w, int depth)
{
	struct jscan *s = &w->s;
	struct jscan_object o;
	struct jscan_key k;
	int more;
	if (jscan_object_open(s, &o, &w->keys, w->d.e) < 0)
		return -1;
	while ((more = jscan_object_member(s, &o, &k, w->d.e)) > 0) {
		if (s->pos < s->len && s->buf[s->pos] == '"') {
			struct jscan_tok v = {.type = JSCAN_STRING, .off = s->pos};
			if (jscan_string(s, &v.p, &v.len, &v.escaped, w->d.e) < 0)
				return -1;
			/* Keys with escapes are not run fields we know. */
			if (!k.escaped)
				dec_run_field(&w->d, k.p, k.len, &v, depth);
		} else if (!k.escaped && propagated_history_key(k.p, k.len) && s->pos < s->len &&
			   s->buf[s->pos] == '{') {
			if (read_propagated(w) < 0)
				return -1;
		} else if (walk_value(w, depth + 1, k.p, k.len) < 0) {
			return -1;
		}
	}
	return more;
}

static int walk_value(struct walk *w, int depth, const char *key, size_t key_len)
{
	struct jscan *s = &w->s;
	jscan_skip_ws(s);
	if (s->pos >= s->len)
		return err_set(w->d.e, ERR_INPUT,
			       "not JSON at byte %zu: unexpected end of input (truncated file?)", s->len);
	char c = s->buf[s->pos];
	if ((c == '{' || c == '[') && depth >= JSCAN_DEPTH_MAX)
		return err_set(w->d.e, ERR_INPUT, "not JSON at byte %zu: nested deeper than %d levels", s->pos,
			       JSCAN_DEPTH_MAX);
	if (c == '{')
		return walk_object(w, depth);
	if (c == '[')
		return walk_array(w, depth, key, key_len);
	return jscan_skip_value(s, w->d.e);
}

static int input_too_large(struct err *e)
{
	return err_set(e, ERR_INPUT, "input over %d MiB: not a history this tool reads (the limit for one input)",
		       EVENT_INPUT_MAX >> 20);
}

static struct event_log *parse_bytes(const char *buf, size_t len, bool release,
				     const struct event_parse_options *o, struct err *e)
{
	struct walk w = {.s = {.buf = buf, .len = len},
			 .release = release,
			 .threads = o ? o->threads : 0,
			 .payload_text = o && o->payload_text};
	/* Any buffer as a file (event_log_parse_fd checks that before it maps):
	 * payload sizes are 32-bit (event.h). */
	if (len > EVENT_INPUT_MAX) {
		input_too_large(e);
		return NULL;
	}
	if (dec_init(&w.d, false, e) < 0)
		return NULL;
	w.d.payload_text = w.payload_text;
	if (w.payload_text)
		event_log_set_keeps_payload_text(w.d.log);
	/* A UTF-8 byte order mark (Windows editors, PowerShell) is no JSON, but
	 * RFC 8259 section 8.1 lets a parser ignore it: skip it, and keep byte
	 * offsets the file's own. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		w.s.pos = 3;
	jscan_skip_ws(&w.s);
	if (w.s.pos >= len) {
		err_set(e, ERR_INPUT, "not JSON at byte %zu: empty input", len);
		goto fail;
	}
	/* The table `dapr workflow history` prints without -o json: what
	 * users see first and paste. */
	if (dapr_table_header(buf + w.s.pos, len - w.s.pos)) {
		dec_finish(&w.d);
		event_log_free(w.d.log);
		struct event_log *t = dapr_table_parse(buf, len, w.s.pos, w.release, e);
		/* It prints no payloads: each is absent, and says so. */
		if (t && w.payload_text)
			event_log_set_keeps_payload_text(t);
		return t;
	}
	if (walk_value(&w, 0, NULL, 0) < 0)
		goto fail;
	jscan_skip_ws(&w.s);
	if (w.s.pos < len) {
		err_set(e, ERR_INPUT, "not JSON at byte %zu: data after the end of the document", w.s.pos);
		goto fail;
	}
	if (!w.found && !w.empty_list) {
		err_set(e, ERR_INPUT, "%s (searched all %zu bytes)", dec_no_list_msg, len);
		goto fail;
	}
	event_log_set_dialect(w.d.log, w.d.dialect);
	dec_run_finish(&w.d);
	dec_finish(&w.d);
	jscan_keys_finish(&w.keys);
	return w.d.log;
fail:
	dec_finish(&w.d);
	jscan_keys_finish(&w.keys);
	event_log_free(w.d.log);
	return NULL;
}

struct event_log *event_log_parse(const char *buf, size_t len, struct err *e)
{
	return parse_bytes(buf, len, false, NULL, e);
}

struct event_log *event_log_parse_opts(const char *buf, size_t len, const struct event_parse_options *o,
				       struct err *e)
{
	return parse_bytes(buf, len, false, o, e);
}

/* What a stream's bytes so far decide: a NUL (no history holds one: JSON
 * and the CLI's table are text), or a first byte that starts none of the
 * dialects ('[' or '{' of JSON, the table's header word). Returns 0 while
 * undecided or plausible, -1 with e set. */
static int stream_check(const char *data, size_t from, size_t len, void *ctx, struct err *e)
{
	size_t *first = ctx;
	const char *nul = memchr(data + from, '\0', len - from);
	if (nul)
		return err_set(e, ERR_INPUT,
			       "not a history: byte %zu is a NUL, which no history holds (stopped there)",
			       (size_t)(nul - data) + 1);
	while (*first < len) {
		unsigned char c = (unsigned char)data[*first];
		if (*first == 0 && c == 0xef && len < 3)
			return 0; /* a byte order mark, maybe: the next bytes say */
		bool bom = *first == 0 && len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0;
		if (bom) {
			*first = 3;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			(*first)++;
			continue;
		}
		if (c == '[' || c == '{' || c == 'T' || c == 'P')
			return 0;
		return err_set(
			e, ERR_INPUT,
			"not a history: byte %zu (0x%02x) starts neither JSON nor the table of `dapr workflow "
			"history` (stopped there)",
			*first + 1, c);
	}
	return 0;
}

struct event_log *event_log_parse_fd(int fd, const struct event_parse_options *o, struct err *e)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		err_set(e, ERR_INPUT, "cannot read the input: %s", strerror(errno));
		return NULL;
	}
	if (S_ISREG(st.st_mode)) {
		if (st.st_size > EVENT_INPUT_MAX) {
			input_too_large(e);
			return NULL;
		}
		/* mapped, and the pages the parse has passed given back */
		size_t len = (size_t)st.st_size;
		void *map = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
		if (map != MAP_FAILED) {
			madvise(map, len, MADV_SEQUENTIAL);
			struct event_log *log = parse_bytes(map, len, true, o, e);
			munmap(map, len);
			return log;
		}
	}
	/* A pipe, a device or standard input: read as it comes, stopping at
	 * the first byte that decides it is no history (/dev/zero stops at its
	 * first byte, not after a GiB). */
	size_t first = 0, len;
	char *data;
	const struct file_in rule = {.what = "input",
				     .code = ERR_INPUT,
				     .max = EVENT_INPUT_MAX,
				     .stream = true,
				     .check = stream_check,
				     .check_ctx = &first};
	if (file_in_read_fd(fd, S_ISREG(st.st_mode) ? "(a file)" : "(a stream)", &rule, &st, &data, &len, e) < 0)
		return NULL;
	struct event_log *log = parse_bytes(data, len, false, o, e);
	free(data);
	return log;
}
