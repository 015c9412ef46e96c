/* Who is signed in, and the projects they see: catalyst_whoami,
 * catalyst_list_projects and catalyst_get_project, read into structs. The
 * answers' shapes are undocumented (doc/catalyst-mcp.md): fields are found by
 * their known spellings, in any case and separator. */

#include <stdlib.h>
#include <string.h>

#include "catalyst.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int catalyst_whoami(struct catalyst *c, struct catalyst_identity *out, struct catalyst_refusal *ref, struct err *e)
{
	static const char *const k_org_name[] = {"orgname", "organizationname", NULL};
	static const char *const k_org_id[] = {"orgid", "organizationid", NULL};
	static const char *const k_user[] = {"email", "useremail", "username", "login", "subject", "sub", NULL};
	static const char *const k_name[] = {"name", "displayname", NULL};
	static const char *const k_id[] = {"id", "uid", NULL};
	memset(out, 0, sizeof *out);
	json_t *who = NULL, *meta = NULL;
	if (catalyst_call(c, "catalyst_whoami", NULL, &who, &meta, ref, e) < 0)
		return -1;
	out->sharing = catalyst_answer_sharing(who, meta, out->sharing_key, sizeof out->sharing_key);
	/* Organization: {organization: {id, name}} or flat org_name / org_id. */
	const json_t *org = json_object_get(who, "organization");
	if (!json_is_object(org))
		org = json_object_get(who, "org");
	char num[3][32];
	const char *org_name = json_is_object(org) ? catalyst_find_string(org, k_name, 0, NULL) : NULL;
	const char *org_id = json_is_object(org) ? catalyst_find_string(org, k_id, 0, num[0]) : NULL;
	if (!org_name)
		org_name = catalyst_find_string(who, k_org_name, 2, NULL);
	if (!org_id)
		org_id = catalyst_find_string(who, k_org_id, 2, num[1]);
	const char *user = catalyst_find_string(who, k_user, 2, num[2]);
	out->org_name = dup_or_null(org_name);
	out->org_id = dup_or_null(org_id);
	out->user = dup_or_null(user);
	json_decref(who);
	json_decref(meta);
	if ((org_name && !out->org_name) || (org_id && !out->org_id) || (user && !out->user)) {
		catalyst_identity_finish(out);
		return err_oom(e);
	}
	return 0;
}

void catalyst_identity_finish(struct catalyst_identity *id)
{
	if (!id)
		return;
	free(id->org_name);
	free(id->org_id);
	free(id->user);
	memset(id, 0, sizeof *id);
}

/* A project object's name and uid ("165" or "prj-165" as the server gives
 * it; an id counts as the uid only when it reads as one). */
static int project_fields(const json_t *p, struct catalyst_project *out, struct err *e)
{
	static const char *const k_name[] = {"name", "projectname", NULL};
	static const char *const k_uid[] = {"uid", "projectuid", "numericid", NULL};
	static const char *const k_id[] = {"id", "projectid", NULL};
	char num[2][32];
	const char *name = catalyst_find_string(p, k_name, 0, NULL);
	const char *uid = catalyst_find_string(p, k_uid, 0, num[0]);
	if (!uid) {
		const char *id = catalyst_find_string(p, k_id, 0, num[1]);
		if (id && project_is_uid(id))
			uid = id;
	}
	out->name = dup_or_null(name);
	out->uid = dup_or_null(uid);
	if ((name && !out->name) || (uid && !out->uid)) {
		catalyst_project_finish(out);
		return err_oom(e);
	}
	return 0;
}

int catalyst_list_projects(struct catalyst *c, struct catalyst_projects *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	json_t *doc = NULL, *meta = NULL;
	if (catalyst_call(c, "catalyst_list_projects", NULL, &doc, &meta, NULL, e) < 0)
		return -1;
	out->sharing = catalyst_answer_sharing(doc, meta, out->sharing_key, sizeof out->sharing_key);
	const json_t *arr = catalyst_find_list(doc, 2);
	int rc = 0;
	if (json_array_size(arr) && !(out->items = calloc(json_array_size(arr), sizeof *out->items))) {
		rc = -1;
		err_oom(e);
	}
	size_t i;
	const json_t *p;
	if (rc == 0)
		json_array_foreach(arr, i, p) {
			if ((rc = project_fields(p, &out->items[i], e)) < 0)
				break;
			out->n++;
		}
	json_decref(doc);
	json_decref(meta);
	if (rc < 0)
		catalyst_projects_finish(out);
	return rc;
}

void catalyst_projects_finish(struct catalyst_projects *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		catalyst_project_finish(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof *l);
}

int catalyst_get_project(struct catalyst *c, const char *project, struct catalyst_project *out, struct err *e)
{
	memset(out, 0, sizeof *out);
	const char *vals[CATALYST_ARG_COUNT] = {[CATALYST_ARG_PROJECT] = project};
	json_t *doc = NULL;
	if (catalyst_invoke(c, "catalyst_get_project", vals, CATALYST_BIT(CATALYST_ARG_PROJECT), NULL, &doc, NULL,
			    NULL, e) < 0)
		return -1;
	const json_t *p = json_object_get(doc, "project");
	int rc = project_fields(json_is_object(p) ? p : doc, out, e);
	json_decref(doc);
	return rc;
}

void catalyst_project_finish(struct catalyst_project *p)
{
	if (!p)
		return;
	free(p->name);
	free(p->uid);
	memset(p, 0, sizeof *p);
}
