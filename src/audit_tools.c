/* `catalyst-audit tools`: connect to any MCP server, list every tool and
 * its input schema. The quickest way to see what a server offers, and what
 * argument names the Catalyst tool layer will have to bind to. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "audit.h"
#include "audit_catalyst.h"
#include "render_info.h"

int audit_tools(const struct audit_request *rq, struct err *e)
{
	int rc = -1;
	json_t *tools = NULL;
	if (rq->progress)
		rq->progress("connecting", rq->msg_ctx);
	struct session *s = audit_session_open(rq, SESSION_MCP, e);
	if (!s)
		goto out;
	if (rq->progress)
		rq->progress("listing tools", rq->msg_ctx);
	tools = mcp_list_tools(session_mcp(s), e);
	if (rq->progress)
		rq->progress("", rq->msg_ctx);
	if (!tools)
		goto out;
	struct file_out fo;
	FILE *out = audit_open_output(rq, &fo, e);
	if (!out)
		goto out;
	/* Without --format this lists for a person, even into a pipe; the CLI
	 * refuses a format tools does not write. */
	struct tools_info info = {
		.server_info = mcp_server_info_get(session_mcp(s)),
		.protocol_version = mcp_protocol_version(session_mcp(s)),
		.tools = tools,
	};
	rc = audit_close_plain(&fo, render_tools(out, rq->format, &info, e), e);
out:
	if (rc < 0 && rq->progress)
		rq->progress("", rq->msg_ctx);
	json_decref(tools);
	session_close(s);
	return rc;
}
