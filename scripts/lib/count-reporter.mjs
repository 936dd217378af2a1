// A test reporter for the test command's closing `N passed, N failed, N skipped` line. It writes its
// counts to $BUSSCOPE_TEST_COUNTS synchronously after every result, because the runner runs with
// --test-force-exit, which ends the process before an asynchronous reporter (a TAP file) has
// written its summary. Suites are not counted, as in the runner's own summary; a cancelled test
// (its file timed out, its suite failed) counts as failed. Prints nothing.
import { writeFileSync } from 'node:fs';

export default async function* countReporter(source) {
  const file = process.env.BUSSCOPE_TEST_COUNTS;
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details?.type === 'suite') continue;
    if (event.data.skip !== undefined || event.data.todo !== undefined) counts.skipped++;
    else if (event.type === 'test:pass') counts.passed++;
    else counts.failed++;
    if (file) writeFileSync(file, JSON.stringify(counts));
  }
  yield '';
}
