#!/usr/bin/env node
// A Catalyst MCP server simulator on the official MCP SDK, for tests, the
// demo and the benchmark.  Loopback only; bounded lifetime.  See README.md
// in this directory for every switch; `--help` prints them.

import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';

const SDK = new URL('../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Server } = await import(new URL('server/index.js', SDK));
const { StreamableHTTPServerTransport } = await import(new URL('server/streamableHttp.js', SDK));
const { ListToolsRequestSchema, CallToolRequestSchema } = await import(new URL('types.js', SDK));

const { buildWorld, mulberry32 } = await import('./catalyst-data.mjs');
const { Catalyst, toolList, REFUSAL_KINDS, TOOL_DEFS } = await import('./catalyst-tools.mjs');

const HELP = `usage: catalyst-sim.mjs [OPTIONS]

A simulated Catalyst MCP server (Streamable HTTP) on 127.0.0.1.
Prints "LISTENING http://127.0.0.1:PORT/mcp" on stdout when ready; logs to stderr.

Data and shape:
  --profile a|b              argument spellings and result envelopes (default a)
  --data-sharing metadata|full   organization data-sharing level (default metadata)
  --whoami-names-level       catalyst_whoami names the level (dataSharingLevel / data_sharing_level)
  --meta-names-level         every result carries _meta {"diagrid.io/dataSharingLevel": LEVEL}
  --result-envelope both|text|structured   override the profile's result envelope
  --events flat|graph|both   override where get_workflow_run puts the events
  --runs N                   add N generated runs (~200 events, some retried) to project "default"
  --runs-project NAME        put the generated runs in a new project NAME (uid 500) instead
  --fleet N                  add N small runs of FleetWorkflow (apps orders and billing, 20 days
                             before the fixtures' day) to the generated runs' project, plus N/2
                             runs 45 days older in which ArchiveOrder re-executes every time
  --reexecute NAME:RATE      repeatable: in the fleet, activity NAME re-executes after an ambiguous
                             failure in exactly floor(RATE*n) of its first n invocations per app
  --shift-now                move every timestamp so the newest run ended 10 minutes ago
  --max-page N               page sizes above N are refused as "unfilterable" (default 50)
  --list-children            the run list lists child runs too (each with its parent's id)
  --lenient-project          a project value it does not know is read as project "default",
                             whose answers (and uid) it gives instead of "not found"
  --live                     add runs whose history grows while read (run --follow): live-7001
                             runs to its end, live-7002 is purged after 4 events, live-7003
                             shows an event out of order; one more event every --live-step-ms
                             (default 300) from the first time a session asks for each
  --live-bulk N:SECONDS      and live-9000 (app onboarding): N events shown over SECONDS, then
                             running still (it never ends: a follow that lasts)
  --live-runs N              add N running runs (follow-0001 ... in app checkout) to the generated runs'
                             project (see --runs-project): each b's history, shown from its first 2
                             events one event more every --live-step-ms from the first time a session
                             asks for it (a listing asks for every run it filters), to its end (18
                             events); for runs --follow of many runs
  --finish-later             add order-7750 (started 30 h before the newest run, ended 1 h before it),
                             and order-7801 (running) completes when the run list is asked a second time
  --arg-errors rpc|iserror   invalid arguments as a JSON-RPC -32602 error (default) or as an
                             isError result with the message as plain text
  --not-found iserror|structured|text|rpc   how a missing project, run or app is said: an isError
                             result with {"error": {"kind": "NOT_FOUND", ...}} as JSON text (default)
                             or as structuredContent, an isError result with a plain sentence, or a
                             JSON-RPC error -32002
  --auto-envelope rpc|iserror|structured   envelope of automatic refusals (metadata export/logs,
                             unfilterable) (default iserror)
Refusals:
  --refuse KIND:ENVELOPE[:TOOL[:OPTS]]   repeatable; TOOL "*" or empty = any read tool;
                             OPTS comma-separated: retryable, first=N (only the first N matching
                             calls), minimal (only kind, message, retryable), match=STRING (only
                             calls whose arguments JSON contains STRING)
                             KIND: ${Object.keys(REFUSAL_KINDS).join(', ')}
                             ENVELOPE: rpc, iserror, structured
Recording:
  --record-writes FILE       append one JSON line per write-tool call
  --record-calls FILE        append one JSON line per tool call (any tool)
Transport:
  --port N                   listen port (default 0: any free port)
  --json                     answer POSTs with application/json (default: SSE streams)
  --stateless                no sessions (default: stateful, Mcp-Session-Id issued)
  --require-token TOKEN      answer 401 + WWW-Authenticate unless "Authorization: Bearer TOKEN"
Faults (tools/call requests only):
  --latency-ms N             add N ms to every tool call
  --fail-first N:KIND        the first N matching tool calls fail with KIND (repeatable, in order)
  --fail-nth N:KIND          the Nth matching tool call fails with KIND (repeatable)
  --fail-rate P              each matching tool call fails with probability P ...
  --fail-kinds K1,K2,...     ... with a kind picked from this list (default 503)
  --seed N                   seed of the fault and data generators (default 1)
  --fail-tool NAME           faults apply only to calls of this tool
  --fail-match STRING        faults apply only to calls whose arguments JSON contains STRING
  --slow-ms N                delay of the "slow" fault (default 30000)
  KIND: 500, 503 (with Retry-After: 1), reset (connection dropped mid-body), truncate (body
        cut, then a clean end), expire (404 to the session: re-initialize; stateful only),
        slow (answer after --slow-ms), unfilterable (tool-layer refusal)
Lifetime:
  --max-seconds N            exit by itself after N seconds (default 600)
  --help
Many simulators in one process (for test binaries that start dozens):
  --hub                      serve no project; POST /hub/instances {"args": [OPTIONS...]} makes a
                             simulator with those options at http://127.0.0.1:PORT/i/N/mcp (answer
                             {"url": ...}), DELETE /hub/instances/N stops it; only --port and
                             --max-seconds apply to the hub itself, and it exits when its parent does
`;

const FAULT_KINDS = ['500', '503', 'reset', 'truncate', 'expire', 'slow', 'unfilterable'];

// A bad option: the command line prints it and exits 2, the hub answers 400.
class OptionError extends Error {}
function die(msg) {
	throw new OptionError(msg);
}

function parseArgs(argv) {
	const cfg = {
		profile: 'a', dataSharing: 'metadata', whoamiNamesLevel: false, metaNamesLevel: false,
		resultEnvelope: null, eventsMode: null, runs: 0, fleet: 0, reexecute: {}, runsProject: 'default', shiftNow: false, maxPage: 50, listChildren: false, finishLater: false, autoEnvelope: 'iserror', argErrors: 'rpc', notFound: 'iserror',
		refuse: [], recordWrites: null, recordCalls: null, port: 0, json: false, stateless: false,
		requireToken: null, latencyMs: 0, failFirst: [], failRate: 0, failKinds: ['503'], seed: 1,
		failTool: null, failMatch: null, slowMs: 30000, maxSeconds: 600, hub: false, failNth: [],
		live: false, liveStepMs: 300, liveBulk: 0, liveBulkSeconds: 1800, liveRuns: 0,
	};
	const num = (name, v) => {
		const n = Number(v);
		if (v === undefined || !Number.isFinite(n) || n < 0)
			die(`${name} needs a non-negative number`);
		return n;
	};
	const oneOf = (name, v, list) => {
		if (!list.includes(v))
			die(`${name} must be one of ${list.join(', ')}`);
		return v;
	};
	for (let i = 0; i < argv.length; i++) {
		let arg = argv[i];
		let val;
		const eq = arg.indexOf('=');
		if (arg.startsWith('--') && eq > 0) {
			val = arg.slice(eq + 1);
			arg = arg.slice(0, eq);
		}
		const next = () => (val !== undefined ? val : argv[++i]);
		switch (arg) {
		case '--help': case '-h': process.stdout.write(HELP); process.exit(0); break;
		case '--hub': cfg.hub = true; break;
		case '--profile': cfg.profile = oneOf(arg, next(), ['a', 'b']); break;
		case '--data-sharing': cfg.dataSharing = oneOf(arg, next(), ['metadata', 'full']); break;
		case '--whoami-names-level': cfg.whoamiNamesLevel = true; break;
		case '--meta-names-level': cfg.metaNamesLevel = true; break;
		case '--result-envelope': cfg.resultEnvelope = oneOf(arg, next(), ['both', 'text', 'structured']); break;
		case '--events': cfg.eventsMode = oneOf(arg, next(), ['flat', 'graph', 'both']); break;
		case '--runs': cfg.runs = Math.floor(num(arg, next())); break;
		case '--fleet': cfg.fleet = Math.floor(num(arg, next())); break;
		case '--reexecute': {
			const m = /^([^:]+):([0-9.]+)$/.exec(next() ?? '');
			if (!m || Number(m[2]) > 1)
				die('--reexecute needs NAME:RATE with RATE from 0 to 1');
			cfg.reexecute[m[1]] = Number(m[2]);
			break;
		}
		case '--runs-project':
			cfg.runsProject = next();
			if (!cfg.runsProject || ['payments', '42', 'sandbox'].includes(cfg.runsProject))
				die('--runs-project needs a new project name (or default)');
			break;
		case '--shift-now': cfg.shiftNow = true; break;
		case '--list-children': cfg.listChildren = true; break;
		case '--hostile-names': cfg.hostileNames = true; break;
		case '--lenient-project': cfg.lenientProject = true; break;
		case '--finish-later': cfg.finishLater = true; break;
		case '--max-page': cfg.maxPage = Math.floor(num(arg, next())); break;
		case '--arg-errors': cfg.argErrors = oneOf(arg, next(), ['rpc', 'iserror']); break;
		case '--not-found': cfg.notFound = oneOf(arg, next(), ['iserror', 'structured', 'text', 'rpc']); break;
		case '--auto-envelope': cfg.autoEnvelope = oneOf(arg, next(), ['rpc', 'iserror', 'structured']); break;
		case '--refuse': {
			const v = next() ?? '';
			const [kind, envelope, tool, ...rest] = v.split(':');
			const opts = rest.join(':');
			if (!REFUSAL_KINDS[kind])
				die(`--refuse: unknown kind '${kind}'`);
			oneOf('--refuse envelope', envelope, ['rpc', 'iserror', 'structured']);
			if (tool && tool !== '*' && !TOOL_DEFS.some((t) => t.name === tool))
				die(`--refuse: unknown tool '${tool}'`);
			const rule = { kind, envelope, tool: tool || '*', retryable: false, minimal: false };
			for (const o of (opts ?? '').split(',').filter(Boolean)) {
				if (o === 'retryable') rule.retryable = true;
				else if (o === 'minimal') rule.minimal = true;
				else if (o.startsWith('first=')) rule.first = Math.floor(num('first=', o.slice(6)));
				else if (o.startsWith('match=') && o.length > 6) rule.match = o.slice(6);
				else die(`--refuse: unknown option '${o}'`);
			}
			cfg.refuse.push(rule);
			break;
		}
		case '--record-writes': cfg.recordWrites = next(); break;
		case '--record-calls': cfg.recordCalls = next(); break;
		case '--port': cfg.port = Math.floor(num(arg, next())); break;
		case '--json': cfg.json = true; break;
		case '--stateless': cfg.stateless = true; break;
		case '--require-token': cfg.requireToken = next(); break;
		case '--latency-ms': cfg.latencyMs = num(arg, next()); break;
		case '--fail-first': {
			const [n, kind] = (next() ?? '').split(':');
			cfg.failFirst.push({ n: Math.floor(num('--fail-first', n)), kind: oneOf('--fail-first kind', kind, FAULT_KINDS) });
			break;
		}
		case '--fail-nth': {
			const [n, kind] = (next() ?? '').split(':');
			cfg.failNth.push({ n: Math.floor(num('--fail-nth', n)), kind: oneOf('--fail-nth kind', kind, FAULT_KINDS) });
			break;
		}
		case '--live': cfg.live = true; break;
		case '--live-step-ms': cfg.liveStepMs = num(arg, next()); break;
		case '--live-runs': cfg.liveRuns = Math.floor(num(arg, next())); break;
		case '--live-bulk': {
			const [n, secs] = (next() ?? '').split(':');
			cfg.live = true;
			cfg.liveBulk = Math.floor(num('--live-bulk', n));
			cfg.liveBulkSeconds = num('--live-bulk seconds', secs ?? '1800');
			break;
		}
		case '--fail-rate': cfg.failRate = num(arg, next()); break;
		case '--fail-kinds':
			cfg.failKinds = (next() ?? '').split(',').filter(Boolean).map((k) => oneOf('--fail-kinds', k, FAULT_KINDS));
			break;
		case '--seed': cfg.seed = Math.floor(num(arg, next())); break;
		case '--fail-tool': cfg.failTool = next(); break;
		case '--fail-match': cfg.failMatch = next(); break;
		case '--slow-ms': cfg.slowMs = num(arg, next()); break;
		case '--max-seconds': cfg.maxSeconds = num(arg, next()); break;
		default: die(`unknown option '${arg}' (see --help)`);
		}
	}
	return cfg;
}

const log = (msg) => process.stderr.write(`catalyst-sim: ${msg}\n`);

// --- pure helpers --------------------------------------------------------------

function toolCallsIn(body) {
	const msgs = Array.isArray(body) ? body : [body];
	return msgs.filter((m) => m && m.method === 'tools/call');
}

// Cut the response body after half of its first non-empty chunk.  `reset`
// destroys the socket (the peer sees a short body and a dropped
// connection); `truncate` ends the response cleanly (chunked) so only the
// content is broken: a half SSE event or half a JSON document.
function cutResponse(res, kind) {
	const origWriteHead = res.writeHead.bind(res);
	const origWrite = res.write.bind(res);
	const origEnd = res.end.bind(res);
	let done = false;
	if (kind === 'truncate') {
		res.writeHead = (status, ...rest) => {
			const h = rest[rest.length - 1];
			if (h && typeof h === 'object' && !Array.isArray(h)) {
				for (const k of Object.keys(h))
					if (k.toLowerCase() === 'content-length')
						delete h[k];
			} else if (Array.isArray(h)) {
				const flat = Array.isArray(h[0]) ? h : null;
				if (flat)
					rest[rest.length - 1] = h.filter(([k]) => String(k).toLowerCase() !== 'content-length');
			}
			res.removeHeader('content-length');
			return origWriteHead(status, ...rest);
		};
	}
	const cut = (chunk, encoding) => {
		if (done)
			return true;
		if (chunk === undefined || chunk === null || chunk.length === 0)
			return true;
		done = true;
		const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8');
		const part = buf.subarray(0, Math.max(1, Math.floor(buf.length / 2)));
		if (kind === 'reset') {
			origWrite(part, () => res.socket?.destroy());
		} else {
			origWrite(part);
			origEnd();
		}
		return true;
	};
	res.write = (chunk, encoding, cb) => {
		cut(chunk, encoding);
		if (typeof cb === 'function')
			process.nextTick(cb);
		else if (typeof encoding === 'function')
			process.nextTick(encoding);
		return true;
	};
	res.end = (chunk, encoding, cb) => {
		if (chunk && typeof chunk !== 'function')
			cut(chunk, encoding);
		else if (!done) {
			// Nothing was written at all: treat the end itself as the cut point.
			done = true;
			if (kind === 'reset')
				res.socket?.destroy();
			else
				origEnd();
		}
		const f = [chunk, encoding, cb].find((x) => typeof x === 'function');
		if (f)
			process.nextTick(f);
		return res;
	};
}

function jsonError(res, status, code, message, headers = {}) {
	res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
	res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

function readBody(req, limit = 8 * 1024 * 1024) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		let size = 0;
		req.on('data', (c) => {
			size += c.length;
			if (size > limit) {
				reject(new Error('body too large'));
				req.destroy();
				return;
			}
			chunks.push(c);
		});
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

// --- one simulator: a world, its tools, its faults and its sessions -----------

const MAX_SESSIONS = 2000;

function createSimulator(cfg, baseUrl) {
	const world = buildWorld({ extraRuns: cfg.runs, seed: cfg.seed, shiftNow: cfg.shiftNow, runsProject: cfg.runsProject,
				   fleet: cfg.fleet, reexecute: cfg.reexecute, finishLater: cfg.finishLater,
				   live: cfg.live && { stepMs: cfg.liveStepMs, bulk: cfg.liveBulk, bulkSeconds: cfg.liveBulkSeconds },
				   liveRuns: cfg.liveRuns && { n: cfg.liveRuns, stepMs: cfg.liveStepMs } });
	if (cfg.hostileNames) {
		// Names a shell must take as text (tests/test_complete.c): command
		// substitutions, a separator, a newline and a terminal escape.
		for (const [i, name] of ['$(touch pwned-1)', '`touch pwned-2`', 'a;touch pwned-3', "it's",
					 'two\nlines', 'esc\u001b[2Jape'].entries())
			world.projects.push({ name, uid: 900 + i, displayName: 'Hostile', region: 'us-east-1', runs: [],
					      workflowStore: false });
	}
	const catalyst = new Catalyst(cfg, world);
	const tools = toolList(cfg.profile);
	const faultRng = mulberry32(cfg.seed ^ 0x5eed);
	const faultStats = {};
	let faultSeq = 0;
	const sessions = new Map(); // id -> { transport, server }

	if ((cfg.failFirst.some((f) => f.kind === 'expire') || (cfg.failRate > 0 && cfg.failKinds.includes('expire'))) &&
	    cfg.stateless)
		log('warning: the expire fault needs sessions; it does nothing with --stateless');

	function makeServer() {
		const server = new Server({ name: 'catalyst-sim', version: '0.1.0' },
			{ capabilities: { tools: { listChanged: false } } });
		server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
		server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
			const forced = req.params?._meta?.['catalyst-sim/fault'];
			return catalyst.call(req.params.name, req.params.arguments, { sessionId: extra.sessionId, forced });
		});
		return server;
	}

	function pickFault(calls) {
		const matching = calls.some((m) => (!cfg.failTool || m.params?.name === cfg.failTool) &&
			(!cfg.failMatch || JSON.stringify(m.params?.arguments ?? {}).includes(cfg.failMatch)));
		if (!matching)
			return null;
		const n = ++faultSeq;
		const nth = cfg.failNth.find((f) => f.n === n);
		if (nth)
			return nth.kind;
		let acc = 0;
		for (const f of cfg.failFirst) {
			acc += f.n;
			if (n <= acc)
				return f.kind;
		}
		if (cfg.failRate > 0 && faultRng() < cfg.failRate)
			return cfg.failKinds[Math.floor(faultRng() * cfg.failKinds.length)];
		return null;
	}

	async function closeSession(id) {
		const s = sessions.get(id);
		if (!s)
			return;
		sessions.delete(id);
		try {
			await s.transport.close();
			await s.server.close();
		} catch {
			/* already closed */
		}
	}

	async function handleMcp(req, res, body) {
		const sid = req.headers['mcp-session-id'];
		if (cfg.stateless) {
			if (req.method !== 'POST') {
				res.writeHead(405, { Allow: 'POST' }).end();
				return;
			}
			const server = makeServer();
			const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: cfg.json });
			res.on('close', () => {
				transport.close().catch(() => {});
				server.close().catch(() => {});
			});
			await server.connect(transport);
			await transport.handleRequest(req, res, body);
			return;
		}
		if (sid) {
			const s = sessions.get(sid);
			if (!s) {
				jsonError(res, 404, -32001, 'Session not found');
				return;
			}
			await s.transport.handleRequest(req, res, body);
			return;
		}
		const msgs = Array.isArray(body) ? body : [body];
		if (req.method !== 'POST' || !msgs.some((m) => m && m.method === 'initialize')) {
			jsonError(res, 400, -32000, 'Bad Request: No valid session ID provided');
			return;
		}
		const server = makeServer();
		const transport = new StreamableHTTPServerTransport({
			sessionIdGenerator: () => randomUUID(),
			enableJsonResponse: cfg.json,
			onsessioninitialized: (id) => {
				sessions.set(id, { transport, server });
				if (sessions.size > MAX_SESSIONS)
					closeSession(sessions.keys().next().value);
			},
		});
		transport.onclose = () => {
			if (transport.sessionId)
				sessions.delete(transport.sessionId);
		};
		await server.connect(transport);
		await transport.handleRequest(req, res, body);
	}

	async function onRequest(req, res) {
		const url = new URL(req.url, 'http://127.0.0.1');
		if (url.pathname === '/.well-known/oauth-protected-resource' || url.pathname === '/.well-known/oauth-protected-resource/mcp') {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			res.end(JSON.stringify({ resource: baseUrl, authorization_servers: [], scopes_supported: ['catalyst:read', 'catalyst:write', 'offline_access'],
						 bearer_methods_supported: ['header'] }));
			return;
		}
		if (url.pathname !== '/mcp') {
			res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
			return;
		}
		if (cfg.requireToken !== null && req.headers.authorization !== `Bearer ${cfg.requireToken}`) {
			const origin = baseUrl.replace(/\/mcp$/, '');
			res.writeHead(401, { 'WWW-Authenticate': `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
					     'Content-Type': 'application/json' });
			res.end(JSON.stringify({ error: 'invalid_token', error_description: 'missing or invalid bearer token' }));
			return;
		}
		let body;
		if (req.method === 'POST') {
			let raw;
			try {
				raw = await readBody(req);
				body = JSON.parse(raw);
			} catch {
				jsonError(res, 400, -32700, 'Parse error');
				return;
			}
			const calls = toolCallsIn(body);
			const fault = calls.length ? pickFault(calls) : null;
			if (fault) {
				faultStats[fault] = (faultStats[fault] ?? 0) + 1;
				log(`fault ${fault} on tools/call ${calls.map((c) => c.params?.name).join(',')} (faulted call ${faultSeq})`);
				switch (fault) {
				case '500':
				case '503':
					res.writeHead(Number(fault), { 'Retry-After': '1', 'Content-Type': 'text/plain' });
					res.end(fault === '503' ? 'upstream unavailable\n' : 'internal server error\n');
					return;
				case 'expire': {
					const sid = req.headers['mcp-session-id'];
					if (sid && !cfg.stateless) {
						await closeSession(sid);
						jsonError(res, 404, -32001, 'Session not found');
						return;
					}
					break;
				}
				case 'slow': {
					let gone = false;
					res.on('close', () => { gone = true; });
					await new Promise((resolve) => {
						const t = setTimeout(resolve, cfg.slowMs);
						res.on('close', () => { clearTimeout(t); resolve(); });
					});
					if (gone)
						return;
					break;
				}
				case 'reset':
				case 'truncate':
					cutResponse(res, fault);
					break;
				case 'unfilterable':
					for (const c of calls) {
						c.params._meta = { ...(c.params._meta ?? {}), 'catalyst-sim/fault': 'unfilterable' };
					}
					break;
				default:
					break;
				}
			}
		}
		await handleMcp(req, res, body);
	}

	function summary() {
		const runCount = world.projects.reduce((n, p) => n + p.runs.length, 0);
		return `profile=${cfg.profile} data-sharing=${cfg.dataSharing} ${cfg.stateless ? 'stateless' : 'stateful'} ` +
		       `${cfg.json ? 'json' : 'sse'} tools=${tools.length} runs=${runCount} refusals=${cfg.refuse.length}`;
	}

	function stats() {
		const st = catalyst.stats;
		return `stats calls=${st.calls} writes=${st.writes} refusals=${st.refusals} faults=${JSON.stringify(faultStats)} ` +
		       `by_tool=${JSON.stringify(st.byTool)}`;
	}

	async function close() {
		for (const id of [...sessions.keys()])
			await closeSession(id);
	}

	if (cfg.recordWrites)
		appendFileSync(cfg.recordWrites, '');
	return { onRequest, summary, stats, close };
}

// --- the hub: many simulators behind one port -----------------------------------

const MAX_HUB_INSTANCES = 10000; // made over the hub's life
const MAX_HUB_LIVE = 200;

function createHub(origin) {
	const live = new Map(); // n -> simulator
	let made = 0;

	async function control(req, res, path) {
		if (req.method === 'POST' && path === '/hub/instances') {
			let args;
			try {
				args = JSON.parse(await readBody(req, 64 * 1024)).args;
				if (!Array.isArray(args) || !args.every((a) => typeof a === 'string'))
					throw new OptionError('the body is {"args": [strings]}');
				if (made >= MAX_HUB_INSTANCES || live.size >= MAX_HUB_LIVE)
					throw new OptionError('too many simulators');
				const cfg = parseArgs(args);
				if (cfg.hub)
					throw new OptionError('--hub inside the hub');
				const n = ++made;
				const url = `${origin}/i/${n}/mcp`;
				const sim = createSimulator(cfg, url);
				live.set(n, sim);
				log(`#${n} ${sim.summary()}`);
				res.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify({ url }));
			} catch (err) {
				res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: String(err.message ?? err) }));
			}
			return;
		}
		const m = /^\/hub\/instances\/(\d+)$/.exec(path);
		if (req.method === 'DELETE' && m && live.has(Number(m[1]))) {
			const sim = live.get(Number(m[1]));
			live.delete(Number(m[1]));
			log(`#${m[1]} ${sim.stats()}`);
			await sim.close();
			res.writeHead(204).end();
			return;
		}
		res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
	}

	async function onRequest(req, res) {
		const url = new URL(req.url, 'http://127.0.0.1');
		if (url.pathname.startsWith('/hub/')) {
			await control(req, res, url.pathname);
			return;
		}
		// /i/N/REST, and RFC 9728's /.well-known/oauth-protected-resource/i/N/mcp
		const wk = '/.well-known/oauth-protected-resource';
		const prefix = url.pathname.startsWith(wk + '/') ? wk : '';
		const m = /^\/i\/(\d+)(\/.*)$/.exec(url.pathname.slice(prefix.length));
		const sim = m && live.get(Number(m[1]));
		if (!sim) {
			res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found\n');
			return;
		}
		req.url = prefix + m[2] + url.search;
		await sim.onRequest(req, res);
	}

	function stats() {
		for (const [n, sim] of live)
			log(`#${n} ${sim.stats()}`);
	}
	return { onRequest, stats };
}

// --- the process ---------------------------------------------------------------------

let cfg;
try {
	cfg = parseArgs(process.argv.slice(2));
} catch (err) {
	if (!(err instanceof OptionError))
		throw err;
	log(err.message);
	process.exit(2);
}

let handler = null; // the simulator, or the hub, once the port is known
const sockets = new Set();
const httpServer = http.createServer((req, res) => {
	handler.onRequest(req, res).catch((err) => {
		log(`request failed: ${err?.stack ?? err}`);
		if (!res.headersSent)
			jsonError(res, 500, -32603, 'Internal error');
		else
			res.destroy();
	});
});
httpServer.on('connection', (s) => {
	sockets.add(s);
	s.on('close', () => sockets.delete(s));
});

let stopping = false;
function stop(why, code = 0) {
	if (stopping)
		return;
	stopping = true;
	log(`stopping (${why})`);
	if (handler && cfg.hub)
		handler.stats();
	else if (handler)
		log(handler.stats());
	httpServer.close();
	for (const s of sockets)
		s.destroy();
	process.exit(code);
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGHUP', () => stop('SIGHUP'));
// The parent's pipe closing means nobody is listening any more.
process.stdout.on('error', () => stop('stdout closed'));
setTimeout(() => stop(`--max-seconds ${cfg.maxSeconds} elapsed`), cfg.maxSeconds * 1000);
if (cfg.hub) {
	// A test binary killed outright leaves no one to stop the hub: it
	// notices that its parent is gone.
	const parent = process.ppid;
	setInterval(() => {
		if (process.ppid !== parent)
			stop('parent gone');
	}, 1000).unref();
}

httpServer.listen(cfg.port, '127.0.0.1', () => {
	const { port } = httpServer.address();
	const origin = `http://127.0.0.1:${port}`;
	if (cfg.hub) {
		handler = createHub(origin);
		log(`hub max-seconds=${cfg.maxSeconds}`);
		process.stdout.write(`LISTENING ${origin}/hub/instances\n`);
		return;
	}
	handler = createSimulator(cfg, `${origin}/mcp`);
	log(`${handler.summary()} max-seconds=${cfg.maxSeconds}`);
	process.stdout.write(`LISTENING ${origin}/mcp\n`);
});
