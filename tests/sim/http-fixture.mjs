// A raw node:http server for the HTTP transport's edge cases. Each path is
// one scenario; POST /log answers with what the server recorded (DELETEs,
// Last-Event-IDs, answers to server requests, connections, headers seen).
// Listens on 127.0.0.1, port 0; prints `LISTENING http://127.0.0.1:PORT`.
// With `--tls CERT KEY` it serves HTTPS with HTTP/2 offered (HTTP/1.1 still
// allowed) and prints `LISTENING PORT https://127.0.0.1:PORT`.
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';

const log = { deletes: [], lastEventIds: [], answers: [], connections: 0, requests: [] };
const sessions = new Map(); // id -> { expired }
let nextSession = 1;
// /sse waits for the client's answer to its server request before the response.
const waiting = new Map(); // server request id -> resolve

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function json(res, status, obj, headers = {}) {
  const body = typeof obj === 'string' ? obj : JSON.stringify(obj);
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(body);
}

function reply(msg, result) {
  return { jsonrpc: '2.0', id: msg.id, result };
}

function sseHead(res, headers = {}) {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...headers });
  res.flushHeaders();
}

function event(res, obj, id) {
  let s = '';
  if (id !== undefined) s += `id: ${id}\n`;
  s += `data: ${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n\n`;
  res.write(s);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Answers to our server requests and notifications: recorded, then 202.
function acceptAnswer(msg, res) {
  if (msg.id !== undefined && msg.method === undefined) {
    log.answers.push(msg);
    const w = waiting.get(msg.id);
    if (w) {
      waiting.delete(msg.id);
      w();
    }
  }
  res.writeHead(202);
  res.end();
}

const scenarios = {
  async '/json'(req, res, msg) {
    const headers = {};
    if (msg.method === 'initialize') headers['Mcp-Session-Id'] = `json-${nextSession++}`;
    json(res, 200, reply(msg, { echo: msg.method }), headers);
  },
  async '/headers'(req, res, msg) {
    json(res, 200, reply(msg, {
      authorization: req.headers['authorization'] ?? null,
      protocolVersion: req.headers['mcp-protocol-version'] ?? null,
      accept: req.headers['accept'] ?? null,
      contentType: req.headers['content-type'] ?? null,
      session: req.headers['mcp-session-id'] ?? null,
      httpVersion: req.httpVersion,
    }));
  },
  async '/batch'(req, res, msg) {
    json(res, 200, [
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'batch' } },
      reply(msg, { batch: true }),
    ]);
  },
  async '/sse'(req, res, msg) {
    sseHead(res, { 'Mcp-Session-Id': 'sse-session' });
    event(res, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, total: 2 } });
    const srvId = `srv-${msg.id}`;
    const answered = new Promise((r) => waiting.set(srvId, r));
    event(res, { jsonrpc: '2.0', id: srvId, method: 'ping' });
    // The response comes only once the client answered on another request.
    await Promise.race([answered, sleep(5000)]);
    event(res, reply(msg, { sse: true, answered: !waiting.has(srvId) }));
    res.end();
  },
  async '/crlf'(req, res, msg) {
    sseHead(res);
    const text = `: comment\r\nevent: message\r\ndata: {"jsonrpc":"2.0",\r\ndata: "method":"notifications/x"}\r\n\r\n` +
      `data: ${JSON.stringify(reply(msg, { crlf: true }))}\r\n\r\n`;
    // Split inside every CRLF so the parser sees CR and LF apart.
    const parts = text.split('\r\n');
    for (let i = 0; i < parts.length; i++) {
      res.write(parts[i] + (i < parts.length - 1 ? '\r' : ''));
      await sleep(2);
      if (i < parts.length - 1) res.write('\n');
    }
    res.end();
  },
  async '/session'(req, res, msg) {
    const sid = req.headers['mcp-session-id'];
    if (msg.method === 'initialize') {
      const id = `sess-${nextSession++}`;
      sessions.set(id, { expired: false });
      json(res, 200, reply(msg, { session: id }), { 'Mcp-Session-Id': id });
      return;
    }
    if (!sid) return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no session' } });
    const s = sessions.get(sid);
    if (!s || s.expired) return json(res, 404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
    if (msg.method === 'expire') s.expired = true;
    json(res, 200, reply(msg, { session: sid }));
  },
  async '/resume'(req, res, msg) {
    sseHead(res);
    res.write('id: ev-1\nretry: 100\ndata:\n\n');
    event(res, { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'before drop' } }, 'ev-2');
    await sleep(20);
    // Drop the stream: the rest comes on the GET.
    resumable.set('ev-2', msg);
    res.socket.destroy();
  },
  async '/resume-graceful'(req, res, msg) {
    // As the conformance suite's sse-retry: a priming event, then a clean end.
    sseHead(res);
    res.write('id: g-1\nretry: 100\ndata: \n\n');
    await sleep(20);
    resumable.set('g-1', msg);
    res.end();
  },
  async '/resume-forever'(req, res, msg) {
    // Every stream, the POST's and each GET's, ends without the response.
    sseHead(res);
    res.write('id: f-0\nretry: 10\ndata: \n\n');
    await sleep(10);
    res.end();
  },
  async '/nodrop-noid'(req, res, msg) {
    sseHead(res);
    event(res, { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x' } });
    await sleep(20);
    res.end();
  },
  async '/truncated'(req, res, msg) {
    sseHead(res);
    res.write('data: {"jsonrpc":"2.0","id":');
    await sleep(20);
    res.end();
  },
  async '/bigline'(req, res, msg) {
    sseHead(res);
    const chunk = 'x'.repeat(1 << 20);
    res.write('data: ');
    for (let i = 0; i < 10; i++) res.write(chunk);
    res.end('\n\n');
  },
  async '/503'(req, res, msg) {
    json(res, 503, { error: 'busy' }, { 'Retry-After': '7' });
  },
  async '/429'(req, res, msg) {
    const when = new Date(Date.now() + 120000).toUTCString();
    json(res, 429, { error: 'slow down' }, { 'Retry-After': when });
  },
  async '/401'(req, res, msg) {
    json(res, 401, { error: 'invalid_token' }, {
      'WWW-Authenticate': 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
    });
  },
  async '/403'(req, res, msg) {
    json(res, 403, { error: 'insufficient_scope' });
  },
  async '/wrongtype'(req, res, msg) {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<html>hello</html>');
  },
  async '/notjson'(req, res, msg) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end('hello, not json');
  },
  async '/badutf8'(req, res, msg) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    const head = Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"t":"`);
    res.end(Buffer.concat([head, Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}}')]));
  },
  async '/badutf8-sse'(req, res, msg) {
    sseHead(res);
    res.write(Buffer.concat([Buffer.from('data: {"jsonrpc":"2.0","method":"n","params":{"t":"'),
      Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}\n\n')]));
    res.end();
  },
  async '/slow'(req, res, msg) {
    await sleep(3000);
    if (!res.destroyed) json(res, 200, reply(msg, {}));
  },
  async '/accepted'(req, res, msg) {
    res.writeHead(202);
    res.end();
  },
  async '/log'(req, res, msg) {
    json(res, 200, reply(msg, log));
  },
};

// Resumable streams, keyed by the last event id sent before the drop.
const resumable = new Map();

async function handle(req, res) {
  const path = req.url.split('?')[0];
  log.requests.push({ method: req.method, path });
  if (req.method === 'DELETE') {
    log.deletes.push({ path, session: req.headers['mcp-session-id'] ?? null });
    res.writeHead(path === '/json' ? 405 : 200);
    res.end();
    return;
  }
  if (req.method === 'GET') {
    const last = req.headers['last-event-id'];
    log.lastEventIds.push(last ?? null);
    if (last && last.startsWith('f-')) {
      sseHead(res);
      res.end(`id: f-${Number(last.slice(2)) + 1}\ndata: \n\n`);
      return;
    }
    const msg = last && resumable.get(last);
    if (!msg) {
      res.writeHead(405);
      res.end();
      return;
    }
    resumable.delete(last);
    sseHead(res);
    event(res, { jsonrpc: '2.0', method: 'notifications/message', params: { data: 'after resume' } }, 'ev-3');
    event(res, reply(msg, { resumed: true, lastEventId: last }), 'ev-4');
    res.end();
    return;
  }
  const body = await readBody(req);
  let msg;
  try {
    msg = JSON.parse(body);
  } catch {
    return json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
  }
  if (Array.isArray(msg)) msg = msg[0];
  if (msg.method === 'fixture/log') return json(res, 200, reply(msg, log));
  if (msg.method === undefined || msg.id === undefined) return acceptAnswer(msg, res);
  const s = scenarios[path];
  if (!s) return json(res, 404, { error: 'no such scenario' });
  await s(req, res, msg);
}

const handler = (req, res) => {
  handle(req, res).catch((err) => {
    process.stderr.write(`fixture error: ${err.stack}\n`);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
};
const tls = process.argv.indexOf('--tls');
const server = tls > 0
  ? http2.createSecureServer({
    cert: fs.readFileSync(process.argv[tls + 1]),
    key: fs.readFileSync(process.argv[tls + 2]),
    allowHTTP1: true,
  }, handler)
  : http.createServer(handler);
server.on(tls > 0 ? 'secureConnection' : 'connection', () => { log.connections++; });
server.listen(0, '127.0.0.1', () => {
  const port = server.address().port;
  process.stdout.write(tls > 0 ? `LISTENING ${port} https://127.0.0.1:${port}\n`
    : `LISTENING http://127.0.0.1:${port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
