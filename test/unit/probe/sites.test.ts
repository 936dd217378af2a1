// Subscribe/dispatch sites from V8 stack lines: the app's own frame, never the bus's or the probe's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isInternalFrame, parseStackLine } from '../../../runtime-probe/src/recorder/sites';

test('V8 stack line forms', () => {
  assert.deepEqual(parseStackLine('    at Hud.mount (/app/src/hud.js:42:7)'), { file: '/app/src/hud.js', line: 42, column: 7, functionName: 'Hud.mount' });
  assert.deepEqual(parseStackLine('    at /app/main.js:3:9'), { file: '/app/main.js', line: 3, column: 9, functionName: undefined });
  assert.deepEqual(parseStackLine('    at async Promise.all (index 0)'), undefined);
  assert.deepEqual(parseStackLine('    at async load (/app/a.mjs:1:2)'), { file: '/app/a.mjs', line: 1, column: 2, functionName: 'load' });
  assert.deepEqual(parseStackLine('    at new Widget (/app/w.js:10:3)'), { file: '/app/w.js', line: 10, column: 3, functionName: 'new Widget' });
  assert.deepEqual(parseStackLine('    at Object.handler [as onTick] (/app/t.js:5:1)'), {
    file: '/app/t.js',
    line: 5,
    column: 1,
    functionName: 'Object.handler',
  });
  assert.deepEqual(parseStackLine('    at file:///home/u/my%20app/main.mjs:7:11'), {
    file: '/home/u/my app/main.mjs',
    line: 7,
    column: 11,
    functionName: undefined,
  });
  assert.deepEqual(parseStackLine('    at run (file:///C:/app/main.mjs:1:1)'), { file: 'C:/app/main.mjs', line: 1, column: 1, functionName: 'run' });
  assert.deepEqual(parseStackLine('    at C:\\app\\main.js:2:3'), { file: 'C:\\app\\main.js', line: 2, column: 3, functionName: undefined });
  assert.deepEqual(parseStackLine('    at <anonymous> (/app/x.js:1:1)'), { file: '/app/x.js', line: 1, column: 1, functionName: undefined });
  assert.equal(parseStackLine('    at Array.forEach (<anonymous>)'), undefined);
  assert.equal(parseStackLine('    at eval (eval at run (/app/x.js:1:1), <anonymous>:1:1)'), undefined);
  assert.equal(parseStackLine('Error: boom'), undefined);
});

test("frames of the bus and the probe are internal; the app's are not", () => {
  const frame = (file: string, functionName?: string) => ({ file, line: 1, column: 1, functionName });
  assert.ok(isInternalFrame(frame('/x/node_modules/busscope-probe/dist/index.cjs')));
  assert.ok(isInternalFrame(frame('/repo/runtime-probe/dist/index.mjs')));
  assert.ok(isInternalFrame(frame('/repo/runtime-probe/src/bus/event-bus.ts')));
  assert.ok(isInternalFrame(frame('C:\\x\\node_modules\\busscope-probe\\dist\\bus.mjs')));
  assert.ok(isInternalFrame(frame('node:internal/process/task_queues')));
  assert.ok(isInternalFrame(frame('/app/bundle.js', 'EventBus.subscribe')), 'an app bundle that inlined the bus');
  assert.ok(!isInternalFrame(frame('/repo/runtime-probe/dist/demo.cjs')), 'the demo app is an app');
  assert.ok(!isInternalFrame(frame('/repo/runtime-probe/src/demo/hud.ts')));
  assert.ok(!isInternalFrame(frame('/app/src/hud.ts', 'Hud.mount')));
});
