// A small MCP resource server protected by OAuth, for the sign-in tests:
// the official SDK's McpServer over stateless Streamable HTTP, in front of
// which every request needs a Bearer JWT issued by the given authorization
// server (oidc-server.mjs) for this exact resource (aud = the MCP URL, byte
// for byte) with scope catalyst:read. Without one it answers 401 with
//   WWW-Authenticate: Bearer resource_metadata="…", scope="catalyst:read"
// and serves RFC 9728 metadata at /.well-known/oauth-protected-resource/mcp.
//
// Usage: node protected-mcp.mjs --issuer URL [--prm-resource URL]
//   --prm-resource  advertise another resource in the metadata (to test
//                   that the client refuses a mismatch)
// Prints `ready http://127.0.0.1:PORT/mcp` on stdout; logs on stderr.
// GET /stats answers {"tokens_seen": n, "refused": n} (no token values).

import http from 'node:http';
import { parseArgs } from 'node:util';
import { createRemoteJWKSet, jwtVerify } from '../npm/node_modules/jose/dist/webapi/index.js';
import { McpServer } from '../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/server/mcp.js';
import { StreamableHTTPServerTransport } from '../npm/node_modules/@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js';

console.log = (...a) => console.error(...a);

const { values: opt } = parseArgs({
	options: {
		issuer: { type: 'string' },
		'prm-resource': { type: 'string' },
	},
});
if (!opt.issuer) {
	console.error('protected-mcp: --issuer URL is required');
	process.exit(2);
}

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const resource = `${origin}/mcp`;
const prmPath = '/.well-known/oauth-protected-resource/mcp';
const jwks = createRemoteJWKSet(new URL(`${opt.issuer}/jwks`));
const stats = { tokens_seen: 0, refused: 0 };

function mcpServer() {
	const s = new McpServer({ name: 'protected-catalyst', version: '1.0.0' });
	s.registerTool('catalyst_whoami', { description: 'Who the token belongs to' }, async () => ({
		content: [{ type: 'text', text: JSON.stringify({ user: 'test-user', organization: 'test-org' }) }],
	}));
	s.registerTool('catalyst_list_projects', { description: 'Projects' }, async () => ({
		content: [{ type: 'text', text: JSON.stringify({ projects: [{ name: 'default' }] }) }],
	}));
	return s;
}

function challenge(res, status, error, description) {
	stats.refused++;
	let v = `Bearer resource_metadata="${origin}${prmPath}", scope="catalyst:read"`;
	if (error)
		v += `, error="${error}", error_description="${description}"`;
	res.writeHead(status, { 'WWW-Authenticate': v, 'Content-Type': 'application/json' });
	res.end(JSON.stringify({ error: error || 'invalid_request', error_description: description || 'sign-in required' }));
}

async function authorized(req, res) {
	const h = req.headers.authorization || '';
	if (!h.startsWith('Bearer ')) {
		challenge(res, 401, null, null);
		return false;
	}
	stats.tokens_seen++;
	try {
		const { payload } = await jwtVerify(h.slice(7), jwks, { issuer: opt.issuer, audience: resource });
		const scopes = String(payload.scope || '').split(' ');
		if (!scopes.includes('catalyst:read')) {
			challenge(res, 403, 'insufficient_scope', 'catalyst:read is needed');
			return false;
		}
		return true;
	} catch (err) {
		console.error(`protected-mcp: token refused: ${err.code || err.message}`);
		challenge(res, 401, 'invalid_token', 'The access token is invalid or expired');
		return false;
	}
}

server.on('request', async (req, res) => {
	const path = req.url.split('?')[0];
	console.error(`protected-mcp: ${req.method} ${path}`);
	if (req.method === 'GET' && path === prmPath) {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({
			resource: opt['prm-resource'] || resource,
			authorization_servers: [opt.issuer],
			scopes_supported: ['catalyst:read', 'catalyst:write'],
			bearer_methods_supported: ['header'],
		}));
		return;
	}
	if (req.method === 'GET' && path === '/stats') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify(stats));
		return;
	}
	if (path !== '/mcp' && path !== '/mcp/') {
		res.writeHead(404).end();
		return;
	}
	if (!(await authorized(req, res)))
		return;
	const s = mcpServer();
	const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
	res.on('close', () => {
		t.close();
		s.close();
	});
	try {
		await s.connect(t);
		await t.handleRequest(req, res);
	} catch (err) {
		console.error('protected-mcp: request failed', err);
		if (!res.headersSent)
			res.writeHead(500).end();
	}
});

process.on('SIGTERM', () => process.exit(0));
// Bounded: if the test that started us dies without stopping us (a failed
// assertion ends its process), we go too.
const parent = process.ppid;
setInterval(() => {
	if (process.ppid !== parent)
		process.exit(0);
}, 500).unref();
process.stdout.write(`ready ${resource}\n`);
