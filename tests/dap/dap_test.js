// tests/dap/dap_test.js: ptdb --dap driven through the Debug Adapter
// Protocol by @vscode/debugadapter-testsupport's DebugClient, over the
// fixture programs (tests/programs): the requests and events of a session,
// breakpoints of every kind, a threaded and a C++ program, the replay
// session (stepBack, reverseContinue, forward to the live stop), a long
// decode's progress, requests while the program runs (continued, cancel),
// runInTerminal, protocol errors, a client that goes away or is killed,
// --dap-port (those in dap_process.js), and the same non-reverse session
// against lldb-vscode-16 for comparison.
//
// Usage: node dap_test.js [FILTER]   prints "ok - name" / "not ok - name".
'use strict';
const { DebugClient } = require('@vscode/debugadapter-testsupport');
const assert = require('assert');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '../..');
const PTDB = path.join(ROOT, 'ptdb');
const P = (name) => path.join(ROOT, 'tests/programs', name);
const LLDB = '/usr/bin/lldb-vscode-16';
// waits are for events; this only bounds a hang
const TIMEOUT = parseInt(process.env.DAP_TEST_TIMEOUT || '120000', 10);
const cleanup = [];	// what a test started, ended after it whatever happened

function client(cmd = PTDB, args = '--dap') {
	const dc = new DebugClient(cmd, args, 'ptdb');
	dc.defaultTimeout = TIMEOUT;
	cleanup.push(() => dc.stopAdapter());
	return dc;
}

// Collects output events (category -> text).
function outputs(dc) {
	const o = { stdout: '', stderr: '', console: '' };
	dc.on('output', (e) => { o[e.body.category || 'console'] = (o[e.body.category || 'console'] || '') + e.body.output; });
	return o;
}

async function until(fn, what) {
	const t0 = Date.now();
	while (!(await fn())) {
		if (Date.now() - t0 > TIMEOUT)
			throw new Error('timed out waiting for ' + what);
		await new Promise((r) => setTimeout(r, 50));
	}
}

// initialize, launch, breakpoints, configurationDone; the first stop.
async function start(dc, launch, bps = {}, fbps = []) {
	await dc.start();
	const init = await dc.initializeRequest({ adapterID: 'ptdb', linesStartAt1: true, columnsStartAt1: true });
	const stopped = dc.waitForEvent('stopped');
	const results = {};
	await Promise.all([
		dc.launchRequest(launch),
		dc.waitForEvent('initialized').then(async () => {
			for (const [file, list] of Object.entries(bps))
				results[file] = (await dc.setBreakpointsRequest({ source: { path: P(file) }, breakpoints: list })).body.breakpoints;
			if (fbps.length)
				results.functions = (await dc.setFunctionBreakpointsRequest({ breakpoints: fbps })).body.breakpoints;
			return dc.configurationDoneRequest();
		}),
	]);
	return { init, stop: await stopped, bps: results };
}

async function top(dc, tid) {
	return (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames[0];
}

// Runs fn (a request) and waits for the stop it causes; the top frame.
async function step(dc, tid, fn) {
	const p = dc.waitForEvent('stopped');
	await fn();
	const e = await p;
	const f = await top(dc, e.body.threadId);
	return { ev: e.body, frame: f, line: f.line };
}

async function vars(dc, ref) {
	const out = {};
	for (const v of (await dc.variablesRequest({ variablesReference: ref })).body.variables)
		out[v.name] = v;
	return out;
}

async function scopeVars(dc, frameId) {
	const out = {};
	for (const s of (await dc.scopesRequest({ frameId })).body.scopes)
		out[s.name] = await vars(dc, s.variablesReference);
	return out;
}

// Continues thread tid to the program's end: its exited and terminated
// events (waited for from before the continue).
async function runToExit(dc, tid) {
	const ended = Promise.all([dc.waitForEvent('exited'), dc.waitForEvent('terminated')]);
	await dc.continueRequest({ threadId: tid });
	return ended;
}

// The session ends: disconnect, and the adapter stopped.
async function disconnect(dc) {
	await dc.disconnectRequest({});
	dc.stopAdapter();
}

// ---- the sessions ----

const tests = {};

tests['launch, breakpoint, frames, scopes, nested variables, evaluate, steps, output, exit'] = async () => {
	const dc = client();
	const out = outputs(dc);
	const tmp = fs.mkdtempSync('/tmp/ptdb-dap-');
	const { init, stop, bps } = await start(dc, { program: P('vars'), args: ['x'], cwd: tmp, env: { PTDB_DAP_T: 'yes' } },
		{ 'vars.c': [{ line: 35 }] });
	assert.strictEqual(init.body.supportsStepBack, true);
	assert.strictEqual(init.body.supportsConfigurationDoneRequest, true);
	assert.strictEqual(bps['vars.c'][0].verified, true);
	assert.strictEqual(bps['vars.c'][0].line, 35);
	assert.strictEqual(stop.body.reason, 'breakpoint');
	assert.deepStrictEqual(stop.body.hitBreakpointIds, [bps['vars.c'][0].id]);
	const tid = stop.body.threadId;
	const threads = (await dc.threadsRequest()).body.threads;
	assert.strictEqual(threads.length, 1);
	assert.match(threads[0].name, /^Thread #1 vars/);
	const frames = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
	assert.deepStrictEqual(frames.slice(0, 2).map((f) => [f.name, f.line, f.source.name]),
		[['add', 35, 'vars.c'], ['main', 62, 'vars.c']]);
	assert.strictEqual(frames[0].source.path, P('vars.c'));
	assert.match(frames[0].instructionPointerReference, /^0x[0-9a-f]+$/);
	let sv = await scopeVars(dc, frames[0].id);
	assert.deepStrictEqual(Object.keys(sv), ['Locals', 'Arguments', 'Registers', 'Globals']);
	assert.strictEqual(sv.Locals.s.value, '4');
	assert.strictEqual(sv.Arguments.a.value, '2');
	assert.strictEqual(sv.Arguments.b.value, '2');
	assert.match(sv.Registers.rip.value, /^0x0*401/);
	assert.strictEqual(sv.Globals.counter.value, '7');
	// main's frame: a struct, an array in it, a pointer to a struct
	sv = await scopeVars(dc, frames[1].id);
	const rec = sv.Locals.rec;
	assert.ok(rec.variablesReference > 0);
	const rv = await vars(dc, rec.variablesReference);
	assert.strictEqual(rv.name.value, '"rec"');
	assert.strictEqual(rv.flags.value, '5');
	assert.strictEqual(rv.c.value, 'GREEN');
	const pts = await vars(dc, rv.pts.variablesReference);
	assert.deepStrictEqual(Object.keys(pts), ['[0]', '[1]']);
	assert.strictEqual((await vars(dc, pts['[1]'].variablesReference)).y.value, '40');
	const n1 = await vars(dc, sv.Locals.n1.variablesReference);
	const n2 = await vars(dc, n1.next.variablesReference);	// through the pointer
	assert.strictEqual(n2.val.value, '2');
	// hover and watch are expressions; the console runs ptdb commands
	let ev = await dc.evaluateRequest({ expression: 'a + b * 10', context: 'watch', frameId: frames[0].id });
	assert.strictEqual(ev.body.result, '22');
	ev = await dc.evaluateRequest({ expression: 'rec.pts[1].y', context: 'hover', frameId: frames[1].id });
	assert.strictEqual(ev.body.result, '40');
	await assert.rejects(dc.evaluateRequest({ expression: 'nosuchvar', context: 'watch', frameId: frames[0].id }));
	const before = out.console.length;
	await dc.evaluateRequest({ expression: 'bt', context: 'repl', frameId: frames[0].id });
	await until(() => out.console.slice(before).includes('frame #1:'), "bt's output");
	await dc.evaluateRequest({ expression: 'settings show target.run-args', context: 'repl' });
	// stepping: out to main, over, in
	let s = await step(dc, tid, () => dc.stepOutRequest({ threadId: tid }));
	assert.deepStrictEqual([s.frame.name, s.line, s.ev.reason], ['main', 62, 'step']);
	s = await step(dc, tid, () => dc.nextRequest({ threadId: tid }));
	assert.deepStrictEqual([s.frame.name, s.line], ['main', 63]);
	s = await step(dc, tid, () => dc.stepInRequest({ threadId: tid }));
	assert.deepStrictEqual([s.frame.name, s.line], ['walk', 40]);
	s = await step(dc, tid, () => dc.nextRequest({ threadId: tid, granularity: 'instruction' }));
	assert.strictEqual(s.frame.name, 'walk');
	const [exited] = await runToExit(dc, tid);
	assert.strictEqual(exited.body.exitCode, 0);
	await until(() => out.stdout.includes('4 46 169'), "the program's stdout");
	await disconnect(dc);
};

tests['conditions, hit counts, log points, function and instruction breakpoints'] = async () => {
	const dc = client();
	const out = outputs(dc);
	const { stop, bps } = await start(dc, { program: P('vars') }, {
		'vars.c': [{ line: 42, condition: 'p->val == 2' }, { line: 35, logMessage: 'add {a}+{b}' }],
	}, [{ name: 'walk' }]);
	assert.strictEqual(bps.functions[0].verified, true);
	const tid = stop.body.threadId;
	// the log point printed and ran on; the function breakpoint stops first
	assert.deepStrictEqual(stop.body.hitBreakpointIds, [bps.functions[0].id]);
	assert.ok(out.console.includes('add 1+2\n'), out.console);
	let s = await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	assert.strictEqual(s.line, 42);
	let ev = await dc.evaluateRequest({ expression: 'p->val', context: 'watch', frameId: s.frame.id });
	assert.strictEqual(ev.body.result, '2');
	// the same line from its 3rd hit on, no condition
	const r = await dc.setBreakpointsRequest({ source: { path: P('vars.c') }, breakpoints: [{ line: 42, hitCondition: '1' }] });
	assert.strictEqual(r.body.breakpoints[0].id, bps['vars.c'][0].id, 'the same place keeps its id');
	s = await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	ev = await dc.evaluateRequest({ expression: 'p->val', context: 'watch', frameId: s.frame.id });
	assert.strictEqual(ev.body.result, '3');
	// an instruction breakpoint at main's return path; disassembly there
	await dc.setBreakpointsRequest({ source: { path: P('vars.c') }, breakpoints: [] });
	const dis = (await dc.disassembleRequest({ memoryReference: s.frame.instructionPointerReference, instructionOffset: -2, instructionCount: 5 })).body.instructions;
	assert.strictEqual(dis.length, 5);
	assert.strictEqual(parseInt(dis[2].address, 16), parseInt(s.frame.instructionPointerReference, 16));
	assert.ok(dis.every((i) => i.instruction && i.instruction !== '<unavailable>'), JSON.stringify(dis));
	const ib = await dc.customRequest('setInstructionBreakpoints', { breakpoints: [{ instructionReference: dis[3].address }] });
	assert.strictEqual(ib.body.breakpoints[0].verified, true);
	s = await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	assert.strictEqual(parseInt(s.frame.instructionPointerReference, 16), parseInt(dis[3].address, 16));
	assert.deepStrictEqual(s.ev.hitBreakpointIds, [ib.body.breakpoints[0].id]);
	await dc.customRequest('setInstructionBreakpoints', { breakpoints: [] });
	// memory, modules, sources, completions, setVariable
	const mem = (await dc.customRequest('readMemory', { memoryReference: dis[0].address, count: 4 })).body;
	assert.strictEqual(Buffer.from(mem.data, 'base64').length, 4);
	const mods = (await dc.customRequest('modules', {})).body.modules;
	assert.ok(mods.some((m) => m.name === 'vars') && mods.some((m) => /^libc\.so/.test(m.name)));
	const srcs = (await dc.customRequest('loadedSources', {})).body.sources;
	assert.ok(srcs.some((x) => x.path === P('vars.c')));
	const comp = (await dc.completionsRequest({ text: 'thread trace st', column: 16 })).body.targets;
	assert.ok(comp.some((c) => c.label.startsWith('start')), JSON.stringify(comp));
	const sc = (await dc.scopesRequest({ frameId: s.frame.id })).body.scopes;
	const locals = sc.find((x) => x.name === 'Locals');
	const sv = await dc.setVariableRequest({ variablesReference: locals.variablesReference, name: 'sum', value: '100' });
	assert.strictEqual(sv.body.value, '100');
	const wr = await dc.customRequest('writeMemory', { memoryReference: mem.address, data: mem.data });
	assert.strictEqual(wr.body.bytesWritten, 4);
	// a data breakpoint on the global counter (written in add, later)
	const info = (await dc.dataBreakpointInfoRequest({ variablesReference: sc.find((x) => x.name === 'Globals').variablesReference, name: 'total' })).body;
	assert.match(info.dataId, /^0x[0-9a-f]+\/8$/);
	const db = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.dataId, accessType: 'write' }] });
	assert.strictEqual(db.body.breakpoints[0].verified, true);
	s = await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	assert.strictEqual(s.ev.reason, 'data breakpoint');
	assert.strictEqual(s.frame.name, 'main');
	await dc.setDataBreakpointsRequest({ breakpoints: [] });
	await runToExit(dc, tid);
	await until(() => out.stdout.includes('3 143 '), 'walk returning the sum set to 100 (+ 3 + 40): ' + JSON.stringify(out.stdout));
	await disconnect(dc);
};

tests['events: module, thread, breakpoint resolved when its library loads, progress of a traced run'] = async () => {
	const dc = client();
	const seen = [];
	for (const e of ['module', 'thread', 'breakpoint', 'progressStart', 'progressUpdate', 'progressEnd'])
		dc.on(e, (ev) => seen.push(ev));
	await dc.start();
	await dc.initializeRequest({ adapterID: 'ptdb', supportsProgressReporting: true });
	let fb;
	const first = dc.waitForEvent('stopped');
	await Promise.all([
		dc.launchRequest({ program: P('tgt_spin'), trace: { mode: 'thread', size: '64KiB', engine: 'cache' } }),
		dc.waitForEvent('initialized').then(async () => {
			fb = (await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'puts' }, { name: 'main' }] })).body.breakpoints;
			return dc.configurationDoneRequest();
		}),
	]);
	assert.strictEqual(fb[0].verified, false, 'puts is in libc, not loaded yet');
	const st = await first;
	const tid = st.body.threadId;
	assert.ok(seen.some((e) => e.event === 'thread' && e.body.reason === 'started' && e.body.threadId === tid));
	assert.ok(seen.some((e) => e.event === 'module' && e.body.reason === 'new' && /^libc\.so/.test(e.body.module.name)),
		JSON.stringify(seen.filter((e) => e.event === 'module').map((e) => e.body.module.name)));
	const resolved = seen.find((e) => e.event === 'breakpoint' && e.body.breakpoint.id === fb[0].id);
	assert.ok(resolved && resolved.body.breakpoint.verified, 'a breakpoint event for puts');
	// a traced run that lasts: progress while it runs, its end at the stop
	await dc.continueRequest({ threadId: tid });
	await dc.waitForEvent('progressStart');
	const p = dc.waitForEvent('stopped');
	await dc.pauseRequest({ threadId: tid });
	assert.strictEqual((await p).body.reason, 'pause');
	assert.ok(seen.some((e) => e.event === 'progressEnd'));
	await disconnect(dc);
};

tests['inlined calls as frames, source paths through target.source-map (initCommands)'] = async () => {
	const dc = client();
	const out = outputs(dc);
	const { stop } = await start(dc, {
		program: P('inline_o2'),
		initCommands: ['settings set target.source-map /ptdb-moved ' + ROOT],
	}, {}, [{ name: 'main' }]);
	const tid = stop.body.threadId;
	await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'malloc' }] });
	await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	const frames = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
	assert.deepStrictEqual(frames.slice(1, 4).map((f) => [f.name, f.line, f.source && f.source.path]), [
		['init_registry', 12, P('inline_o2.c')], ['open_state', 31, P('inline_o2.c')], ['main', 39, P('inline_o2.c')]]);
	const sv = await scopeVars(dc, frames[1].id);
	assert.strictEqual(sv.Arguments.n.value, '10');
	assert.ok(!out.console.includes('error:'), out.console);
	await disconnect(dc);
};

tests['a threaded program: threads, the stopped thread\'s frames'] = async () => {
	const dc = client();
	const { stop } = await start(dc, { program: P('threads') }, { 'threads.cpp': [{ line: 4 }] });
	const tid = stop.body.threadId;
	const threads = (await dc.threadsRequest()).body.threads;
	assert.strictEqual(threads.length, 3, JSON.stringify(threads));
	assert.ok(threads.some((t) => t.id === tid));
	const frames = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
	assert.deepStrictEqual([frames[0].name, frames[0].line], ['f3()', 4]);
	const main = threads.find((t) => /^Thread #1 /.test(t.name));
	const mf = (await dc.stackTraceRequest({ threadId: main.id })).body.stackFrames;
	assert.ok(mf.some((f) => f.name === 'main' && f.line === 14), JSON.stringify(mf.map((f) => [f.name, f.line])));
	await runToExit(dc, tid);
	await disconnect(dc);
};

tests['a C++ program: methods, references, objects with a base'] = async () => {
	const dc = client();
	const { stop } = await start(dc, { program: P('shapes') }, { 'shapes.cpp': [{ line: 32 }] });
	const tid = stop.body.threadId;
	const frames = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames;
	assert.deepStrictEqual(frames.slice(0, 2).map((f) => [f.name, f.line]), [['measure(geo::Shape const&, int&, bool)', 32], ['main', 41]]);
	const sv = await scopeVars(dc, frames[0].id);
	assert.strictEqual(sv.Arguments.big.value, 'false');
	assert.strictEqual(sv.Locals.a.value, '12');
	const s = await vars(dc, sv.Arguments.s.variablesReference);
	assert.ok('geo::Shape' in s || 'id' in s, JSON.stringify(Object.keys(s)));
	const ev = await dc.evaluateRequest({ expression: 's.id', context: 'hover', frameId: frames[0].id });
	assert.strictEqual(ev.body.result, '1');
	const mv = await scopeVars(dc, frames[1].id);
	const r = await vars(dc, mv.Locals.r.variablesReference);
	assert.strictEqual(r.w.value, '3');
	assert.strictEqual((await vars(dc, r.origin.variablesReference)).y.value, '2');
	await runToExit(dc, tid);
	await disconnect(dc);
};

tests['replay: stepBack retraces the lines, reverseContinue, forward to the live stop'] = async () => {
	const dc = client();
	const { init, stop, bps } = await start(dc, { program: P('recurse'), trace: { mode: 'thread', size: '1MiB' } },
		{ 'recurse.c': [{ line: 28 }] });
	assert.strictEqual(init.body.supportsStepBack, true);
	const tid = stop.body.threadId;
	const fwd = [(await top(dc, tid)).line];
	for (let i = 0; i < 5; i++)
		fwd.push((await step(dc, tid, () => dc.nextRequest({ threadId: tid }))).line);
	const live = await top(dc, tid);
	const back = [live.line];
	let s;
	for (let i = 0; i < 5; i++) {
		s = await step(dc, tid, () => dc.stepBackRequest({ threadId: tid }));
		back.push(s.line);
		assert.match(s.ev.description, /^replaying: instruction \d+ of \d+/);
		assert.match(s.frame.name, /\(replaying\)$/);
	}
	assert.deepStrictEqual(back, fwd.slice().reverse());
	// what the trace does not hold is said, never read from the live process
	const sv = await scopeVars(dc, s.frame.id);
	const scopes = Object.keys(sv);
	assert.ok(scopes.some((n) => /^Locals \(not recorded/.test(n)), scopes.join());
	assert.match(sv[scopes[0]]['(replaying)'].value, /not recorded/);
	assert.strictEqual(parseInt(sv.Registers.rip.value, 16), parseInt(s.frame.instructionPointerReference, 16));
	assert.match(sv.Registers['(other registers)'].value, /not recorded/);
	await assert.rejects(dc.evaluateRequest({ expression: 'r', context: 'watch', frameId: s.frame.id }), /not available while replaying/);
	const dis = (await dc.disassembleRequest({ memoryReference: s.frame.instructionPointerReference, instructionCount: 1 })).body.instructions;
	assert.strictEqual(parseInt(dis[0].address, 16), parseInt(s.frame.instructionPointerReference, 16));
	// instruction granularity back, then forward through the trace to its end: live again
	const at = s.frame.instructionPointerReference;
	s = await step(dc, tid, () => dc.stepBackRequest({ threadId: tid, granularity: 'instruction' }));
	assert.match(s.ev.description, /^replaying/);
	assert.notStrictEqual(s.frame.instructionPointerReference, at);
	s = await step(dc, tid, () => dc.stepInRequest({ threadId: tid, granularity: 'instruction' }));
	assert.strictEqual(s.frame.instructionPointerReference, at);
	s = await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	assert.deepStrictEqual([s.line, s.frame.instructionPointerReference], [live.line, live.instructionPointerReference]);
	assert.match(s.ev.description, /live again/);
	// back to the previous breakpoint hit, then forward again to the live stop
	s = await step(dc, tid, () => dc.reverseContinueRequest({ threadId: tid }));
	assert.deepStrictEqual([s.ev.reason, s.line], ['breakpoint', 28]);
	assert.deepStrictEqual(s.ev.hitBreakpointIds, [bps['recurse.c'][0].id]);
	for (let i = 1; i < fwd.length; i++) {
		s = await step(dc, tid, () => dc.nextRequest({ threadId: tid }));
		assert.strictEqual(s.line, fwd[i]);
	}
	assert.strictEqual(s.frame.instructionPointerReference, live.instructionPointerReference);
	assert.ok(!/\(replaying\)/.test(s.frame.name), 'live again at the end of the trace');
	// the console's replay commands are reported as stops too
	let p = dc.waitForEvent('stopped');
	await dc.evaluateRequest({ expression: 'reverse-next', context: 'repl' });
	assert.match((await p).body.description, /^replaying/);
	assert.strictEqual((await top(dc, tid)).line, fwd[fwd.length - 2]);
	p = dc.waitForEvent('stopped');
	await dc.evaluateRequest({ expression: 'thread trace goto end', context: 'repl' });
	await p;
	assert.strictEqual((await top(dc, tid)).instructionPointerReference, live.instructionPointerReference);
	// with two breakpoints: back to the later one, back to the earlier, forward to the later
	const two = (await dc.setBreakpointsRequest({ source: { path: P('recurse.c') }, breakpoints: [{ line: 28 }, { line: 31 }] })).body.breakpoints;
	s = await step(dc, tid, () => dc.reverseContinueRequest({ threadId: tid }));
	assert.deepStrictEqual([s.ev.reason, s.ev.hitBreakpointIds, s.line], ['breakpoint', [two[1].id], 31]);
	s = await step(dc, tid, () => dc.reverseContinueRequest({ threadId: tid }));
	assert.deepStrictEqual([s.ev.reason, s.ev.hitBreakpointIds, s.line], ['breakpoint', [two[0].id], 28]);
	s = await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	assert.deepStrictEqual([s.ev.reason, s.ev.hitBreakpointIds, s.line], ['breakpoint', [two[1].id], 31]);
	assert.match(s.ev.description, /^replaying/);
	s = await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	assert.strictEqual(s.frame.instructionPointerReference, live.instructionPointerReference);
	assert.match(s.ev.description, /live again/);
	// a console command's long output comes in pieces of whole lines
	const pieces = [];
	const onOut = (e) => { if (e.body.category === 'console') pieces.push(e.body.output); };
	dc.on('output', onOut);
	await dc.evaluateRequest({ expression: 'thread trace dump instructions -a -r', context: 'repl' });
	await until(() => /\[ *0\] 0x/.test(pieces.join('')), 'the whole dump');
	dc.removeListener('output', onOut);
	assert.ok(pieces.length > 1 && pieces.every((x) => x.length <= 65536 && x.endsWith('\n')),
		pieces.length + ' pieces');
	// and the process runs on live
	s = await step(dc, tid, () => dc.stepInRequest({ threadId: tid }));
	assert.strictEqual(s.frame.name, 'twice');
	await runToExit(dc, tid);
	await disconnect(dc);
};

tests['a long decode: progress events at the first stepBack over a long trace'] = async () => {
	const dc = client();
	const seen = [];
	for (const e of ['progressStart', 'progressUpdate', 'progressEnd', 'stopped'])
		dc.on(e, (ev) => seen.push(ev));
	await dc.start();
	await dc.initializeRequest({ adapterID: 'ptdb', supportsProgressReporting: true });
	const first = dc.waitForEvent('stopped');
	await Promise.all([
		dc.launchRequest({ program: P('trace_long'), trace: { mode: 'thread', size: '64MiB', engine: 'cache' } }),
		dc.waitForEvent('initialized').then(async () => {
			await dc.setBreakpointsRequest({ source: { path: P('trace_long.c') }, breakpoints: [{ line: 20 }] });
			return dc.configurationDoneRequest();
		}),
	]);
	const tid = (await first).body.threadId;
	let from = seen.length;
	let s = await step(dc, tid, () => dc.stepBackRequest({ threadId: tid }));
	assert.strictEqual(s.line, 10);
	const ev = seen.slice(from);
	const start = ev.find((e) => e.event === 'progressStart' && /^Decoding thread #1/.test(e.body.title));
	assert.ok(start, JSON.stringify(ev.map((e) => [e.event, e.body.title || e.body.reason])));
	assert.strictEqual(start.body.cancellable, true);
	const end = ev.findIndex((e) => e.event === 'progressEnd' && e.body.progressId === start.body.progressId);
	assert.ok(end > 0 && end < ev.findIndex((e) => e.event === 'stopped'), 'the decode ends before the stop');
	// decoded once: the next move back tells no progress
	from = seen.length;
	s = await step(dc, tid, () => dc.stepBackRequest({ threadId: tid }));
	assert.ok(!seen.slice(from).some((e) => e.event === 'progressStart'));
	await disconnect(dc);
};

tests['replay in a threaded program traced as a process: a thread\'s own history'] = async () => {
	const dc = client();
	const { stop, bps } = await start(dc, { program: P('threads'), trace: { mode: 'process', size: '256KiB' } },
		{ 'threads.cpp': [{ line: 4 }] });
	const tid = stop.body.threadId;
	let s = await step(dc, tid, () => dc.stepBackRequest({ threadId: tid }));
	assert.strictEqual(s.ev.threadId, tid);
	assert.deepStrictEqual([s.frame.name, s.line], ['f3() (replaying)', 2]);
	// back to the beginning of thread 3's trace (no breakpoint before)
	s = await step(dc, tid, () => dc.reverseContinueRequest({ threadId: tid }));
	assert.match(s.ev.description, /^replaying: instruction 0 of \d+ \(the trace begins here\)/);
	// forward through the history (the breakpoint is where it ends): the live stop
	s = await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	assert.match(s.ev.description, /live again/);
	assert.deepStrictEqual([s.ev.reason, s.ev.hitBreakpointIds, s.frame.name, s.line],
		['breakpoint', [bps['threads.cpp'][0].id], 'f3()', 4]);
	await runToExit(dc, tid);
	await disconnect(dc);
};

tests['while the program runs: threads, stackTrace, errors, breakpoints set unseen, continued, cancel'] = async () => {
	const dc = client();
	const stops = [], continued = [];
	dc.on('stopped', (e) => stops.push(e.body));
	dc.on('continued', (e) => continued.push(e.body));
	const { stop } = await start(dc, { program: P('rel_spin4') }, {}, [{ name: 'main' }]);
	const tid = stop.body.threadId;
	await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
	await dc.continueRequest({ threadId: tid });
	// answered while it runs (lldb-vscode-16's answers: the threads of the
	// last stop, no frames; an evaluate fails)
	const th = (await dc.threadsRequest()).body.threads;
	assert.deepStrictEqual(th.map((t) => t.id), [tid]);
	assert.deepStrictEqual((await dc.stackTraceRequest({ threadId: tid })).body.stackFrames, []);
	await assert.rejects(dc.evaluateRequest({ expression: 'counter[0]', context: 'watch' }), /running/);
	await assert.rejects(dc.nextRequest({ threadId: tid }), /running/);
	await assert.rejects(dc.scopesRequest({ frameId: 1 }), /running/);
	// a breakpoint where it never goes: set, and the run goes on unseen;
	// then one it reaches: the only stop since the continue
	const b1 = (await dc.setBreakpointsRequest({ source: { path: P('rel_spin4.c') }, breakpoints: [{ line: 30 }] })).body.breakpoints;
	assert.strictEqual(b1[0].verified, true);
	assert.deepStrictEqual(stops.length, 1);
	const hit = dc.waitForEvent('stopped');
	const b2 = (await dc.setBreakpointsRequest({ source: { path: P('rel_spin4.c') }, breakpoints: [{ line: 30 }, { line: 11 }] })).body.breakpoints;
	const s = (await hit).body;
	assert.deepStrictEqual([s.reason, s.hitBreakpointIds], ['breakpoint', [b2[1].id]]);
	assert.deepStrictEqual(stops.map((x) => x.reason), ['breakpoint', 'breakpoint']);
	assert.strictEqual((await top(dc, s.threadId)).name, 'work');
	assert.strictEqual(continued.length, 0, 'the client asked for that run: no continued event');
	// a console command resumes it: continued, then its stop
	let p = dc.waitForEvent('stopped');
	await dc.evaluateRequest({ expression: 'process continue', context: 'repl' });
	await p;
	assert.strictEqual(continued.length, 1);
	assert.strictEqual(continued[0].allThreadsContinued, true);
	// cancel: of a console command that runs on (interrupted: stopped, the
	// request answered 'cancelled'), of a request waiting in the queue, of a
	// request long answered (nothing)
	await dc.setBreakpointsRequest({ source: { path: P('rel_spin4.c') }, breakpoints: [] });
	const done = dc.sequence - 1;
	const seq = dc.sequence;
	const cont = dc.waitForEvent('continued');
	// (each rejection awaited from the start: a response that comes in a
	// read of its own before the await would be an unhandled rejection)
	const ev = assert.rejects(dc.evaluateRequest({ expression: 'process continue', context: 'repl' }), /cancelled/);
	await cont;
	// (a breakpoint request during a console command waits for its stop:
	// queued, and cancelled there)
	const bseq = dc.sequence;
	const queued = assert.rejects(dc.setBreakpointsRequest({ source: { path: P('rel_spin4.c') }, breakpoints: [{ line: 11 }] }), /cancelled/);
	await dc.customRequest('cancel', { requestId: bseq });
	await queued;
	p = dc.waitForEvent('stopped');
	await dc.customRequest('cancel', { requestId: seq });
	await ev;
	assert.strictEqual((await p).body.reason, 'pause');
	await dc.customRequest('cancel', { requestId: done });
	assert.strictEqual((await top(dc, tid)).source.name, 'rel_spin4.c');
	await disconnect(dc);
};

tests['stepBack without a trace is an error, and the session goes on'] = async () => {
	const dc = client();
	const { stop } = await start(dc, { program: P('vars') }, { 'vars.c': [{ line: 35 }] });
	const tid = stop.body.threadId;
	await assert.rejects(dc.stepBackRequest({ threadId: tid }), /not traced/);
	await assert.rejects(dc.reverseContinueRequest({ threadId: tid }), /not traced/);
	const s = await step(dc, tid, () => dc.nextRequest({ threadId: tid }));
	assert.strictEqual(s.line, 36);
	await dc.disconnectRequest({ terminateDebuggee: true });
	dc.stopAdapter();
};

tests['pause, stopOnEntry, restart, terminate'] = async () => {
	const dc = client();
	const { stop } = await start(dc, { program: P('tgt_spin'), stopOnEntry: true }, {}, [{ name: 'main' }]);
	assert.strictEqual(stop.body.reason, 'entry');
	const tid = stop.body.threadId;
	const s = await step(dc, tid, () => dc.continueRequest({ threadId: tid }));
	assert.deepStrictEqual([s.ev.reason, s.frame.name], ['breakpoint', 'main']);
	await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
	await dc.continueRequest({ threadId: tid });
	const p = dc.waitForEvent('stopped');
	await dc.pauseRequest({ threadId: tid });
	assert.strictEqual((await p).body.reason, 'pause');
	assert.strictEqual((await top(dc, tid)).name, 'main');
	const again = dc.waitForEvent('stopped');
	await dc.restartRequest({});
	assert.strictEqual((await again).body.reason, 'entry');
	const ended = dc.waitForEvent('terminated');
	await dc.terminateRequest({});
	await ended;
	await disconnect(dc);
};

// The raw protocol and the program's fate (dap_process.js).
require('./dap_process.js')(tests, { P, PTDB, TIMEOUT, cleanup, client, start, top, vars, disconnect, until });

// ---- the same non-reverse session against lldb-vscode-16 ----

async function compareSession(cmd, args, prog = 'vars', src = 'vars.c', lines = [35, 43],
	actions = ['next', 'stepOut', 'continue', 'stepIn']) {
	const dc = client(cmd, args);
	const { stop } = await start(dc, { program: P(prog), args: ['x'] }, { [src]: lines.map((line) => ({ line })) });
	let tid = stop.body.threadId;
	const rec = [];
	const snap = async () => {
		const frames = (await dc.stackTraceRequest({ threadId: tid })).body.stackFrames.slice(0, 2);
		const v = {};
		for (const f of frames) {
			if (!f.source || f.source.name !== src)
				continue;	// libc's: compared by tests/symbols_test.py
			for (const s of (await dc.scopesRequest({ frameId: f.id })).body.scopes) {
				if (!/^(Locals|Arguments)$/.test(s.name))
					continue;
				for (const x of (await dc.variablesRequest({ variablesReference: s.variablesReference })).body.variables)
					v[f.name + '.' + x.name] = { value: x.value, children: x.variablesReference > 0 };
			}
		}
		rec.push({ frames: frames.map((f) => [f.name, f.line, f.source && f.source.name]), vars: v });
	};
	await snap();
	for (const a of actions) {
		tid = (await step(dc, tid, () => dc[a + 'Request']({ threadId: tid }))).ev.threadId;
		await snap();
	}
	await dc.disconnectRequest({ terminateDebuggee: true });
	dc.stopAdapter();
	return rec;
}

async function compare(...session) {
	if (!fs.existsSync(LLDB))
		throw new Error('skipped: ' + LLDB + ' is not installed (make deps installs lldb-16)');
	const ours = await compareSession(PTDB, '--dap', ...session);
	const theirs = await compareSession(LLDB, '', ...session);
	assert.strictEqual(ours.length, theirs.length);
	for (let i = 0; i < ours.length; i++) {
		assert.deepStrictEqual(ours[i].frames, theirs[i].frames, 'stop ' + i);
		// names: lldb-vscode-16 lists the arguments among the locals; the
		// same set; values: the scalars (aggregates differ in summary,
		// listed in ptdb-dap(7))
		assert.deepStrictEqual(Object.keys(ours[i].vars).sort(), Object.keys(theirs[i].vars).sort(), 'stop ' + i);
		for (const k of Object.keys(ours[i].vars)) {
			const a = ours[i].vars[k], b = theirs[i].vars[k];

			// pointers (each debugger's stack is elsewhere) and aggregates
			// (summaries differ) are compared by name; strings and scalars
			// by value
			if (/^0x/.test(a.value) || /^0x/.test(b.value) || (a.children && b.children))
				continue;
			// (lldb-vscode-16 puts a space before a summary: ' "hello"')
			assert.strictEqual(a.value, b.value.trim(), 'stop ' + i + ': ' + k);
		}
	}
}

tests['the same session against lldb-vscode-16: frames, lines, variable names and values'] = () => compare();
tests['the same C++ session against lldb-vscode-16'] = () => compare('shapes', 'shapes.cpp', [32], ['next', 'stepOut', 'stepIn', 'next']);
tests['the same threaded session against lldb-vscode-16'] = () => compare('threads', 'threads.cpp', [4, 8], ['next', 'continue', 'next']);

// Written at once: console.log to a pipe is asynchronous, and what it had
// not written yet would be lost at process.exit.
const say = (line) => fs.writeSync(1, line + '\n');
let current = null;
// a request never answered leaves node nothing to wait for: say which test
process.on('beforeExit', () => {
	if (current) {
		say('not ok - dap: ' + current);
		say('# a request or event never came (node had nothing left to wait for)');
		current = null;
		for (const c of cleanup.splice(0))
			c();
		process.exit(0);
	}
});

(async () => {
	const only = process.argv[2];
	let n = 0;
	for (const [name, fn] of Object.entries(tests)) {
		if (only && !name.includes(only))
			continue;
		n++;
		current = name;
		try {
			await fn();
			say('ok - dap: ' + name);
		} catch (e) {
			say('not ok - dap: ' + name);
			for (const l of String((e && e.stack) || e).split('\n').slice(0, 12))
				say('# ' + l);
		}
		current = null;
		for (const c of cleanup.splice(0))
			c();
	}
	say('sessions: ' + n);	// the runner checks it saw them all
	process.exit(0);
})();
