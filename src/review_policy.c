/* The orchestrator's hazard (doc/hazards.md): one retry policy object
 * given to every activity call, so permanent rejections are retried on
 * the schedule of transient failures. A function that calls two or more
 * different activities, each with the same policy variable, is flagged at
 * its first call. */

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "review_internal.h"

#define MAX_CALLS 64

struct policy_walk {
	const struct rv_file *f;
	TSNode root;
	TSNode first;
	char policy[96];
	char names[4][96];
	size_t n_calls, n_names;
	size_t n_plain; /* calls that pass no policy */
	bool mixed;     /* a call without the policy, or with another */
};

static bool policy_like(const char *s)
{
	char low[96];
	size_t n = strlen(s);
	if (!n || n >= sizeof low)
		return false;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)s[i]);
	return strstr(low, "retry") || strstr(low, "polic") || strstr(low, "option");
}

/* The policy variable a call passes: retry_policy=X, an identifier argument
 * named like a policy, or one inside a wrapper call
 * (workflow.ActivityRetryPolicy(X)) or an options object ({retry: X}). */
static bool policy_of(const struct rv_file *f, TSNode call, char *out, size_t size)
{
	TSNode kw = rv_named_arg(f, call, "retry_policy"), args[8];
	if (!ts_node_is_null(kw)) {
		if (!rv_type(kw, "identifier") && !rv_type(kw, "attribute"))
			return false; /* made at the call: not one shared object */
		rv_text(f, kw, out, size);
		return true;
	}
	size_t n = rv_args(call, args, 8);
	for (size_t i = 1; i < n; i++) {
		TSNode a = args[i];
		if (rv_type(a, f->lang->call)) {
			TSNode inner[2];
			char name[64];
			if (!policy_like(rv_text(f, rv_callee_name(a), name, sizeof name)) ||
			    rv_args(a, inner, 2) != 1)
				continue;
			a = inner[0];
		} else if (rv_type(a, "object") && ts_node_named_child_count(a)) {
			TSNode pair = ts_node_named_child(a, 0);
			a = rv_field(pair, "value");
		}
		if (!rv_type(a, "identifier"))
			continue;
		rv_text(f, a, out, size);
		if (policy_like(out))
			return true;
	}
	return false;
}

static bool policy_visit(TSNode n, void *arg)
{
	struct policy_walk *w = arg;
	if (!ts_node_eq(n, w->root) && rv_type_in(n, w->f->lang->functions))
		return false;
	if (!rv_type(n, w->f->lang->call))
		return true;
	char name[64];
	rv_text(w->f, rv_callee_name(n), name, sizeof name);
	if (strcasecmp(name, "call_activity") && strcasecmp(name, "CallActivity") &&
	    strcmp(name, "CallActivityAsync"))
		return true;
	char policy[96], act[96];
	TSNode args[1];
	/* A call with no policy of its own takes the SDK's default: not
	 * another policy (one that passes another is). */
	if (!policy_of(w->f, n, policy, sizeof policy)) {
		w->n_plain++;
		return true;
	}
	if (w->n_calls && strcmp(policy, w->policy) != 0) {
		w->mixed = true;
		return true;
	}
	if (!w->n_calls++) {
		snprintf(w->policy, sizeof w->policy, "%s", policy);
		w->first = n;
	}
	if (rv_args(n, args, 1) == 1) {
		rv_text(w->f, args[0], act, sizeof act);
		bool seen = false;
		for (size_t i = 0; i < w->n_names && !seen; i++)
			seen = strcmp(w->names[i], act) == 0;
		if (!seen && w->n_names < 4)
			snprintf(w->names[w->n_names++], sizeof w->names[0], "%s", act);
	}
	return true;
}

int rv_orchestrator_hazards(struct rv_ctx *x)
{
	for (size_t i = 0; i < x->n_funcs; i++) {
		const struct rv_func *fn = &x->funcs[i];
		struct policy_walk w = {.f = &x->files[fn->file], .root = fn->node};
		rv_walk(fn->node, policy_visit, &w);
		if (w.mixed || w.n_calls < 2 || w.n_names < 2)
			continue;
		char label[160], share[64];
		snprintf(label, sizeof label, "%s()", fn->name);
		if (w.n_plain)
			snprintf(share, sizeof share, "%zu of its %zu", w.n_calls, w.n_calls + w.n_plain);
		else
			snprintf(share, sizeof share, "every one of its %zu", w.n_calls);
		if (rv_add_hazard(x, &x->out->orchestrator, &x->out->n_orchestrator, HAZARD_SHARED_RETRY_POLICY,
				  fn->file, w.first, NULL,
				  "%s gives %s activity calls (%s, %s%s) the one retry policy `%s`", label, share,
				  w.names[0], w.names[1], w.n_names > 2 ? ", ..." : "", w.policy) < 0)
			return -1;
	}
	return 0;
}
