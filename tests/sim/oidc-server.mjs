// A real OAuth 2.1 authorization server for the sign-in tests: oidc-provider
// configured the way Catalyst's is described — public clients only
// (token_endpoint_auth_method none), PKCE S256 required, RFC 8707 resource
// indicators with the resource compared byte for byte, rotating refresh
// tokens, scopes catalyst:read catalyst:write offline_access, no dynamic
// registration — plus one pre-registered client with a loopback redirect
// (any port, exact path, RFC 8252). Sign-in is approved at once (there is
// no user to ask), so a "browser" that follows redirects completes it.
//
// Usage: node oidc-server.mjs [--client-id ID] [--redirect-path /callback]...
//                             [--access-ttl SECONDS]
// (--redirect-path repeated: the client is registered with each path.)
// Prints `ready http://127.0.0.1:PORT` (the issuer) on stdout; logs on stderr.
// Accepted resources: http://127.0.0.1:<any port>/mcp exactly.
// Listens on 127.0.0.1 only.

import http from 'node:http';
import { parseArgs } from 'node:util';
import { generateKeyPair, exportJWK } from '../npm/node_modules/jose/dist/webapi/index.js';
import Provider, { errors } from '../npm/node_modules/oidc-provider/lib/index.js';

console.log = (...a) => console.error(...a);

const { values: opt } = parseArgs({
	options: {
		'client-id': { type: 'string', default: 'catalyst-audit-test' },
		'redirect-path': { type: 'string', multiple: true, default: ['/callback'] },
		'access-ttl': { type: 'string', default: '3600' },
	},
});

const RESOURCE = /^http:\/\/127\.0\.0\.1:\d+\/mcp$/;
const RS_SCOPE = 'catalyst:read catalyst:write';

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };

const server = http.createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
	clients: [
		{
			client_id: opt['client-id'],
			application_type: 'native',
			token_endpoint_auth_method: 'none',
			grant_types: ['authorization_code', 'refresh_token'],
			response_types: ['code'],
			redirect_uris: opt['redirect-path'].map((p) => `http://127.0.0.1${p}`),
		},
	],
	jwks: { keys: [jwk] },
	scopes: ['openid', 'offline_access'],
	pkce: { required: () => true },
	rotateRefreshToken: () => true,
	issueRefreshToken: async (ctx, client, code) =>
		client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
	features: {
		devInteractions: { enabled: false },
		registration: { enabled: false },
		revocation: { enabled: true },
		resourceIndicators: {
			enabled: true,
			defaultResource: () => undefined,
			useGrantedResource: () => true,
			getResourceServerInfo: (ctx, resource) => {
				if (!RESOURCE.test(resource))
					throw new errors.InvalidTarget(`unknown resource ${resource}`);
				return {
					scope: RS_SCOPE,
					audience: resource,
					accessTokenTTL: Number(opt['access-ttl']),
					accessTokenFormat: 'jwt',
					jwt: { sign: { alg: 'RS256' } },
				};
			},
		},
	},
	findAccount: async (ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
	interactions: { url: (ctx, interaction) => `/interaction/${interaction.uid}` },
	ttl: { AuthorizationCode: 60, Interaction: 300, Session: 3600, Grant: 3600, RefreshToken: 86400 },
});
provider.on('server_error', (ctx, err) => console.error('server_error', err));
provider.on('grant.error', (ctx, err) => console.error('grant.error', err.message, err.error_description));
provider.on('authorization.error', (ctx, err) => console.error('authorization.error', err.message, err.error_description));

// The consent a user would give: every requested scope the resource server
// knows, and offline_access.
async function approve(req, res) {
	const details = await provider.interactionDetails(req, res);
	const { params, prompt, grantId } = details;
	const grant = grantId
		? await provider.Grant.find(grantId)
		: new provider.Grant({ accountId: 'test-user', clientId: params.client_id });
	const requested = (params.scope || '').split(' ').filter(Boolean);
	if (requested.includes('offline_access'))
		grant.addOIDCScope('offline_access');
	const resources = [].concat(params.resource || []);
	for (const r of resources) {
		const scopes = requested.filter((s) => RS_SCOPE.split(' ').includes(s));
		grant.addResourceScope(r, scopes.join(' '));
	}
	const id = await grant.save();
	const result = { login: { accountId: 'test-user' }, consent: { grantId: id } };
	console.error(`approved ${prompt.name}: scope="${params.scope || ''}" resource=${resources.join(',')}`);
	await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

const callback = provider.callback();
server.on('request', (req, res) => {
	console.error(`${req.method} ${req.url.replace(/([?&](code|code_verifier|refresh_token)=)[^&]*/g, '$1***')}`);
	if (req.method === 'GET' && req.url.startsWith('/interaction/')) {
		approve(req, res).catch((err) => {
			console.error('interaction failed', err);
			res.statusCode = 500;
			res.end('interaction failed');
		});
		return;
	}
	// OpenID semantics drop offline_access unless prompt=consent is asked
	// for; Catalyst (plain OAuth) grants it as a scope. Ask on the
	// client's behalf so the refresh token is issued as Catalyst would.
	if (req.method === 'GET' && req.url.startsWith('/auth?')) {
		const u = new URL(req.url, issuer);
		if ((u.searchParams.get('scope') || '').split(' ').includes('offline_access') && !u.searchParams.has('prompt')) {
			u.searchParams.set('prompt', 'consent');
			req.url = u.pathname + u.search;
		}
	}
	callback(req, res);
});

process.on('SIGTERM', () => process.exit(0));
// Bounded: if the test that started us dies without stopping us (a failed
// assertion ends its process), we go too.
const parent = process.ppid;
setInterval(() => {
	if (process.ppid !== parent)
		process.exit(0);
}, 500).unref();
process.stdout.write(`ready ${issuer}\n`);
