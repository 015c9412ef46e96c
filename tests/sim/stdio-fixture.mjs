// A newline-delimited JSON-RPC server on stdio for the stdio transport's
// tests. The first argument picks the behaviour:
//   echo        answer every request {echo: method}, a notification first;
//               `ask` sends a server request and answers once it is answered;
//               `noise` writes a non-JSON line before the answer;
//               `batch` answers with a JSON array; `crlf` ends lines in CRLF;
//               `huge` writes a 2 MiB line; `silent` never answers
//   exit-early  read one line, exit with status 3
//   ignore-term like echo, but SIGTERM and end of stdin are ignored
// The second argument, when given, is a file to write our pid into.
import fs from 'node:fs';
import readline from 'node:readline';

const mode = process.argv[2] ?? 'echo';
if (process.argv[3]) fs.writeFileSync(process.argv[3], String(process.pid));

if (mode === 'ignore-term') {
  process.on('SIGTERM', () => process.stderr.write('stdio-fixture: ignoring SIGTERM\n'));
  setInterval(() => {}, 1000);
}

const out = (obj, end = '\n') => process.stdout.write(JSON.stringify(obj) + end);
let pendingAsk = null;

const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stderr.write(`stdio-fixture: bad line ${line.slice(0, 80)}\n`);
    return;
  }
  // A title escape and a token in the log: the client must neither pass
  // the one to a terminal nor print the other (--verbose traces this).
  process.stderr.write(`stdio-fixture: got ${msg.method ?? 'answer'} \x1b]0;pwned\x07 "access_token": "tok-secret-1"\n`);
  if (mode === 'exit-early') process.exit(3);
  if (msg.method === undefined) {
    // An answer to our server request.
    if (pendingAsk && msg.id === 'srv-1') {
      out({ jsonrpc: '2.0', id: pendingAsk.id, result: { answered: true } });
      pendingAsk = null;
    }
    return;
  }
  if (msg.id === undefined) return; // a notification
  switch (msg.method) {
    case 'ask':
      pendingAsk = msg;
      out({ jsonrpc: '2.0', id: 'srv-1', method: 'ping' });
      return;
    case 'noise':
      process.stdout.write('this is a log line on stdout\n\n');
      break;
    case 'batch':
      out([{ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'b' } },
        { jsonrpc: '2.0', id: msg.id, result: { batch: true } }]);
      return;
    case 'crlf':
      out({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'crlf' } }, '\r\n');
      out({ jsonrpc: '2.0', id: msg.id, result: { crlf: true } }, '\r\n');
      return;
    case 'huge':
      process.stdout.write('{"jsonrpc":"2.0","method":"n","params":"' + 'x'.repeat(2 << 20) + '"}\n');
      return;
    case 'silent':
      return;
    default:
      break;
  }
  out({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'before' } });
  out({ jsonrpc: '2.0', id: msg.id, result: { echo: msg.method } });
});
rl.on('close', () => {
  if (mode !== 'ignore-term') process.exit(0);
});
