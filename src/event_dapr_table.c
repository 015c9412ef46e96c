/* The table `dapr workflow history` prints by default and with `-o wide`
 * (dapr/cli 1.17 and 1.18, cmd/workflow/history.go through
 * utils.WriteTable): a header line of upper-cased column names, then one
 * row per event, each column padded with blanks to its widest cell. The
 * short view prints "-" for an empty cell, the wide view a blank.
 *
 * Only TYPE, NAME, EVENTID, STATUS and DETAILS are read: the short view has
 * nothing else of use (no failure text, no scheduled id on a failure, no
 * execution id), and reading the wide view's ATTRS would make two readings
 * of one table. A table without TYPE, NAME and EVENTID is refused. */
#include "event_decode.h"
#include "event_internal.h"

#include <stdlib.h>
#include <string.h>

enum col {
	COL_TYPE,
	COL_NAME,
	COL_EVENTID,
	COL_STATUS,
	COL_DETAILS,
	COL_N
};

static const char *const col_names[COL_N] = {"TYPE", "NAME", "EVENTID", "STATUS", "DETAILS"};

#define MAX_COLS 32

static size_t line_len(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return (size_t)((nl ? nl : end) - p);
}

bool dapr_table_header(const char *p, size_t n)
{
	size_t end = line_len(p, p + (n < 512 ? n : 512));
	if (!(end >= 4 && (memcmp(p, "TYPE", 4) == 0 || memcmp(p, "PLAY", 4) == 0)))
		return false;
	static const char *const cols[] = {" NAME ", " STATUS"};
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
		size_t k = strlen(cols[i]);
		bool found = false;
		for (size_t j = 0; j + k <= end && !found; j++)
			found = memcmp(p + j, cols[i], k) == 0;
		if (!found)
			return false;
	}
	return true;
}

/* Column starts, counted in code points: tablewriter pads by display
 * width, so a cell with a multi-byte character ("…") shifts the bytes of
 * the cells after it, not their columns. Header names are ASCII and
 * separated by at least two blanks ("EXECUTION ID" holds one). */
struct header {
	size_t start[MAX_COLS];
	int which[MAX_COLS]; /* enum col, or -1 */
	size_t n;
};

static void header_read(const char *p, size_t len, struct header *h)
{
	size_t i = 0;
	h->n = 0;
	while (i < len && h->n < MAX_COLS) {
		while (i < len && p[i] == ' ')
			i++;
		if (i >= len)
			break;
		size_t s = i;
		while (i < len && !(p[i] == ' ' && (i + 1 >= len || p[i + 1] == ' ')))
			i++;
		h->start[h->n] = s;
		h->which[h->n] = -1;
		for (int c = 0; c < COL_N; c++) {
			if (i - s == strlen(col_names[c]) && memcmp(p + s, col_names[c], i - s) == 0)
				h->which[h->n] = c;
		}
		h->n++;
	}
}

struct cell {
	const char *p;
	size_t len;
};

/* The row's cells, by column, blanks trimmed; "-" (the short view's empty
 * cell) is empty. */
static void row_cells(const char *p, size_t len, const struct header *h, struct cell *out)
{
	size_t col = 0, rune = 0, i = 0;
	const char *cell_start = p;
	for (size_t c = 0; c < h->n; c++)
		out[c] = (struct cell){p + len, 0};
	while (col < h->n) {
		size_t next = col + 1 < h->n ? h->start[col + 1] : (size_t)-1;
		while (i < len && rune < next) {
			i++;
			while (i < len && ((unsigned char)p[i] & 0xC0u) == 0x80u)
				i++;
			rune++;
		}
		const char *a = cell_start, *b = p + i;
		while (a < b && *a == ' ')
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\r'))
			b--;
		if (b - a == 1 && *a == '-')
			b = a;
		out[col] = (struct cell){a, (size_t)(b - a)};
		cell_start = p + i;
		col++;
	}
}

static bool parse_int(const char *p, size_t len, int64_t *out)
{
	if (!len || len > 18)
		return false;
	int64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return true;
}

/* DETAILS (history.go deriveDetails): "eventId=N" on a completion, the
 * timer's "fireAt=...,origin=kind(id)" (origin last: an id may hold a
 * comma). */
static int read_details(struct event_log *log, struct event *ev, const char *p, size_t len)
{
	const char *end = p + len;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *eq = memchr(p, '=', (size_t)(end - p));
		if (!eq || (comma && comma < eq)) {
			p = comma ? comma + 1 : end;
			continue;
		}
		size_t kl = (size_t)(eq - p);
		const char *v = eq + 1, *vend = comma ? comma : end;
		if (kl == 6 && memcmp(p, "origin", 6) == 0) {
			const char *par = memchr(v, '(', (size_t)(end - v));
			ev->origin = dapr_cli_origin_kind(v, (size_t)((par ? par : end) - v));
			/* Its id names an attempt by task execution id, which
			 * no row prints: kept for the report, the analysis
			 * links the timer by order. */
			if (par && end[-1] == ')' && end - 1 > par + 1 &&
			    !(ev->origin_id = event_log_intern(log, par + 1, (size_t)(end - 1 - par - 1))))
				return -1;
			break;
		}
		if (kl == 7 && memcmp(p, "eventId", 7) == 0 &&
		    (ev->kind == EVENT_TASK_COMPLETED || ev->kind == EVENT_CHILD_COMPLETED))
			ev->has_task_scheduled_id = parse_int(v, (size_t)(vend - v), &ev->task_scheduled_id);
		p = vend < end ? vend + 1 : end;
	}
	return 0;
}

/* The calls scheduled and timers created and not yet answered, by kind: a
 * result that names no scheduled id, or a TimerFired (whose timerId only
 * the wide view's ATTRS prints), answers the only one pending, if there is
 * one; with several pending it stays unpaired (-1, no timer id). */
struct pending {
	int64_t task, child, timer;
	size_t n_task, n_child, n_timer;
};

static void pair_by_order(struct pending *pd, struct event *ev)
{
	bool task = ev->kind == EVENT_TASK_COMPLETED || ev->kind == EVENT_TASK_FAILED;
	bool child = ev->kind == EVENT_CHILD_COMPLETED || ev->kind == EVENT_CHILD_FAILED;
	if (ev->kind == EVENT_TASK_SCHEDULED) {
		pd->task = ev->event_id;
		pd->n_task++;
	} else if (ev->kind == EVENT_CHILD_CREATED) {
		pd->child = ev->event_id;
		pd->n_child++;
	} else if (ev->kind == EVENT_TIMER_CREATED) {
		pd->timer = ev->event_id;
		pd->n_timer++;
	} else if (ev->kind == EVENT_TIMER_FIRED) {
		if (pd->n_timer == 1) {
			ev->timer_id = pd->timer;
			ev->has_timer_id = true;
		}
		if (pd->n_timer)
			pd->n_timer--;
	}
	if (!task && !child)
		return;
	size_t *n = task ? &pd->n_task : &pd->n_child;
	if (!ev->has_task_scheduled_id) {
		/* No row says which call a failure answers (deriveDetails
		 * prints nothing on TaskFailed). */
		ev->task_scheduled_id = *n == 1 ? (task ? pd->task : pd->child) : -1;
	}
	if (*n)
		(*n)--;
}

static int read_row(struct event_log *log, struct pending *pd, const char *p, size_t len, size_t off,
		    const struct header *h, struct err *e)
{
	struct cell cells[MAX_COLS];
	row_cells(p, len, h, cells);
	struct cell by[COL_N] = {{0}};
	for (size_t c = 0; c < h->n; c++) {
		if (h->which[c] >= 0)
			by[h->which[c]] = cells[c];
	}
	if (!by[COL_TYPE].len)
		return 0; /* a blank line */
	struct event ev = {.source_offset = off, .task_scheduled_id = 0};
	ev.kind = event_kind_lookup(by[COL_TYPE].p, by[COL_TYPE].len);
	if (!(ev.kind_name = event_log_intern(log, by[COL_TYPE].p, by[COL_TYPE].len)))
		goto oom;
	if (by[COL_NAME].len && !(ev.name = event_log_intern(log, by[COL_NAME].p, by[COL_NAME].len)))
		goto oom;
	ev.has_event_id = parse_int(by[COL_EVENTID].p, by[COL_EVENTID].len, &ev.event_id);
	/* As in the JSON rows: an id is printed only above 0, except on
	 * the actions, whose first is 0. */
	if (!ev.has_event_id) {
		bool action = ev.kind == EVENT_TASK_SCHEDULED || ev.kind == EVENT_TIMER_CREATED ||
			      ev.kind == EVENT_CHILD_CREATED || ev.kind == EVENT_EVENT_SENT ||
			      ev.kind == EVENT_EXECUTION_COMPLETED;
		ev.event_id = action ? 0 : -1;
	}
	if (by[COL_DETAILS].len && read_details(log, &ev, by[COL_DETAILS].p, by[COL_DETAILS].len) < 0)
		goto oom;
	pair_by_order(pd, &ev);
	if (ev.kind == EVENT_EXECUTION_COMPLETED && by[COL_STATUS].len &&
	    !(ev.workflow_status = event_log_intern(log, by[COL_STATUS].p, by[COL_STATUS].len)))
		goto oom;
	if (ev.kind == EVENT_UNKNOWN && event_log_count_unknown_kind(log, by[COL_TYPE].p, by[COL_TYPE].len, 1) < 0)
		goto oom;
	return event_log_append(log, &ev, e);
oom:
	return err_oom(e);
}

struct event_log *dapr_table_parse(const char *buf, size_t len, size_t pos, bool release, struct err *e)
{
	const char *p = buf + pos, *end = buf + len;
	size_t hl = line_len(p, end);
	struct header h;
	header_read(p, hl, &h);
	bool have[COL_N] = {false};
	for (size_t c = 0; c < h.n; c++) {
		if (h.which[c] >= 0)
			have[h.which[c]] = true;
	}
	if (!have[COL_TYPE] || !have[COL_NAME] || !have[COL_EVENTID]) {
		err_set(e, ERR_INPUT,
			"this is the table view of `dapr workflow history` without its TYPE, NAME and EVENTID "
			"columns, which cannot be read; save the history with `dapr workflow history ID -o json`");
		return NULL;
	}
	struct event_log *log = event_log_new();
	if (!log) {
		err_oom(e);
		return NULL;
	}
	event_log_set_dialect(log, DIALECT_DAPR_TABLE);
	struct pending pd = {0};
	size_t released = 0;
	p += hl;
	while (p < end) {
		p++; /* the newline */
		size_t l = line_len(p, end);
		if (read_row(log, &pd, p, l, (size_t)(p - buf), &h, e) < 0) {
			event_log_free(log);
			return NULL;
		}
		p += l;
		if (release)
			event_input_release(buf, (size_t)(p - buf), &released);
	}
	return log;
}
