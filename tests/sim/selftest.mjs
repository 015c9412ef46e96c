#!/usr/bin/env node
// Self-test of the Catalyst simulator, driven through the official MCP SDK
// client (and raw fetch where the point is the bytes on the wire).  Prints
// TAP; exits 1 if any check fails.
//
//   tests/npm/node_modules/.bin/node tests/sim/selftest.mjs [--sim-node PATH] [FILTER]
//
// --sim-node runs the simulator under another node (e.g. /usr/bin/node, Node
// 20); the client side always runs under the node that runs this script.

import { spawn } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';

const SDK = new URL('../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Client } = await import(new URL('client/index.js', SDK));
const { StreamableHTTPClientTransport } = await import(new URL('client/streamableHttp.js', SDK));

const SIM = new URL('./catalyst-sim.mjs', import.meta.url).pathname;
const FIXTURES = new URL('../fixtures/', import.meta.url);
const PAYLOAD = ['input', 'output', 'result', 'customStatus', 'custom_status'];

let simNode = process.execPath;
let filter = null;
{
	const argv = process.argv.slice(2);
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--sim-node')
			simNode = argv[++i];
		else
			filter = argv[i];
	}
}

const tmp = mkdtempSync(join(tmpdir(), 'catalyst-sim-selftest-'));
const running = new Set();

function fixture(name) {
	return JSON.parse(readFileSync(new URL(name + '.catalyst.json', FIXTURES), 'utf8'));
}

function startSim(args, { node = simNode } = {}) {
	return new Promise((resolve, reject) => {
		const proc = spawn(node, [SIM, '--max-seconds', '120', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
		running.add(proc);
		let out = '';
		let err = '';
		const timer = setTimeout(() => reject(new Error(`simulator not ready in 15 s: ${err}`)), 15000);
		proc.stderr.on('data', (d) => { err += d; });
		proc.stdout.on('data', (d) => {
			out += d;
			const m = /^LISTENING (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(out);
			if (m) {
				clearTimeout(timer);
				const exited = new Promise((r) => proc.on('exit', (code, sig) => r({ code, sig })));
				resolve({
					url: m[1], proc, exited,
					stderr: () => err,
					stop: async () => {
						proc.kill('SIGTERM');
						const r = await exited;
						running.delete(proc);
						return r;
					},
				});
			}
		});
		proc.on('exit', (code) => {
			clearTimeout(timer);
			reject(new Error(`simulator exited (${code}) before ready: ${err}`));
		});
	});
}

async function connect(url) {
	const client = new Client({ name: 'catalyst-sim-selftest', version: '1' });
	await client.connect(new StreamableHTTPClientTransport(new URL(url)));
	return client;
}

async function withSim(args, fn) {
	const sim = await startSim(args);
	let client;
	try {
		client = await connect(sim.url);
		return await fn(client, sim);
	} finally {
		if (client)
			await client.close().catch(() => {});
		await sim.stop();
	}
}

// A tool result's JSON body, from whichever envelope carries it.
function body(res) {
	if (res.structuredContent)
		return res.structuredContent;
	return JSON.parse(res.content[0].text);
}

function keysDeep(x, acc = new Set()) {
	if (Array.isArray(x))
		x.forEach((v) => keysDeep(v, acc));
	else if (x && typeof x === 'object')
		for (const [k, v] of Object.entries(x)) {
			acc.add(k);
			keysDeep(v, acc);
		}
	return acc;
}

function withoutPayload(events) {
	return events.map((e) => Object.fromEntries(Object.entries(e).filter(([k]) => !PAYLOAD.includes(k))));
}

function graphEvents(b) {
	return b.graph.nodes.flatMap((n) => n.events);
}

async function rpc(url, msg, headers = {}) {
	return fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
		body: JSON.stringify(msg),
	});
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize',
	       params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const callMsg = (name, args, id = 2) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

// --- tests -------------------------------------------------------------------

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

const READ_NAMES = ['catalyst_whoami', 'catalyst_list_projects', 'catalyst_get_project', 'catalyst_list_apps',
	'catalyst_list_workflows', 'catalyst_get_workflow', 'catalyst_list_workflow_runs', 'catalyst_get_workflow_run',
	'catalyst_export_workflow_run', 'catalyst_get_workflow_run_logs'];
const WRITE_NAMES = ['catalyst_start_workflow', 'catalyst_terminate_workflow_run', 'catalyst_purge_workflow_runs',
	'catalyst_rerun_workflow_run', 'catalyst_pause_workflow_run', 'catalyst_resume_workflow_run',
	'catalyst_raise_workflow_event', 'catalyst_apply', 'catalyst_create_project', 'catalyst_delete_project'];

test('profile a: 40 tools, spellings, required lists', () => withSim(['--profile', 'a'], async (c) => {
	const { tools } = await c.listTools();
	assert.equal(tools.length, 40);
	const by = Object.fromEntries(tools.map((t) => [t.name, t]));
	for (const n of [...READ_NAMES, ...WRITE_NAMES])
		assert.ok(by[n], n);
	for (const t of tools)
		assert.ok(Array.isArray(t.inputSchema.required), `${t.name} has a required list`);
	const lr = by.catalyst_list_workflow_runs.inputSchema;
	assert.deepEqual(Object.keys(lr.properties).sort(),
		['appId', 'cursor', 'endTimeFrom', 'instanceId', 'pageSize', 'projectId', 'startTimeFrom', 'startTimeTo', 'status',
		 'workflowName'].sort());
	assert.deepEqual(lr.required, ['projectId']);
	assert.deepEqual(by.catalyst_get_workflow_run.inputSchema.required, ['projectId', 'appId', 'instanceId']);
	assert.equal(by.catalyst_start_workflow.annotations.readOnlyHint, false);
}));

test('profile b: other spellings', () => withSim(['--profile', 'b'], async (c) => {
	const { tools } = await c.listTools();
	const by = Object.fromEntries(tools.map((t) => [t.name, t]));
	const lr = by.catalyst_list_workflow_runs.inputSchema;
	assert.deepEqual(Object.keys(lr.properties).sort(),
		['ProjectId', 'app_id', 'created_after', 'created_before', 'limit', 'page_token', 'runtime_status', 'workflow_name'].sort());
	assert.deepEqual(lr.required, ['ProjectId']);
	assert.deepEqual(by.catalyst_get_workflow_run.inputSchema.required, ['ProjectId', 'app_id', 'runId']);
	assert.deepEqual(by.catalyst_export_workflow_run.inputSchema.required, ['ProjectId', 'app_id', 'run_id']);
	assert.deepEqual(by.catalyst_get_project.inputSchema.required, ['project']);
	// A profile-a spelling is refused loudly, naming the tool and the property.
	await assert.rejects(c.callTool({ name: 'catalyst_get_workflow_run',
		arguments: { projectId: 'default', appId: 'orders', instanceId: 'order-7731' } }),
		(e) => e.code === -32602 && /catalyst_get_workflow_run/.test(e.message) && /projectId/.test(e.message));
	await assert.rejects(c.callTool({ name: 'catalyst_get_workflow_run', arguments: { ProjectId: 'default', app_id: 'orders' } }),
		(e) => e.code === -32602 && /missing required property 'runId'/.test(e.message));
}));

test('--arg-errors iserror: invalid arguments as a tool error with plain text', () =>
	withSim(['--profile', 'b', '--arg-errors', 'iserror'], async (c) => {
		const r = await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'default' } });
		assert.equal(r.isError, true);
		assert.match(r.content[0].text, /^Invalid arguments for tool catalyst_list_workflow_runs: unknown property 'projectId'$/);
	}));

test('profile a, metadata: run history equals the fixture, no payload keys anywhere', () =>
	withSim(['--profile', 'a', '--data-sharing', 'metadata'], async (c) => {
		const r = await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'default', appId: 'checkout', instanceId: 'pay-20931', includeData: true } });
		assert.ok(r.structuredContent, 'structuredContent present');
		assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent, 'JSON text mirrors structuredContent');
		assert.deepEqual(r.structuredContent.history, fixture('b-retry-fail-fail-succeed'));
		assert.equal(r.structuredContent.run.status, 'completed');
		const list = body(await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'default', pageSize: 50 } }));
		const run = body(await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'default', appId: 'onboarding', instanceId: 'bulk-import-1' } }));
		for (const x of [list, run, r.structuredContent])
			for (const k of PAYLOAD)
				assert.ok(!keysDeep(x).has(k), `no ${k} key at metadata`);
		// The suspended run's ExecutionSuspended carries a reason payload at full: gone here.
		const sus = body(await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'default', appId: 'orders', instanceId: 'order-7802' } }));
		assert.ok(sus.history.some((e) => e.event_type === 'ExecutionSuspended' && !('input' in e)));
	}));

test('profile a, metadata: export and logs refused (DATA_SHARING_RESTRICTED)', () =>
	withSim(['--profile', 'a'], async (c) => {
		for (const name of ['catalyst_export_workflow_run', 'catalyst_get_workflow_run_logs']) {
			const r = await c.callTool({ name, arguments: { projectId: 'default', appId: 'orders', instanceId: 'order-7731' } });
			assert.equal(r.isError, true);
			const e = JSON.parse(r.content[0].text).error;
			assert.equal(e.kind, 'DATA_SHARING_RESTRICTED');
			assert.equal(e.retryable, false);
			assert.match(e.message, /metadata/);
			assert.ok(e.instruction && e.cause);
		}
	}));

test('profile a: every status, upper case in lists, pagination covers each run once', () =>
	withSim(['--profile', 'a'], async (c) => {
		const seen = [];
		let cursor;
		let pages = 0;
		do {
			const b = body(await c.callTool({ name: 'catalyst_list_workflow_runs',
				arguments: { projectId: 'default', pageSize: 4, ...(cursor && { cursor }) } }));
			assert.ok(b.runs.length <= 4);
			seen.push(...b.runs);
			cursor = b.nextCursor;
			pages++;
		} while (cursor);
		const ids = seen.map((r) => r.instanceId);
		assert.equal(new Set(ids).size, ids.length, 'no run twice');
		assert.ok(pages >= 4);
		const statuses = new Set(seen.map((r) => r.status));
		assert.deepEqual([...statuses].sort(), ['CANCELED', 'COMPLETED', 'FAILED', 'RUNNING', 'SUSPENDED', 'TERMINATED']);
		assert.ok(ids.includes('bulk-import-1') && ids.includes('order-7740'));
		assert.ok(!ids.includes('order-7740:0000'), 'child instances are fetched, not listed');
		const failed = body(await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { projectId: 'default', status: 'FAILED' } }));
		assert.deepEqual(failed.runs.map((r) => r.instanceId).sort(), ['onboard-62', 'refund-871']);
		// A cursor replayed against another query is rejected, not silently reused.
		const p1 = body(await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'default', pageSize: 2 } }));
		const bad = await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { projectId: 'default', pageSize: 2, status: 'completed', cursor: p1.nextCursor } });
		assert.equal(bad.isError, true);
		// Time window.
		const win = body(await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'default',
			startTimeFrom: '2026-09-14T10:00:00Z', startTimeTo: '2026-09-14T12:00:00Z' } }));
		assert.deepEqual(win.runs.map((r) => r.instanceId).sort(), ['order-7740', 'order-7801', 'pay-20931']);
	}));

test('run lookup: the instance id filter finds child runs; --list-children lists them', () =>
	withSim(['--profile', 'a'], async (c) => {
		const one = body(await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { projectId: 'default', instanceId: 'order-7740:0002' } }));
		assert.deepEqual(one.runs.map((r) => [r.appId, r.instanceId, r.parentInstanceId]),
			[['orders', 'order-7740:0002', 'order-7740']]);
		const two = body(await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { projectId: '42', instanceId: 'order-9001' } }));
		assert.deepEqual(two.runs.map((r) => r.appId).sort(), ['orders', 'returns'], 'one id in two apps of project 42');
		const none = body(await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { projectId: 'default', instanceId: 'nosuch' } }));
		assert.deepEqual(none.runs, []);
	}).then(() => withSim(['--profile', 'a', '--list-children'], async (c) => {
		const all = body(await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { projectId: 'default', appId: 'orders' } }));
		const kids = all.runs.filter((r) => r.parentInstanceId).map((r) => r.instanceId).sort();
		assert.deepEqual(kids, ['order-7740:0000', 'order-7740:0002']);
	})));

test('endTimeFrom; --finish-later: a run ended inside a window it started before, a run that finishes later', () =>
	withSim(['--profile', 'a', '--finish-later'], async (c) => {
		const list = async (args) => body(await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { projectId: 'default', pageSize: 50, ...args } })).runs;
		const first = await list({});
		const long = first.find((r) => r.instanceId === 'order-7750');
		assert.ok(long && long.status === 'COMPLETED');
		const hours = (Date.parse(long.completedAt) - Date.parse(long.createdAt)) / 3600e3;
		assert.ok(hours > 24, `order-7750 ran ${hours} h`);
		assert.equal(first.find((r) => r.instanceId === 'order-7801').status, 'RUNNING');
		// the second listing: order-7801 has finished, now
		const ended = await list({ endTimeFrom: long.completedAt });
		const ids = ended.map((r) => r.instanceId);
		assert.ok(ids.includes('order-7750') && ids.includes('order-7801'), ids.join(' '));
		assert.ok(ended.every((r) => Date.parse(r.completedAt) >= Date.parse(long.completedAt)));
		const done = ended.find((r) => r.instanceId === 'order-7801');
		assert.ok(Date.now() - Date.parse(done.completedAt) < 60e3, done.completedAt);
		const run = body(await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'default', appId: 'orders', instanceId: 'order-7801' } }));
		assert.equal(run.history.at(-1).event_type, 'ExecutionCompleted');
		// a run still in flight has not ended: no endTimeFrom finds it
		const early = await list({ endTimeFrom: '1970-01-01T00:00:00Z' });
		assert.ok(!early.some((r) => r.status === 'RUNNING' || r.status === 'SUSPENDED'));
	}));

test('--not-found: a missing run in each envelope', async () => {
	const args = { projectId: 'default', appId: 'orders', instanceId: 'nosuch' };
	await withSim(['--not-found', 'structured'], async (c) => {
		const r = await c.callTool({ name: 'catalyst_get_workflow_run', arguments: args });
		assert.equal(r.isError, true);
		assert.equal(r.structuredContent.error.kind, 'NOT_FOUND');
	});
	await withSim(['--not-found', 'text'], async (c) => {
		const r = await c.callTool({ name: 'catalyst_get_workflow_run', arguments: args });
		assert.equal(r.isError, true);
		assert.match(r.content[0].text, /^workflow run 'nosuch' not found/);
	});
	await withSim(['--not-found', 'rpc'], async (c) => {
		await assert.rejects(c.callTool({ name: 'catalyst_get_workflow_run', arguments: args }),
			(e) => e.code === -32002 && /not found/.test(e.message));
	});
});

test('unfilterable when a page asks for more than --max-page', () =>
	withSim(['--profile', 'a', '--max-page', '10'], async (c) => {
		const r = await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'default', pageSize: 11 } });
		assert.equal(r.isError, true);
		assert.equal(JSON.parse(r.content[0].text).error.kind, 'unfilterable');
		const ok = body(await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'default', pageSize: 10 } }));
		assert.equal(ok.runs.length, 10);
	}));

test('projects: names, uids, the project named 42, no workflow store', () =>
	withSim(['--profile', 'a'], async (c) => {
		const ps = body(await c.callTool({ name: 'catalyst_list_projects', arguments: {} })).projects;
		assert.deepEqual(ps.map((p) => [p.name, p.uid]), [['default', 165], ['payments', 212], ['42', 977], ['sandbox', 301]]);
		const g = async (v) => body(await c.callTool({ name: 'catalyst_get_project', arguments: { projectId: v } })).project;
		assert.equal((await g('42')).uid, 977);
		assert.equal((await g('977')).name, '42');
		assert.equal((await g('prj-165')).name, 'default');
		assert.equal((await g('165')).name, 'default');
		const nf = await c.callTool({ name: 'catalyst_get_project', arguments: { projectId: 'nope' } });
		assert.equal(nf.isError, true);
		const sb = await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'sandbox' } });
		assert.equal(sb.isError, true);
		assert.equal(JSON.parse(sb.content[0].text).error.kind, 'WORKFLOW_STORE_NOT_CONFIGURED');
		const apps = body(await c.callTool({ name: 'catalyst_list_apps', arguments: { projectId: 'payments' } })).apps;
		assert.deepEqual(apps.map((a) => a.appId), ['checkout', 'orders', 'shipping']);
	}));

test('demo project payments: double charge, timed-out shipment, retried child, clean run', () =>
	withSim(['--profile', 'a'], async (c) => {
		const runs = body(await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'payments' } })).runs;
		assert.deepEqual(runs.map((r) => r.instanceId).sort(), ['order-7731', 'order-7740', 'pay-20931', 'ship-5518']);
		const get = async (app, id) => body(await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'payments', appId: app, instanceId: id } }));
		const ship = await get('shipping', 'ship-5518');
		assert.equal(ship.run.workflowName, 'ShipmentWorkflow');
		const sched = ship.history.filter((e) => e.event_type === 'TaskScheduled');
		assert.equal(sched.length, 2);
		assert.ok(sched.every((e) => e.name === 'BookCarrierPickup' && e.task_execution_id === sched[0].task_execution_id));
		const failed = ship.history.find((e) => e.event_type === 'TaskFailed');
		assert.match(failed.failure_details_error_message, /api\.carrier\.example.*Read timed out/);
		const timer = ship.history.find((e) => e.event_type === 'TimerCreated');
		assert.equal(timer.origin__activity_retry_task_execution_id, sched[0].task_execution_id);
		assert.notEqual(sched[0].task_execution_id, fixture('c1-attempt-timeout-then-retry')[2].task_execution_id);
		// Children of the retried child workflow are fetchable by instance id.
		const parent = await get('orders', 'order-7740');
		const kids = parent.history.filter((e) => e.event_type === 'ChildWorkflowInstanceCreated').map((e) => e.instance_id);
		assert.deepEqual(kids, ['order-7740:0000', 'order-7740:0002']);
		assert.deepEqual((await get('orders', kids[0])).history, fixture('d-child-retry.child-attempt1'));
		assert.deepEqual((await get('orders', kids[1])).history, fixture('d-child-retry.child-attempt2'));
		assert.equal((await get('orders', kids[0])).run.status, 'failed');
	}));

test('a run of a few thousand events; --runs N adds generated runs', () =>
	withSim(['--profile', 'a', '--runs', '30'], async (c) => {
		const big = body(await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'default', appId: 'onboarding', instanceId: 'bulk-import-1' } }));
		assert.ok(big.history.length >= 3000, `${big.history.length} events`);
		assert.ok(big.history.some((e) => e.origin__activity_retry_task_execution_id), 'some retries');
		let n = 0;
		let cursor;
		do {
			const b = body(await c.callTool({ name: 'catalyst_list_workflow_runs',
				arguments: { projectId: 'default', pageSize: 50, ...(cursor && { cursor }) } }));
			n += b.runs.filter((r) => r.instanceId.startsWith('gen-')).length;
			cursor = b.nextCursor;
		} while (cursor);
		assert.equal(n, 30);
		const g = body(await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'default', appId: 'orders', instanceId: 'gen-000001' } }));
		assert.ok(g.history.length >= 195 && g.history.length <= 210, `${g.history.length} events`);
	}));

test('--runs-project puts generated runs in their own project; --shift-now makes runs recent', () =>
	withSim(['--runs', '7', '--runs-project', 'bench', '--shift-now'], async (c) => {
		const ps = body(await c.callTool({ name: 'catalyst_list_projects', arguments: {} })).projects;
		assert.deepEqual(ps.find((p) => p.name === 'bench'), { name: 'bench', uid: 500, displayName: 'Generated runs', region: 'us-east-1' });
		const b = body(await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'bench' } }));
		assert.equal(b.runs.length, 7);
		assert.ok(b.runs.every((r) => r.instanceId.startsWith('gen-')));
		const d = body(await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'default', pageSize: 50 } }));
		assert.ok(!d.runs.some((r) => r.instanceId.startsWith('gen-')));
		const since = new Date(Date.now() - 24 * 3600e3).toISOString();
		const recent = body(await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { projectId: 'payments', startTimeFrom: since } }));
		assert.ok(recent.runs.length >= 1, 'the newest runs are within the last 24 h');
	}));

test('--live-runs: N running runs in the generated runs\' project, each growing to its end', () =>
	withSim(['--live-runs', '3', '--runs-project', 'follow', '--live-step-ms', '20'], async (c) => {
		const listed = body(await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { projectId: 'follow', status: 'running' } }));
		assert.deepEqual(listed.runs.map((r) => r.instanceId).sort(), ['follow-0001', 'follow-0002', 'follow-0003']);
		const d = body(await c.callTool({ name: 'catalyst_list_workflow_runs', arguments: { projectId: 'default', pageSize: 50 } }));
		assert.ok(!d.runs.some((r) => r.instanceId.startsWith('follow-')));
		const get = async () => body(await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'follow', appId: 'checkout', instanceId: 'follow-0002' } }));
		const first = await get();
		assert.ok(first.history.length >= 2 && first.history.length < 18, `${first.history.length} events`);
		assert.ok(first.history.every((e) => !e.workflow_instance_instance_id ||
			e.workflow_instance_instance_id.startsWith('follow-0002')), 'its own instance id');
		// Only ever grows, and ends (a bounded loop: the simulator's own clock).
		let last = first;
		for (let i = 0; i < 200 && last.run.status === 'running'; i++) {
			await new Promise((r) => setTimeout(r, 20));
			const now = await get();
			assert.ok(now.history.length >= last.history.length, 'a history only grows');
			last = now;
		}
		assert.equal(last.run.status, 'completed');
		assert.equal(last.history.length, 18);
	}));

test('profile b, full: text-only envelope, graph nodes, payloads present, export works', () =>
	withSim(['--profile', 'b', '--data-sharing', 'full', '--stateless', '--json', '--whoami-names-level'], async (c) => {
		const who = await c.callTool({ name: 'catalyst_whoami', arguments: {} });
		assert.equal(who.structuredContent, undefined);
		assert.equal(JSON.parse(who.content[0].text).data_sharing_level, 'full');
		const r = await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { ProjectId: 'default', app_id: 'checkout', runId: 'pay-20931' } });
		assert.equal(r.structuredContent, undefined);
		const b = JSON.parse(r.content[0].text);
		assert.equal(b.history, undefined);
		assert.ok(b.graph.nodes.length > 1);
		const ev = graphEvents(b);
		assert.deepEqual(withoutPayload(ev), fixture('b-retry-fail-fail-succeed'));
		assert.ok(ev.filter((e) => e.event_type === 'TaskScheduled').every((e) => typeof e.input === 'string'));
		assert.ok(ev.some((e) => e.event_type === 'TaskCompleted' && typeof e.result === 'string'));
		assert.equal(b.run.runtime_status, 'COMPLETED');
		assert.equal(typeof b.run.input, 'string');
		const list = JSON.parse((await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { ProjectId: 'default', runtime_status: 'failed', limit: 1 } })).content[0].text);
		assert.equal(list.workflow_runs.length, 1);
		assert.equal(list.workflow_runs[0].runtime_status, 'failed');
		assert.ok(list.next_page_token);
		const p2 = JSON.parse((await c.callTool({ name: 'catalyst_list_workflow_runs',
			arguments: { ProjectId: 'default', runtime_status: 'failed', limit: 1, page_token: list.next_page_token } })).content[0].text);
		assert.equal(p2.workflow_runs.length, 1);
		assert.notEqual(p2.workflow_runs[0].run_id, list.workflow_runs[0].run_id);
		assert.equal(p2.next_page_token, '');
		const ex = JSON.parse((await c.callTool({ name: 'catalyst_export_workflow_run',
			arguments: { ProjectId: 'default', app_id: 'checkout', run_id: 'pay-20931' } })).content[0].text);
		assert.ok(ex.export.graph.nodes.length > 1);
		const big = JSON.parse((await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { ProjectId: 'default', app_id: 'onboarding', runId: 'bulk-import-1' } })).content[0].text);
		assert.ok(graphEvents(big).some((e) => e.input && e.input.length > 64 * 1024), 'a large payload');
		const rc = JSON.parse((await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { ProjectId: 'default', app_id: 'notifications', runId: 'receipt-5512' } })).content[0].text);
		assert.ok(graphEvents(rc).some((e) => e.event_type === 'TaskCompleted' && e.result === ''), 'present and empty');
	}));

test('--events both and --result-envelope structured', () =>
	withSim(['--profile', 'b', '--events', 'both', '--result-envelope', 'structured'], async (c) => {
		const r = await c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { ProjectId: 'default', app_id: 'orders', runId: 'order-7731' } });
		assert.ok(r.structuredContent);
		assert.throws(() => JSON.parse(r.content[0].text));
		assert.deepEqual(r.structuredContent.history, graphEvents(r.structuredContent));
	}));

const ALL_KINDS = ['NOT_AUTHENTICATED', 'NO_ORG', 'ORG_MISMATCH', 'ORG_UNAVAILABLE', 'CATALYST_NOT_ENABLED',
	'denied', 'no-policy', 'unfilterable', 'DATA_SHARING_RESTRICTED'];

for (const envelope of ['rpc', 'iserror', 'structured']) {
	test(`every refusal kind in the ${envelope} envelope, first=1 each, then success`, async () => {
		const args = ALL_KINDS.flatMap((k) => ['--refuse', `${k}:${envelope}:catalyst_get_workflow_run:first=1${k === 'ORG_UNAVAILABLE' ? ',retryable' : ''}`]);
		await withSim(['--profile', 'a', ...args], async (c) => {
			const call = () => c.callTool({ name: 'catalyst_get_workflow_run',
				arguments: { projectId: 'default', appId: 'orders', instanceId: 'order-7731' } });
			for (const kind of ALL_KINDS) {
				let err;
				if (envelope === 'rpc') {
					await assert.rejects(call(), (e) => {
						err = e.data?.error;
						return e.code === -32000;
					});
				} else {
					const r = await call();
					assert.equal(r.isError, true);
					err = envelope === 'iserror' ? JSON.parse(r.content[0].text).error : r.structuredContent.error;
					if (envelope === 'structured')
						assert.equal(r.content[0].text, err.message);
				}
				assert.equal(err.kind, kind);
				assert.equal(err.retryable, kind === 'ORG_UNAVAILABLE');
				assert.ok(err.message && err.cause && err.instruction, `${kind} has message, cause, instruction`);
			}
			const ok = await call();
			assert.ok(!ok.isError && ok.structuredContent.history.length === 9);
			// Other tools were never refused.
			assert.ok(!(await c.callTool({ name: 'catalyst_whoami', arguments: {} })).isError);
		});
	});
}

test('refusal: the public sample shape (minimal), any tool', () =>
	withSim(['--refuse', 'ORG_MISMATCH:iserror::minimal'], async (c) => {
		const r = await c.callTool({ name: 'catalyst_whoami', arguments: {} });
		assert.deepEqual(Object.keys(JSON.parse(r.content[0].text).error), ['kind', 'message', 'retryable']);
		const r2 = await c.callTool({ name: 'catalyst_list_projects', arguments: {} });
		assert.equal(JSON.parse(r2.content[0].text).error.kind, 'ORG_MISMATCH');
	}));

test('refusal limited to one run by match= (a child id with a colon)', () =>
	withSim(['--refuse', 'denied:structured:catalyst_get_workflow_run:match=order-7740:0000'], async (c) => {
		const get = (id) => c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'payments', appId: 'orders', instanceId: id } });
		assert.equal((await get('order-7740:0000')).structuredContent.error.kind, 'denied');
		assert.equal((await get('order-7740:0000')).structuredContent.error.kind, 'denied', 'no first=: every time');
		assert.ok(!(await get('order-7740:0002')).isError);
		assert.ok(!(await get('order-7740')).isError);
	}));

test('write tools are recorded; --record-calls records every call', async () => {
	const writes = join(tmp, 'writes.jsonl');
	const calls = join(tmp, 'calls.jsonl');
	await withSim(['--record-writes', writes, '--record-calls', calls], async (c) => {
		await c.callTool({ name: 'catalyst_whoami', arguments: {} });
		assert.equal(readFileSync(writes, 'utf8'), '', 'the record file exists and is empty before any write');
		await c.callTool({ name: 'catalyst_terminate_workflow_run',
			arguments: { projectId: 'default', appId: 'orders', instanceId: 'order-7801' } });
		await c.callTool({ name: 'catalyst_purge_workflow_runs', arguments: { projectId: 'default', appId: 'orders' } });
	});
	const w = readFileSync(writes, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
	assert.deepEqual(w.map((x) => x.tool), ['catalyst_terminate_workflow_run', 'catalyst_purge_workflow_runs']);
	assert.equal(w[0].arguments.instanceId, 'order-7801');
	const all = readFileSync(calls, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
	assert.deepEqual(all.map((x) => [x.tool, x.class]), [['catalyst_whoami', 'read'],
		['catalyst_terminate_workflow_run', 'write'], ['catalyst_purge_workflow_runs', 'write']]);
});

test('whoami: level named only when asked; _meta names it with --meta-names-level', async () => {
	await withSim([], async (c) => {
		const b = body(await c.callTool({ name: 'catalyst_whoami', arguments: {} }));
		assert.equal(b.organization.name, 'Acme Payments');
		assert.equal(b.dataSharingLevel, undefined);
	});
	await withSim(['--whoami-names-level', '--meta-names-level'], async (c) => {
		const r = await c.callTool({ name: 'catalyst_whoami', arguments: {} });
		assert.equal(r.structuredContent.dataSharingLevel, 'metadata');
		assert.equal(r._meta['diagrid.io/dataSharingLevel'], 'metadata');
	});
});

test('fault 503: Retry-After 1, then the next call succeeds', () =>
	withSim(['--fail-first', '1:503', '--json', '--stateless'], async (c, sim) => {
		const raw = await rpc(sim.url, callMsg('catalyst_whoami', {}));
		assert.equal(raw.status, 503);
		assert.equal(raw.headers.get('retry-after'), '1');
		await raw.text();
		const ok = body(await c.callTool({ name: 'catalyst_whoami', arguments: {} }));
		assert.equal(ok.user.email, 'oncall@acme.example');
	}));

test('fault 500 seen by the SDK client', () =>
	withSim(['--fail-first', '1:500'], async (c) => {
		await assert.rejects(c.callTool({ name: 'catalyst_whoami', arguments: {} }), (e) => e.code === 500);
		assert.ok(body(await c.callTool({ name: 'catalyst_whoami', arguments: {} })).user);
	}));

for (const mode of [['--json'], []]) {
	const label = mode.length ? 'json' : 'sse';
	test(`fault reset (${label}): connection dropped mid-body`, () =>
		withSim(['--fail-first', '1:reset', '--stateless', ...mode], async (c, sim) => {
			const raw = await rpc(sim.url, callMsg('catalyst_get_workflow_run',
				{ projectId: 'default', appId: 'orders', instanceId: 'order-7731' }));
			assert.equal(raw.status, 200);
			await assert.rejects(raw.text());
			assert.ok(body(await c.callTool({ name: 'catalyst_whoami', arguments: {} })).user);
		}));
	test(`fault truncate (${label}): body cut, clean end`, () =>
		withSim(['--fail-first', '1:truncate', '--stateless', ...mode], async (c, sim) => {
			const raw = await rpc(sim.url, callMsg('catalyst_get_workflow_run',
				{ projectId: 'default', appId: 'orders', instanceId: 'order-7731' }));
			const text = await raw.text();
			assert.ok(text.length > 0);
			const json = mode.length ? text : text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('');
			assert.throws(() => JSON.parse(json), 'the body is cut short');
			assert.ok(body(await c.callTool({ name: 'catalyst_whoami', arguments: {} })).user);
		}));
}

test('fault expire: 404 on the session, session gone, a new session works', () =>
	withSim(['--fail-first', '1:expire'], async (c, sim) => {
		await assert.rejects(c.callTool({ name: 'catalyst_whoami', arguments: {} }), /404|Session not found/);
		await assert.rejects(c.callTool({ name: 'catalyst_whoami', arguments: {} }), /404|Session not found/,
			'the old session stays expired');
		const c2 = await connect(sim.url);
		assert.ok(body(await c2.callTool({ name: 'catalyst_whoami', arguments: {} })).user);
		await c2.close();
	}));

test('fault slow: past the client timeout; latency adds to each call', async () => {
	await withSim(['--fail-first', '1:slow', '--slow-ms', '5000'], async (c) => {
		await assert.rejects(c.callTool({ name: 'catalyst_whoami', arguments: {} }, undefined, { timeout: 300 }), /timed out|-32001/i);
		assert.ok(body(await c.callTool({ name: 'catalyst_whoami', arguments: {} })).user);
	});
	await withSim(['--latency-ms', '150'], async (c) => {
		const t0 = Date.now();
		await c.callTool({ name: 'catalyst_whoami', arguments: {} });
		assert.ok(Date.now() - t0 >= 150);
	});
});

test('fault unfilterable, and --fail-match limits faults to one run', () =>
	withSim(['--fail-first', '2:unfilterable', '--fail-match', 'pay-20931'], async (c) => {
		const get = (id, app) => c.callTool({ name: 'catalyst_get_workflow_run',
			arguments: { projectId: 'default', appId: app, instanceId: id } });
		assert.ok(!(await get('order-7731', 'orders')).isError);
		for (let i = 0; i < 2; i++)
			assert.equal(JSON.parse((await get('pay-20931', 'checkout')).content[0].text).error.kind, 'unfilterable');
		assert.ok(!(await get('pay-20931', 'checkout')).isError);
	}));

test('random faults are reproducible for a seed', async () => {
	const outcomes = async () => withSim(['--fail-rate', '0.5', '--fail-kinds', '503,500', '--seed', '7', '--stateless'],
		async (c, sim) => {
			const o = [];
			for (let i = 0; i < 12; i++) {
				const r = await rpc(sim.url, callMsg('catalyst_whoami', {}));
				o.push(r.status);
				await r.text();
			}
			return o.join(',');
		});
	const a = await outcomes();
	assert.equal(a, await outcomes());
	assert.ok(/200/.test(a) && /50[03]/.test(a), a);
});

test('--require-token: 401 with WWW-Authenticate, then accepted with the token', async () => {
		const sim = await startSim(['--require-token', 'tok-123', '--json', '--stateless']);
		try {
			const r = await rpc(sim.url, INIT);
			assert.equal(r.status, 401);
			assert.match(r.headers.get('www-authenticate'), /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
			const ok = await rpc(sim.url, INIT, { authorization: 'Bearer tok-123' });
			assert.equal(ok.status, 200);
			assert.ok(!sim.stderr().includes('tok-123'), 'the token is never logged');
		} finally {
			await sim.stop();
		}
});

test('lifetime: SIGTERM stops promptly; --max-seconds stops by itself', async () => {
	const sim = await startSim([]);
	const r = await sim.stop();
	assert.equal(r.code, 0);
	const proc = spawn(simNode, [SIM, '--max-seconds', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
	running.add(proc);
	const code = await new Promise((res) => proc.on('exit', res));
	running.delete(proc);
	assert.equal(code, 0);
});

test('bad switches are usage errors (exit 2)', async () => {
	for (const bad of [['--profile', 'c'], ['--refuse', 'NOPE:rpc'], ['--fail-first', '1:bogus'], ['--frobnicate']]) {
		const proc = spawn(simNode, [SIM, ...bad], { stdio: 'ignore' });
		assert.equal(await new Promise((res) => proc.on('exit', res)), 2, bad.join(' '));
	}
});

test('--hub: simulators made and stopped over HTTP, each with its own options', async () => {
	const proc = spawn(simNode, [SIM, '--hub', '--max-seconds', '60'], { stdio: ['ignore', 'pipe', 'pipe'] });
	running.add(proc);
	const hub = await new Promise((resolve, reject) => {
		let out = '';
		proc.stdout.on('data', (d) => {
			out += d;
			const m = /^LISTENING (http:\/\/127\.0\.0\.1:\d+\/hub\/instances)$/m.exec(out);
			if (m)
				resolve(m[1]);
		});
		proc.on('exit', (code) => reject(new Error(`hub exited (${code})`)));
	});
	const make = (args) => fetch(hub, { method: 'POST', body: JSON.stringify({ args }) });
	try {
		const a = await (await make(['--profile', 'a'])).json();
		const b = await (await make(['--profile', 'b', '--refuse', 'denied:rpc:catalyst_whoami'])).json();
		assert.match(a.url, /\/i\/1\/mcp$/);
		assert.match(b.url, /\/i\/2\/mcp$/);
		const ca = await connect(a.url);
		const cb = await connect(b.url);
		// catalyst_list_apps: profile a spells projectId, profile b project_id; b refuses whoami.
		const schema = async (c) => (await c.listTools()).tools.find((t) => t.name === 'catalyst_list_apps').inputSchema;
		assert.ok('projectId' in (await schema(ca)).properties);
		assert.ok('project_id' in (await schema(cb)).properties);
		await ca.callTool({ name: 'catalyst_whoami', arguments: {} });
		await assert.rejects(cb.callTool({ name: 'catalyst_whoami', arguments: {} }));
		await ca.close();
		await cb.close();
		// A bad option is a 400 naming it; a stopped simulator is gone.
		const bad = await make(['--profile', 'c']);
		assert.equal(bad.status, 400);
		assert.match((await bad.json()).error, /--profile/);
		assert.equal((await fetch(`${hub}/1`, { method: 'DELETE' })).status, 204);
		assert.equal((await fetch(a.url, { method: 'POST', body: '{}' })).status, 404);
		assert.equal((await fetch(`${hub}/1`, { method: 'DELETE' })).status, 404);
	} finally {
		proc.kill('SIGTERM');
		running.delete(proc);
	}
});

// --- runner ------------------------------------------------------------------

const selected = tests.filter((t) => !filter || t.name.includes(filter));
console.log(`TAP version 13\n1..${selected.length}`);
let failed = 0;
for (const [i, t] of selected.entries()) {
	try {
		await t.fn();
		console.log(`ok ${i + 1} - ${t.name}`);
	} catch (e) {
		failed++;
		console.log(`not ok ${i + 1} - ${t.name}`);
		console.log(`  # ${String(e?.stack ?? e).split('\n').join('\n  # ')}`);
	}
}
for (const p of running)
	p.kill('SIGKILL');
if (existsSync(tmp))
	rmSync(tmp, { recursive: true, force: true });
console.log(`# ${selected.length - failed}/${selected.length} passed (simulator on ${simNode})`);
process.exit(failed ? 1 : 0);
