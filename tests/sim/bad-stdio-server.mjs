// An MCP server on stdio that misbehaves on purpose, one way per mode, so
// the tests can check that each misbehaviour gives a clear error (exit 5)
// or is survived, and never a crash or a hang.
//
//   node bad-stdio-server.mjs MODE
//
//   notjson      answers initialize with a line that is not JSON
//   nested       ... with 100000 nested arrays
//   badutf8      ... with invalid UTF-8 inside a string
//   hugegarbage  ... with a 10 MB line that is not JSON
//   huge         ... correctly, with 10 MB of instructions (must work)
//   wrongid      ... with a response to an id never sent, then exits
//   strayid      ... with a response to an id never sent, then the right one
//   asks         sends ping, elicitation/create, sampling/createMessage and
//                roots/list before answering, and checks each answer
//   version      offers protocol version 2024-11-05

import readline from 'node:readline';

const mode = process.argv[2] ?? 'none';
const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
const raw = (text) => process.stdout.write(text + '\n');
const fail = (why) => { console.error(`bad-stdio-server: ${why}`); process.exit(9); };

const rl = readline.createInterface({ input: process.stdin });
const pending = new Map(); // our request id -> resolver
let asked = 0;

function ask(method, params) {
	const id = `srv-${++asked}`;
	out({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
	return new Promise((resolve) => pending.set(id, resolve));
}

async function initialize(msg) {
	const result = {
		protocolVersion: mode === 'version' ? '2024-11-05' : '2025-06-18',
		capabilities: { tools: {} },
		serverInfo: { name: 'bad-stdio-server', version: '0' },
	};
	switch (mode) {
	case 'notjson':
		return raw('this is not json');
	case 'nested':
		return raw(`{"jsonrpc":"2.0","id":${msg.id},"result":${'['.repeat(100000)}${']'.repeat(100000)}}`);
	case 'badutf8':
		process.stdout.write(Buffer.concat([
			Buffer.from(`{"jsonrpc":"2.0","id":${msg.id},"result":{"protocolVersion":"2025-06-18","x":"`),
			Buffer.from([0xff, 0xfe, 0xc3]),
			Buffer.from('"}}\n'),
		]));
		return;
	case 'hugegarbage':
		return raw('x'.repeat(10 << 20));
	case 'huge':
		return out({ jsonrpc: '2.0', id: msg.id, result: { ...result, instructions: 'i'.repeat(10 << 20) } });
	case 'wrongid':
		out({ jsonrpc: '2.0', id: 987654, result });
		setTimeout(() => process.exit(0), 100);
		return;
	case 'strayid':
		out({ jsonrpc: '2.0', id: 987654, result });
		return out({ jsonrpc: '2.0', id: msg.id, result });
	case 'asks': {
		const pong = await ask('ping');
		if (!pong.result || Object.keys(pong.result).length !== 0)
			fail(`ping answered with ${JSON.stringify(pong)}`);
		for (const method of ['elicitation/create', 'sampling/createMessage', 'roots/list']) {
			const answer = await ask(method, {});
			if (answer.error?.code !== -32601)
				fail(`${method} answered with ${JSON.stringify(answer)}`);
		}
		console.error('bad-stdio-server: every request was answered as expected');
		return out({ jsonrpc: '2.0', id: msg.id, result });
	}
	default:
		return out({ jsonrpc: '2.0', id: msg.id, result });
	}
}

rl.on('line', (line) => {
	let msg;
	try {
		msg = JSON.parse(line);
	} catch {
		fail(`client sent non-JSON: ${line.slice(0, 200)}`);
	}
	if (msg.method === undefined && pending.has(msg.id)) {
		const resolve = pending.get(msg.id);
		pending.delete(msg.id);
		return resolve(msg);
	}
	if (msg.method === 'initialize')
		return void initialize(msg);
	if (msg.method === 'tools/list')
		return out({ jsonrpc: '2.0', id: msg.id, result: { tools: [{ name: 'only', inputSchema: { type: 'object' } }] } });
	if (msg.id !== undefined)
		out({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
});
rl.on('close', () => process.exit(0));
