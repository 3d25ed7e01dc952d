// Runs the W3C web-platform-tests for WebNN (conformance_tests, validation_tests), unmodified,
// against this binding: one Node process per file and variant (file.js), results compared with
// expectations.json. Usage: node run.js [WPT_DIR] [--variants=cpu,gpu] [--filter=text] [--jobs=N]
// WPT_DIR (or $WEBNN_WPT_DIR) is a WPT checkout or its webnn/ directory. Without $WEBNN_SOCKET a
// private webnnd (build/bin/webnnd --backend cpu) is started.
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');
const { parseMeta } = require('./meta');

const RESULT_MARK = 'WPT-RESULT ';
const SUITES = ['conformance_tests', 'validation_tests'];
// WPT's own limits (10 s, long 60 s), scaled ($WEBNN_WPT_TIMEOUT_SCALE, default 10) for a shared,
// loaded machine: a file of 10 s here can take 30 s beside a busy build.
const TIMEOUT_MS = { normal: 10000, long: 60000 };

// The WPT root (the directory holding webnn/ and resources/) for a checkout or its webnn/ directory.
function wptRoot(dir) {
  const d = path.resolve(dir);
  if (fs.existsSync(path.join(d, 'webnn'))) return d;
  if (path.basename(d) === 'webnn') return path.dirname(d);
  return null;
}

// The test files of the two suites, relative to the root, in a stable order; gpu/ holds tests of
// WebGPU interop, which Node has not.
function listFiles(root) {
  const files = [];
  const walk = (rel) => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    for (const e of fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) { if (e.name !== 'gpu') walk(r); } else if (e.name.endsWith('.any.js')) files.push(r);
    }
  };
  for (const s of SUITES) walk(path.join('webnn', s));
  return files;
}

// The device a variant asks for: ?cpu, or ?op=add&device=cpu.
function deviceOf(variant) {
  return new URLSearchParams(variant).get('device') || variant.replace(/^\?/, '');
}

// One run of one file: what file.js reported, or a harness error saying why there is nothing.
function runFile({ root, rel, variant, socketPath, module, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'file.js'), root, rel, variant], {
      env: { ...process.env, WEBNN_SOCKET: socketPath, WEBNN_NODE_MODULE: module },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '', err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.startsWith(RESULT_MARK));
      if (line) return resolve(JSON.parse(line.slice(RESULT_MARK.length)));
      const why = signal === 'SIGKILL' ? `TIMEOUT after ${timeoutMs} ms` : `exited (${code ?? signal}) without results`;
      resolve({ file: rel, variant, tests: [], harness: { status: 'ERROR', message: `${why}: ${err.slice(-2000)}` }, uncaught: [] });
    });
  });
}

// Each result as the expectations see it: a test's name with PASS, FAIL, TIMEOUT, NOTRUN or
// PRECONDITION_FAILED (an optional feature the context says it lacks; counted with the optional
// tests utils.js skips on opSupportLimits()), plus [harness] when the
// harness status is not OK and [uncaught] for errors outside any test.
function outcomes(r) {
  const list = r.tests.map((t) => ({ name: t.name, status: t.status, message: t.message }));
  if (!r.harness || r.harness.status !== 'OK') {
    list.push({ harness: true, name: '[harness]', status: r.harness ? r.harness.status : 'ERROR', message: r.harness ? r.harness.message : 'no completion' });
  }
  if (r.uncaught.length) list.push({ harness: true, name: '[uncaught]', status: 'FAIL', message: r.uncaught.join('\n') });
  return list;
}

function loadExpectations(file) {
  const data = JSON.parse(fs.readFileSync(file, 'utf8'));
  delete data.$comment;
  return data;
}

// Runs the suites; resolves { files: [{ key, counts, failures }], totals, unexpected }.
async function runSuite(options) {
  const { root, socketPath, module, variants = ['cpu'], filter = '', jobs = 2,
    expectations = {}, log = () => {} } = options;
  const runs = [];
  for (const rel of listFiles(root)) {
    if (filter && !rel.includes(filter)) continue;
    const meta = parseMeta(fs.readFileSync(path.join(root, rel), 'utf8'));
    const vs = meta.variants.length ? meta.variants.filter((v) => variants.includes(deviceOf(v))) : [''];
    for (const variant of vs) runs.push({ rel, variant, long: meta.long });
  }
  const results = new Array(runs.length);
  let next = 0;
  const scale = Number(process.env.WEBNN_WPT_TIMEOUT_SCALE || 10);
  const worker = async () => {
    while (next < runs.length) {
      const i = next++;
      const { rel, variant, long } = runs[i];
      const timeoutMs = (long ? TIMEOUT_MS.long : TIMEOUT_MS.normal) * scale;
      results[i] = await runFile({ root, rel, variant, socketPath, module, timeoutMs });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));

  const summary = { files: [], totals: {}, unexpected: [] };
  for (const s of SUITES) summary.totals[s] = { files: 0, pass: 0, fail: 0, optional: 0, expected: 0 };
  for (const r of results) {
    const key = `${r.file.split(path.sep).join('/')}${r.variant}`;
    const suite = SUITES.find((s) => r.file.includes(s));
    const exp = expectations[key] || {};
    const counts = { pass: 0, fail: 0, optional: 0, expected: 0 };
    const failures = [];
    for (const o of outcomes(r)) {
      if (o.status === 'PASS') {
        counts.pass++;
        if (exp[o.name]) summary.unexpected.push({ key, name: o.name, status: 'PASS', message: `expected to fail: ${exp[o.name]}` });
      } else if (o.status === 'PRECONDITION_FAILED') {
        counts.optional++;
      } else {
        if (!o.harness) counts.fail++;
        failures.push(o);
        if (exp[o.name]) counts.expected++;
        else summary.unexpected.push({ key, ...o });
      }
    }
    // Optional tests utils.js skipped because opSupportLimits() says the context lacks them.
    counts.optional += (r.skipped || []).length;
    summary.files.push({ key, counts, failures, skipped: r.skipped || [] });
    const t = summary.totals[suite];
    t.files++; t.pass += counts.pass; t.fail += counts.fail; t.optional += counts.optional; t.expected += counts.expected;
    log(`${failures.length ? 'FAIL' : 'PASS'} ${key}: ${counts.pass} passed, ${counts.fail} failed` +
      `${counts.optional ? `, ${counts.optional} optional unsupported` : ''}` +
      `${counts.expected ? ` (${counts.expected} expected)` : ''}` +
      `${failures.some((f) => f.harness) ? ', harness error' : ''}`);
  }
  return summary;
}

function report(summary, log) {
  for (const f of summary.files) {
    for (const o of f.failures) log(`  ${f.key} :: ${o.name}: ${o.status}${o.message ? ` - ${String(o.message).split('\n')[0]}` : ''}`);
  }
  for (const [s, t] of Object.entries(summary.totals)) {
    log(`${s}: ${t.files} files, ${t.pass} passed, ${t.fail} failed (${t.expected} expected), ${t.optional} optional unsupported`);
  }
  for (const u of summary.unexpected) log(`UNEXPECTED ${u.key} :: ${u.name}: ${u.status}${u.message ? ` - ${String(u.message).split('\n')[0]}` : ''}`);
}

async function main() {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const a = args.find((x) => x.startsWith(`--${name}=`));
    return a ? a.slice(name.length + 3) : dflt;
  };
  const dir = args.find((a) => !a.startsWith('--')) || process.env.WEBNN_WPT_DIR;
  const root = dir && wptRoot(dir);
  if (!root) {
    console.error('usage: node run.js WPT_DIR (a web-platform-tests checkout, or its webnn/ directory; or set WEBNN_WPT_DIR)');
    process.exit(2);
  }
  const { build, startDaemon } = require('../daemon');
  let daemon = null;
  let socketPath = process.env.WEBNN_SOCKET;
  if (!socketPath) {
    daemon = await startDaemon();
    socketPath = daemon.socketPath;
  }
  try {
    const summary = await runSuite({
      root, socketPath, module: path.join(build, 'node', 'webnn'),
      variants: opt('variants', 'cpu').split(','), filter: opt('filter', ''),
      jobs: Number(opt('jobs', 2)),
      expectations: args.includes('--no-expectations') ? {} : loadExpectations(path.join(__dirname, 'expectations.json')),
      log: console.log,
    });
    report(summary, console.log);
    process.exitCode = summary.unexpected.length ? 1 : 0;
  } finally {
    if (daemon) await daemon.stop();
  }
}

if (require.main === module) main();

module.exports = { wptRoot, listFiles, runSuite, report, loadExpectations };
