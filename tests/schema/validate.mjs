// Validates catalyst-audit reports against doc/catalyst-audit.report.v1.schema.json
// (and link and whoami documents against theirs)
// with Ajv (draft 2020-12), already installed in tests/npm as a dependency of
// the MCP SDK. Usage: node validate.mjs SCHEMA FILE...  (FILE.json: a report
// document; FILE.jsonl: each line against $defs/jsonl_line). Prints one line per
// invalid file and exits 1 if any; 0 when all are valid.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'npm', 'package.json'));
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats');

const [schemaPath, ...files] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const whole = ajv.compile(schema);
// Only the report has JSON Lines (link and whoami print one document).
const line = schema.$defs?.jsonl_line ? ajv.compile({ $ref: `${schema.$id}#/$defs/jsonl_line` }) : null;
let bad = 0;
for (const f of files) {
	const text = readFileSync(f, 'utf8');
	const docs = f.endsWith('.jsonl') ? text.split('\n').filter((l) => l !== '').map((l) => [line, l])
		: [[whole, text]];
	docs.forEach(([check, t], i) => {
		let doc;
		try {
			doc = JSON.parse(t);
		} catch (e) {
			console.log(`${f}:${i + 1}: not JSON: ${e.message}`);
			bad++;
			return;
		}
		if (!check(doc)) {
			console.log(`${f}:${i + 1}: ${ajv.errorsText(check.errors)}`);
			bad++;
		}
	});
}
console.log(`${files.length} files, ${bad} invalid`);
process.exit(bad ? 1 : 0);
