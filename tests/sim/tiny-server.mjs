// A tiny MCP server built with the official TypeScript SDK (McpServer +
// StreamableHTTPServerTransport), for the interop tests. Listens on
// 127.0.0.1, port 0, and prints `LISTENING http://127.0.0.1:PORT/mcp` on
// stdout when ready; everything else goes to stderr.
//
//   node tiny-server.mjs [--mode json|sse|stateless] [--page-size N]
//                        [--filler N] [--require-token TOKEN]
//
//   json       stateful sessions, answers as application/json (enableJsonResponse)
//   sse        stateful sessions, answers as SSE streams with event ids (default)
//   stateless  no sessions (sessionIdGenerator undefined), a new server per request
//
// tools/list is paged (--page-size, default 7) so every mode exercises
// nextCursor; --filler adds N dull tools (default 20) to make the pages.

import http from 'node:http';
import { randomUUID } from 'node:crypto';

import { McpServer } from '../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js';
import { StreamableHTTPServerTransport } from '../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js';
import {
	ListToolsRequestSchema,
	EmptyResultSchema,
	ElicitResultSchema,
	CreateMessageResultSchema,
	ListRootsResultSchema,
	McpError,
} from '../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/types.js';
import * as z from '../npm/node_modules/zod/index.js';

function option(name, fallback) {
	const i = process.argv.indexOf(`--${name}`);
	if (i >= 0 && i + 1 < process.argv.length)
		return process.argv[i + 1];
	const env = process.env[`TINY_${name.toUpperCase().replace(/-/g, '_')}`];
	return env ?? fallback;
}

const mode = option('mode', 'sse');
const pageSize = Number(option('page-size', '7'));
const filler = Number(option('filler', '20'));
const requiredToken = option('require-token', '');
if (!['json', 'sse', 'stateless'].includes(mode)) {
	console.error(`tiny-server: unknown mode ${mode}`);
	process.exit(2);
}
const log = (...a) => console.error('tiny-server:', ...a);

// What a server request came back with, in words a test can assert on.
async function ask(extra, request, schema) {
	try {
		const r = await extra.sendRequest(request, schema, { timeout: 5000 });
		return { ok: r };
	} catch (err) {
		return { error: err instanceof McpError ? err.code : String(err.message ?? err) };
	}
}

function buildServer() {
	const server = new McpServer({ name: 'tiny-server', version: '1.2.3' }, { capabilities: { logging: {} } });

	server.registerTool('echo', {
		description: 'Echoes the message back.\nSecond line that a listing does not show.',
		inputSchema: { message: z.string().describe('what to echo'), times: z.number().int().optional() },
	}, async ({ message, times }) => ({
		content: [{ type: 'text', text: message.repeat(times ?? 1) }],
	}));

	server.registerTool('add', {
		description: 'Adds two numbers; the sum comes as structuredContent and as JSON text.',
		inputSchema: { a: z.number(), b: z.number() },
		outputSchema: { sum: z.number() },
	}, async ({ a, b }) => ({
		structuredContent: { sum: a + b },
		content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }],
	}));

	server.registerTool('fail', {
		description: 'Always fails, as a tool result with isError.',
		inputSchema: {},
	}, async () => ({
		isError: true,
		content: [{ type: 'text', text: JSON.stringify({ error: { kind: 'ORG_MISMATCH', retryable: false } }) }],
	}));

	// Control characters in server text: a listing must show them escaped.
	server.registerTool('evil', {
		description: 'Paints \u001b[31mred\u001b[0m and rings \u0007 the bell',
		inputSchema: { ['na\u001bme']: z.string().optional() },
	}, async () => ({ content: [{ type: 'text', text: 'ok' }] }));

	// Everything a server may do to a client while a call is in flight:
	// progress, a log line, a ping, and requests for capabilities the client
	// did not offer. Only over SSE can it reach the client mid-call.
	server.registerTool('chatty', {
		description: 'Sends progress, a log message, a ping and unanswerable requests before answering.',
		inputSchema: {},
	}, async (_args, extra) => {
		const token = extra._meta?.progressToken;
		if (token !== undefined)
			await extra.sendNotification({ method: 'notifications/progress',
				params: { progressToken: token, progress: 1, total: 2, message: 'halfway' } });
		await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: 'chatty' } });
		await extra.sendNotification({ method: 'notifications/made_up', params: {} });
		const ping = await ask(extra, { method: 'ping' }, EmptyResultSchema);
		const elicit = await ask(extra, { method: 'elicitation/create',
			params: { message: 'name?', requestedSchema: { type: 'object', properties: {} } } }, ElicitResultSchema);
		const sample = await ask(extra, { method: 'sampling/createMessage',
			params: { messages: [], maxTokens: 1 } }, CreateMessageResultSchema);
		const roots = await ask(extra, { method: 'roots/list' }, ListRootsResultSchema);
		if (token !== undefined)
			await extra.sendNotification({ method: 'notifications/progress',
				params: { progressToken: token, progress: 2, total: 2 } });
		const answer = { ping, elicitation: elicit, sampling: sample, roots };
		return { structuredContent: answer, content: [{ type: 'text', text: JSON.stringify(answer) }] };
	});

	// The server "restarts": it forgets this session once the answer is
	// out, so the client's next request meets a 404 and must re-initialize.
	server.registerTool('forget', {
		description: 'Forgets the calling session (the next request gets HTTP 404).',
		inputSchema: {},
	}, async (_args, extra) => {
		sessions.delete(extra.sessionId);
		return { content: [{ type: 'text', text: `forgetting ${extra.sessionId}` }] };
	});

	for (let i = 1; i <= filler; i++) {
		const name = `filler-${String(i).padStart(2, '0')}`;
		server.registerTool(name, { description: `Filler tool ${i}.`, inputSchema: { n: z.number().optional() } },
			async () => ({ content: [{ type: 'text', text: name }] }));
	}

	// Paging: McpServer answers tools/list in one page, so wrap its handler
	// (the SDK keeps it in a private map; no public accessor exists).
	if (pageSize > 0) {
		const whole = server.server._requestHandlers.get('tools/list');
		server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
			const all = (await whole(request, extra)).tools;
			const cursor = request.params?.cursor;
			const start = cursor === undefined ? 0 : Number(Buffer.from(cursor, 'base64url').toString());
			if (!Number.isInteger(start) || start < 0 || start > all.length)
				throw new McpError(-32602, `bad cursor ${cursor}`);
			const page = { tools: all.slice(start, start + pageSize) };
			if (start + pageSize < all.length)
				page.nextCursor = Buffer.from(String(start + pageSize)).toString('base64url');
			return page;
		});
	}
	return server;
}

const sessions = new Map();

async function handle(req, res, body) {
	if (mode === 'stateless') {
		const server = buildServer();
		const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
		res.on('close', () => { transport.close(); server.close(); });
		await server.connect(transport);
		await transport.handleRequest(req, res, body);
		return;
	}
	const sid = req.headers['mcp-session-id'];
	if (sid) {
		const transport = sessions.get(sid);
		if (!transport) {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
			return;
		}
		await transport.handleRequest(req, res, body);
		return;
	}
	if (req.method !== 'POST' || body?.method !== 'initialize') {
		res.writeHead(400, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No session' } }));
		return;
	}
	const server = buildServer();
	const events = [];
	const transport = new StreamableHTTPServerTransport({
		sessionIdGenerator: () => randomUUID(),
		enableJsonResponse: mode === 'json',
		// Event ids on SSE, so a client can resume.
		eventStore: mode === 'sse' ? {
			async storeEvent(streamId, message) {
				const id = `${streamId}_${events.length}`;
				events.push({ id, streamId, message });
				return id;
			},
			async replayEventsAfter(lastId, { send }) {
				const at = events.findIndex((e) => e.id === lastId);
				if (at < 0)
					return lastId;
				const streamId = events[at].streamId;
				for (const e of events.slice(at + 1))
					if (e.streamId === streamId)
						await send(e.id, e.message);
				return streamId;
			},
		} : undefined,
		onsessioninitialized: (id) => { sessions.set(id, transport); log(`session ${id} (${mode})`); },
	});
	transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
	await server.connect(transport);
	await transport.handleRequest(req, res, body);
}

const httpServer = http.createServer((req, res) => {
	const url = new URL(req.url, 'http://127.0.0.1');
	if (url.pathname !== '/mcp') {
		res.writeHead(404).end();
		return;
	}
	if (requiredToken && req.headers.authorization !== `Bearer ${requiredToken}`) {
		res.writeHead(401, { 'www-authenticate': 'Bearer realm="tiny"' }).end();
		return;
	}
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', () => {
		let body;
		if (chunks.length) {
			try {
				body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
			} catch {
				res.writeHead(400, { 'content-type': 'application/json' });
				res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
				return;
			}
		}
		handle(req, res, body).catch((err) => {
			log('error', err);
			if (!res.headersSent)
				res.writeHead(500).end();
		});
	});
});

httpServer.listen(0, '127.0.0.1', () => {
	const { port } = httpServer.address();
	console.log(`LISTENING http://127.0.0.1:${port}/mcp`);
	log(`mode ${mode}, page size ${pageSize}, ${filler} filler tools`);
});

for (const sig of ['SIGTERM', 'SIGINT'])
	process.on(sig, () => {
		httpServer.closeAllConnections?.();
		httpServer.close(() => process.exit(0));
		setTimeout(() => process.exit(0), 500).unref();
	});
