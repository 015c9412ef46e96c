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
	FILE *out = stdout;
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
	if (!(out = audit_open_output(rq, e))) {
		out = stdout;
		goto out;
	}
	/* Without --format this lists for a person, even into a pipe; the CLI
	 * refuses a format tools does not write. */
	bool json = rq->format == FORMAT_JSON;
	struct tools_info info = {
		.server_info = mcp_server_info_get(session_mcp(s)),
		.protocol_version = mcp_protocol_version(session_mcp(s)),
		.tools = tools,
	};
	if (render_tools(out, json ? FORMAT_JSON : FORMAT_TEXT, &info, e) < 0)
		goto out;
	if (fflush(out) != 0) {
		err_set(e, ERR_USAGE, "cannot write the tool list: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rc < 0 && rq->progress)
		rq->progress("", rq->msg_ctx);
	if (out != stdout)
		fclose(out);
	json_decref(tools);
	session_close(s);
	return rc;
}
