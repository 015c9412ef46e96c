#include "project.h"

#include <stdio.h>
#include <string.h>

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

bool project_is_uid(const char *s)
{
	if (!s)
		return false;
	if (strncmp(s, "prj-", 4) == 0)
		s += 4;
	return all_digits(s);
}

bool project_same_uid(const char *a, const char *b)
{
	if (!a || !b)
		return false;
	if (strncmp(a, "prj-", 4) == 0)
		a += 4;
	if (strncmp(b, "prj-", 4) == 0)
		b += 4;
	return strcmp(a, b) == 0;
}

int project_ref_from_options(const char *name, const char *uid, struct project_ref *out, struct err *e)
{
	*out = (struct project_ref){PROJECT_NONE, NULL, false, false};
	if (name && uid)
		return err_set(e, ERR_USAGE, "give --project NAME or --project-id UID, not both");
	if (uid) {
		if (!project_is_uid(uid))
			return err_set(e, ERR_USAGE,
				       "--project-id: expected a numeric project uid (165 or prj-165), got '%s'",
				       uid);
		*out = (struct project_ref){PROJECT_UID, uid, false, true};
		return 0;
	}
	if (!name) {
		*out = PROJECT_REF_DEFAULT;
		return 0;
	}
	if (!*name)
		return err_set(e, ERR_USAGE, "--project: the project name is empty");
	out->value = name;
	if (strncmp(name, "prj-", 4) == 0 && all_digits(name + 4))
		out->form = PROJECT_UID;
	else if (all_digits(name))
		out->form = PROJECT_NONE;
	else
		out->form = PROJECT_NAME;
	return 0;
}

bool project_ref_unresolved(const struct project_ref *p)
{
	return p->form == PROJECT_NONE && p->value;
}

void project_ref_flag(const struct project_ref *p, char *out, size_t size)
{
	if (p->defaulted || !p->value)
		snprintf(out, size, "%s", "");
	else
		snprintf(out, size, "%s %s ", p->as_uid ? "--project-id" : "--project", p->value);
}

const char *project_ref_note(const struct project_ref *p)
{
	if (project_ref_unresolved(p))
		return "the console link carries no project: the --project value is a bare number, "
		       "which could be a project name or a uid, and no server resolved it "
		       "(use --project-id for a uid)";
	return NULL;
}
