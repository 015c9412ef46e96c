/* The streaming JSON writer (see json_writer.h).
 *
 * Strings. A string with no byte jansson's dump_string would touch is
 * copied between quotes (what jansson writes for it, checked in jw_plain:
 * every id and timestamp); in any other the plain runs are copied and each
 * run in between is encoded by jansson (one reused json_t string,
 * json_string_setn + json_dumpb); a string jansson refuses (bad UTF-8) is
 * repaired and encoded whole by jansson. Strings that repeat go through a
 * small cache of their encoding, keyed by address (jw_str_cached). */
#include "json_writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "escape.h"
#include "json_bytes.h"
#include "parallel.h"

#define JW_CACHE_MAX 512  /* longest encoding kept in the cache */
#define JW_CACHE_SHORT 32 /* copied as a constant size (names, vocabulary) */
#define JW_STRING_FLAGS (JSON_ENSURE_ASCII | JSON_ENCODE_ANY)
#define JW_PIPE_BUFS 2
#define JW_PIPE_ENDS 64
#define JW_STALL_US 200 /* a chunk takes about 30 us */

static void pipe_seal(struct jw *w);
static void worker_free(struct jw_worker *k);

int jw_init(struct jw *w, FILE *f)
{
	memset(w, 0, sizeof *w);
	w->f = f;
	w->out = malloc(JW_OUT_SIZE);
	w->str = json_string("");
	return w->out && w->str ? 0 : -1;
}

void jw_finish(struct jw *w)
{
	worker_free(w->worker);
	w->worker = NULL;
	for (size_t i = 0; i < JW_CACHE_SIZE; i++)
		free(w->cache[i].text);
	json_decref(w->str);
	if (!w->pipe)
		free(w->out);
	w->str = NULL;
	w->out = NULL;
}

/* Empties the buffer: to the FILE, or a worker's to the thread that writes
 * the FILE (w->out is then another buffer). */
void jw_flush(struct jw *w)
{
	w->flushes++;
	if (w->pipe) {
		pipe_seal(w);
		return;
	}
	if (w->len && fwrite(w->out, 1, w->len, w->f) != w->len)
		w->failed = true;
	w->len = 0;
}

void jw_raw_slow(struct jw *w, const char *s, size_t n)
{
	jw_flush(w);
	if (n > JW_OUT_SIZE && !w->pipe) {
		if (fwrite(s, 1, n, w->f) != n)
			w->failed = true;
		return;
	}
	while (n > JW_OUT_SIZE) { /* a worker's: a buffer at a time */
		memcpy(w->out, s, JW_OUT_SIZE);
		w->len = JW_OUT_SIZE;
		jw_flush(w);
		s += JW_OUT_SIZE;
		n -= JW_OUT_SIZE;
	}
	memcpy(w->out + w->len, s, n);
	w->len += n;
}

int jw_raw_fd(struct jw *w, int fd, off_t off, size_t len)
{
	for (size_t done = 0; done < len;) {
		if (w->len == JW_OUT_SIZE)
			jw_flush(w);
		size_t want = len - done < JW_OUT_SIZE - w->len ? len - done : JW_OUT_SIZE - w->len;
		ssize_t got = pread(fd, w->out + w->len, want, off + (off_t)done);
		if (got <= 0) {
			if (got == 0)
				errno = 0;
			return -1;
		}
		w->len += (size_t)got;
		done += (size_t)got;
	}
	return 0;
}

/* Decimal, as jansson prints a json_integer: two digits a step, written
 * straight into the buffer from the last (a report has a number for every
 * id). Written where they go, not into a scratch copied after: that copy
 * read sixteen bytes just stored a byte or two at a time, which the CPU
 * cannot forward from its stores, and the stall was half of this
 * function's time. */
void jw_int(struct jw *w, int64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	size_t n = 1 + (v < 0);
	for (uint64_t t = 10; n < 20 + (v < 0) && u >= t; t *= 10)
		n++;
	char *p = jw_reserve(w, n) + n;
	w->len += n;
	while (u >= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (u % 100), 2);
		u /= 100;
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * u, 2);
	} else {
		*--p = (char)('0' + u);
	}
	if (v < 0)
		*--p = '-';
}

/* Loads s into the reused jansson string. Text that is not valid UTF-8
 * (jansson refuses it) is repaired with U+FFFD rather than dropped. */
static int jw_load(struct jw *w, const char *s)
{
	if (json_string_set(w->str, s) == 0)
		return 0;
	char *fixed = escape_utf8_repair_dup(s);
	int rc = fixed ? json_string_set(w->str, fixed) : -1;
	free(fixed);
	return rc;
}

/* Whether jansson writes the len bytes at s verbatim between quotes: its
 * dump_string escapes only '"', '\\', bytes below 0x20 and, with
 * JSON_ENSURE_ASCII, everything above 0x7F ('/' only under
 * JSON_ESCAPE_SLASH, not used here), and its UTF-8 check passes any ASCII.
 * Such a string has nothing for jansson to escape: copying it is byte for
 * byte what jansson writes, and every string that does need escaping still
 * goes through jansson. This skips jansson's per-character loop on ids and
 * timestamps, which was half the instructions of a large report
 * (json_bytes.h: sixteen bytes at a time). */
static bool jw_plain(const char *s, size_t len)
{
	return json_bytes_all_plain((const unsigned char *)s, len);
}

/* A string with something to escape (a finding message quoting an error,
 * a non-ASCII name), written in pieces: runs of bytes jansson copies
 * verbatim (see jw_plain) are copied, and each run in between goes
 * through jansson (json_string_setn + json_dumpb, quotes dropped). jansson
 * escapes one code point at a time and a verbatim byte is ASCII, so always
 * a code point boundary: the pieces add up to what jansson writes for the
 * whole string, and a piece is valid UTF-8 exactly when the whole string's
 * bytes there are. Returns -1, with nothing written, when a piece is not
 * valid UTF-8 or does not fit: the caller then hands jansson the whole
 * string. */
static int jw_encode_pieces(struct jw *w, const char *s, size_t len, size_t *at_offset)
{
	/* jansson writes at most 6 bytes per input byte (\u00XX). */
	if (len > (JW_OUT_SIZE - 2) / 6)
		return -1;
	if (6 * len + 2 > JW_OUT_SIZE - w->len)
		jw_flush(w);
	size_t start = w->len;
	w->out[w->len++] = '"';
	const char *p = s, *end = s + len;
	while (p < end) {
		const char *q = p;
		q += json_bytes_plain((const unsigned char *)q, (size_t)(end - q), 0);
		memcpy(w->out + w->len, p, (size_t)(q - p));
		w->len += (size_t)(q - p);
		if (q == end)
			break;
		p = q;
		while (q < end &&
		       ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7F || *q == '"' || *q == '\\'))
			q++;
		char *at = w->out + w->len;
		size_t room = JW_OUT_SIZE - w->len;
		size_t n = 0;
		if (json_string_setn(w->str, p, (size_t)(q - p)) == 0)
			n = json_dumpb(w->str, at, room, JW_STRING_FLAGS);
		if (n < 2 || n > room) {
			w->len = start;
			return -1;
		}
		memmove(at, at + 1, n - 2); /* without jansson's quotes */
		w->len += n - 2;
		p = q;
	}
	w->out[w->len++] = '"';
	*at_offset = start;
	return 0;
}

/* Writes s (not NULL) as jansson encodes it. Returns where the encoding
 * sits in the output buffer (for the cache), or NULL when it did not go
 * through the buffer or failed. */
static const char *jw_encode(struct jw *w, const char *s, size_t *len)
{
	size_t slen = strlen(s);
	if (!jw_plain(s, slen)) {
		size_t off;
		if (jw_encode_pieces(w, s, slen, &off) == 0) {
			*len = w->len - off;
			return w->out + off;
		}
	} else if (slen <= JW_OUT_SIZE - 2) {
		size_t plain = slen;
		if (plain + 2 > JW_OUT_SIZE - w->len)
			jw_flush(w);
		char *at = w->out + w->len;
		at[0] = '"';
		memcpy(at + 1, s, plain);
		at[plain + 1] = '"';
		w->len += plain + 2;
		*len = plain + 2;
		return at;
	}
	if (jw_load(w, s) < 0) {
		w->failed = true;
		return NULL;
	}
	size_t room = JW_OUT_SIZE - w->len;
	size_t n = json_dumpb(w->str, w->out + w->len, room, JW_STRING_FLAGS);
	if (n > room) {
		jw_flush(w);
		room = JW_OUT_SIZE;
		n = json_dumpb(w->str, w->out, room, JW_STRING_FLAGS);
	}
	if (n == 0) {
		w->failed = true;
		return NULL;
	}
	if (n > room) { /* a string of over 1 MiB: once, unbuffered */
		char *big = json_dumps(w->str, JW_STRING_FLAGS);
		if (!big) {
			w->failed = true;
			return NULL;
		}
		jw_raw(w, big, strlen(big));
		free(big);
		return NULL;
	}
	const char *at = w->out + w->len;
	w->len += n;
	*len = n;
	return at;
}

/* A string or null (the JSON of a C string that may be NULL). */
void jw_str(struct jw *w, const char *s)
{
	size_t n;
	if (!s)
		jw_lit(w, "null");
	else
		jw_encode(w, s, &n);
}

/* The same, for strings that repeat across the report: the encoding is
 * computed by jansson once per address and then copied. */
void jw_str_cached(struct jw *w, const char *s)
{
	if (!s) {
		jw_lit(w, "null");
		return;
	}
	uintptr_t h = (uintptr_t)s;
	h ^= h >> 17;
	h *= UINT64_C(0x9E3779B97F4A7C15) & UINTPTR_MAX;
	struct jw_cached *c = &w->cache[(h >> 24) & (JW_CACHE_SIZE - 1)];
	if (c->key == s) {
		if (c->len <= JW_CACHE_SHORT) { /* a constant size: no memcpy call */
			memcpy(jw_reserve(w, JW_CACHE_SHORT), c->text, JW_CACHE_SHORT);
			w->len += c->len;
		} else {
			jw_raw(w, c->text, c->len);
		}
		return;
	}
	size_t n;
	const char *at = jw_encode(w, s, &n);
	if (!at || n > JW_CACHE_MAX)
		return;
	/* At least JW_CACHE_SHORT bytes, all of them copied for a short one. */
	size_t room = n > JW_CACHE_SHORT ? n : JW_CACHE_SHORT;
	if (!c->text || c->room < room) {
		char *text = realloc(c->text, room);
		if (!text)
			return; /* the cache is only a shortcut */
		c->text = text;
		c->room = room;
	}
	memcpy(c->text, at, n);
	memset(c->text + n, 0, c->room - n);
	c->len = n;
	c->key = s;
}

void jw_memo_end(struct jw *w, unsigned k, size_t mark)
{
	struct jw_memo *m = &w->memo[k];
	/* Kept only when its bytes are all still in the buffer, in one piece. */
	if (w->failed || w->flushes != m->at_flush || w->len < mark || w->len - mark > JW_MEMO_LEN)
		return;
	m->len = (uint8_t)(w->len - mark);
	memcpy(m->text, w->out + mark, m->len);
	m->depth = w->depth;
	m->compact = w->compact;
}

void jw_k_ints(struct jw *w, const char *key, const int64_t *v, size_t n)
{
	jw_open(w, key, '[');
	for (size_t i = 0; i < n; i++) {
		jw_next(w);
		jw_int(w, v[i]);
	}
	jw_close(w, ']');
}

/* ---- An array's items on two threads ----------------------------------------
 *
 * A report's big arrays are most of it (183 MB for 100,000 invocations,
 * 0.11 s of writing on one core). When an array is big enough
 * (JW_SPLIT_CHUNKS chunks) and there are two cores, its items are cut into
 * chunks of about JW_CHUNK bytes of output;
 * a worker thread writes the odd chunks with its own writer (same depth,
 * past the first item, its own jansson string and cache) while this thread
 * writes the even ones to the FILE and, in between, copies out the
 * worker's, in order. So the bytes are those of one thread: chunk
 * boundaries fall between items, an item's bytes do not depend on which
 * writer wrote it (the cache holds exact encodings), and an item past the
 * first starts with ",\n" either way.
 *
 * Other processes share the cores, and a thread the system does not run
 * must not hold the other up: the worker claims its chunks one at a time
 * (claim, under the lock), and an odd chunk this thread reaches before the
 * worker has claimed it, this thread writes itself; so does it a chunk the
 * worker has claimed but not finished within JW_STALL_US (when none of it
 * was copied out yet: a chunk over the pipe's size is waited for), and the
 * worker's bytes for it are dropped when they come.
 *
 * The worker writes into a pipe of JW_PIPE_BUFS buffers of JW_OUT_SIZE (the
 * only extra memory: the report is never held): its chunks follow one
 * another in them, and at each chunk's end it records where the chunk ends
 * (in a ring of JW_PIPE_ENDS). A full buffer is sealed and the worker goes
 * on in the next one once this thread has copied that one out. This thread
 * copies a chunk's bytes once it is complete, or a sealed buffer's even
 * before (a chunk bigger than the pipe). The worker stays at most the pipe's
 * size ahead, and neither waits for the other beyond that.
 *
 * Errors are this thread's to report, as with one thread: it alone writes to the FILE; the
 * worker's failures (out of memory) are added to the stream's after the
 * join. The threads setting 1, one core, or a thread that cannot be
 * started: one thread writes every chunk. */

enum {
	PIPE_FREE,
	PIPE_WRITING,
	PIPE_SEALED
};

struct jw_pipe {
	pthread_mutex_t lock;
	pthread_cond_t more; /* this thread waits: a chunk done or a buffer sealed */
	pthread_cond_t room; /* the worker waits: a buffer freed or an end taken */
	char *buf[JW_PIPE_BUFS];
	unsigned char state[JW_PIPE_BUFS];
	size_t sealed_len[JW_PIPE_BUFS];
	struct {
		unsigned buf;
		size_t off;
	} ends[JW_PIPE_ENDS]; /* chunk n_taken .. n_done-1 end there */
	size_t n_done, n_taken;
	size_t claim;  /* the next odd chunk the worker may write */
	size_t n_drop; /* chunks of the worker's given up on and not yet dropped */
	unsigned wbuf; /* the worker's buffer (read and written by it only, or locked) */
	unsigned rbuf; /* where this thread copies from next (this thread only) */
	size_t roff;
};

/* The worker's jw_flush: seals its buffer and goes on in the next, once
 * that one has been copied out. An empty buffer is kept. */
static void pipe_seal(struct jw *w)
{
	struct jw_pipe *p = w->pipe;
	if (!w->len)
		return;
	pthread_mutex_lock(&p->lock);
	p->sealed_len[p->wbuf] = w->len;
	p->state[p->wbuf] = PIPE_SEALED;
	pthread_cond_signal(&p->more);
	p->wbuf = (p->wbuf + 1) % JW_PIPE_BUFS;
	while (p->state[p->wbuf] != PIPE_FREE)
		pthread_cond_wait(&p->room, &p->lock);
	p->state[p->wbuf] = PIPE_WRITING;
	pthread_mutex_unlock(&p->lock);
	w->out = p->buf[p->wbuf];
	w->len = 0;
}

/* The worker, at the end of one of its chunks. */
static void pipe_chunk_done(struct jw *w)
{
	struct jw_pipe *p = w->pipe;
	pthread_mutex_lock(&p->lock);
	while (p->n_done - p->n_taken == JW_PIPE_ENDS)
		pthread_cond_wait(&p->room, &p->lock);
	p->ends[p->n_done % JW_PIPE_ENDS].buf = p->wbuf;
	p->ends[p->n_done % JW_PIPE_ENDS].off = w->len;
	p->n_done++;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->lock);
}

/* Writes n bytes of the worker's to the FILE, after what w holds: straight
 * from the worker's buffer (copying them into w's would be a second pass
 * over half the report). */
static void jw_copy_out(struct jw *w, const char *s, size_t n)
{
	if (!n)
		return;
	jw_flush(w);
	if (fwrite(s, 1, n, w->f) != n)
		w->failed = true;
}

/* Passes the worker's next chunk in the pipe, copying it out to w (NULL:
 * dropping it). Called and returns with the lock held. The bytes up to a
 * recorded end, or up to a sealed buffer's length, are the worker's to
 * read no more: they are read outside the lock. The chunk ends in the
 * buffer being read when its end names it: the worker can only be writing
 * into that buffer again after it was freed here. With a deadline, gives
 * up (false) when the chunk is not done by then and nothing of it was
 * passed yet. */
static bool pipe_pass(struct jw_pipe *p, struct jw *w, const struct timespec *deadline)
{
	bool started = false;
	for (;;) {
		if (p->n_done > p->n_taken && p->ends[p->n_taken % JW_PIPE_ENDS].buf == p->rbuf) {
			size_t end = p->ends[p->n_taken % JW_PIPE_ENDS].off;
			if (w) {
				pthread_mutex_unlock(&p->lock);
				jw_copy_out(w, p->buf[p->rbuf] + p->roff, end - p->roff);
				pthread_mutex_lock(&p->lock);
			}
			p->roff = end;
			p->n_taken++;
			/* a buffer passed to its end goes back now, not at the
			 * next chunk: the worker may be waiting for it */
			if (p->state[p->rbuf] == PIPE_SEALED && p->roff == p->sealed_len[p->rbuf]) {
				p->state[p->rbuf] = PIPE_FREE;
				p->rbuf = (p->rbuf + 1) % JW_PIPE_BUFS;
				p->roff = 0;
			}
			pthread_cond_signal(&p->room);
			return true;
		}
		if (p->state[p->rbuf] == PIPE_SEALED) {
			size_t end = p->sealed_len[p->rbuf];
			if (w) {
				pthread_mutex_unlock(&p->lock);
				jw_copy_out(w, p->buf[p->rbuf] + p->roff, end - p->roff);
				pthread_mutex_lock(&p->lock);
			}
			p->state[p->rbuf] = PIPE_FREE;
			p->rbuf = (p->rbuf + 1) % JW_PIPE_BUFS;
			p->roff = 0;
			pthread_cond_signal(&p->room);
			started = true;
			continue;
		}
		if (!deadline || started)
			pthread_cond_wait(&p->more, &p->lock);
		else if (pthread_cond_timedwait(&p->more, &p->lock, deadline) == ETIMEDOUT &&
			 p->n_done == p->n_taken && p->state[p->rbuf] != PIPE_SEALED)
			return false;
	}
}

/* Chunk c (odd): copies it out to w and returns true when the worker
 * writes it. False when this thread is to write it: the worker has not
 * claimed it (and now never will), or has not finished it within
 * JW_STALL_US while nothing of it was copied out yet (a worker the system
 * is not running: its bytes for c will be dropped). */
static bool pipe_take_chunk(struct jw_pipe *p, struct jw *w, size_t c)
{
	bool taken = false;
	pthread_mutex_lock(&p->lock);
	if (p->claim == c) {
		p->claim = c + 2;
	} else {
		/* chunks given up on: the worker finished them before it
		 * claimed c */
		for (; p->n_drop; p->n_drop--)
			pipe_pass(p, NULL, NULL);
		struct timespec deadline;
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_nsec += JW_STALL_US * 1000L;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
		taken = pipe_pass(p, w, &deadline);
		if (!taken)
			p->n_drop++;
	}
	pthread_mutex_unlock(&p->lock);
	return taken;
}

/* After the last chunk: drops what the worker still writes for chunks
 * given up on, so that it can finish. */
static void pipe_drain(struct jw_pipe *p)
{
	pthread_mutex_lock(&p->lock);
	for (; p->n_drop; p->n_drop--)
		pipe_pass(p, NULL, NULL);
	pthread_mutex_unlock(&p->lock);
}

/* The second writer, made the first time a writer splits an array and kept
 * for its later arrays. */
struct jw_worker {
	struct parallel_task *task;
	struct jw w;
	struct jw_pipe pipe;
	struct jw_items items; /* the job: the worker writes odd chunks */
};

static void worker_free(struct jw_worker *k)
{
	if (!k)
		return;
	k->w.out = NULL; /* one of the pipe's buffers */
	jw_finish(&k->w);
	for (size_t i = 0; i < JW_PIPE_BUFS; i++)
		free(k->pipe.buf[i]);
	pthread_cond_destroy(&k->pipe.room);
	pthread_cond_destroy(&k->pipe.more);
	pthread_mutex_destroy(&k->pipe.lock);
	free(k);
}

static struct jw_worker *worker_new(void)
{
	struct jw_worker *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	/* initialised before anything can fail: worker_free destroys them */
	pthread_mutex_init(&k->pipe.lock, NULL);
	pthread_condattr_t monotonic;
	pthread_condattr_init(&monotonic);
	pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
	pthread_cond_init(&k->pipe.more, &monotonic);
	pthread_condattr_destroy(&monotonic);
	pthread_cond_init(&k->pipe.room, NULL);
	bool ok = (k->w.str = json_string("")) != NULL;
	for (size_t i = 0; i < JW_PIPE_BUFS; i++)
		ok = ok && (k->pipe.buf[i] = malloc(JW_OUT_SIZE)) != NULL;
	if (!ok) {
		worker_free(k);
		return NULL;
	}
	k->w.pipe = &k->pipe;
	return k;
}

static void worker_main(void *arg)
{
	struct jw_worker *k = arg;
	struct jw_pipe *p = &k->pipe;
	const struct jw_items *it = &k->items;
	size_t c = 0, from = 0, to = it->chunk_end(it->ctx, 0); /* chunk c is [from, to) */
	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t want = p->claim;
		p->claim += 2;
		pthread_mutex_unlock(&p->lock);
		for (; c < want; c++) {
			if (to == it->n)
				return; /* no such chunk: done */
			from = to;
			to = it->chunk_end(it->ctx, from);
		}
		it->write(&k->w, it->ctx, from, to);
		pipe_chunk_done(&k->w);
	}
}

/* Starts the worker on the items, which go at w's depth past the first.
 * NULL when it cannot: one thread writes them all. */
static struct jw_worker *worker_start(struct jw *w, const struct jw_items *it)
{
	if (!w->worker && !(w->worker = worker_new()))
		return NULL;
	struct jw_worker *k = w->worker;
	struct jw_pipe *p = &k->pipe;
	for (size_t i = 0; i < JW_PIPE_BUFS; i++)
		p->state[i] = PIPE_FREE;
	p->state[0] = PIPE_WRITING;
	p->n_done = p->n_taken = 0;
	p->claim = 1;
	p->n_drop = 0;
	p->wbuf = p->rbuf = 0;
	p->roff = 0;
	k->w.out = p->buf[0];
	k->w.len = 0;
	k->w.depth = w->depth;
	k->w.compact = w->compact;
	k->w.has_items[k->w.depth] = true;
	k->items = *it;
	return (k->task = parallel_start(worker_main, k)) ? k : NULL;
}

/* How many chunks the items make, counting up to JW_SPLIT_CHUNKS. */
static size_t count_chunks(const struct jw_items *it)
{
	size_t from = 0, chunks = 0;
	while (from < it->n && chunks < JW_SPLIT_CHUNKS) {
		from = it->chunk_end(it->ctx, from);
		chunks++;
	}
	return chunks;
}

/* This thread writes chunks 0, 2, 4... (the first item among them) and the
 * odd ones the worker has not claimed, and copies out the worker's in
 * between. */
void jw_items(struct jw *w, const struct jw_items *it, unsigned threads)
{
	/* One thread asked for: no chunks to count. */
	struct jw_worker *k = threads != 1 && parallel_wanted(threads, count_chunks(it), JW_SPLIT_CHUNKS)
				      ? worker_start(w, it)
				      : NULL;
	if (!k) {
		it->write(w, it->ctx, 0, it->n);
		return;
	}
	for (size_t c = 0, from = 0, to; from < it->n; c++, from = to) {
		to = it->chunk_end(it->ctx, from);
		if (c % 2 == 0 || !pipe_take_chunk(&k->pipe, w, c))
			it->write(w, it->ctx, from, to);
	}
	pipe_drain(&k->pipe);
	parallel_join(k->task);
	k->task = NULL;
	if (k->w.failed)
		w->failed = true;
	k->w.failed = false;
}
