#pragma once
/* What the text report's files share, and only they (render_text in
 * include/report.h is the interface):
 *
 * - render_text.c: the entry, the verdict, the short view and
 *   --findings-only, and the sections every view ends with;
 * - render_text_full.c: --verbose-report, every attempt of every run;
 * - render_text_overview.c: the table of runs;
 * - render_text_payloads.c: --show-payloads;
 * - render_text_layout.c: colour, escaping and word-wrapping. */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "buf.h"
#include "escape.h"
#include "render.h"

#define ESC_SLOTS 6

struct text_out {
	FILE *f;
	/* The render options as given (a new one is read as t->o.<name>:
	 * no copy field by field), and the width they come to. */
	struct render_options o;
	size_t width;
	/* Escaped strings live in rotating slots until the next few calls. */
	struct buf slot[ESC_SLOTS];
	size_t next_slot;
	bool oom;
};

enum style {
	STYLE_BOLD,
	STYLE_RED,
	STYLE_GREEN,
	STYLE_YELLOW,
	STYLE_DIM
};

/* render_text_layout.c */
/* The ANSI codes of s, "" without colour: the text report's and the
 * stats table's one palette. */
const char *render_style(bool color, enum style s);
const char *render_style_off(bool color);
const char *text_on(struct text_out *t, enum style s);
const char *text_off(struct text_out *t);
/* s escaped for the terminal (and cut to max characters when max > 0);
 * "" for NULL. Valid until ESC_SLOTS more calls. */
const char *text_esc(struct text_out *t, const char *s, size_t max);
/* Already-escaped text word-wrapped to the width, from column col; later
 * lines start with indent spaces. text NULL is a line built in a buffer
 * that ran out of memory: nothing is printed and the render fails. */
void text_wrap_at(struct text_out *t, const char *text, size_t indent, size_t col);
void text_wrap(struct text_out *t, const char *text, size_t indent);
/* "- item" with the item's continuation lines under its first word. */
void text_bullet(struct text_out *t, const char *text, size_t indent);

/* render_text_overview.c */
const char *text_status_cell(struct text_out *t, const struct report_run *run);
void text_print_overview(struct text_out *t, const struct report *r);

/* render_text.c: what the full view shares with the others */
void text_print_verdict(struct text_out *t, const struct report *r, bool list_suspects);
void text_print_failed_run(struct text_out *t, const struct report_run *run);
/* The run's version, stalls and signing (report_facts.h), a line each. */
void text_print_facts(struct text_out *t, const struct analysis *a);
void text_print_notes(struct text_out *t, const struct report *r);
/* "Verdict: WORD  sentence", wrapped. */
void text_print_verdict_line(struct text_out *t, const struct report *r);
void text_print_summary(struct text_out *t, const struct report *r);

/* render_text_full.c */
void text_render_full(struct text_out *t, const struct report *r);
/* render_text_payloads.c: the payloads of the attempts in findings, when
 * the report was read to show them (nothing otherwise). */
void text_print_payloads(struct text_out *t, const struct report *r);
