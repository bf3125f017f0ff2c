// `npm run build`, after tsc: writes dist/compile/builtin-snapshot.json, the built-in plan policy loaded ahead of
// time (src/compile/builtin-snapshot.ts), from the modules just built. A policies/plan.yaml that cannot be
// snapshotted (it has diagnostics) gets none: every load then parses it, and this says so.
import { writeBuiltinSnapshot } from '../dist/compile/builtin-snapshot-write.js';

if (!writeBuiltinSnapshot()) {
  process.stderr.write('builtin-snapshot: policies/plan.yaml has diagnostics: no snapshot written\n');
}
