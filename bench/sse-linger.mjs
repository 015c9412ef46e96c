// A server on 127.0.0.1 that answers every POST with an SSE stream and
// keeps the stream open 5 s after the response (bench/README.md,
// runs-vs-node: the wait after a response). Prints LISTENING URL.
import http from 'node:http';
const srv = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    if (req.method !== 'POST') { res.writeHead(405); res.end(); return; }
    const msg = JSON.parse(body);
    if (msg.id === undefined) { res.writeHead(202); res.end(); return; }
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Mcp-Session-Id': 's1' });
    let result = {};
    if (msg.method === 'initialize') result = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'linger', version: '1' } };
    else if (msg.method === 'tools/list') result = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result })}\n\n`);
    const t = setTimeout(() => res.end(), 5000);
    res.on('close', () => clearTimeout(t));
  });
});
srv.listen(0, '127.0.0.1', () => console.log(`LISTENING http://127.0.0.1:${srv.address().port}/mcp`));
