// The reference answer for "does `catalyst-audit tools` list every tool":
// the official SDK client's own listing of the same server, following
// nextCursor, with the same (empty) client capabilities. Prints a JSON
// array of tool names on stdout.
//
//   node sdk-list-tools.mjs http URL
//   node sdk-list-tools.mjs stdio COMMAND [ARGS...]

import { Client } from '../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js';
import { StreamableHTTPClientTransport } from '../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js';
import { StdioClientTransport } from '../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js';

const [kind, target, ...rest] = process.argv.slice(2);
const transport = kind === 'http'
	? new StreamableHTTPClientTransport(new URL(target))
	: new StdioClientTransport({ command: target, args: rest, stderr: 'ignore' });
const client = new Client({ name: 'sdk-list-tools', version: '1.0.0' }, { capabilities: {} });
const timer = setTimeout(() => { console.error('sdk-list-tools: timed out'); process.exit(3); }, 20000);
await client.connect(transport);
const names = [];
let cursor;
do {
	const page = await client.listTools(cursor === undefined ? {} : { cursor });
	names.push(...page.tools.map((t) => t.name));
	cursor = page.nextCursor;
} while (cursor);
console.log(JSON.stringify(names));
clearTimeout(timer);
await client.close();
process.exit(0);
