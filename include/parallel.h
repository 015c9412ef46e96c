#pragma once
/* One way to put work on a second core, for the three places that do
 * (the history parse, the analysis' finding passes, the JSON render): a
 * task started on a thread of its own and joined, and one decision of
 * whether a piece of work is worth it. When no thread can be had, the
 * caller runs the task itself: the result is the same either way, only
 * slower. */

#include <stdbool.h>
#include <stddef.h>

/* The threads setting (CATALYST_AUDIT_THREADS, resolved by the CLI into
 * each step's options): 0 decides by the machine (a second core when
 * there is one), 1 keeps every step on one thread. Other values are
 * taken as 0: no step uses more than two. */
bool parallel_wanted(unsigned threads, size_t size, size_t threshold);

struct parallel_task;

/* Starts fn(arg) on a thread of its own. NULL when none could be had (or
 * memory ran out): the caller then calls fn(arg) itself. */
struct parallel_task *parallel_start(void (*fn)(void *arg), void *arg);
/* Waits for the task and frees it; accepts NULL. */
void parallel_join(struct parallel_task *t);
