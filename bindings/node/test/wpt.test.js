// The W3C web-platform-tests for WebNN (conformance_tests, validation_tests) run unmodified on this
// binding by wpt/run.js; a test per file and variant, failing on any result that wpt/expectations.json
// does not list (and on a listed failure that now passes). The suite is not part of this
// repository: it is read from $WEBNN_WPT_DIR, else ../wpt beside the repository (a web-platform-tests
// checkout or its webnn/ directory), and skipped when neither is there.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { root, build, startDaemon } = require('./daemon');
const { wptRoot, listFiles, runSuite, loadExpectations } = require('./wpt/run');

const dir = process.env.WEBNN_WPT_DIR || path.resolve(root, '..', 'wpt');
const wpt = fs.existsSync(dir) ? wptRoot(dir) : null;
const skip = !wpt ? `no web-platform-tests at ${dir} (set WEBNN_WPT_DIR to a WPT checkout or its webnn/ directory)`
  : !fs.existsSync(path.join(wpt, 'resources', 'testharness.js')) ? `${wpt}/resources/testharness.js is absent`
    : listFiles(wpt).length === 0 ? `${wpt}/webnn has no conformance_tests or validation_tests` : false;

test('web-platform-tests for WebNN on navigator.ml', { skip, timeout: 1800000 }, async (t) => {
  const daemon = await startDaemon();
  let summary;
  try {
    summary = await runSuite({
      root: wpt, socketPath: daemon.socketPath, module: path.join(build, 'node', 'webnn'),
      variants: (process.env.WEBNN_WPT_VARIANTS || 'cpu').split(','),
      expectations: loadExpectations(path.join(__dirname, 'wpt', 'expectations.json')),
    });
  } finally {
    await daemon.stop();
  }
  for (const [suite, n] of Object.entries(summary.totals)) {
    t.diagnostic(`WPT total: ${suite}: ${n.files} files, ${n.pass} passed, ${n.fail} failed ` +
      `(${n.expected} expected), ${n.optional} optional unsupported`);
  }
  for (const f of summary.files) {
    await t.test(f.key, () => {
      const unexpected = summary.unexpected.filter((u) => u.key === f.key);
      assert.deepStrictEqual(unexpected.map((u) => `${u.name}: ${u.status}${u.message ? ` - ${u.message}` : ''}`), [],
        `${f.key}: ${f.counts.pass} passed, ${f.counts.fail} failed`);
    });
  }
});
