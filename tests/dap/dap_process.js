// tests/dap/dap_process.js: dap_test.js's sessions on the raw protocol and
// on the program's fate: protocol errors answered, runInTerminal, a client
// that goes away or is killed, SIGTERM to ptdb --dap, attach and detach,
// --dap-port.  dap_test.js adds them to its sessions (add), handing over
// its helpers.
'use strict';
const { DebugClient } = require('@vscode/debugadapter-testsupport');
const assert = require('assert');
const child = require('child_process');
const fs = require('fs');
const net = require('net');
const path = require('path');

let P, PTDB, TIMEOUT, cleanup, client, start, top, vars, disconnect, until;
const tests = {};

// The raw protocol: errors answered, the session goes on.
function raw(args = ['--dap']) {
	const p = child.spawn(PTDB, args, { stdio: ['pipe', 'pipe', 'inherit'] });
	cleanup.push(() => p.kill());
	let buf = Buffer.alloc(0);
	const msgs = [];
	const waiters = [];
	p.stdout.on('data', (d) => {
		buf = Buffer.concat([buf, d]);
		for (;;) {
			const h = buf.indexOf('\r\n\r\n');
			if (h < 0)
				break;
			const len = parseInt(/Content-Length: (\d+)/.exec(buf.slice(0, h).toString())[1], 10);
			if (buf.length < h + 4 + len)
				break;
			msgs.push(JSON.parse(buf.slice(h + 4, h + 4 + len).toString()));
			buf = buf.slice(h + 4 + len);
			for (const w of waiters.splice(0))
				w();
		}
	});
	const send = (o) => {
		const s = typeof o === 'string' ? o : JSON.stringify(o);
		p.stdin.write('Content-Length: ' + Buffer.byteLength(s) + '\r\n\r\n' + s);
	};
	const wait = async (pred, what) => {
		await until(() => msgs.some(pred), what);
		return msgs.find(pred);
	};
	return { p, msgs, send, wait };
}

tests['protocol errors: malformed, out of order, unknown, oversized; the session goes on'] = async () => {
	const r = raw();
	r.send({ seq: 1, type: 'request', command: 'threads' });
	const early = await r.wait((m) => m.request_seq === 1, 'the early request');
	assert.strictEqual(early.success, false);
	assert.match(early.message, /initialize/);
	r.send({ seq: 2, type: 'request', command: 'initialize', arguments: {} });
	assert.strictEqual((await r.wait((m) => m.request_seq === 2, 'initialize')).success, true);
	r.send('{"seq": 3, "type": "request", "command": ');
	await r.wait((m) => m.type === 'response' && /malformed/.test(m.message || ''), 'malformed');
	r.send({ seq: 4, type: 'request', command: 'frobnicate' });
	assert.match((await r.wait((m) => m.request_seq === 4, 'unknown')).message, /unknown request 'frobnicate'/);
	r.send({ seq: 5, type: 'request', command: 'stackTrace', arguments: { threadId: 1 } });
	assert.match((await r.wait((m) => m.request_seq === 5, 'out of order')).message, /no process/);
	r.send({ seq: 6, type: 'request', command: 'configurationDone' });
	await r.wait((m) => m.request_seq === 6, 'configurationDone');
	r.send({ seq: 7, type: 'request', command: 'next', arguments: { threadId: 1 } });
	assert.strictEqual((await r.wait((m) => m.request_seq === 7, 'next without a process')).success, false);
	r.send(JSON.stringify({ seq: 8, type: 'request', command: 'evaluate', arguments: { expression: 'x'.repeat(17 << 20) } }));
	await r.wait((m) => /refused: the limit/.test(m.message || ''), 'the oversized message');
	r.p.stdin.write('Content-Length: x\r\n\r\n');
	await r.wait((m) => /malformed header/.test(m.message || ''), 'the bad header');
	r.send({ seq: 9, type: 'request', command: 'launch', arguments: { program: '/nonexistent/prog' } });
	assert.strictEqual((await r.wait((m) => m.request_seq === 9, 'a bad launch')).success, false);
	r.send({ seq: 10, type: 'request', command: 'launch', arguments: { program: P('vars') } });
	assert.strictEqual((await r.wait((m) => m.request_seq === 10, 'a good launch')).success, true);
	// arguments of the wrong types or out of range: answered, nothing breaks
	const odd = [
		['stackTrace', { threadId: 'x' }], ['variables', { variablesReference: 99999 }],
		['scopes', { frameId: -4 }], ['evaluate', { expression: 5 }], ['setBreakpoints', { source: 5 }],
		['setBreakpoints', { source: { path: P('vars.c') }, breakpoints: 'x' }],
		['disassemble', { memoryReference: 'zz', instructionCount: 5, instructionOffset: -1e18 }],
		['disassemble', { memoryReference: '0x401000', instructionCount: 1e9 }],
		['readMemory', { memoryReference: '0x0', count: -1 }], ['readMemory', { memoryReference: '0x1', count: 8 }],
		['writeMemory', { memoryReference: '0x1', data: '!!!' }], ['setVariable', { variablesReference: 1 }],
		['completions', { text: 7 }], ['dataBreakpointInfo', { name: 'nosuch' }],
		['setDataBreakpoints', { breakpoints: [{ dataId: 'bogus' }] }], ['source', {}],
		['stepBack', { threadId: 1 }], ['launch', { program: P('vars') }], ['configurationDone', 'x'],
	];
	for (let i = 0; i < odd.length; i++)
		r.send({ seq: 100 + i, type: 'request', command: odd[i][0], arguments: odd[i][1] });
	for (let i = 0; i < odd.length; i++)
		await r.wait((m) => m.request_seq === 100 + i, odd[i][0]);
	r.send({ seq: 11, type: 'request', command: 'disconnect', arguments: {} });
	await r.wait((m) => m.request_seq === 11, 'disconnect');
	await exited(r.p);
};

function exited(p) {
	return new Promise((res) => (p.exitCode !== null || p.signalCode !== null ? res() : p.on('exit', res)));
}

function alive(pid) {
	try {
		process.kill(pid, 0);
		return !fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].startsWith('Z');
	} catch (e) {
		return false;
	}
}

tests['runInTerminal: the program in the client\'s terminal (console: integratedTerminal)'] = async () => {
	const r = raw();
	r.send({ seq: 1, type: 'request', command: 'initialize', arguments: { supportsRunInTerminalRequest: true } });
	await r.wait((m) => m.request_seq === 1, 'initialize');
	r.send({ seq: 2, type: 'request', command: 'launch', arguments: { program: P('vars'), args: ['x'], console: 'integratedTerminal' } });
	const req = await r.wait((m) => m.type === 'request' && m.command === 'runInTerminal', 'the runInTerminal request');
	assert.strictEqual(req.arguments.kind, 'integrated');
	// the client runs the launcher in its terminal (here: on pipes)
	const term = child.spawn(req.arguments.args[0], req.arguments.args.slice(1), { cwd: req.arguments.cwd, stdio: ['pipe', 'pipe', 'inherit'] });
	cleanup.push(() => term.kill('SIGKILL'));
	let shown = '';
	term.stdout.on('data', (d) => { shown += d; });
	r.send({ seq: 3, type: 'response', request_seq: req.seq, command: 'runInTerminal', success: true, body: { processId: term.pid } });
	assert.strictEqual((await r.wait((m) => m.request_seq === 2, 'launch')).success, true);
	r.send({ seq: 4, type: 'request', command: 'configurationDone' });
	assert.strictEqual((await r.wait((m) => m.event === 'exited', 'the exit')).body.exitCode, 0);
	await exited(term);	// the launcher ends with the program
	assert.ok(shown.includes('4 46 169 '), JSON.stringify(shown));
	assert.ok(!r.msgs.some((m) => m.event === 'output' && m.body.category === 'stdout'), 'not as output events');
	r.send({ seq: 5, type: 'request', command: 'disconnect', arguments: {} });
	await exited(r.p);
	// a client that runs no terminal, or refuses: an error, the session goes on
	const n = raw();
	n.send({ seq: 1, type: 'request', command: 'initialize', arguments: {} });
	n.send({ seq: 2, type: 'request', command: 'launch', arguments: { program: P('vars'), console: 'externalTerminal' } });
	assert.match((await n.wait((m) => m.request_seq === 2, 'launch')).message, /supportsRunInTerminalRequest/);
	n.send({ seq: 3, type: 'request', command: 'initialize', arguments: { supportsRunInTerminalRequest: true } });
	n.send({ seq: 4, type: 'request', command: 'launch', arguments: { program: P('vars'), runInTerminal: true } });
	const q = await n.wait((m) => m.type === 'request' && m.command === 'runInTerminal', 'the runInTerminal request');
	n.send({ seq: 5, type: 'response', request_seq: q.seq, command: 'runInTerminal', success: false, message: 'no terminal' });
	assert.match((await n.wait((m) => m.request_seq === 4, 'launch')).message, /could not run the program in a terminal/);
	n.send({ seq: 6, type: 'request', command: 'launch', arguments: { program: P('vars') } });
	assert.strictEqual((await n.wait((m) => m.request_seq === 6, 'launch')).success, true);
	n.send({ seq: 7, type: 'request', command: 'disconnect', arguments: {} });
	await exited(n.p);
};

tests['a client that goes away: the launched program is killed, not left stopped'] = async () => {
	const r = raw();
	r.send({ seq: 1, type: 'request', command: 'initialize', arguments: {} });
	r.send({ seq: 2, type: 'request', command: 'launch', arguments: { program: P('tgt_spin') } });
	const ev = await r.wait((m) => m.event === 'process', 'the process event');
	r.send({ seq: 3, type: 'request', command: 'configurationDone' });
	await r.wait((m) => m.request_seq === 3, 'configurationDone');
	const pid = ev.body.systemProcessId;
	assert.ok(alive(pid));
	r.p.stdin.end();	// the editor died
	await exited(r.p);
	await until(() => !alive(pid), 'the debuggee to be gone');
};

// An editor process that starts ptdb --dap and drives it (initialize,
// then launch or attach, then configurationDone), then says the pids.
const EDITOR = `
const p = require('child_process').spawn(process.argv[1], ['--dap'], { stdio: ['pipe', 'pipe', 'inherit'] });
let buf = '', seq = 1, pid = 0;
const send = (command, args) => { const s = JSON.stringify({ seq: seq++, type: 'request', command, arguments: args });
	p.stdin.write('Content-Length: ' + Buffer.byteLength(s) + '\\r\\n\\r\\n' + s); };
p.stdout.on('data', (d) => {
	buf += d;
	for (let m; (m = /Content-Length: (\\d+)\\r\\n\\r\\n/.exec(buf)) && buf.length >= m.index + m[0].length + +m[1];) {
		const o = JSON.parse(buf.substr(m.index + m[0].length, +m[1]));
		buf = buf.slice(m.index + m[0].length + +m[1]);
		if (o.event === 'process') pid = o.body.systemProcessId;
		if (o.type === 'response' && o.command === 'configurationDone')
			console.log(JSON.stringify({ ptdb: p.pid, prog: pid }));
	}
});
send('initialize', {});
send(process.argv[2], JSON.parse(process.argv[3]));
send('configurationDone', {});
`;

async function editorKilled(what, args) {
	const ed = child.spawn(process.execPath, ['-e', EDITOR, PTDB, what, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'inherit'] });
	cleanup.push(() => ed.kill('SIGKILL'));
	let out = '';
	ed.stdout.on('data', (d) => { out += d; });
	await until(() => out.includes('\n'), 'the editor to start the session');
	const pids = JSON.parse(out);
	ed.kill('SIGKILL');	// the editor dies: ptdb's pipes close
	await until(() => !alive(pids.ptdb), 'ptdb --dap to end');
	return pids;
}

tests['an editor killed (kill -9) mid-run: the launched program is killed; an attached one detached, running'] = async () => {
	const { prog } = await editorKilled('launch', { program: P('tgt_spin') });
	await until(() => !alive(prog), 'the launched program to be gone');
	const other = child.spawn(P('tgt_spin'), [], { stdio: 'ignore' });
	cleanup.push(() => other.kill('SIGKILL'));
	await editorKilled('attach', { pid: other.pid, stopOnEntry: true });
	await until(() => /^[RS]/.test(fs.readFileSync('/proc/' + other.pid + '/stat', 'utf8').split(') ')[1]),
		'the attached program to run on');
	assert.ok(alive(other.pid));
};

tests['SIGTERM to ptdb --dap: the launched program is killed; an attached one detached, running'] = async () => {
	const r = raw();
	r.send({ seq: 1, type: 'request', command: 'initialize', arguments: {} });
	r.send({ seq: 2, type: 'request', command: 'launch', arguments: { program: P('tgt_spin') } });
	const ev = await r.wait((m) => m.event === 'process', 'the process event');
	r.send({ seq: 3, type: 'request', command: 'configurationDone' });
	await r.wait((m) => m.request_seq === 3, 'configurationDone');
	r.p.kill('SIGTERM');
	await exited(r.p);
	await until(() => !alive(ev.body.systemProcessId), 'the launched program to be gone');
	const prog = child.spawn(P('tgt_spin'), [], { stdio: 'ignore' });
	cleanup.push(() => prog.kill('SIGKILL'));
	const a = raw();
	a.send({ seq: 1, type: 'request', command: 'initialize', arguments: {} });
	a.send({ seq: 2, type: 'request', command: 'attach', arguments: { pid: prog.pid, stopOnEntry: true } });
	assert.strictEqual((await a.wait((m) => m.request_seq === 2, 'attach')).success, true);
	a.p.kill('SIGTERM');
	await exited(a.p);
	await until(() => /^[RS]/.test(fs.readFileSync('/proc/' + prog.pid + '/stat', 'utf8').split(') ')[1]),
		'the attached program to run on');
};

tests['attach by pid, disconnect detaches and the program runs on'] = async () => {
	const prog = child.spawn(P('tgt_spin'), [], { stdio: 'ignore' });
	try {
		const dc = client();
		await dc.start();
		await dc.initializeRequest({ adapterID: 'ptdb' });
		await dc.attachRequest({ pid: prog.pid, stopOnEntry: true });
		const st = dc.waitForEvent('stopped');
		await dc.configurationDoneRequest();
		const tid = (await st).body.threadId;
		assert.strictEqual((await top(dc, tid)).name, 'main');
		await dc.disconnectRequest({});
		dc.stopAdapter();
		await until(() => {
			const s = fs.readFileSync('/proc/' + prog.pid + '/stat', 'utf8').split(') ')[1][0];
			return s === 'R' || s === 'S';
		}, 'the detached program to run');
	} finally {
		prog.kill('SIGKILL');
	}
};

tests['--dap-port: a session over TCP on 127.0.0.1'] = async () => {
	const p = child.spawn(PTDB, ['--dap-port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
	cleanup.push(() => p.kill());
	let err = '';
	p.stderr.on('data', (d) => { err += d; });
	await until(() => /listening on 127\.0\.0\.1:(\d+)/.test(err), 'the port');
	const port = parseInt(/127\.0\.0\.1:(\d+)/.exec(err)[1], 10);
	const dc = new DebugClient('', '', 'ptdb');
	dc.defaultTimeout = TIMEOUT;
	cleanup.push(() => dc.stopAdapter());
	await dc.start(port);
	const { stop } = await (async () => {
		const init = await dc.initializeRequest({ adapterID: 'ptdb' });
		assert.strictEqual(init.body.supportsStepBack, true);
		const stopped = dc.waitForEvent('stopped');
		await dc.launchRequest({ program: P('vars') });
		await dc.setBreakpointsRequest({ source: { path: P('vars.c') }, breakpoints: [{ line: 35 }] });
		await dc.configurationDoneRequest();
		return { stop: await stopped };
	})();
	assert.strictEqual((await top(dc, stop.body.threadId)).line, 35);
	await disconnect(dc);
	await exited(p);
	void net;
};

// The sessions above added to all, in order; h: dap_test.js's helpers.
module.exports = function add(all, h) {
	({ P, PTDB, TIMEOUT, cleanup, client, start, top, vars, disconnect, until } = h);
	Object.assign(all, tests);
};
