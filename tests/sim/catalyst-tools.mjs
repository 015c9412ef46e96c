// The simulated Catalyst tool surface: 40 tool names, input schemas in two
// spelling profiles, answers in two envelope shapes, refusals in three wire
// envelopes.  Pure functions of (config, world, call); the transport lives
// in catalyst-sim.mjs.

import { appendFileSync } from 'node:fs';
import { findProject, lastTimestamp, statusOf, STATUSES } from './catalyst-data.mjs';

export const PAYLOAD_KEYS = new Set(['input', 'output', 'result', 'customStatus', 'custom_status']);

// The tools this product may call (catalyst-mcp.md).  Every other tool is
// either a mutation (recorded as a write) or a read outside the allow-list.
export const ALLOWED = new Set([
	'catalyst_whoami', 'catalyst_list_projects', 'catalyst_get_project', 'catalyst_list_workflows',
	'catalyst_get_workflow', 'catalyst_list_workflow_runs', 'catalyst_get_workflow_run',
	'catalyst_export_workflow_run', 'catalyst_list_apps',
]);

export const REFUSAL_KINDS = {
	NOT_AUTHENTICATED: { family: 'connection', message: 'No valid Diagrid credentials were presented with this request.',
		cause: 'The access token is missing, expired or was issued for another resource.',
		instruction: 'Sign in again and retry the request.' },
	NO_ORG: { family: 'connection', message: 'The signed-in user does not belong to any organization.',
		cause: 'No organization membership was found for this identity.',
		instruction: 'Ask an organization administrator to invite you, then sign in again.' },
	ORG_MISMATCH: { family: 'connection', message: 'The token was issued for a different organization than the one requested.',
		cause: 'The organization selected at sign-in does not own this project.',
		instruction: 'Sign in again and choose the organization that owns the project.' },
	ORG_UNAVAILABLE: { family: 'connection', message: "The organization's Catalyst control plane is temporarily unavailable.",
		cause: 'The regional control plane did not answer in time.',
		instruction: 'Wait a moment and retry.' },
	CATALYST_NOT_ENABLED: { family: 'connection', message: 'Catalyst is not enabled for this organization.',
		cause: 'The organization has no Catalyst subscription.',
		instruction: 'Ask an organization administrator to enable Catalyst.' },
	denied: { family: 'data-sharing', message: "The response was withheld by the organization's data-sharing policy.",
		cause: 'The data-sharing policy denies this resource at the current level.',
		instruction: 'Ask an organization administrator which data the policy shares.' },
	'no-policy': { family: 'data-sharing', message: 'No data-sharing policy covers this resource type.',
		cause: 'The platform has no policy for this response type yet.',
		instruction: 'Use the Catalyst console to inspect this resource.' },
	unfilterable: { family: 'data-sharing', message: 'The response exceeded the size limit and could not be filtered.',
		cause: 'The answer was truncated at the size limit before the data-sharing filter could run.',
		instruction: 'Ask for fewer items per page.' },
	DATA_SHARING_RESTRICTED: { family: 'data-sharing',
		message: "Workflow payloads and logs are not shared at this organization's data-sharing level (metadata).",
		cause: "The organization's data-sharing level is metadata.",
		instruction: 'An organization administrator can change the data-sharing level in the Catalyst console.' },
};

export function refusalObject(kind, { retryable = false, minimal = false, message } = {}) {
	const k = REFUSAL_KINDS[kind];
	const o = { kind, message: message ?? k.message };
	if (!minimal) {
		o.cause = k.cause;
		o.instruction = k.instruction;
	}
	o.retryable = retryable;
	return { error: o };
}

// A refusal in one of the three wire envelopes.  `rpc` throws: the SDK turns
// an error with numeric `code` and `data` into a JSON-RPC error response.
export function refusalResult(kind, envelope, opts = {}) {
	const body = refusalObject(kind, opts);
	switch (envelope) {
	case 'rpc': {
		const err = new Error(`${kind}: ${body.error.message}`);
		err.code = -32000;
		err.data = body;
		throw err;
	}
	case 'structured':
		return { isError: true, structuredContent: body, content: [{ type: 'text', text: body.error.message }] };
	case 'iserror':
	default:
		return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
	}
}

function invalidParams(message) {
	const err = new Error(message);
	err.code = -32602;
	return err;
}

function plainError(kind, message) {
	return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { kind, message, retryable: false } }) }] };
}

export function stripPayloads(x) {
	if (Array.isArray(x))
		return x.map(stripPayloads);
	if (x && typeof x === 'object') {
		const o = {};
		for (const [k, v] of Object.entries(x))
			if (!PAYLOAD_KEYS.has(k))
				o[k] = stripPayloads(v);
		return o;
	}
	return x;
}

// --- schemas ---------------------------------------------------------------

const STR = 'string', INT = 'integer', BOOL = 'boolean', OBJ = 'object', ARR = 'array';

const DESC = {
	project: 'Project name (e.g. "default") or numeric project id. There is no current project.',
	app: 'Catalyst App ID.',
	run: 'Workflow instance (run) id.',
	runFilter: 'Only the run with this instance id (child runs included).',
	status: 'Filter by runtime status: running, completed, failed, terminated, suspended, canceled.',
	workflow: 'Filter by workflow name.',
	from: 'Only runs created at or after this RFC 3339 time.',
	to: 'Only runs created before this RFC 3339 time.',
	endFrom: 'Only runs that finished at or after this RFC 3339 time.',
	pageSize: 'Maximum number of runs per page.',
	cursor: 'Opaque cursor from a previous page.',
};

// Logical parameter -> [spelling, type] per profile.  Profile a is camelCase;
// profile b mixes PascalCase and snake_case and renames a few, as the real
// server's tools reportedly do.
const TOOLS = [
	['catalyst_whoami', 'read', 'Show the signed-in user and organization.',
		{ a: {}, b: {} }, []],
	['catalyst_list_projects', 'read', 'List the projects of the organization.',
		{ a: { pageSize: ['pageSize', INT] }, b: { limit: ['limit', INT] } }, []],
	['catalyst_get_project', 'read', 'Get one project.',
		{ a: { project: ['projectId', STR] }, b: { project: ['project', STR] } }, ['project']],
	['catalyst_create_project', 'write', 'Create a project.',
		{ a: { name: ['name', STR], region: ['region', STR] }, b: { name: ['project_name', STR], region: ['Region', STR] } }, ['name']],
	['catalyst_delete_project', 'write', 'Delete a project and everything in it.',
		{ a: { project: ['projectId', STR] }, b: { project: ['ProjectId', STR] } }, ['project']],
	['catalyst_list_apps', 'read', 'List the App IDs of a project.',
		{ a: { project: ['projectId', STR] }, b: { project: ['project_id', STR] } }, ['project']],
	['catalyst_get_app', 'read', 'Get one App ID.',
		{ a: { project: ['projectId', STR], app: ['appId', STR] }, b: { project: ['ProjectId', STR], app: ['app_id', STR] } }, ['project', 'app']],
	['catalyst_create_app', 'write', 'Create an App ID.',
		{ a: { project: ['projectId', STR], app: ['appId', STR] }, b: { project: ['ProjectId', STR], app: ['app_id', STR] } }, ['project', 'app']],
	['catalyst_delete_app', 'write', 'Delete an App ID.',
		{ a: { project: ['projectId', STR], app: ['appId', STR] }, b: { project: ['ProjectId', STR], app: ['app_id', STR] } }, ['project', 'app']],
	['catalyst_list_workflows', 'read', 'List workflow definitions seen in a project.',
		{ a: { project: ['projectId', STR], app: ['appId', STR] }, b: { project: ['ProjectId', STR], app: ['appID', STR] } }, ['project']],
	['catalyst_get_workflow', 'read', 'Get one workflow definition with run counts.',
		{ a: { project: ['projectId', STR], app: ['appId', STR], workflow: ['workflowName', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], workflow: ['name', STR] } }, ['project', 'app', 'workflow']],
	['catalyst_list_workflow_runs', 'read', 'List workflow runs across every app of a project, newest first.',
		{ a: { project: ['projectId', STR], app: ['appId', STR], status: ['status', STR], workflow: ['workflowName', STR],
		       from: ['startTimeFrom', STR], to: ['startTimeTo', STR], pageSize: ['pageSize', INT], cursor: ['cursor', STR],
		       run: ['instanceId', STR], endFrom: ['endTimeFrom', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], status: ['runtime_status', STR], workflow: ['workflow_name', STR],
		       from: ['created_after', STR], to: ['created_before', STR], pageSize: ['limit', INT], cursor: ['page_token', STR] } },
		['project']],
	['catalyst_get_workflow_run', 'read', 'Get a workflow run with its execution history.',
		{ a: { project: ['projectId', STR], app: ['appId', STR], run: ['instanceId', STR], includeData: ['includeData', BOOL] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], run: ['runId', STR] } }, ['project', 'app', 'run']],
	['catalyst_export_workflow_run', 'read', 'Export a workflow run with payloads (full data sharing only).',
		{ a: { project: ['projectId', STR], app: ['appId', STR], run: ['instanceId', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], run: ['run_id', STR] } }, ['project', 'app', 'run']],
	['catalyst_get_workflow_run_logs', 'read', 'Get the sidecar and app logs of a workflow run (full data sharing only).',
		{ a: { project: ['projectId', STR], app: ['appId', STR], run: ['instanceId', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], run: ['runId', STR] } }, ['project', 'app', 'run']],
	['catalyst_start_workflow', 'write', 'Start a new workflow run.',
		{ a: { project: ['projectId', STR], app: ['appId', STR], workflow: ['workflowName', STR], run: ['instanceId', STR], input: ['input', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], workflow: ['workflow_name', STR], run: ['runId', STR], input: ['input', STR] } },
		['project', 'app', 'workflow']],
	['catalyst_terminate_workflow_run', 'write', 'Terminate a running workflow run.', 'runRef', ['project', 'app', 'run']],
	['catalyst_purge_workflow_runs', 'write', 'Purge finished workflow runs and their history.',
		{ a: { project: ['projectId', STR], app: ['appId', STR], status: ['status', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], status: ['runtime_status', STR] } }, ['project', 'app']],
	['catalyst_rerun_workflow_run', 'write', 'Rerun a workflow run from an event.', 'runRef', ['project', 'app', 'run']],
	['catalyst_pause_workflow_run', 'write', 'Suspend a running workflow run.', 'runRef', ['project', 'app', 'run']],
	['catalyst_resume_workflow_run', 'write', 'Resume a suspended workflow run.', 'runRef', ['project', 'app', 'run']],
	['catalyst_raise_workflow_event', 'write', 'Raise an external event on a workflow run.',
		{ a: { project: ['projectId', STR], app: ['appId', STR], run: ['instanceId', STR], event: ['eventName', STR], data: ['eventData', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], run: ['runId', STR], event: ['event_name', STR], data: ['event_data', STR] } },
		['project', 'app', 'run', 'event']],
	['catalyst_apply', 'write', 'Apply Catalyst resources from YAML.',
		{ a: { project: ['projectId', STR], manifest: ['manifest', STR] }, b: { project: ['ProjectId', STR], manifest: ['yaml', STR] } }, ['manifest']],
	['catalyst_list_components', 'read', 'List the components of a project.', 'projectOnly', ['project']],
	['catalyst_get_component', 'read', 'Get one component.',
		{ a: { project: ['projectId', STR], name: ['componentName', STR] }, b: { project: ['ProjectId', STR], name: ['component_name', STR] } }, ['project', 'name']],
	['catalyst_create_component', 'write', 'Create a component.',
		{ a: { project: ['projectId', STR], spec: ['spec', OBJ] }, b: { project: ['ProjectId', STR], spec: ['spec', OBJ] } }, ['project', 'spec']],
	['catalyst_delete_component', 'write', 'Delete a component.',
		{ a: { project: ['projectId', STR], name: ['componentName', STR] }, b: { project: ['ProjectId', STR], name: ['component_name', STR] } }, ['project', 'name']],
	['catalyst_list_subscriptions', 'read', 'List pub/sub subscriptions.', 'projectOnly', ['project']],
	['catalyst_list_resiliency_policies', 'read', 'List resiliency policies.', 'projectOnly', ['project']],
	['catalyst_list_agents', 'read', 'List Dapr agents.', 'projectOnly', ['project']],
	['catalyst_get_agent', 'read', 'Get one agent.',
		{ a: { project: ['projectId', STR], app: ['appId', STR], agent: ['agentId', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], agent: ['agent_id', STR] } }, ['project', 'app', 'agent']],
	['catalyst_list_mcp_servers', 'read', 'List MCP servers registered in a project.', 'projectOnly', ['project']],
	['catalyst_get_app_metrics', 'read', 'Get request and error metrics of an App ID.',
		{ a: { project: ['projectId', STR], app: ['appId', STR], window: ['window', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], window: ['time_window', STR] } }, ['project', 'app']],
	['catalyst_list_organization_members', 'read', 'List the members of the organization.', { a: {}, b: {} }, []],
	['catalyst_list_regions', 'read', 'List the regions Catalyst runs in.', { a: {}, b: {} }, []],
	['catalyst_rotate_app_token', 'write', 'Rotate the API token of an App ID.',
		{ a: { project: ['projectId', STR], app: ['appId', STR] }, b: { project: ['ProjectId', STR], app: ['app_id', STR] } }, ['project', 'app']],
	['catalyst_publish_event', 'write', 'Publish a message to a pub/sub topic.',
		{ a: { project: ['projectId', STR], pubsub: ['pubsubName', STR], topic: ['topic', STR], data: ['data', STR] },
		  b: { project: ['ProjectId', STR], pubsub: ['pubsub_name', STR], topic: ['topic', STR], data: ['data', STR] } }, ['project', 'pubsub', 'topic']],
	['catalyst_invoke_service', 'write', 'Invoke a method on an App ID.',
		{ a: { project: ['projectId', STR], app: ['appId', STR], method: ['method', STR], data: ['data', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], method: ['method_name', STR], data: ['data', STR] } }, ['project', 'app', 'method']],
	['catalyst_save_state', 'write', 'Save a key in a state store.',
		{ a: { project: ['projectId', STR], store: ['storeName', STR], key: ['key', STR], value: ['value', STR] },
		  b: { project: ['ProjectId', STR], store: ['store_name', STR], key: ['key', STR], value: ['value', STR] } }, ['project', 'store', 'key']],
	['catalyst_delete_state', 'write', 'Delete a key from a state store.',
		{ a: { project: ['projectId', STR], store: ['storeName', STR], key: ['key', STR] },
		  b: { project: ['ProjectId', STR], store: ['store_name', STR], key: ['key', STR] } }, ['project', 'store', 'key']],
];

const SHORTHAND = {
	runRef: { a: { project: ['projectId', STR], app: ['appId', STR], run: ['instanceId', STR] },
		  b: { project: ['ProjectId', STR], app: ['app_id', STR], run: ['runId', STR] } },
	projectOnly: { a: { project: ['projectId', STR] }, b: { project: ['ProjectId', STR] } },
};

export const TOOL_DEFS = TOOLS.map(([name, cls, description, params, required]) => ({
	name, cls, description, params: typeof params === 'string' ? SHORTHAND[params] : params, required,
}));

export function toolList(profile) {
	return TOOL_DEFS.map((t) => {
		const props = {};
		for (const [logical, [spelled, type]] of Object.entries(t.params[profile])) {
			const p = { type };
			if (DESC[logical])
				p.description = t.name === 'catalyst_list_workflow_runs' && logical === 'run' ? DESC.runFilter : DESC[logical];
			if (logical === 'status' && profile === 'a')
				p.enum = STATUSES;
			if (type === ARR)
				p.items = { type: STR };
			props[spelled] = p;
		}
		const required = t.required.filter((l) => t.params[profile][l]).map((l) => t.params[profile][l][0]);
		return {
			name: t.name,
			description: t.description,
			inputSchema: { type: 'object', properties: props, required, additionalProperties: false },
			annotations: { readOnlyHint: t.cls === 'read', destructiveHint: t.cls === 'write' },
		};
	});
}

// Check the arguments against the profile's schema and rename them to
// logical names.  Unknown or missing arguments are JSON-RPC invalid params,
// so a client that guessed a spelling fails loudly.
function bindArgs(tool, profile, args) {
	const spec = tool.params[profile];
	const bySpelling = new Map(Object.entries(spec).map(([l, [s, type]]) => [s, [l, type]]));
	const out = {};
	for (const [k, v] of Object.entries(args ?? {})) {
		const hit = bySpelling.get(k);
		if (!hit)
			throw invalidParams(`Invalid arguments for tool ${tool.name}: unknown property '${k}'`);
		const [logical, type] = hit;
		const ok = type === INT ? Number.isInteger(v) : type === ARR ? Array.isArray(v)
			: type === OBJ ? (v && typeof v === 'object' && !Array.isArray(v)) : typeof v === type;
		if (!ok)
			throw invalidParams(`Invalid arguments for tool ${tool.name}: '${k}' must be of type ${type}`);
		out[logical] = v;
	}
	for (const l of tool.required) {
		if (spec[l] && out[l] === undefined)
			throw invalidParams(`Invalid arguments for tool ${tool.name}: missing required property '${spec[l][0]}'`);
	}
	return out;
}

// --- answers ---------------------------------------------------------------

const up = (s) => s.toUpperCase();

function runRow(r, profile) {
	if (profile === 'a')
		return { instanceId: r.instanceId, appId: r.appId, workflowName: r.workflowName, status: up(r.status),
			 createdAt: r.createdAt, lastUpdatedAt: r.lastUpdatedAt,
			 ...(r.completedAt && { completedAt: r.completedAt }),
			 ...(r.parentInstanceId && { parentInstanceId: r.parentInstanceId }),
			 input: r.input, output: r.output, customStatus: r.customStatus };
	return { run_id: r.instanceId, app_id: r.appId, workflow_name: r.workflowName, runtime_status: r.status,
		 created_at: r.createdAt, last_updated_at: r.lastUpdatedAt,
		 ...(r.completedAt && { completed_at: r.completedAt }),
		 ...(r.parentInstanceId && { parent_instance_id: r.parentInstanceId }),
		 input: r.input, output: r.output, custom_status: r.customStatus };
}

function runDetail(r, project, profile) {
	if (profile === 'a')
		return { instanceId: r.instanceId, appId: r.appId, workflowName: r.workflowName, status: r.status,
			 createdAt: r.createdAt, lastUpdatedAt: r.lastUpdatedAt,
			 ...(r.completedAt && { completedAt: r.completedAt }),
			 ...(r.parentInstanceId && { parentInstanceId: r.parentInstanceId }),
			 project: { name: project.name, uid: project.uid },
			 input: r.input, output: r.output, customStatus: r.customStatus };
	return { run_id: r.instanceId, app_id: r.appId, workflow_name: r.workflowName, runtime_status: up(r.status),
		 created_at: r.createdAt, last_updated_at: r.lastUpdatedAt,
		 ...(r.completedAt && { completed_at: r.completedAt }),
		 ...(r.parentInstanceId && { parent_run_id: r.parentInstanceId }),
		 project: project.name,
		 input: r.input, output: r.output, custom_status: r.customStatus };
}

// The execution graph of profile b: one node per workflow turn (a turn
// starts at each WorkflowStarted), events in history order across nodes.
function graphOf(events) {
	const nodes = [];
	for (const e of events) {
		if (e.event_type === 'WorkflowStarted' || nodes.length === 0)
			nodes.push({ id: `turn-${nodes.length}`, kind: 'turn', events: [] });
		nodes[nodes.length - 1].events.push(e);
	}
	const edges = nodes.slice(1).map((n, i) => ({ from: nodes[i].id, to: n.id }));
	return { nodes, edges };
}

function historyBody(events, mode) {
	const o = {};
	if (mode === 'flat' || mode === 'both')
		o.history = events;
	if (mode === 'graph' || mode === 'both')
		o.graph = graphOf(events);
	return o;
}

function encodeCursor(o) {
	return Buffer.from(JSON.stringify(o)).toString('base64url');
}

function decodeCursor(s) {
	try {
		const o = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
		return o && typeof o === 'object' ? o : null;
	} catch {
		return null;
	}
}

function parseTime(tool, v) {
	const t = Date.parse(v);
	if (Number.isNaN(t))
		throw invalidParams(`Invalid arguments for tool ${tool}: '${v}' is not an RFC 3339 time`);
	return t;
}

export class Catalyst {
	constructor(cfg, world) {
		this.cfg = cfg;
		this.world = world;
		this.tools = new Map(TOOL_DEFS.map((t) => [t.name, t]));
		this.stats = { calls: 0, writes: 0, refusals: 0, byTool: {} };
		for (const r of cfg.refuse)
			r.used = 0;
	}

	level() {
		return this.cfg.dataSharing;
	}

	record(file, obj) {
		if (file)
			appendFileSync(file, JSON.stringify(obj) + '\n');
	}

	// One tools/call.  `forced` is a tool-layer fault chosen by the HTTP
	// layer (only 'unfilterable').
	async call(name, args, ctx = {}) {
		const cfg = this.cfg;
		const tool = this.tools.get(name);
		const seq = ++this.stats.calls;
		this.stats.byTool[name] = (this.stats.byTool[name] ?? 0) + 1;
		const entry = { seq, at: new Date().toISOString(), tool: name, class: tool ? tool.cls : 'unknown',
				allowed: ALLOWED.has(name), arguments: args ?? {}, session: ctx.sessionId ?? null };
		this.record(cfg.recordCalls, entry);
		if (!tool) {
			const err = new Error(`Tool ${name} not found`);
			err.code = -32602;
			throw err;
		}
		if (tool.cls === 'write') {
			this.stats.writes++;
			this.record(cfg.recordWrites, entry);
			process.stderr.write(`catalyst-sim: WRITE TOOL CALLED: ${name} (call ${seq})\n`);
			return this.envelope({ accepted: true, tool: name }, {});
		}
		if (cfg.latencyMs > 0)
			await new Promise((res) => setTimeout(res, cfg.latencyMs));
		if (ctx.forced === 'unfilterable') {
			this.stats.refusals++;
			return refusalResult('unfilterable', cfg.autoEnvelope, { retryable: false });
		}
		for (const rule of cfg.refuse) {
			if (rule.tool && rule.tool !== '*' && rule.tool !== name)
				continue;
			if (rule.first !== undefined && rule.used >= rule.first)
				continue;
			if (rule.match !== undefined && !JSON.stringify(args ?? {}).includes(rule.match))
				continue;
			rule.used++;
			this.stats.refusals++;
			return refusalResult(rule.kind, rule.envelope, { retryable: rule.retryable, minimal: rule.minimal });
		}
		let answer;
		this.session = ctx.sessionId ?? null; /* a --live run's clock is per session */
		try {
			answer = this.answer(tool, bindArgs(tool, cfg.profile, args));
		} catch (err) {
			// Newer MCP revisions report invalid arguments as a tool
			// execution error rather than a protocol error.
			if (err.code === -32602 && cfg.argErrors === 'iserror')
				return { isError: true, content: [{ type: 'text', text: err.message }] };
			throw err;
		}
		if (answer.isError !== undefined || answer.content)
			return answer;
		return this.envelope(answer.data, answer.meta ?? {});
	}

	envelope(data, meta) {
		const cfg = this.cfg;
		const body = cfg.dataSharing === 'metadata' ? stripPayloads(data) : data;
		const text = JSON.stringify(body);
		const mode = cfg.resultEnvelope ?? (cfg.profile === 'a' ? 'both' : 'text');
		const res = {};
		if (mode === 'both' || mode === 'text')
			res.content = [{ type: 'text', text }];
		else
			res.content = [{ type: 'text', text: 'Result in structuredContent.' }];
		if (mode === 'both' || mode === 'structured')
			res.structuredContent = body;
		if (cfg.metaNamesLevel)
			res._meta = { 'diagrid.io/dataSharingLevel': cfg.dataSharing, ...meta };
		return res;
	}

	// Something asked for that does not exist, in the envelope --not-found
	// picks (how Catalyst says it is not documented).
	notFound(message) {
		switch (this.cfg.notFound) {
		case 'rpc': {
			const err = new Error(message);
			err.code = -32002;
			throw err;
		}
		case 'structured': {
			const body = { error: { kind: 'NOT_FOUND', message, retryable: false } };
			return { isError: true, structuredContent: body, content: [{ type: 'text', text: message }] };
		}
		case 'text':
			return { isError: true, content: [{ type: 'text', text: message }] };
		default:
			return plainError('NOT_FOUND', message);
		}
	}

	project(v) {
		let p = findProject(this.world, v);
		// --lenient-project: a server that reads a value it does not know
		// as some project anyway (here `default`) and answers about that
		// one, its own uid in the answer (issue 28).
		if (!p && this.cfg.lenientProject)
			p = findProject(this.world, 'default');
		if (!p)
			return [null, this.notFound(`project '${v}' not found`)];
		return [p, null];
	}

	needStore(p) {
		if (p.workflowStore)
			return null;
		return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: {
			kind: 'WORKFLOW_STORE_NOT_CONFIGURED',
			message: `Project '${p.name}' has no managed workflow state store; workflow APIs are unavailable.`,
			retryable: false } }) }] };
	}

	findRun(p, app, id) {
		return this.liveView(p.runs.find((r) => r.appId === app && r.instanceId === id) || null);
	}

	// A --live run as it stands now: the events shown so far (in history
	// order, whatever order they were shown in), its status from them;
	// null once it is purged. Its clock starts the first time a session
	// asks for it, so every client that follows it sees it from the start.
	liveView(r) {
		if (!r || !r.live)
			return r;
		const L = r.live;
		const now = Date.now();
		L.t0 ??= new Map();
		const key = this.session ?? '';
		if (!L.t0.has(key))
			L.t0.set(key, now);
		const shown = Math.min(L.all.length, L.first + Math.floor((now - L.t0.get(key)) / L.stepMs));
		if (L.purgeAt !== undefined && shown >= L.purgeAt)
			return null;
		const idx = L.order.slice(0, shown).sort((x, y) => x - y);
		const view = { ...r, events: idx.map((i) => L.all[i]), full: idx.map((i) => L.allFull[i]) };
		view.status = statusOf(view.events);
		view.lastUpdatedAt = lastTimestamp(view.events);
		if (view.status === 'running' || view.status === 'suspended')
			delete view.completedAt;
		else
			view.completedAt = view.lastUpdatedAt;
		return view;
	}

	events(r) {
		return this.cfg.dataSharing === 'full' ? r.full : r.events;
	}

	answer(tool, a) {
		const cfg = this.cfg;
		const prof = cfg.profile;
		const w = this.world;
		switch (tool.name) {
		case 'catalyst_whoami': {
			if (prof === 'a')
				return { data: { user: w.user, organization: { id: w.org.id, name: w.org.name },
						 ...(cfg.whoamiNamesLevel && { dataSharingLevel: cfg.dataSharing }) } };
			return { data: { identity: { subject: w.user.id, email: w.user.email }, org_id: w.org.id, org_name: w.org.name,
					 ...(cfg.whoamiNamesLevel && { data_sharing_level: cfg.dataSharing }) } };
		}
		case 'catalyst_list_projects': {
			if (prof === 'a')
				return { data: { projects: w.projects.map((p) => ({ name: p.name, uid: p.uid, displayName: p.displayName, region: p.region })) } };
			return { data: { items: w.projects.map((p) => ({ id: `prj-${p.uid}`, name: p.name, display_name: p.displayName, region: p.region })) } };
		}
		case 'catalyst_get_project': {
			const [p, err] = this.project(a.project);
			if (err)
				return err;
			if (prof === 'a')
				return { data: { project: { name: p.name, uid: p.uid, displayName: p.displayName, region: p.region,
							    appCount: p.apps.length, managedWorkflowStore: p.workflowStore } } };
			return { data: { id: `prj-${p.uid}`, name: p.name, display_name: p.displayName, region: p.region,
					 app_count: p.apps.length } };
		}
		case 'catalyst_list_apps': {
			const [p, err] = this.project(a.project);
			if (err)
				return err;
			if (prof === 'a')
				return { data: { apps: p.apps.map((id) => ({ appId: id, status: 'connected' })) } };
			return { data: { items: p.apps.map((id) => ({ app_id: id, kind: 'workflow' })) } };
		}
		case 'catalyst_list_workflows':
		case 'catalyst_get_workflow': {
			const [p, err] = this.project(a.project);
			if (err)
				return err;
			const noStore = this.needStore(p);
			if (noStore)
				return noStore;
			const wfs = new Map();
			for (const r of p.runs) {
				if (a.app && r.appId !== a.app)
					continue;
				const key = r.appId + '\0' + r.workflowName;
				if (!wfs.has(key))
					wfs.set(key, { name: r.workflowName, appId: r.appId, runCount: 0, statusCounts: {} });
				const x = wfs.get(key);
				x.runCount++;
				x.statusCounts[r.status] = (x.statusCounts[r.status] ?? 0) + 1;
			}
			const list = [...wfs.values()].sort((x, y) => (x.appId + x.name < y.appId + y.name ? -1 : 1));
			const shape = (x) => (prof === 'a' ? x
				: { workflow_name: x.name, app_id: x.appId, run_count: x.runCount, runs_by_status: x.statusCounts });
			if (tool.name === 'catalyst_list_workflows')
				return { data: prof === 'a' ? { workflows: list.map(shape) } : { items: list.map(shape) } };
			const one = list.find((x) => x.name === a.workflow);
			if (!one)
				return this.notFound(`workflow '${a.workflow}' not found in app '${a.app}'`);
			return { data: prof === 'a' ? { workflow: shape(one) } : shape(one) };
		}
		case 'catalyst_list_workflow_runs':
			return this.listRuns(tool, a);
		case 'catalyst_get_workflow_run':
		case 'catalyst_export_workflow_run':
		case 'catalyst_get_workflow_run_logs': {
			const [p, err] = this.project(a.project);
			if (err)
				return err;
			const noStore = this.needStore(p);
			if (noStore)
				return noStore;
			if (tool.name !== 'catalyst_get_workflow_run' && cfg.dataSharing === 'metadata') {
				this.stats.refusals++;
				return refusalResult('DATA_SHARING_RESTRICTED', cfg.autoEnvelope, { retryable: false });
			}
			const r = this.findRun(p, a.app, a.run);
			if (!r)
				return this.notFound(`workflow run '${a.run}' not found in app '${a.app}' of project '${p.name}'`);
			const events = this.events(r);
			if (tool.name === 'catalyst_get_workflow_run_logs') {
				const lines = [];
				for (const e of r.full) {
					if (e.event_type === 'TaskFailed')
						lines.push({ timestamp: e.timestamp, level: 'error', source: 'app',
							     message: `activity failed: ${e.failure_details_error_message}` });
					else if (e.event_type === 'TaskScheduled')
						lines.push({ timestamp: e.timestamp, level: 'info', source: 'daprd',
							     message: `scheduled activity ${e.name}` });
				}
				return { data: prof === 'a' ? { instanceId: r.instanceId, lines } : { run_id: r.instanceId, log_lines: lines } };
			}
			const mode = cfg.eventsMode ?? (prof === 'a' ? 'flat' : 'graph');
			const body = { run: runDetail(r, p, prof), ...historyBody(events, mode) };
			if (tool.name === 'catalyst_export_workflow_run')
				return { data: prof === 'a' ? { format: 'catalyst.workflow-run-export/v1', ...body } : { export: body } };
			return { data: body };
		}
		default:
			return this.otherRead(tool, a);
		}
	}

	listRuns(tool, a) {
		const cfg = this.cfg;
		const [p, err] = this.project(a.project);
		if (err)
			return err;
		const noStore = this.needStore(p);
		if (noStore)
			return noStore;
		const size = a.pageSize ?? 20;
		if (size < 1)
			throw invalidParams(`Invalid arguments for tool ${tool.name}: page size must be at least 1`);
		if (size > cfg.maxPage) {
			this.stats.refusals++;
			return refusalResult('unfilterable', cfg.autoEnvelope, { retryable: false });
		}
		let status = null;
		if (a.status !== undefined) {
			status = String(a.status).toLowerCase();
			if (!STATUSES.includes(status))
				throw invalidParams(`Invalid arguments for tool ${tool.name}: unknown status '${a.status}'`);
		}
		// --finish-later: order-7801 completes between the first listing and the second.
		this.listCalls = (this.listCalls ?? 0) + 1;
		if (cfg.finishLater && this.listCalls === 2)
			for (const r of p.runs)
				if (r.rest) {
					const now = Date.now();
					const tail = r.rest.map((e, i) => ({ ...e, timestamp: new Date(now - (r.rest.length - i) * 10).toISOString() }));
					r.events.push(...structuredClone(tail));
					r.full.push(...structuredClone(tail));
					r.status = 'completed';
					r.lastUpdatedAt = r.completedAt = new Date(now).toISOString();
					delete r.rest;
				}
		const endFrom = a.endFrom !== undefined ? parseTime(tool.name, a.endFrom) : null;
		const from = a.from !== undefined ? parseTime(tool.name, a.from) : null;
		const to = a.to !== undefined ? parseTime(tool.name, a.to) : null;
		const filterKey = JSON.stringify([p.name, a.app ?? null, status, a.workflow ?? null, from, to, a.run ?? null, endFrom]);
		let offset = 0;
		if (a.cursor !== undefined && a.cursor !== '') {
			const c = decodeCursor(a.cursor);
			if (!c || !Number.isInteger(c.o) || c.k !== filterKey)
				return plainError('INVALID_CURSOR', 'the page cursor is invalid or belongs to another query');
			offset = c.o;
		}
		// Child runs are listed only with --list-children; a filter by
		// instance id is a lookup and finds them too.
		const all = p.runs.map((r) => this.liveView(r)).filter((r) => r && (r.listed || cfg.listChildren || a.run !== undefined) &&
			(a.run === undefined || r.instanceId === a.run) &&
			(!a.app || r.appId === a.app) &&
			(!status || r.status === status) &&
			(!a.workflow || r.workflowName === a.workflow) &&
			(from === null || Date.parse(r.createdAt) >= from) &&
			(to === null || Date.parse(r.createdAt) < to) &&
			(endFrom === null || (r.completedAt && Date.parse(r.completedAt) >= endFrom)));
		const page = all.slice(offset, offset + size);
		const next = offset + size < all.length ? encodeCursor({ o: offset + size, k: filterKey }) : null;
		const rows = page.map((r) => runRow(r, cfg.profile));
		if (cfg.profile === 'a')
			return { data: { runs: rows, ...(next && { nextCursor: next }) } };
		return { data: { workflow_runs: rows, next_page_token: next ?? '' } };
	}

	otherRead(tool, a) {
		let p = null;
		if (tool.params[this.cfg.profile].project) {
			const [pp, err] = this.project(a.project);
			if (err)
				return err;
			p = pp;
		}
		switch (tool.name) {
		case 'catalyst_get_app':
			if (!p.apps.includes(a.app))
				return this.notFound(`app '${a.app}' not found`);
			return { data: { appId: a.app, project: p.name, status: 'connected' } };
		case 'catalyst_list_components':
			return { data: { components: [{ name: 'statestore', type: 'state.redis', managed: true },
						   { name: 'pubsub', type: 'pubsub.kafka', managed: false }] } };
		case 'catalyst_get_component':
			return { data: { name: a.name, type: 'state.redis', metadata: [{ name: 'redisHost', value: 'redis:6379' },
										  { name: 'redisPassword', secretKeyRef: true }] } };
		case 'catalyst_list_subscriptions':
			return { data: { subscriptions: [{ name: 'orders-created', topic: 'orders', route: '/events/orders' }] } };
		case 'catalyst_list_resiliency_policies':
			return { data: { policies: [{ name: 'default-retry', retries: { maxRetries: 3, policy: 'exponential' } }] } };
		case 'catalyst_list_agents':
			return { data: { agents: [] } };
		case 'catalyst_get_agent':
			return this.notFound(`agent '${a.agent}' not found`);
		case 'catalyst_list_mcp_servers':
			return { data: { mcpServers: [] } };
		case 'catalyst_get_app_metrics':
			return { data: { appId: a.app, window: a.window ?? '1h', requests: 1200, errors: 3 } };
		case 'catalyst_list_organization_members':
			return { data: { members: [{ email: this.world.user.email, role: 'member' }] } };
		case 'catalyst_list_regions':
			return { data: { regions: ['us-east-1', 'eu-west-1'] } };
		default:
			return plainError('NOT_IMPLEMENTED', `${tool.name} is not simulated`);
		}
	}
}
