/* The analysis' hash maps: keyed by (generation, integer) and (generation,
 * string), since event ids restart at 0 in each generation. Sized once
 * from counts where they can be; no deletion, so linear probing stays
 * simple. */

#include <string.h>

#include "analysis_internal.h"
#include "table_alloc.h"

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/* Eight bytes a step, one multiply each, and one full mix at the end: ids
 * are 36-byte UUIDs hashed several times per attempt. The tail is the last
 * eight bytes (overlapping) when there are eight, so no short memcpy. */
static uint64_t hash_str(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ len;
	uint64_t w;
	if (len < 8) {
		w = 0;
		for (size_t i = 0; i < len; i++)
			w = w << 8 | (unsigned char)s[i];
		return mix64(h ^ w);
	}
	size_t i = 0;
	for (; i + 8 < len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
		h ^= h >> 32;
	}
	memcpy(&w, s + len - 8, 8);
	return mix64(h ^ w);
}

void imap_free(struct imap *m)
{
	free(m->slots);
	free(m->direct);
}

/* Where key starts probing. Ids come nearly dense and in order (event ids
 * count the actions of a generation), so 16 consecutive ids take 16
 * consecutive slots and only the blocks are spread: scheduling and then
 * matching results walk the table instead of missing the cache at every
 * attempt, as a fully mixed hash did on a large history. */
static size_t imap_start(uint32_t tag, int64_t key, size_t cap)
{
	uint64_t k = (uint64_t)key;
	return (size_t)((mix64((k >> 4) ^ mix64(tag)) << 4) | (k & 15)) & (cap - 1);
}

/* To ncap slots, a power of two over twice the count. full: every page
 * of the new table will be written, so it is faulted in ahead
 * (table_alloc.h): the map is growing as it fills, or was reserved for
 * keys that will all come. A reserve that may stay nearly empty (timers
 * by fire_at, which some dialects do not give) gets its pages as they are
 * used. */
static int imap_grow(struct imap *m, size_t ncap, bool full)
{
	struct imap_slot *n = full ? table_alloc(ncap, sizeof *n) : calloc(ncap, sizeof *n);
	if (!n)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		struct imap_slot *s = &m->slots[i];
		if (!s->tag)
			continue;
		size_t j = imap_start(s->tag, s->key, ncap);
		while (n[j].tag)
			j = (j + 1) & (ncap - 1);
		n[j] = *s;
	}
	free(m->slots);
	m->slots = n;
	m->cap = ncap;
	return 0;
}

uint32_t *imap_find(const struct imap *m, uint32_t gen, int64_t key)
{
	uint32_t tag = gen + 1;
	if (key >= 0 && (uint64_t)key < m->n_direct && m->direct[key].tag == tag)
		return &m->direct[key].value;
	if (!m->cap)
		return NULL;
	size_t j = imap_start(tag, key, m->cap);
	for (; m->slots[j].tag; j = (j + 1) & (m->cap - 1)) {
		if (m->slots[j].tag == tag && m->slots[j].key == key)
			return &m->slots[j].value;
	}
	return NULL;
}

/* Sets (or overwrites) the value. */
int imap_put(struct imap *m, uint32_t gen, int64_t key, uint32_t value)
{
	uint32_t tag = gen + 1;
	if (key >= 0 && (uint64_t)key < m->n_direct && (!m->direct[key].tag || m->direct[key].tag == tag)) {
		m->direct[key] = (struct imap_direct){.tag = tag, .value = value};
		return 0;
	}
	if ((m->count + 1) * 2 > m->cap && imap_grow(m, m->cap ? m->cap * 2 : 64, true) < 0)
		return -1;
	size_t j = imap_start(tag, key, m->cap);
	for (; m->slots[j].tag; j = (j + 1) & (m->cap - 1)) {
		if (m->slots[j].tag == tag && m->slots[j].key == key) {
			m->slots[j].value = value;
			return 0;
		}
	}
	m->slots[j] = (struct imap_slot){.key = key, .tag = tag, .value = value};
	m->count++;
	return 0;
}

static size_t table_size(size_t n)
{
	size_t cap = 64;
	while (cap < n * 2 + 2)
		cap *= 2;
	return cap;
}

int imap_reserve(struct imap *m, size_t span)
{
	/* Only before the first key: a key already in the slots stays found
	 * there, but one put later would then be in both. */
	if (m->n_direct || m->count || !span)
		return 0;
	/* Not faulted in ahead: ids come in order, so its pages are written
	 * one after the other, and ids that are not dense leave it unused. */
	m->direct = calloc(span, sizeof *m->direct);
	if (!m->direct)
		return -1;
	m->n_direct = span;
	return 0;
}

void smap_free(struct smap *m)
{
	free(m->slots);
	free(m->direct);
}

/* As imap_grow. */
static int smap_grow(struct smap *m, size_t ncap, bool full)
{
	struct smap_slot *n = full ? table_alloc(ncap, sizeof *n) : calloc(ncap, sizeof *n);
	if (!n)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		struct smap_slot *s = &m->slots[i];
		if (!s->key)
			continue;
		size_t j = mix64(s->hash ^ s->gen) & (ncap - 1);
		while (n[j].key)
			j = (j + 1) & (ncap - 1);
		n[j] = *s;
	}
	free(m->slots);
	m->slots = n;
	m->cap = ncap;
	return 0;
}

static struct smap_slot *smap_slot_find(const struct smap *m, uint32_t gen, const char *key, uint64_t h)
{
	if (!m->cap)
		return NULL;
	size_t j = mix64(h ^ gen) & (m->cap - 1);
	for (; m->slots[j].key; j = (j + 1) & (m->cap - 1)) {
		struct smap_slot *s = &m->slots[j];
		if (s->hash == h && s->gen == gen && (s->key == key || strcmp(s->key, key) == 0))
			return s;
	}
	return NULL;
}

/* The direct entry of key, or NULL when m keeps none by number. */
static struct smap_direct *smap_direct_of(const struct smap *m, const char *key)
{
	if (!m->n_direct)
		return NULL;
	uint32_t ord = event_log_str_ord(key);
	return ord < m->n_direct ? &m->direct[ord] : NULL;
}

/* Equal strings are one pointer in a log; strcmp only in case one was
 * not. */
static bool direct_holds(const struct smap_direct *d, uint32_t gen, const char *key)
{
	return d->key && d->gen == gen && (d->key == key || strcmp(d->key, key) == 0);
}

uint32_t *smap_find(const struct smap *m, uint32_t gen, const char *key)
{
	struct smap_direct *d = smap_direct_of(m, key);
	if (d && direct_holds(d, gen, key))
		return &d->value;
	/* An entry never empties: equal keys, equal numbers, so a key is in
	 * the slots only when its entry holds another. */
	if ((d && !d->key) || !m->count)
		return NULL;
	struct smap_slot *s = smap_slot_find(m, gen, key, hash_str(key, strlen(key)));
	return s ? &s->value : NULL;
}

int smap_reserve(struct smap *m, size_t n, bool filled)
{
	size_t cap = table_size(n);
	return m->cap < cap ? smap_grow(m, cap, filled) : 0;
}

int smap_reserve_interned(struct smap *m, size_t n_strings)
{
	if (m->n_direct || m->count || !n_strings)
		return 0;
	/* Not faulted in ahead: its pages are written in order. */
	m->direct = calloc(n_strings, sizeof *m->direct);
	if (!m->direct)
		return -1;
	m->n_direct = n_strings;
	return 0;
}

/* Inserts when absent; returns the slot's value pointer (existing or new),
 * NULL on allocation failure. *fresh says which. */
uint32_t *smap_get_or_put(struct smap *m, uint32_t gen, const char *key, uint32_t value, bool *fresh)
{
	*fresh = false;
	struct smap_direct *d = smap_direct_of(m, key);
	if (d && direct_holds(d, gen, key))
		return &d->value;
	if (d && !d->key) { /* and so in no slot (smap_find) */
		*d = (struct smap_direct){.key = key, .gen = gen, .value = value};
		*fresh = true;
		return &d->value;
	}
	uint64_t h = hash_str(key, strlen(key));
	struct smap_slot *s = smap_slot_find(m, gen, key, h);
	if (s)
		return &s->value;
	if ((m->count + 1) * 2 > m->cap && smap_grow(m, m->cap ? m->cap * 2 : 64, true) < 0)
		return NULL;
	size_t j = mix64(h ^ gen) & (m->cap - 1);
	while (m->slots[j].key)
		j = (j + 1) & (m->cap - 1);
	m->slots[j] = (struct smap_slot){.key = key, .hash = h, .gen = gen, .value = value};
	m->count++;
	*fresh = true;
	return &m->slots[j].value;
}
