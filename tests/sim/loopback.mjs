// Preload (node --import ./loopback.mjs ...) that keeps servers we did not
// write on loopback: any listen() that names no host binds 127.0.0.1
// instead of every interface. server-everything and the conformance
// suite's scenario servers call listen(port) with no host.
//
// With LOOPBACK_ANNOUNCE=/path set, the first server to listen prints
// `LISTENING http://127.0.0.1:PORT/path` on stdout (the ready line the
// tests wait for), and console.log is sent to stderr so request logging
// can never fill a stdout pipe nobody reads.

import net from 'node:net';

const listen = net.Server.prototype.listen;
const announce = process.env.LOOPBACK_ANNOUNCE;
let announced = false;

if (announce !== undefined)
	console.log = (...args) => console.error(...args);

net.Server.prototype.listen = function (...args) {
	if (announce !== undefined && !announced) {
		this.once('listening', () => {
			if (announced)
				return;
			announced = true;
			const { address, port } = this.address();
			process.stdout.write(`LISTENING http://${address}:${port}${announce}\n`);
		});
	}
	const first = args[0];
	if (typeof first === 'object' && first !== null) {
		if (first.path === undefined && first.host === undefined && first.fd === undefined &&
		    first._handle === undefined && first.handle === undefined)
			args[0] = { ...first, host: '127.0.0.1' };
		return listen.apply(this, args);
	}
	// listen([port][, backlog][, callback]) with no host: bind 127.0.0.1
	// synchronously, as listen(port) itself does, because callers read
	// address() right after listen() returns (an explicit host would go
	// through an asynchronous lookup first). _listen2 is what listen()
	// calls for that case; it exists in every Node we run.
	const numeric = typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first));
	if ((numeric || first === undefined || typeof first === 'function') && typeof this._listen2 === 'function' &&
	    !args.some((a) => typeof a === 'string' && !/^\d+$/.test(a))) {
		const cb = args.find((a) => typeof a === 'function');
		if (cb)
			this.once('listening', cb);
		this._listen2('127.0.0.1', numeric ? Number(first) : 0, 4, 511);
		return this;
	}
	return listen.apply(this, args);
};
