/* `catalyst-audit whoami`: the signed-in identity, the organization's
 * projects and, where an answer names it, the data-sharing level. */

#include <stdio.h>
#include <string.h>

#include "audit_catalyst.h"
#include "render_info.h"

int audit_whoami(const struct audit_request *rq, struct err *e)
{
	struct audit_ctx x;
	audit_ctx_init(&x, rq, NULL);
	int rc = -1;
	struct catalyst_identity id;
	memset(&id, 0, sizeof id);
	struct catalyst_projects projects;
	memset(&projects, 0, sizeof projects);
	if (audit_ctx_connect(&x, e) < 0)
		goto out;
	if (!catalyst_has_tool(x.c, "catalyst_whoami")) {
		err_set(e, ERR_PROTOCOL, "the server offers no catalyst_whoami tool");
		goto out;
	}
	if (catalyst_whoami(x.c, &id, NULL, e) < 0)
		goto out;
	audit_sharing_from_field(&x, id.sharing, id.sharing_key, "catalyst_whoami");
	char projects_error[600] = "";
	if (catalyst_has_tool(x.c, "catalyst_list_projects")) {
		struct err pe;
		err_clear(&pe);
		if (catalyst_list_projects(x.c, &projects, &pe) == 0) {
			audit_sharing_from_field(&x, projects.sharing, projects.sharing_key,
						 "catalyst_list_projects");
		} else if (pe.code == ERR_AUTH) {
			*e = pe;
			goto out;
		} else {
			snprintf(projects_error, sizeof projects_error, "%s", pe.msg);
		}
	}
	struct whoami_info w = {
		.org_name = id.org_name,
		.org_id = id.org_id,
		.user = id.user,
		.projects = projects.items,
		.n_projects = projects.n,
		.projects_error = *projects_error ? projects_error : NULL,
		.sharing_level = data_sharing_level_name(x.sharing),
		.sharing_source = x.rank == RANK_NONE ? "no answer names it; an audit infers it from the payload "
							"keys it sees, or pass --data-sharing"
						      : x.sharing_source,
	};
	struct file_out fo;
	FILE *out = audit_open_output(rq, &fo, e);
	if (!out)
		goto out;
	rc = audit_close_plain(&fo, render_whoami(out, rq->format, &w, e), e);
out:
	catalyst_identity_finish(&id);
	catalyst_projects_finish(&projects);
	audit_ctx_finish(&x);
	return rc;
}
