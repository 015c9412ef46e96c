// A small hostile MCP server for test_hostile.c: raw node:http on
// 127.0.0.1, port 0, stateless, answers as application/json except where a
// scenario needs an SSE stream. Prints `LISTENING http://127.0.0.1:PORT/mcp`
// when ready. GET /stats answers what it saw: requests per method, calls per
// tool, answers to its own requests, and the order of tool calls.
//
//   node hostile-server.mjs --scenario NAME [--pages N] [--per-page N]
//                           [--id-bytes N] [--requests N] [--hold-ms N]
//
// Scenarios (every one stops by itself after --pages list pages, so the
// unbounded client the tests guard against still ends, without an OOM):
//   tools-many      tools/list: --per-page small tools a page, a new cursor each time
//   tools-fat       tools/list: --per-page tools a page with 100 KB descriptions
//   runs-many       the run list: --per-page runs a page (no app id: no fetch), new cursors
//   runs-fat-ids    the same with --id-bytes long run ids
//   runs-cycle      cursors B, C, B, C, ... (two runs a page), run fetches answered
//   runs-dup        three pages of runs that repeat runs of earlier pages (and of their own);
//                   the second page and the first page's fetches wait for each other
//                   (at most 20 s), so whether fetching overlaps listing does not
//                   depend on the scheduler
//   deep            catalyst_get_workflow_run answers 3,000 nested arrays
//   huge            catalyst_get_workflow_run answers 17 MiB
//   server-requests catalyst_get_workflow_run: --requests server requests at once on an
//                   SSE stream, each answer's 202 held --hold-ms; the result once all are
//                   answered
//   gzip-error      catalyst_get_workflow_run: HTTP 500 whose body, sent as
//                   `Content-Encoding: gzip, gzip`, inflates to 20 GiB of zeros
//   gzip-sse        catalyst_get_workflow_run: an SSE stream, gzip of gzip, of 20 GiB
//                   of comment lines
//   gzip-drain      notifications answered 200 with the 20 GiB body of gzip-error
//   bad-utf8        catalyst_get_workflow_run answers a string holding the byte 0xff
//   other-run       catalyst_get_workflow_run answers the history of run someone-else
//
// Histories that change under run --follow (K: how many times the run was
// asked for, from 1; the run is running until its last answer):
//   follow-shrink   K=1 three activities; K=2 five, the second completed twice (a
//                   duplicate result); K=3 two; K=4 six, without the duplicate, ended
//   follow-rewrite  K=1 two activities; K=2 the second one's completion rewritten as a
//                   failure, and a third; K=3 four, ended
//   follow-grow     each answer 32 activities more, each with a 48 KiB input (3 MiB
//                   more an answer): 15.1 MiB at K=5, past 16 MiB at K=6, growing still
//   follow-flip     odd K: the run asked for, one activity more each time, its status
//                   RUNNING or PENDING by turns; even K: another run's ended history
//                   (someone-else); K=7: ended
//   follow-shuffle  one activity more each time, every answer in another order
//                   (seeded), ended at K=6
//   follow-continue K=1 two activities; K=2 three, the second completed twice; then
//                   it continues as new: K=3 a new generation (another execution id) of
//                   one activity; K=4 two, ended
import http from 'node:http';
import zlib from 'node:zlib';

function option(name, fallback) {
	const i = process.argv.indexOf(`--${name}`);
	return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const scenario = option('scenario', 'runs-dup');
const maxPages = Number(option('pages', '40'));
const perPage = Number(option('per-page', '100'));
const idBytes = Number(option('id-bytes', '0'));
const nRequests = Number(option('requests', '25'));
const holdMs = Number(option('hold-ms', '0'));

// overlap: a run was asked for while a list page was still being answered
const stats = { methods: {}, tools: {}, answers: 0, order: [], listPages: 0, overlap: false };
// runs-dup: the second list page and the first page's fetches are each
// held until the other is asked for (at most 20 s), so that a client that
// fetches while it lists is seen doing so however the scheduler runs it.
let listsInFlight = 0;
let getsInFlight = 0;
let secondPageAsked = false;
let releaseList = null; // ends the hold on the held list page
const releaseGets = []; // end the holds on held fetches
const holdUntil = (register) =>
	new Promise((r) => {
		register(r);
		setTimeout(r, 20000);
	});
const waiting = new Map(); // our request id -> resolve
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const TOOLS = [
	{
		name: 'catalyst_list_workflow_runs',
		description: 'List workflow runs.',
		inputSchema: {
			type: 'object',
			properties: { projectId: { type: 'string' }, appId: { type: 'string' }, pageSize: { type: 'integer' }, cursor: { type: 'string' } },
		},
	},
	{
		name: 'catalyst_get_workflow_run',
		description: 'Get one workflow run with its history.',
		inputSchema: {
			type: 'object',
			properties: { projectId: { type: 'string' }, appId: { type: 'string' }, instanceId: { type: 'string' } },
			required: ['appId', 'instanceId'],
		},
	},
];

function reply(msg, result) {
	return JSON.stringify({ jsonrpc: '2.0', id: msg.id, result });
}

function toolResult(obj) {
	return { structuredContent: obj, content: [{ type: 'text', text: JSON.stringify(obj) }] };
}

// A clean two-activity history in the flattened snake_case dialect.
function history(id) {
	const ev = (o) => ({ timestamp: '2026-09-14T09:12:03.401Z', ...o });
	return [
		ev({ event_id: -1, event_type: 'ExecutionStarted', name: 'W', workflow_instance_instance_id: id }),
		ev({ event_id: 0, event_type: 'TaskScheduled', name: 'A', task_execution_id: 't0' }),
		ev({ event_id: -1, event_type: 'TaskCompleted', task_scheduled_id: 0, task_execution_id: 't0' }),
		ev({ event_id: -1, event_type: 'ExecutionCompleted', orchestration_status: 'ORCHESTRATION_STATUS_COMPLETED' }),
	];
}

// A run of n activities A0..A(n-1), each scheduled and completed in turn,
// and ended when `ended`. dup: the activity completed twice; failed: the
// activity whose completion is a failure instead; input: a payload that
// big on each scheduling.
function activities(id, n, { ended = false, dup = -1, failed = -1, input = 0, execution = 'e1' } = {}) {
	const t = (s) => `2026-09-14T09:${String(12 + Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}.000Z`;
	const out = [{ timestamp: t(0), event_id: -1, event_type: 'ExecutionStarted', name: 'W', workflow_instance_instance_id: id,
		       workflow_instance_execution_id: `${id}-${execution}` }];
	const pad = input ? 'p'.repeat(input) : undefined;
	for (let i = 0; i < n; i++) {
		const tex = `${id}-t${i}`;
		out.push({ timestamp: t(2 * i + 1), event_id: i, event_type: 'TaskScheduled', name: `A${i}`, task_execution_id: tex,
			   ...(pad ? { input: JSON.stringify(pad) } : {}) });
		const result = i === failed
			? { event_type: 'TaskFailed', failure_details_error_type: 'TimeoutError', failure_details_error_message: 'read timed out' }
			: { event_type: 'TaskCompleted', result: '"ok"' };
		out.push({ timestamp: t(2 * i + 2), event_id: -1, task_scheduled_id: i, task_execution_id: tex, ...result });
		if (i === dup)
			out.push({ timestamp: t(2 * i + 2), event_id: -1, task_scheduled_id: i, task_execution_id: tex, ...result });
	}
	if (ended)
		out.push({ timestamp: t(2 * n + 1), event_id: -1, event_type: 'ExecutionCompleted', orchestration_status: 'ORCHESTRATION_STATUS_COMPLETED' });
	return out;
}

// A small seeded shuffle (mulberry32), so that a failure can be replayed.
function shuffled(v, seed) {
	let a = seed >>> 0;
	const rnd = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const out = [...v];
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(rnd() * (i + 1));
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

// What the follow scenarios answer the K-th time the run is asked for.
function followAnswer(id, k) {
	const run = (rid, h, status) => toolResult({ run: { instanceId: rid, appId: 'orders', runtimeStatus: status }, history: h });
	const live = (h) => run(id, h, h.at(-1).event_type === 'ExecutionCompleted' ? 'COMPLETED' : 'RUNNING');
	switch (scenario) {
	case 'follow-shrink':
		return live([activities(id, 3), activities(id, 5, { dup: 1 }), activities(id, 2)][k - 1] ?? activities(id, 6, { ended: true }));
	case 'follow-rewrite':
		return live([activities(id, 2), activities(id, 3, { failed: 1 })][k - 1] ?? activities(id, 4, { ended: true }));
	case 'follow-grow':
		return live(activities(id, 32 * k, { input: 48 << 10 }));
	case 'follow-flip':
		if (k % 2 === 0)
			return run('someone-else', activities('someone-else', 1, { ended: true }).map((e) => ({ ...e, name: e.name && 'Other' })), 'COMPLETED');
		return k >= 7 ? live(activities(id, 4, { ended: true })) : run(id, activities(id, (k + 1) / 2), k % 4 === 1 ? 'RUNNING' : 'PENDING');
	case 'follow-continue':
		if (k <= 2)
			return live(activities(id, k + 1, { dup: k === 2 ? 1 : -1 }));
		return live(activities(id, k - 2, { ended: k >= 4, execution: 'e2' }));
	case 'follow-shuffle':
		return live(shuffled(activities(id, k, { ended: k >= 6 }), 1234 + k));
	}
	return null;
}

function toolsPage(cursor) {
	const page = cursor ? Number(cursor.slice(1)) : 0;
	stats.listPages++;
	const tools = [];
	if (page === 0)
		tools.push(...TOOLS);
	const fat = scenario === 'tools-fat' ? 'd'.repeat(100 * 1024) : 'A dull tool.';
	for (let i = 0; i < perPage; i++)
		tools.push({ name: `filler_${page}_${i}`, description: fat, inputSchema: { type: 'object', properties: { x: { type: 'string' } } } });
	const result = { tools };
	if (page + 1 < maxPages)
		result.nextCursor = `p${page + 1}`;
	return result;
}

function pad(s) {
	return idBytes > s.length ? s + '-' + 'i'.repeat(idBytes - s.length - 1) : s;
}

// The run list for the run scenarios.
function runsPage(cursor) {
	stats.listPages++;
	const last = stats.listPages >= maxPages;
	if (scenario === 'runs-many' || scenario === 'runs-fat-ids') {
		const page = cursor ? Number(cursor.slice(1)) : 0;
		const runs = [];
		for (let i = 0; i < perPage; i++)
			runs.push({ instanceId: pad(`run-${page}-${i}`), status: 'COMPLETED' });
		return last ? { runs } : { runs, nextCursor: `p${page + 1}` };
	}
	if (scenario === 'runs-cycle') {
		const pages = { '': [['r1', 'r2'], 'B'], B: [['r3', 'r4'], 'C'], C: [['r5'], 'B'] };
		const [ids, next] = pages[cursor ?? ''];
		const runs = ids.map((id) => ({ instanceId: id, appId: 'orders', status: 'COMPLETED' }));
		return last ? { runs } : { runs, nextCursor: next };
	}
	// runs-dup: r1 twice on the first page, r2 again on the second, r1 and r3 on the third.
	const pages = { '': [['r1', 'r2', 'r1'], 'q2'], q2: [['r2', 'r3'], 'q3'], q3: [['r1', 'r4', 'r3'], null] };
	const [ids, next] = pages[cursor ?? ''];
	const runs = ids.map((id) => ({ instanceId: id, appId: 'orders', status: 'COMPLETED' }));
	return next ? { runs, nextCursor: next } : { runs };
}

function deepDoc() {
	return '['.repeat(3000) + ']'.repeat(3000);
}

// 20 GiB of `unit` repeated, as gzip of gzip: the inner stream is one raw
// deflate block of 64 MiB, ended by a full flush so that it stands alone,
// repeated 320 times between a gzip header and trailer (the trailer's
// checksum is wrong: a client finds out only after inflating it all).
function bomb(unit) {
	const block = zlib.deflateRawSync(Buffer.alloc(64 << 20, unit), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
	const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
	const end = Buffer.from([3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
	return zlib.gzipSync(Buffer.concat([header, ...Array(320).fill(block), end]), { level: 9 });
}
// Made before LISTENING: a few seconds the client's --timeout must not see.
const bombs = {};
if (scenario === 'gzip-sse')
	bombs[':\n'] = bomb(':\n');
else if (scenario.startsWith('gzip-'))
	bombs['\0'] = bomb('\0');
const bombOf = (unit) => bombs[unit];

async function getRun(msg, res) {
	const args = msg.params.arguments ?? {};
	if (scenario === 'other-run') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(reply(msg, toolResult({ run: { instanceId: 'someone-else', appId: args.appId }, history: history('someone-else') })));
		return;
	}
	if (scenario.startsWith('follow-')) {
		stats.runAsked = (stats.runAsked ?? 0) + 1;
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(reply(msg, followAnswer(args.instanceId, stats.runAsked)));
		return;
	}
	if (scenario === 'bad-utf8') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		const head = `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"structuredContent":{"x":"`;
		res.end(Buffer.concat([Buffer.from(head), Buffer.from([0x61, 0xff, 0x62]), Buffer.from('"}}}')]));
		return;
	}
	if (scenario === 'gzip-error') {
		res.writeHead(500, { 'Content-Type': 'text/plain', 'Content-Encoding': 'gzip, gzip' });
		res.end(bombOf('\0'));
		return;
	}
	if (scenario === 'gzip-sse') {
		res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Content-Encoding': 'gzip, gzip' });
		res.end(bombOf(':\n'));
		return;
	}
	if (scenario === 'deep') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"structuredContent":{"history":${deepDoc()}}}}`);
		return;
	}
	if (scenario === 'huge') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"structuredContent":{"x":"`);
		const chunk = 'x'.repeat(1 << 20);
		for (let i = 0; i < 17; i++)
			res.write(chunk);
		res.end('"}}}');
		return;
	}
	const answer = toolResult({ run: { instanceId: args.instanceId, appId: args.appId }, history: history(args.instanceId) });
	if (scenario !== 'server-requests') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(reply(msg, answer));
		return;
	}
	res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
	res.flushHeaders();
	const methods = ['sampling/createMessage', 'elicitation/create', 'roots/list', 'ping'];
	const answered = [];
	let text = '';
	for (let i = 0; i < nRequests; i++) {
		const id = `srv-${msg.id}-${i}`;
		answered.push(new Promise((r) => waiting.set(id, r)));
		text += `data: ${JSON.stringify({ jsonrpc: '2.0', id, method: methods[i % methods.length], params: {} })}\n\n`;
	}
	// All at once: one read on the client's side.
	res.write(text);
	await Promise.race([Promise.all(answered), sleep(120000)]);
	res.end(`data: ${reply(msg, answer)}\n\n`);
}

async function handle(msg, req, res) {
	stats.methods[msg.method] = (stats.methods[msg.method] ?? 0) + 1;
	if (msg.method === 'initialize') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(reply(msg, { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'hostile', version: '1' } }));
		return;
	}
	if (msg.method === 'tools/list') {
		const result = scenario.startsWith('tools-') ? toolsPage(msg.params?.cursor) : { tools: TOOLS };
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(reply(msg, result));
		return;
	}
	if (msg.method === 'tools/call') {
		const name = msg.params.name;
		stats.tools[name] = (stats.tools[name] ?? 0) + 1;
		stats.order.push(name);
		if (name === 'catalyst_list_workflow_runs') {
			const cursor = msg.params.arguments?.cursor;
			if (scenario === 'runs-dup' && cursor === 'q2') {
				secondPageAsked = true;
				if (getsInFlight > 0) {
					stats.overlap = true;
					releaseGets.splice(0).forEach((r) => r());
				} else {
					listsInFlight++;
					await holdUntil((r) => (releaseList = r));
					releaseList = null;
					listsInFlight--;
				}
			}
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(reply(msg, toolResult(runsPage(cursor))));
			return;
		}
		if (name === 'catalyst_get_workflow_run') {
			if (listsInFlight > 0) {
				stats.overlap = true;
				releaseList?.();
			} else if (scenario === 'runs-dup' && !secondPageAsked) {
				getsInFlight++;
				await holdUntil((r) => releaseGets.push(r));
				getsInFlight--;
			}
			return getRun(msg, res);
		}
	}
	res.writeHead(200, { 'Content-Type': 'application/json' });
	res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }));
}

const server = http.createServer((req, res) => {
	if (req.method === 'GET' && req.url === '/stats') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify(stats));
		return;
	}
	if (req.method !== 'POST') {
		res.writeHead(405);
		res.end();
		return;
	}
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', async () => {
		let msg;
		try {
			msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
		} catch {
			res.writeHead(400);
			res.end();
			return;
		}
		if (msg.method === undefined) {
			// An answer to one of our requests: held, then accepted.
			stats.answers++;
			await sleep(holdMs);
			waiting.get(msg.id)?.();
			waiting.delete(msg.id);
			res.writeHead(202);
			res.end();
			return;
		}
		if (msg.id === undefined) {
			if (scenario === 'gzip-drain') {
				res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip, gzip' });
				res.end(bombOf('\0'));
				return;
			}
			res.writeHead(202);
			res.end();
			return;
		}
		await handle(msg, req, res);
	});
});

server.listen(0, '127.0.0.1', () => {
	process.stdout.write(`LISTENING http://127.0.0.1:${server.address().port}/mcp\n`);
});
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'])
	process.on(sig, () => process.exit(0));
setTimeout(() => process.exit(0), 300000).unref();
