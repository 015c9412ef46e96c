// A hostile sign-in peer for the OAuth tests: one server on 127.0.0.1 that
// is at once a protected MCP resource (401 with a Bearer challenge), its
// RFC 9728 metadata, and an authorization server whose RFC 8414 metadata
// names whatever URLs the test asks for. /authorize approves at once (302 to
// the redirect_uri with a code and the state it was given); /token records
// the grant and refuses it. Every request is appended to the --log file as
// one line, "METHOD PATH" (plus " code_verifier" when a token request
// carried one), so a test can tell exactly what reached the server.
//
// Usage: node hostile-oauth.mjs --log FILE [--issuer URL]
//          [--authorization-endpoint URL] [--token-endpoint URL]
//          [--resource-metadata URL] [--token-answer FILE]
// With --token-answer, /token grants instead: HTTP 200 with FILE's bytes.
// In every URL, {origin} stands for this server's http://127.0.0.1:PORT and
// {host} for its 127.0.0.1:PORT.
// Prints `ready {origin}/mcp` on stdout when listening. No dependencies.

import fs from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
	options: {
		log: { type: 'string' },
		issuer: { type: 'string', default: '{origin}' },
		'authorization-endpoint': { type: 'string', default: '{origin}/authorize' },
		'token-endpoint': { type: 'string', default: '{origin}/token' },
		'resource-metadata': { type: 'string', default: '{origin}/.well-known/oauth-protected-resource/mcp' },
		'token-answer': { type: 'string' },
	},
});
if (!opt.log) {
	console.error('hostile-oauth: --log FILE is required');
	process.exit(2);
}

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const at = (template) => template.replaceAll('{origin}', origin).replaceAll('{host}', origin.slice(7));
const issuer = at(opt.issuer);

function json(res, status, doc, headers = {}) {
	res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
	res.end(JSON.stringify(doc));
}

server.on('request', (req, res) => {
	let body = '';
	req.on('data', (c) => (body += c));
	req.on('end', () => {
		const url = new URL(req.url, origin);
		const p = url.pathname;
		const form = new URLSearchParams(body);
		fs.appendFileSync(opt.log, `${req.method} ${p}${form.has('code_verifier') ? ' code_verifier' : ''}\n`);
		if (p === '/mcp')
			return json(res, 401, { error: 'invalid_token' },
				{ 'WWW-Authenticate': `Bearer resource_metadata="${at(opt['resource-metadata'])}"` });
		if (p.startsWith('/.well-known/oauth-protected-resource'))
			return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [issuer] });
		if (p.startsWith('/.well-known/oauth-authorization-server') ||
		    p.startsWith('/.well-known/openid-configuration'))
			return json(res, 200, {
				issuer,
				authorization_endpoint: at(opt['authorization-endpoint']),
				token_endpoint: at(opt['token-endpoint']),
				code_challenge_methods_supported: ['S256'],
				scopes_supported: ['catalyst:read', 'offline_access'],
				response_types_supported: ['code'],
			});
		if (p === '/authorize') {
			const back = new URL(url.searchParams.get('redirect_uri') || `${origin}/nowhere`);
			back.searchParams.set('code', 'hostile-code');
			back.searchParams.set('state', url.searchParams.get('state') || '');
			res.writeHead(302, { Location: back.href });
			return res.end();
		}
		if (p === '/token' && opt['token-answer']) {
			res.writeHead(200, { 'Content-Type': 'application/json' });
			return res.end(fs.readFileSync(opt['token-answer']));
		}
		if (p === '/token')
			return json(res, 400, { error: 'invalid_grant', error_description: 'hostile server' });
		json(res, 404, { error: 'not_found' });
	});
});

for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'])
	process.on(sig, () => process.exit(0));
setTimeout(() => process.exit(0), 600 * 1000).unref();
console.log(`ready ${origin}/mcp`);
