// The simulated Catalyst organization: projects, apps, workflows and runs
// whose histories are the fixture scenarios of tests/fixtures (read, never
// written), plus generated runs for size and soak.  Everything here is
// deterministic for a given seed so tests can assert exact values.

import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

const FIXTURES = new URL('../fixtures/', import.meta.url);

export const STATUSES = ['running', 'completed', 'failed', 'terminated', 'suspended', 'canceled'];

export function mulberry32(seed) {
	let a = seed >>> 0;
	return function rng() {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function loadFixture(name) {
	return JSON.parse(readFileSync(new URL(name + '.catalyst.json', FIXTURES), 'utf8'));
}

function clone(x) {
	return JSON.parse(JSON.stringify(x));
}

// A stable UUID-shaped id derived from a seed string, so a derived run gets
// execution ids of its own instead of sharing its source fixture's.
function derivedUuid(seed) {
	const h = createHash('sha256').update(seed).digest('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function shiftTime(iso, ms) {
	return new Date(Date.parse(iso) + ms).toISOString();
}

// Copy a fixture history under a new instance id: every UUID value is
// remapped consistently (so retry links survive), every timestamp shifted,
// names and failure messages optionally renamed.
function derive(events, opts) {
	const map = new Map();
	const out = clone(events);
	for (const e of out) {
		for (const [k, v] of Object.entries(e)) {
			if (typeof v !== 'string')
				continue;
			if (UUID_RE.test(v)) {
				if (!map.has(v))
					map.set(v, derivedUuid((opts.uuidSeed ?? opts.instanceId) + '/' + v));
				e[k] = map.get(v);
			} else if ((k === 'timestamp' || k === 'fire_at') && opts.shiftMs) {
				e[k] = shiftTime(v, opts.shiftMs);
			} else if (opts.oldInstanceId && v.startsWith(opts.oldInstanceId) &&
				   (k.endsWith('instance_id') || k === 'instance_id')) {
				e[k] = opts.instanceId + v.slice(opts.oldInstanceId.length);
			} else if (opts.rename && opts.rename[v] !== undefined) {
				e[k] = opts.rename[v];
			} else if (opts.messages && k.startsWith('failure_details_') && opts.messages[v] !== undefined) {
				e[k] = opts.messages[v];
			}
		}
	}
	return out;
}

export function lastTimestamp(events) {
	let t = 0;
	for (const e of events)
		if (e.timestamp)
			t = Math.max(t, Date.parse(e.timestamp));
	return new Date(t).toISOString();
}

export function statusOf(events) {
	for (let i = events.length - 1; i >= 0; i--) {
		const e = events[i];
		if (e.event_type === 'ExecutionCompleted' && e.workflow_status)
			return e.workflow_status.replace('ORCHESTRATION_STATUS_', '').toLowerCase();
		if (e.event_type === 'ExecutionSuspended')
			return 'suspended';
		if (e.event_type === 'ExecutionResumed')
			return 'running';
	}
	return 'running';
}

function makeRun(appId, events, extra = {}) {
	const start = events.find((e) => e.event_type === 'ExecutionStarted');
	const run = {
		appId,
		instanceId: start.workflow_instance_instance_id,
		workflowName: start.name,
		status: statusOf(events),
		createdAt: start.timestamp,
		lastUpdatedAt: lastTimestamp(events),
		parentInstanceId: start.parent_instance_workflow_instance_instance_id || null,
		listed: !start.parent_instance_workflow_instance_instance_id,
		events,
		...extra,
	};
	if (run.status !== 'running' && run.status !== 'suspended')
		run.completedAt = run.lastUpdatedAt;
	return run;
}

// Cut a finished history back to its first N events: a run still in flight.
function truncated(events, n, tail, at) {
	const out = events.slice(0, n);
	let t = Date.parse(lastTimestamp(out));
	for (const ev of tail) {
		t += 250;
		out.push({ event_id: ev.event_id ?? -1, timestamp: at ?? new Date(t).toISOString(), ...ev });
	}
	return out;
}

// A generated history of roughly `target` events: one activity after the
// other, some retried through an activity-retry timer (Go/Python shape), some
// retries after a timeout-class failure.
// attemptsOf(k, name), when given, decides each invocation's attempts
// instead of retryEvery; invocations, when given, how many there are
// instead of target.
export function generateHistory({ instanceId, workflowName, activity, target, rng, startMs, retryEvery, attemptsOf,
				  invocations }) {
	const ev = [];
	let t = startMs;
	let seq = 0;
	const ts = (d) => {
		t += d;
		return new Date(t).toISOString();
	};
	const execId = derivedUuid(instanceId + '/exec');
	ev.push({ event_id: -1, timestamp: ts(12), event_type: 'WorkflowStarted' });
	ev.push({ event_id: -1, timestamp: ts(-5), event_type: 'ExecutionStarted', name: workflowName,
		  workflow_instance_instance_id: instanceId, workflow_instance_execution_id: execId });
	let k = 0;
	while (invocations !== undefined ? k < invocations : ev.length < target - 2) {
		const name = activity(k);
		const tex = derivedUuid(`${instanceId}/act/${k}`);
		let attempts;
		if (attemptsOf) {
			attempts = attemptsOf(k, name);
		} else {
			const retried = retryEvery > 0 && rng() < 1 / retryEvery;
			attempts = retried ? 2 + Math.floor(rng() * 2) : 1;
		}
		for (let a = 0; a < attempts; a++) {
			const sid = seq++;
			ev.push({ event_id: sid, timestamp: ts(20 + Math.floor(rng() * 30)), event_type: 'TaskScheduled',
				  name, task_execution_id: tex, _record: k });
			ev.push({ event_id: -1, timestamp: ts(150 + Math.floor(rng() * 300)), event_type: 'WorkflowStarted' });
			if (a < attempts - 1) {
				const timeout = rng() < 0.5;
				ev.push({ event_id: -1, timestamp: ts(-15), event_type: 'TaskFailed', task_scheduled_id: sid,
					  task_execution_id: tex,
					  failure_details_error_message: timeout
						? `context deadline exceeded while calling ${name}`
						: `${name}: upstream returned 503 Service Unavailable`,
					  failure_details_error_type: timeout ? 'TimeoutError' : 'HTTPError',
					  failure_details_is_non_retriable: false });
				const tid = seq++;
				const fire = new Date(t + 1000).toISOString();
				ev.push({ event_id: tid, timestamp: ts(20), event_type: 'TimerCreated', name: `${name}-retry`,
					  fire_at: fire, origin__activity_retry_task_execution_id: tex });
				ev.push({ event_id: -1, timestamp: ts(1000), event_type: 'WorkflowStarted' });
				ev.push({ event_id: -1, timestamp: ts(-10), event_type: 'TimerFired', timer_id: tid, fire_at: fire });
			} else {
				ev.push({ event_id: -1, timestamp: ts(-15), event_type: 'TaskCompleted', task_scheduled_id: sid,
					  task_execution_id: tex });
			}
		}
		k++;
	}
	ev.push({ event_id: seq, timestamp: ts(25), event_type: 'ExecutionCompleted',
		  workflow_status: 'ORCHESTRATION_STATUS_COMPLETED' });
	return ev;
}

// Payloads as the full data-sharing level would return them: JSON text, as
// durabletask carries them.  Retries of one invocation and repeated calls of
// one activity in a run get identical inputs, like real code would send.
function addPayloads(run) {
	const wfInput = JSON.stringify({ id: run.instanceId, requestedBy: 'api', currency: 'EUR', amountCents: 4200 });
	run.input = wfInput;
	run.customStatus = run.status === 'running' ? JSON.stringify({ step: 'in-progress' }) : '';
	const scheduled = new Map();
	for (const e of run.events) {
		switch (e.event_type) {
		case 'ExecutionStarted':
			e.input = wfInput;
			break;
		case 'TaskScheduled':
		case 'ChildWorkflowInstanceCreated': {
			const body = { workflow: run.instanceId, step: e.name };
			if (e._record !== undefined)
				body.record = e._record;
			e.input = JSON.stringify(body);
			if (e.event_id >= 0)
				scheduled.set(e.event_id, e.name);
			break;
		}
		case 'TaskCompleted':
		case 'ChildWorkflowInstanceCompleted':
			e.result = JSON.stringify({ ok: true, step: scheduled.get(e.task_scheduled_id) ?? null });
			break;
		case 'ExecutionCompleted':
			if (e.workflow_status === 'ORCHESTRATION_STATUS_COMPLETED') {
				e.result = JSON.stringify({ id: run.instanceId, outcome: 'done' });
				run.output = e.result;
			}
			break;
		default:
			break;
		}
	}
	for (const e of run.events)
		delete e._record;
}

// The fleet (--fleet N): N small runs of one workflow over the 20 days
// before the fixtures' day, alternating between apps `orders` and
// `billing`, each calling FLEET_ACTIVITIES once. An activity named in
// `reexecute` ({name: rate}) re-executes after an ambiguous failure (a
// timeout or a 503, then a retry that succeeds) in exactly
// floor(rate * n) of its first n invocations per app; every other
// invocation runs once. N/2 more runs, 45 days older still, re-execute
// FLEET_OLD_ACTIVITY every time: a window that ignored --since would rank it
// first.
export const FLEET_ACTIVITIES = ['ValidateOrder', 'ReserveInventory', 'ChargeCard', 'SendReceipt', 'NotifyCustomer',
				 'UpdateLedger'];
export const FLEET_OLD_ACTIVITY = 'ArchiveOrder';

function fleetRuns(n, reexecute, rng) {
	const runs = [];
	const seen = new Map(); // app/name -> invocations so far
	const attemptsOf = (app) => (k, name) => {
		const rate = name === FLEET_OLD_ACTIVITY ? 1 : (reexecute[name] ?? 0);
		const key = `${app}/${name}`;
		const i = seen.get(key) ?? 0;
		seen.set(key, i + 1);
		return Math.floor((i + 1) * rate + 1e-9) > Math.floor(i * rate + 1e-9) ? 2 : 1;
	};
	const day = Date.parse('2026-09-14T00:00:00.000Z');
	const span = 20 * 86400e3;
	const old = Math.floor(n / 2);
	for (let i = 0; i < n + old; i++) {
		const isOld = i >= n;
		const app = ['orders', 'billing'][i % 2];
		const id = `${isOld ? 'fleet-old' : 'fleet'}-${String(i + 1).padStart(6, '0')}`;
		const names = isOld ? [FLEET_OLD_ACTIVITY, ...FLEET_ACTIVITIES.slice(0, 2)] : FLEET_ACTIVITIES;
		const startMs = isOld ? day - 45 * 86400e3 - (i - n) * 60e3 : day - span + Math.floor((i * span) / Math.max(n, 1));
		runs.push(makeRun(app, generateHistory({
			instanceId: id, workflowName: 'FleetWorkflow', activity: (k) => names[k % names.length],
			invocations: names.length, rng, startMs, attemptsOf: attemptsOf(app) })));
	}
	return runs;
}

export function buildWorld({ extraRuns = 0, seed = 1, shiftNow = false, runsProject = 'default', fleet = 0,
			     reexecute = {}, finishLater = false, live = null, liveRuns = null } = {}) {
	const rng = mulberry32(seed);
	const fx = {
		a: loadFixture('a-clean-activity'),
		b: loadFixture('b-retry-fail-fail-succeed'),
		c1: loadFixture('c1-attempt-timeout-then-retry'),
		c2: loadFixture('c2-timer-race-recall-overlap'),
		dParent: loadFixture('d-child-retry.parent'),
		dChild1: loadFixture('d-child-retry.child-attempt1'),
		dChild2: loadFixture('d-child-retry.child-attempt2'),
		e2: loadFixture('e-continue-as-new.gen2'),
		f: loadFixture('f-crash-redelivery'),
		g: loadFixture('g-logic-duplicate'),
		h1: loadFixture('h1-nonretryable-error-type'),
		h2: loadFixture('h2-nonretriable-flag-dotnet'),
		k5: loadFixture('k5-rerun-from-event-1'),
		k5src: loadFixture('k5-rerun-from-event-1.source'),
	};

	// --- project "default" (uid 165): every fixture verbatim, every status.
	const def = [];
	def.push(makeRun('orders', clone(fx.a)));
	def.push(makeRun('checkout', clone(fx.b)));
	// --live: runs whose history grows while they are read (run --follow).
	// Each is b's history (an ambiguous failure, then retries) under its
	// own id, shown one event more every live.stepMs from the first time
	// a session asks for it: live-7001 runs to its end; live-7002 is purged once
	// 4 of its events are shown; live-7003 shows its first failure five
	// steps late, after the retry timer it caused and the next attempt (an
	// event out of order, late enough that a reading falls between).
	if (live) {
		const liveRun = (id, extra) => {
			const r = makeRun('checkout', derive(fx.b, { instanceId: id, oldInstanceId: 'pay-20931' }));
			r.liveSpec = { stepMs: live.stepMs, first: 2, ...extra };
			return r;
		};
		def.push(liveRun('live-7001', {}));
		def.push(liveRun('live-7002', { purgeAt: 4 }));
		const late = fx.b.findIndex((e) => e.event_type === 'TaskFailed');
		const order = fx.b.map((_, i) => i);
		order.splice(late, 1);
		order.splice(late + 5, 0, late);
		def.push(liveRun('live-7003', { order }));
		if (live.bulk) {
			const ev = generateHistory({ instanceId: 'live-9000', workflowName: 'BulkImport', activity: () => 'ImportRecord',
						     target: live.bulk, rng, startMs: Date.parse('2026-09-14T12:00:00Z'),
						     retryEvery: 25 });
			// It stops short of its end: a run stuck running, for a
			// follow that lasts.
			const stuck = ev.filter((e) => e.event_type !== 'ExecutionCompleted');
			const r = makeRun('onboarding', stuck);
			r.liveSpec = { stepMs: (live.bulkSeconds * 1000) / stuck.length, first: 2 };
			def.push(r);
		}
	}
	def.push(makeRun('payouts', clone(fx.c1)));
	def.push(makeRun('payouts', clone(fx.c2)));
	def.push(makeRun('orders', clone(fx.dParent)));
	def.push(makeRun('orders', clone(fx.dChild1)));
	def.push(makeRun('orders', clone(fx.dChild2)));
	def.push(makeRun('inventory', clone(fx.e2)));
	def.push(makeRun('notifications', clone(fx.f)));
	def.push(makeRun('notifications', clone(fx.g)));
	def.push(makeRun('refunds', clone(fx.h1)));
	def.push(makeRun('onboarding', clone(fx.h2)));
	// h2's failed child, so following it finds a history.
	{
		const child = fx.h2.find((e) => e.event_type === 'ChildWorkflowInstanceCreated');
		const t0 = Date.parse(child.timestamp);
		const tex = derivedUuid('verify-62');
		const at = (d) => new Date(t0 + d).toISOString();
		def.push(makeRun('onboarding', [
			{ event_id: -1, timestamp: at(40), event_type: 'WorkflowStarted' },
			{ event_id: -1, timestamp: at(20), event_type: 'ExecutionStarted', name: 'VerifyIdentity',
			  workflow_instance_instance_id: child.instance_id,
			  workflow_instance_execution_id: derivedUuid('verify-62/exec'),
			  parent_instance_app_id: 'onboarding', parent_instance_name: 'OnboardingWorkflow',
			  parent_instance_task_scheduled_id: 0,
			  parent_instance_workflow_instance_instance_id: 'onboard-62' },
			{ event_id: 0, timestamp: at(60), event_type: 'TaskScheduled', name: 'CheckIdentityDocument',
			  task_execution_id: tex },
			{ event_id: -1, timestamp: at(400), event_type: 'WorkflowStarted' },
			{ event_id: -1, timestamp: at(380), event_type: 'TaskFailed', task_scheduled_id: 0, task_execution_id: tex,
			  failure_details_error_message: 'Applicant 62 has no identity document on file',
			  failure_details_error_type: 'ApplicantDocumentMissingException',
			  failure_details_is_non_retriable: true },
			{ event_id: 1, timestamp: at(420), event_type: 'ExecutionCompleted',
			  workflow_status: 'ORCHESTRATION_STATUS_FAILED',
			  failure_details_error_message: 'Applicant 62 has no identity document on file' },
		]));
	}
	// Runs in every remaining state, cut from the clean run.
	const cut = (id, hours, tail) => {
		const ev = derive(fx.a, { instanceId: id, oldInstanceId: 'order-7731', shiftMs: hours * 3600e3 });
		return makeRun('orders', truncated(ev, 6, tail));
	};
	def.push(cut('order-7801', 2, []));
	if (finishLater) {
		// order-7801 finishes later (Catalyst.finishLater): the rest of its
		// history, kept to be appended then.
		const ev = derive(fx.a, { instanceId: 'order-7801', oldInstanceId: 'order-7731', shiftMs: 2 * 3600e3 });
		def[def.length - 1].rest = ev.slice(6);
		// A run that started a day and more before the newest run and
		// ended an hour before it: --since 24h misses it, --ended-since
		// 24h finds it.
		const long = derive(fx.a, { instanceId: 'order-7750', oldInstanceId: 'order-7731', shiftMs: -6 * 3600e3 });
		const last = long[long.length - 1];
		last.timestamp = shiftTime(last.timestamp, 29 * 3600e3);
		def.push(makeRun('orders', long));
	}
	def.push(cut('order-7802', 3, [{ event_type: 'ExecutionSuspended', input: '"manual hold"' }]));
	def.push(cut('order-7803', 4, [{ event_type: 'ExecutionTerminated', input: '"operator stop"' },
				      { event_id: 2, event_type: 'ExecutionCompleted',
					workflow_status: 'ORCHESTRATION_STATUS_TERMINATED' }]));
	def.push(cut('order-7804', 5, [{ event_id: 2, event_type: 'ExecutionCompleted',
					workflow_status: 'ORCHESTRATION_STATUS_CANCELED' }]));
	// A run of a few thousand events.
	def.push(makeRun('onboarding', generateHistory({
		instanceId: 'bulk-import-1', workflowName: 'BulkImportWorkflow', activity: () => 'ImportRecord',
		target: 3200, rng, startMs: Date.parse('2026-09-14T06:00:00.000Z'), retryEvery: 40 })));
	const gen = runsProject === 'default' ? def : [];
	for (let i = 0; i < extraRuns; i++) {
		const id = `gen-${String(i + 1).padStart(6, '0')}`;
		gen.push(makeRun(['orders', 'shipping', 'checkout'][i % 3], generateHistory({
			instanceId: id, workflowName: ['OrderWorkflow', 'ShipmentWorkflow', 'PaymentWorkflow'][i % 3],
			activity: (k) => ['ValidateOrder', 'ReserveInventory', 'ChargeCard', 'CreateShipment', 'NotifyCustomer'][k % 5],
			target: 200, rng, startMs: Date.parse('2026-09-13T00:00:00.000Z') + i * 61_000, retryEvery: 12 })));
	}
	if (fleet > 0)
		gen.push(...fleetRuns(fleet, reexecute, rng));
	// --live-runs: many runs as live-7001 is, each running to its end, a
	// second apart in start time, for runs --follow of many runs.
	for (let i = 0; liveRuns && i < liveRuns.n; i++) {
		const id = `follow-${String(i + 1).padStart(4, '0')}`;
		const r = makeRun('checkout', derive(fx.b, { instanceId: id, oldInstanceId: 'pay-20931', shiftMs: i * 1000 }));
		r.liveSpec = { stepMs: liveRuns.stepMs, first: 2 };
		gen.push(r);
	}

	// --- project "payments" (uid 212): the realistic incident set of the demo.
	const pay = [];
	pay.push(makeRun('checkout', clone(fx.b)));                      // ChargeCard retried after RemoteDisconnected
	pay.push(makeRun('shipping', derive(fx.c1, {                     // shipment booking timed out, retried
		instanceId: 'ship-5518', oldInstanceId: 'payout-118', shiftMs: -3 * 3600e3,
		rename: { PayoutWorkflow: 'ShipmentWorkflow', SubmitPayout: 'BookCarrierPickup' },
		messages: {
			"HTTPSConnectionPool(host='payouts.bank.example', port=443): Read timed out. (read timeout=10)":
				"HTTPSConnectionPool(host='api.carrier.example', port=443): Read timed out. (read timeout=10)",
		} })));
	pay.push(makeRun('orders', clone(fx.dParent)));                  // retried child workflow
	pay.push(makeRun('orders', clone(fx.dChild1)));
	pay.push(makeRun('orders', clone(fx.dChild2)));
	pay.push(makeRun('orders', clone(fx.a)));                        // clean
	// Stack traces mention the source fixture's file; make the shipment's match.
	for (const e of pay[1].events)
		if (e.failure_details_stack_trace)
			e.failure_details_stack_trace = e.failure_details_stack_trace
				.replace('/app/activities/payouts.py', '/app/activities/shipping.py')
				.replace('submit_payout', 'book_carrier_pickup').replace('BANK_URL', 'CARRIER_URL');

	// --- project "42" (uid 977): a name that looks like a uid, and one run id
	// in two apps (each app makes its own instance ids: `run order-9001`
	// cannot tell which is meant).
	const p42 = [makeRun('orders', derive(fx.a, { instanceId: 'order-9001', oldInstanceId: 'order-7731',
						       shiftMs: 86400e3 })),
		     makeRun('returns', derive(fx.a, { instanceId: 'order-9001', oldInstanceId: 'order-7731',
							shiftMs: 22 * 3600e3, uuidSeed: 'returns/order-9001',
							rename: { OrderWorkflow: 'ReturnWorkflow' } }))];
	// A rerun (issue 16): `hello` reran `abc` from event 1, both in app
	// orders; `hello-2` names a source that is gone (purged). Moved a week
	// back, so that --shift-now still takes the other projects' newest run
	// as now.
	const weekBack = (events) => {
		for (const e of events)
			e.timestamp = shiftTime(e.timestamp, -7 * 86400e3);
		return events;
	};
	p42.push(makeRun('orders', weekBack(clone(fx.k5src))), makeRun('orders', weekBack(clone(fx.k5))));
	const orphanRerun = weekBack(clone(fx.k5));
	for (const e of orphanRerun) {
		if (e.workflow_instance_instance_id)
			e.workflow_instance_instance_id = 'hello-2';
		if (e.rerun_parent_instance_info_instance_id)
			e.rerun_parent_instance_info_instance_id = 'purged-1';
	}
	p42.push(makeRun('orders', orphanRerun));

	const projects = [
		{ name: 'default', uid: 165, displayName: 'Default', region: 'us-east-1', runs: def, workflowStore: true },
		{ name: 'payments', uid: 212, displayName: 'Payments', region: 'eu-west-1', runs: pay, workflowStore: true },
		{ name: '42', uid: 977, displayName: 'Project 42', region: 'us-east-1', runs: p42, workflowStore: true },
		{ name: 'sandbox', uid: 301, displayName: 'Sandbox (no workflow store)', region: 'us-east-1', runs: [],
		  workflowStore: false },
	];
	if (gen !== def)
		projects.push({ name: runsProject, uid: 500, displayName: 'Generated runs', region: 'us-east-1', runs: gen,
				workflowStore: true });

	let shift = 0;
	if (shiftNow) {
		let newest = 0;
		for (const p of projects)
			for (const r of p.runs)
				newest = Math.max(newest, Date.parse(r.lastUpdatedAt));
		shift = Date.now() - 10 * 60e3 - newest;
	}
	// The large payload: visible only at full, over 64 KiB.
	const bulk = def.find((r) => r.instanceId === 'bulk-import-1');
	for (const p of projects) {
		for (const r of p.runs) {
			if (shift) {
				for (const e of r.events) {
					if (e.timestamp)
						e.timestamp = shiftTime(e.timestamp, shift);
					if (e.fire_at)
						e.fire_at = shiftTime(e.fire_at, shift);
				}
				for (const k of ['createdAt', 'lastUpdatedAt', 'completedAt'])
					if (r[k])
						r[k] = shiftTime(r[k], shift);
				for (const e of r.rest ?? [])
					for (const k of ['timestamp', 'fire_at'])
						if (e[k])
							e[k] = shiftTime(e[k], shift);
			}
			r.full = clone(r.events);
			const view = { ...r, events: r.full };
			addPayloads(view);
			r.input = view.input;
			r.output = view.output;
			r.customStatus = view.customStatus;
			for (const e of r.events)
				delete e._record;
		}
	}
	const bulkFirst = bulk.full.find((e) => e.event_type === 'TaskScheduled');
	bulkFirst.input = JSON.stringify({ workflow: 'bulk-import-1', step: 'ImportRecord', record: 0,
					   rows: 'x'.repeat(70 * 1024) });
	// A void activity: the result key is present and empty at full.
	for (const p of projects)
		for (const r of p.runs)
			if (r.instanceId === 'receipt-5512')
				for (const e of r.full)
					if (e.event_type === 'TaskCompleted')
						e.result = '';

	for (const p of projects)
		for (const r of p.runs)
			if (r.liveSpec) {
				const n = r.events.length;
				r.live = { all: r.events, allFull: r.full, order: r.liveSpec.order ?? [...Array(n).keys()],
					   ...r.liveSpec };
				delete r.liveSpec;
			}
	for (const p of projects) {
		p.apps = [...new Set(p.runs.map((r) => r.appId))].sort();
		p.runs.sort((x, y) => (Date.parse(y.createdAt) - Date.parse(x.createdAt)) ||
			(x.instanceId < y.instanceId ? -1 : 1));
	}
	return {
		user: { id: 'usr-4b1e9c7d', email: 'oncall@acme.example', name: 'On-call Engineer' },
		org: { id: 'org-51c2e8d0-7a44-4f0e-9d21-3b6a8e0c7f15', name: 'Acme Payments' },
		projects,
	};
}

export function findProject(world, value) {
	if (value === undefined || value === null || value === '')
		return world.projects.find((p) => p.name === 'default');
	const s = String(value);
	// A name wins over a uid: project "42" is the project named 42, not uid 42.
	const byName = world.projects.find((p) => p.name === s);
	if (byName)
		return byName;
	const m = /^(?:prj-)?(\d+)$/.exec(s);
	if (m)
		return world.projects.find((p) => p.uid === Number(m[1])) || null;
	return null;
}
