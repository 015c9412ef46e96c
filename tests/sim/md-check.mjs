// Checks a Markdown report the way a reader's tools see it: rendered to
// HTML by a GFM renderer (marked) and each ```mermaid block parsed by
// Mermaid's own parser (with jsdom for the DOM it wants; no browser).
//
// Usage: node tests/sim/md-check.mjs [--max-columns N] [FILE...] (none: stdin)
// Prints one JSON line {tables, rows, charts, tasks, links, chars} per
// document; exits 1 naming every problem (and its file):
// - a table the renderer did not make (its header and delimiter rows
//   disagree), one wider than --max-columns (default 6), a row whose cell
//   count differs from its header's in the source (GFM drops extra cells
//   and pads missing ones silently) or in the HTML;
// - a Mermaid block that does not parse, is not a gantt chart, or has a
//   task whose start or end is not a valid date or ends before it starts
//   (Mermaid takes an unparsable end as the start: a bar of no length);
// - a link to #run-N with no element of that id.
import { readFileSync } from 'node:fs';
// The peers pinned in tests/npm (package.json), by path as the other
// scripts here load theirs.
const peer = (p) => new URL(`../npm/node_modules/${p}`, import.meta.url).href;
const { JSDOM } = (await import(peer('jsdom/lib/api.js'))).default;
const { marked } = await import(peer('marked/lib/marked.esm.js'));

let maxColumns = 6;
const files = [];
for (let i = 2; i < process.argv.length; i++) {
	if (process.argv[i] === '--max-columns') maxColumns = Number(process.argv[++i]);
	else files.push(process.argv[i]);
}
// Mermaid (its DOMPurify) takes the DOM it finds when it is loaded.
const base = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = base.window;
globalThis.document = base.window.document;
const { default: mermaid } = await import(peer('mermaid/dist/mermaid.core.mjs'));
mermaid.initialize({ startOnLoad: false });
let failed = false;
for (const file of files.length ? files : [0]) {
	const problems = await check(readFileSync(file, 'utf8'));
	for (const p of problems) console.error(`md-check: ${file === 0 ? '' : `${file}: `}${p}`);
	failed ||= problems.length > 0;
}
process.exit(failed ? 1 : 0);

async function check(md) {
const problems = [];

// Cells of a source table row: split on '|' not escaped by a backslash and
// not inside a code span.
function sourceCells(line) {
	let s = line.trim();
	const cells = [];
	let cur = '';
	let code = false;
	for (let i = 0; i < s.length; i++) {
		const c = s[i];
		if (c === '\\' && i + 1 < s.length) { cur += c + s[++i]; continue; }
		if (c === '`') code = !code;
		if (c === '|' && !code) { cells.push(cur); cur = ''; continue; }
		cur += c;
	}
	cells.push(cur);
	if (s.startsWith('|')) cells.shift();
	if (s.endsWith('|') && !s.endsWith('\\|')) cells.pop();
	return cells.length;
}

// Tables in the source, outside fenced blocks.
const lines = md.split('\n');
let fenced = false;
let sourceTables = 0;
for (let i = 0; i < lines.length; i++) {
	if (/^```/.test(lines[i])) { fenced = !fenced; continue; }
	if (fenced) continue;
	if (i + 1 < lines.length && /^\|.*\|\s*$/.test(lines[i]) && /^\|(\s*:?-+:?\s*\|)+\s*$/.test(lines[i + 1])) {
		sourceTables++;
		const width = sourceCells(lines[i]);
		if (sourceCells(lines[i + 1]) !== width)
			problems.push(`line ${i + 2}: the delimiter row has ${sourceCells(lines[i + 1])} cells, the header ${width}`);
		for (let k = i + 2; k < lines.length && /^\|/.test(lines[k]); k++)
			if (sourceCells(lines[k]) !== width)
				problems.push(`line ${k + 1}: ${sourceCells(lines[k])} cells where the header has ${width}: ${lines[k].slice(0, 120)}`);
	}
}

const html = marked.parse(md, { gfm: true });
const dom = new JSDOM(`<!doctype html><html><body>${html}</body></html>`);
const doc = dom.window.document;
const tables = [...doc.querySelectorAll('table')];
let rows = 0;
if (tables.length !== sourceTables)
	problems.push(`the renderer made ${tables.length} tables of the ${sourceTables} in the source`);
tables.forEach((t, n) => {
	const head = t.querySelectorAll('thead tr th').length;
	if (head > maxColumns) problems.push(`table ${n + 1}: ${head} columns (at most ${maxColumns})`);
	for (const tr of t.querySelectorAll('tbody tr')) {
		rows++;
		const cells = tr.querySelectorAll('td').length;
		if (cells !== head) problems.push(`table ${n + 1}: a row of ${cells} cells under ${head} headers`);
	}
});

let links = 0;
for (const a of doc.querySelectorAll('a[href^="#"]')) {
	links++;
	const id = decodeURIComponent(a.getAttribute('href').slice(1));
	if (!doc.getElementById(id)) problems.push(`link to #${id} has no target`);
}

const blocks = [...md.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
let tasks = 0;
for (const [n, text] of blocks.entries()) {
	try {
		const diagram = await mermaid.mermaidAPI.getDiagramFromText(text);
		if (diagram.type !== 'gantt') { problems.push(`chart ${n + 1} is a ${diagram.type}, not a gantt`); continue; }
		const lines = text.split('\n').filter((l) => /^\s+\S.*:/.test(l) && !/^\s+(title|dateFormat|axisFormat|section)\b/.test(l));
		const got = diagram.db.getTasks();
		if (got.length !== lines.length) problems.push(`chart ${n + 1}: ${got.length} tasks parsed of ${lines.length} lines`);
		for (const t of got) {
			tasks++;
			const s = t.startTime, e = t.endTime;
			if (!(s instanceof Date) || isNaN(s) || !(e instanceof Date) || isNaN(e))
				problems.push(`chart ${n + 1}: task "${t.task}" has no valid time`);
			else if (e < s) problems.push(`chart ${n + 1}: task "${t.task}" ends before it starts`);
		}
		// every written end time was read as written (not taken as the start)
		for (const l of lines) {
			const m = l.match(/[:,] ?(\d{4}-\d\d-\d\dT[\d:.]+), (\d{4}-\d\d-\d\dT[\d:.]+)\s*$/);
			if (!m) { problems.push(`chart ${n + 1}: a task without a start and an end: ${l.trim()}`); continue; }
			const want = Date.parse(`${m[2]}Z`) - Date.parse(`${m[1]}Z`);
			const t = got.find((x) => x.task.trim() === l.trim().split(' :')[0].trim() && Math.abs((x.endTime - x.startTime) - want) < 1);
			if (!t) problems.push(`chart ${n + 1}: no task of ${want} ms for: ${l.trim()}`);
		}
	} catch (e) {
		problems.push(`chart ${n + 1} does not parse: ${String(e.message || e).split('\n')[0]}`);
	}
}

console.log(JSON.stringify({ tables: tables.length, rows, charts: blocks.length, tasks, links, chars: [...md].length }));
return problems;
}
