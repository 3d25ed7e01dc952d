// Runs one WPT .any.js file (one variant) in this process, as a shell global would under WPT's own
// testharness.js, with navigator.ml from the binding; prints its results as one JSON line.
// Usage: node file.js WPT_ROOT RELATIVE_PATH [?variant]   (run.js starts one process per file).
'use strict';

const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { parseMeta } = require('./meta');

const [root, rel, search = ''] = process.argv.slice(2);
const RESULT_MARK = 'WPT-RESULT ';

// What goes back to run.js: each test's status and message, the harness's status, and errors that
// escaped every test (which a browser reports as a harness error too).
const report = { file: rel, variant: search, tests: [], harness: null, uncaught: [], skipped: [] };
let reported = false;
function finish() {
  if (reported) return;
  reported = true;
  process.stdout.write(RESULT_MARK + JSON.stringify(report) + '\n', () => process.exit(0));
}

// The globals a worker or window would give these files: self (and window), location (the variant is its
// search string), navigator.ml and the WebNN interfaces, and fetch() for the suite's own
// same-origin files (utils.js reads /webnn/resources/minimum_datatype_set.json).
globalThis.self = globalThis;
globalThis.window = globalThis;
const url = new URL(`https://web-platform.test/${rel.split(path.sep).join('/')}${search}`);
Object.defineProperty(globalThis, 'location', {
  value: Object.freeze({
    href: url.href, origin: url.origin, protocol: url.protocol, host: url.host,
    hostname: url.hostname, port: url.port, pathname: url.pathname, search: url.search,
    hash: url.hash, toString() { return url.href; },
  }),
  configurable: true,
});
// ES2025's Set methods, which the suite uses (utils_validation.js) and browsers have, arrive in
// Node 22; older Node gets Set.prototype.difference as the language defines it for a Set argument.
if (typeof Set.prototype.difference !== 'function') {
  Object.defineProperty(Set.prototype, 'difference', {
    configurable: true, writable: true,
    value: function difference(other) {
      const result = new Set();
      for (const v of this) if (!other.has(v)) result.add(v);
      return result;
    },
  });
}
const webnn = require(process.env.WEBNN_NODE_MODULE);
webnn.install(globalThis);

const nodeFetch = globalThis.fetch;
globalThis.fetch = async (resource, init) => {
  const target = new URL(String(resource), url);
  if (target.origin !== url.origin) return nodeFetch(resource, init);
  const file = path.join(root, decodeURIComponent(target.pathname));
  if (!file.startsWith(path.resolve(root) + path.sep) || !fs.existsSync(file)) {
    return new Response('not found', { status: 404, statusText: 'Not Found' });
  }
  return new Response(fs.readFileSync(file), { status: 200 });
};

process.on('unhandledRejection', (e) => {
  report.uncaught.push(`unhandled rejection: ${e && e.stack ? e.stack : e}`);
});
process.on('uncaughtException', (e) => {
  report.uncaught.push(`uncaught exception: ${e && e.stack ? e.stack : e}`);
});

// Classic scripts, one after the other in one global, as <script> elements or importScripts run
// them: testharness.js, the META scripts, then the test file; all within this tick, because the
// shell environment of testharness.js considers the page loaded after the first microtask.
function runScript(file) {
  const code = fs.readFileSync(file, 'utf8');
  vm.runInThisContext(code, { filename: file });
}

const testFile = path.join(root, rel);
const meta = parseMeta(fs.readFileSync(testFile, 'utf8'));
runScript(path.join(root, 'resources', 'testharness.js'));

// testharness.js's status codes (Test.statuses, TestsStatus.statuses), by name.
const TEST_STATUS = ['PASS', 'FAIL', 'TIMEOUT', 'NOTRUN', 'PRECONDITION_FAILED'];
const HARNESS_STATUS = ['OK', 'ERROR', 'TIMEOUT', 'PRECONDITION_FAILED'];
add_result_callback((t) => { // eslint-disable-line no-undef
  report.tests.push({ name: t.name, status: TEST_STATUS[t.status] || String(t.status), message: t.message || null });
});
add_completion_callback((tests, status) => { // eslint-disable-line no-undef
  report.harness = { status: HARNESS_STATUS[status.status] || String(status.status), message: status.message || null };
  // utils.js drops the optional tests the context's opSupportLimits() rules out without a
  // result; its testsToSkip (a script-scope binding of this global) names them.
  report.skipped = vm.runInThisContext(
    "typeof testsToSkip === 'undefined' ? [] : testsToSkip.map((t) => t.name)");
  finish();
});

try {
  for (const s of meta.scripts) {
    const file = s.startsWith('/') ? path.join(root, s) : path.resolve(path.dirname(testFile), s);
    runScript(file);
  }
  runScript(testFile);
} catch (e) {
  // An error while loading is a harness error in a browser (the tests that were defined still
  // run); testharness.js would see it through window.onerror, which a shell has not.
  report.uncaught.push(`error while loading: ${e && e.stack ? e.stack : e}`);
  if (typeof done === 'function') done(); // eslint-disable-line no-undef
}
