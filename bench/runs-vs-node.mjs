// The Node script an engineer would write with the official MCP SDK to do
// what `catalyst-audit runs` does (issue 4, "Measure"): list every run,
// then tools/call catalyst_get_workflow_run for each with 16 in flight,
// parse each answer and count attempts per task_execution_id.
//
// usage: node bench/runs-vs-node.mjs URL PROJECT [CONCURRENCY]
// Prints one JSON line: runs, events, invocations, reexecuted, failed.
// Spellings are profile a's (projectId, appId, instanceId, pageSize,
// cursor): a script written against one server, as people write them.

const SDK = new URL('../tests/npm/node_modules/@modelcontextprotocol/sdk/dist/esm/', import.meta.url);
const { Client } = await import(new URL('client/index.js', SDK));
const { StreamableHTTPClientTransport } = await import(new URL('client/streamableHttp.js', SDK));

const [url, project = 'default', inFlightArg = '16'] = process.argv.slice(2);
if (!url) {
	process.stderr.write('usage: node bench/runs-vs-node.mjs URL PROJECT [CONCURRENCY]\n');
	process.exit(2);
}
const inFlight = Number(inFlightArg);

const client = new Client({ name: 'runs-vs-node', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));

function body(result) {
	if (result.structuredContent)
		return result.structuredContent;
	for (const c of result.content ?? [])
		if (c.type === 'text') {
			try {
				return JSON.parse(c.text);
			} catch {
				// not JSON: try the next item
			}
		}
	throw new Error('no JSON in the answer');
}

// 1. list every run, page by page
const runs = [];
let cursor;
do {
	const args = { projectId: project, pageSize: 50 };
	if (cursor)
		args.cursor = cursor;
	const res = await client.callTool({ name: 'catalyst_list_workflow_runs', arguments: args });
	if (res.isError)
		throw new Error(`list failed: ${JSON.stringify(res.content)}`);
	const page = body(res);
	runs.push(...page.runs);
	cursor = page.nextCursor;
} while (cursor);

// 2. fetch each run, `inFlight` at a time, and count attempts per
// task_execution_id (every TaskScheduled is one attempt)
let events = 0, invocations = 0, reexecuted = 0, failed = 0, next = 0;
async function worker() {
	while (next < runs.length) {
		const r = runs[next++];
		try {
			const res = await client.callTool({
				name: 'catalyst_get_workflow_run',
				arguments: { projectId: project, appId: r.appId, instanceId: r.instanceId },
			});
			if (res.isError)
				throw new Error('tool error');
			const doc = body(res);
			const history = doc.history ?? [];
			events += history.length;
			const attempts = new Map();
			for (const e of history)
				if (e.event_type === 'TaskScheduled' && e.task_execution_id)
					attempts.set(e.task_execution_id, (attempts.get(e.task_execution_id) ?? 0) + 1);
			invocations += attempts.size;
			for (const n of attempts.values())
				if (n > 1)
					reexecuted++;
		} catch {
			failed++;
		}
	}
}
await Promise.all(Array.from({ length: inFlight }, worker));
await client.close();
process.stdout.write(JSON.stringify({ runs: runs.length, events, invocations, reexecuted, failed }) + '\n');
