#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

struct parallel_task {
	pthread_t thread;
	void (*fn)(void *arg);
	void *arg;
};

bool parallel_wanted(unsigned threads, size_t size, size_t threshold)
{
	if (threads == 1 || size < threshold)
		return false;
	/* Asked once: glibc reads a file under /sys for it each time. */
	static atomic_long cpus;
	long n = atomic_load(&cpus);
	if (!n) {
		n = sysconf(_SC_NPROCESSORS_ONLN);
		atomic_store(&cpus, n);
	}
	return n >= 2;
}

static void *task_main(void *p)
{
	struct parallel_task *t = p;
	t->fn(t->arg);
	return NULL;
}

struct parallel_task *parallel_start(void (*fn)(void *arg), void *arg)
{
	struct parallel_task *t = malloc(sizeof *t);
	if (!t)
		return NULL;
	t->fn = fn;
	t->arg = arg;
	if (pthread_create(&t->thread, NULL, task_main, t) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

void parallel_join(struct parallel_task *t)
{
	if (!t)
		return;
	pthread_join(t->thread, NULL);
	free(t);
}
