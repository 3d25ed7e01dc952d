// navigator.ml's surface: the spec's example, lifetimes, errors, 64-bit and float16 data, many
// contexts, worker threads, a daemon that goes away, a process that exits with work in flight.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('child_process');
const path = require('path');
const { Worker } = require('worker_threads');
const { build, webnn, startDaemon } = require('./daemon');

let daemon;
test.before(async () => { daemon = await startDaemon(); });
test.after(async () => { await daemon.stop(); });

const F32 = (shape) => ({ dataType: 'float32', shape });
const newContext = () => webnn().ml.createContext({ socketPath: daemon.socketPath });

async function rejectsWith(promise, name, re) {
  await assert.rejects(promise, (e) => {
    assert.strictEqual(e.name, name, `${e.name}: ${e.message}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}
function throwsWith(fn, name, re) {
  assert.throws(fn, (e) => {
    assert.strictEqual(e.name, name, `${e.name}: ${e.message}`);
    if (re) assert.match(e.message, re);
    return true;
  });
}

test('navigator.ml installs on globalThis; require and import give the same module', async () => {
  const mod = webnn();
  const ml = mod.install();
  assert.strictEqual(globalThis.navigator.ml, ml);
  assert.strictEqual(typeof globalThis.MLGraphBuilder, 'function');
  const esm = await import(path.join(build, 'node', 'webnn', 'lib', 'index.mjs'));
  assert.strictEqual(esm.ml, ml);
  assert.strictEqual(esm.MLGraphBuilder, mod.MLGraphBuilder);
});

test("the spec's example: (0.5 + 1) * (0.5 + 1) through two inputs and two constants", async () => {
  const { MLGraphBuilder } = webnn();
  const context = await webnn().ml.createContext({ powerPreference: 'low-power', socketPath: daemon.socketPath });
  const builder = new MLGraphBuilder(context);
  const desc = { dataType: 'float32', shape: [2, 2] };
  const constant1 = builder.constant(desc, new Float32Array(4).fill(0.5));
  const constant2 = builder.constant(desc, new Float32Array(4).fill(0.5));
  const input1 = builder.input('input1', desc);
  const input2 = builder.input('input2', desc);
  const output = builder.mul(builder.add(constant1, input1), builder.add(constant2, input2));
  assert.strictEqual(output.dataType, 'float32');
  assert.deepStrictEqual(Array.from(output.shape), [2, 2]);
  const graph = await builder.build({ output });
  const t1 = await context.createTensor({ ...desc, writable: true });
  const t2 = await context.createTensor({ ...desc, writable: true });
  const out = await context.createTensor({ ...desc, readable: true });
  assert.deepStrictEqual([out.dataType, Array.from(out.shape), out.readable, out.writable, out.constant],
    ['float32', [2, 2], true, false, false]);
  context.writeTensor(t1, new Float32Array(4).fill(1));
  context.writeTensor(t2, new Float32Array(4).fill(1));
  context.dispatch(graph, { input1: t1, input2: t2 }, { output: out });
  assert.deepStrictEqual(Array.from(new Float32Array(await context.readTensor(out))), [2.25, 2.25, 2.25, 2.25]);
  const view = new Float32Array(4);
  assert.strictEqual(await context.readTensor(out, view), undefined);
  assert.deepStrictEqual(Array.from(view), [2.25, 2.25, 2.25, 2.25]);
  context.destroy();
});

test('every operator of ops.def is an MLGraphBuilder method and has opSupportLimits', async () => {
  const { MLGraphBuilder, operators } = webnn();
  const context = await newContext();
  const limits = context.opSupportLimits();
  assert.ok(operators.length >= 90, `${operators.length} operators`);
  for (const op of operators) {
    assert.strictEqual(typeof MLGraphBuilder.prototype[op], 'function', op);
  }
  assert.ok(['nchw', 'nhwc'].includes(limits.preferredInputLayout));
  assert.ok(limits.maxTensorByteLength > 0);
  assert.ok(limits.input.dataTypes.includes('float32'));
  const conv = limits.conv2d;
  assert.ok(conv && conv.input.dataTypes.includes('float32') && conv.filter && conv.output);
  assert.deepStrictEqual(conv.input.rankRange, { min: 4, max: 4 });
  context.destroy();
});

test('readTensor settles from the loop in timeline order; a read sees the writes before it only', async () => {
  const { MLGraphBuilder } = webnn();
  const context = await newContext();
  const b = new MLGraphBuilder(context);
  const x = b.input('x', F32([4]));
  const graph = await b.build({ y: b.mul(x, b.constant(F32([4]), new Float32Array([2, 2, 2, 2]))) });
  const tx = await context.createTensor({ ...F32([4]), writable: true });
  const ty = await context.createTensor({ ...F32([4]), readable: true, writable: true });
  const order = [];
  context.writeTensor(tx, new Float32Array([1, 2, 3, 4]));
  context.dispatch(graph, { x: tx }, { y: ty });
  const r1 = context.readTensor(ty).then((b) => { order.push(1); return Array.from(new Float32Array(b)); });
  context.writeTensor(ty, new Float32Array([9, 9, 9, 9]));
  const r2 = context.readTensor(ty).then((b) => { order.push(2); return Array.from(new Float32Array(b)); });
  const r3 = context.readTensor(ty).then(() => { order.push(3); });
  assert.deepStrictEqual(await r1, [2, 4, 6, 8]);
  assert.deepStrictEqual(await r2, [9, 9, 9, 9]);
  await r3;
  assert.deepStrictEqual(order, [1, 2, 3]);
  context.destroy();
});

test('lifetimes: destroyed tensors, graphs and contexts; destroy while dispatching', async () => {
  const { MLGraphBuilder } = webnn();
  const context = await newContext();
  const b = new MLGraphBuilder(context);
  const x = b.input('x', F32([64, 64]));
  let y = x;
  for (let i = 0; i < 8; i++) y = b.matmul(y, x);
  const graph = await b.build({ y });
  const tx = await context.createTensor({ ...F32([64, 64]), writable: true });
  const ty = await context.createTensor({ ...F32([64, 64]), readable: true });
  context.writeTensor(tx, new Float32Array(64 * 64).fill(0.01));
  context.dispatch(graph, { x: tx }, { y: ty });
  tx.destroy(); // the dispatch in flight keeps its input
  tx.destroy(); // twice is harmless
  await rejectsWith(context.readTensor(tx), 'InvalidStateError', /destroyed/);
  throwsWith(() => context.writeTensor(tx, new Float32Array(64 * 64)), 'InvalidStateError');
  const out = new Float32Array(await context.readTensor(ty));
  assert.ok(out.every((v) => Number.isFinite(v) && v > 0));
  graph.destroy();
  throwsWith(() => context.dispatch(graph, { x: tx }, { y: ty }), 'InvalidStateError');
  // The builder is spent after build().
  throwsWith(() => b.relu(x), 'InvalidStateError');
  await rejectsWith(b.build({ y }), 'InvalidStateError');
  // Destroy with a dispatch and its read in flight: the read is rejected, lost resolves.
  const b2 = new MLGraphBuilder(context);
  const x2 = b2.input('x', F32([64, 64]));
  let y2 = x2;
  for (let i = 0; i < 8; i++) y2 = b2.matmul(y2, x2);
  const g2 = await b2.build({ y: y2 });
  const tx2 = await context.createTensor({ ...F32([64, 64]), writable: true });
  context.writeTensor(tx2, new Float32Array(64 * 64).fill(0.01));
  context.dispatch(g2, { x: tx2 }, { y: ty });
  const pending = context.readTensor(ty);
  context.destroy();
  await rejectsWith(pending, 'InvalidStateError');
  const info = await context.lost;
  assert.match(info.message, /destroyed/);
  await rejectsWith(context.createTensor(F32([1])), 'InvalidStateError');
  throwsWith(() => new MLGraphBuilder(context), 'InvalidStateError');
});

test('every error type with libwebnn\'s message', async () => {
  const { MLGraphBuilder, ml } = webnn();
  const context = await newContext();
  const b = new MLGraphBuilder(context);
  const a = b.input('a', F32([2, 2]));
  // TypeError: from libwebnn's validation, with the operator's label.
  throwsWith(() => b.add(a, b.input('i', { dataType: 'int32', shape: [2, 2] }), { label: 'sum' }),
    'TypeError', /data type int32 does not match.*\(operator "sum"\)/);
  throwsWith(() => b.conv2d(a, a), 'TypeError', /conv2d: input rank is 2, expected 4/);
  throwsWith(() => b.relu(42), 'TypeError', /not an MLOperand/);
  throwsWith(() => b.input('x', { dataType: 'float33', shape: [1] }), 'TypeError', /float33/);
  throwsWith(() => b.constant(F32([2]), new Int32Array(2)), 'TypeError', /Int32Array cannot hold float32/);
  const other = new MLGraphBuilder(context);
  throwsWith(() => b.relu(other.input('o', F32([1]))), 'TypeError', /another MLGraphBuilder/);
  // NotSupportedError: no daemon there.
  await rejectsWith(ml.createContext({ socketPath: '/nonexistent/webnnd.sock' }), 'NotSupportedError',
    /cannot connect to webnnd/);
  // InvalidStateError: a destroyed tensor.
  const t = await context.createTensor({ ...F32([2]), readable: true });
  t.destroy();
  await rejectsWith(context.readTensor(t), 'InvalidStateError');
  // TypeError: a write of the wrong size, a read of a write-only tensor.
  const w = await context.createTensor({ ...F32([2]), writable: true });
  throwsWith(() => context.writeTensor(w, new Float32Array(3)), 'TypeError', /byte length/);
  await rejectsWith(context.readTensor(w), 'TypeError', /not readable/);
  const gone = await context.createTensor({ ...F32([1 << 16]), readable: true });
  const pendingRead = context.readTensor(gone);
  gone.destroy();
  await rejectsWith(pendingRead, 'InvalidStateError', /destroyed with this read pending/);
  // InvalidStateError: a read pending when its tensor is destroyed (the spec's
  // [[pendingPromises]]), and one in flight when the context is destroyed (its tensors are destroyed
  // with it, which rejects their pending reads).
  const r = await context.createTensor({ ...F32([1 << 16]), readable: true });
  const p = context.readTensor(r);
  context.destroy();
  await rejectsWith(p, 'InvalidStateError');
  await rejectsWith(context.readTensor(r), 'InvalidStateError', /destroyed/);
  // All are DOMExceptions except TypeError.
  assert.ok(DOMException.prototype.isPrototypeOf(await p.catch((e) => e)));
});

test('OperationError: a dispatch the daemon fails poisons its outputs; the next dispatch recovers', async () => {
  const { MLGraphBuilder, ml } = webnn();
  // The reference backend's test hook fails its first execute (WEBNN_REFERENCE_FAULT, read by the
  // daemon at start-up from its environment).
  process.env.WEBNN_REFERENCE_FAULT = 'execute-error-once:1';
  let own;
  try {
    own = await startDaemon(['--backend', 'reference']);
  } finally {
    delete process.env.WEBNN_REFERENCE_FAULT;
  }
  try {
    const context = await ml.createContext({ socketPath: own.socketPath });
    const b = new MLGraphBuilder(context);
    const x = b.input('x', F32([4]));
    const graph = await b.build({ y: b.relu(x) });
    const tin = await context.createTensor({ ...F32([4]), writable: true });
    const tout = await context.createTensor({ ...F32([4]), readable: true });
    context.writeTensor(tin, new Float32Array([-1, 2, -3, 4]));
    context.dispatch(graph, { x: tin }, { y: tout });
    await rejectsWith(context.readTensor(tout), 'OperationError', /dispatch of graph \d+ failed: injected fault/);
    assert.ok(DOMException.prototype.isPrototypeOf(await context.readTensor(tout).catch((e) => e)));
    context.dispatch(graph, { x: tin }, { y: tout });
    assert.deepStrictEqual(Array.from(new Float32Array(await context.readTensor(tout))), [0, 2, 0, 4]);
    context.destroy();
  } finally {
    await own.stop();
  }
});

test("DataError and every other libwebnn status become the spec's exception names", () => {
  // DataError has no path from JavaScript (webnnd raises it only for a damaged graph cache entry,
  // which the binding does not load), so the mapping is checked on the addon's own error values.
  const native = require(path.join(build, 'node', 'webnn', 'webnn.node'));
  const want = { 1: 'TypeError', 2: 'DataError', 3: 'OperationError', 4: 'NotSupportedError',
    5: 'InvalidStateError', 6: 'InvalidStateError', 7: 'UnknownError', 8: 'UnknownError' };
  for (const [code, name] of Object.entries(want)) {
    const e = native.statusError(Number(code));
    assert.strictEqual(e.name, name, `status ${code}`);
    assert.ok(e.message.length > 0, `status ${code} has a message`);
    if (name === 'TypeError') assert.ok(e instanceof TypeError);
    else assert.ok(e instanceof DOMException, `status ${code} is a DOMException`);
  }
  const data = native.statusError(2);
  assert.strictEqual(data.message, 'invalid tensor data');
  assert.strictEqual(data.code, 0); // DataError has no legacy code; InvalidStateError has 11.
  assert.strictEqual(native.statusError(5).code, 11);
});

// What the web-platform-tests found (wpt.test.js runs them where a WPT checkout is present).
test('labels lead messages in brackets; [EnforceRange] truncates; oversized outputs are refused', async () => {
  const { MLGraphBuilder } = webnn();
  const context = await newContext();
  const b = new MLGraphBuilder(context);
  const a = b.input('a', F32([4, 2]));
  throwsWith(() => b.add(a, b.input('c', F32([4])), { label: 'sum_1' }), 'TypeError',
    /^\[sum_1\] add: input shapes \[4, 2\] and \[4\] are not broadcastable/);
  // [EnforceRange] unsigned long: 2.7 is 2, -0.5 is 0 (then an invalid dimension), NaN and 2^32 throw.
  assert.deepStrictEqual(Array.from(b.input('f', F32([2.7, 3])).shape), [2, 3]);
  assert.deepStrictEqual(Array.from(b.reduceSum(a, { axes: [1.9] }).shape), [4]);
  throwsWith(() => b.input('n', F32([NaN])), 'TypeError', /not an unsigned 32-bit integer/);
  throwsWith(() => b.input('h', F32([2 ** 32])), 'TypeError', /not an unsigned 32-bit integer/);
  throwsWith(() => b.input('z', F32([-0.5])), 'TypeError');
  // An operator's output larger than maxTensorByteLength: no tensor could hold it.
  const max = context.opSupportLimits().maxTensorByteLength;
  const tall = b.input('tall', F32([Math.floor(max / 4), 1]));
  throwsWith(() => b.add(tall, b.input('wide', F32([1, 5])), { label: 'big' }), 'TypeError',
    /^\[big\] add: output 0's byte length exceeds the context's maxTensorByteLength/);
  context.destroy();
});

test('64-bit integers (BigInt64Array/BigUint64Array, bigint MLNumbers) and float16 data', async () => {
  const { MLGraphBuilder } = webnn();
  const context = await newContext();
  const b = new MLGraphBuilder(context);
  const I64 = { dataType: 'int64', shape: [3] }, U64 = { dataType: 'uint64', shape: [2] };
  const F16 = { dataType: 'float16', shape: [2] };
  const i = b.input('i', I64), u = b.input('u', U64), h = b.input('h', F16);
  const big = 2n ** 60n + 1n;
  const si = b.add(i, b.constant(I64, new BigInt64Array([big, -big, 1n])));
  const cl = b.clamp(si, { minValue: -(2n ** 61n), maxValue: 2n ** 61n - 3n });
  const su = b.add(u, b.constant('uint64', 2n ** 63n));
  const sh = b.add(h, h);
  const graph = await b.build({ cl, su, sh });
  const mk = async (d, w) => context.createTensor({ ...d, readable: !w, writable: w });
  const [ti, tu, th, oi, ou, oh] = await Promise.all([mk(I64, true), mk(U64, true), mk(F16, true),
    mk(I64, false), mk(U64, false), mk(F16, false)]);
  context.writeTensor(ti, new BigInt64Array([big, -big, 2n ** 61n]));
  context.writeTensor(tu, new BigUint64Array([1n, 2n ** 63n - 1n]));
  context.writeTensor(th, new Uint16Array([0x3c00, 0xc000])); // 1.0, -2.0
  context.dispatch(graph, { i: ti, u: tu, h: th }, { cl: oi, su: ou, sh: oh });
  assert.deepStrictEqual(Array.from(new BigInt64Array(await context.readTensor(oi))),
    [2n ** 61n - 3n, -(2n ** 61n), 2n ** 61n - 3n]);
  assert.deepStrictEqual(Array.from(new BigUint64Array(await context.readTensor(ou))),
    [2n ** 63n + 1n, 2n ** 64n - 1n]);
  assert.deepStrictEqual(Array.from(new Uint16Array(await context.readTensor(oh))), [0x4000, 0xc400]);
  // writeTensor takes bytes whatever the view (AllowSharedBufferSource); the length must match.
  throwsWith(() => context.writeTensor(ti, new Float64Array(2)), 'TypeError', /byte length/);
  const b2 = new MLGraphBuilder(context);
  throwsWith(() => b2.constant(I64, new Float64Array(3)), 'TypeError', /BigInt64Array/);
  context.destroy();
});

test('many contexts at once, each its own connection, reads interleaved', async () => {
  const { MLGraphBuilder } = webnn();
  const run = async (k) => {
    const context = await newContext();
    const b = new MLGraphBuilder(context);
    const x = b.input('x', F32([3]));
    const graph = await b.build({ y: b.add(x, b.constant('float32', k)) });
    const tx = await context.createTensor({ ...F32([3]), writable: true });
    const ty = await context.createTensor({ ...F32([3]), readable: true });
    const results = [];
    for (let r = 0; r < 5; r++) {
      context.writeTensor(tx, new Float32Array([r, r, r]));
      context.dispatch(graph, { x: tx }, { y: ty });
      results.push(context.readTensor(ty).then((buf) => new Float32Array(buf)[0]));
    }
    const got = await Promise.all(results);
    context.destroy();
    return got;
  };
  const all = await Promise.all(Array.from({ length: 12 }, (_, k) => run(k)));
  all.forEach((got, k) => assert.deepStrictEqual(got, [0, 1, 2, 3, 4].map((r) => r + k)));
});

test('worker threads each with their own contexts, a worker terminated with a live context', async () => {
  const code = `
    const { parentPort, workerData } = require('worker_threads');
    const { ml, MLGraphBuilder } = require(workerData.mod);
    (async () => {
      const context = await ml.createContext({ socketPath: workerData.sock });
      const b = new MLGraphBuilder(context);
      const x = b.input('x', { dataType: 'float32', shape: [2] });
      const graph = await b.build({ y: b.mul(x, b.constant('float32', workerData.k)) });
      const tx = await context.createTensor({ dataType: 'float32', shape: [2], writable: true });
      const ty = await context.createTensor({ dataType: 'float32', shape: [2], readable: true });
      context.writeTensor(tx, new Float32Array([1, 2]));
      context.dispatch(graph, { x: tx }, { y: ty });
      parentPort.postMessage(Array.from(new Float32Array(await context.readTensor(ty))));
      if (workerData.keep) setInterval(() => {}, 1000); // stays until terminated, context open
      else context.destroy();
    })().catch((e) => parentPort.postMessage(String(e)));`;
  const mod = path.join(build, 'node', 'webnn');
  const start = (k, keep) => {
    const w = new Worker(code, { eval: true, workerData: { mod, sock: daemon.socketPath, k, keep } });
    const msg = new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
    return { w, msg };
  };
  const workers = [1, 2, 3, 4].map((k) => start(k, k === 4));
  const main = await newContext(); // the main thread's own context meanwhile
  const got = await Promise.all(workers.map((x) => x.msg));
  assert.deepStrictEqual(got, [[1, 2], [2, 4], [3, 6], [4, 8]]);
  await workers[3].w.terminate();
  for (const x of workers.slice(0, 3)) await new Promise((r) => (x.w.threadId === -1 ? r() : x.w.once('exit', r)));
  assert.ok(main.opSupportLimits().add);
  main.destroy();
});

test('a daemon that goes away rejects pending reads and resolves lost with a reason', async () => {
  const { MLGraphBuilder, ml } = webnn();
  const own = await startDaemon();
  const context = await ml.createContext({ socketPath: own.socketPath });
  const b = new MLGraphBuilder(context);
  const x = b.input('x', F32([128, 128]));
  let y = x;
  for (let i = 0; i < 16; i++) y = b.matmul(y, x);
  const graph = await b.build({ y });
  const tx = await context.createTensor({ ...F32([128, 128]), writable: true });
  const ty = await context.createTensor({ ...F32([128, 128]), readable: true });
  context.writeTensor(tx, new Float32Array(128 * 128).fill(0.001));
  const reads = [];
  for (let i = 0; i < 4; i++) {
    context.dispatch(graph, { x: tx }, { y: ty });
    reads.push(context.readTensor(ty).then(() => 'read', (e) => e.name));
  }
  await own.stop(); // SIGTERM: webnnd says goodbye to its clients
  const info = await context.lost;
  assert.ok(info.message.length > 0, 'lost carries a reason');
  const outcomes = await Promise.all(reads);
  // Reads the daemon answered before it went resolve; the others reject, none hangs.
  assert.ok(outcomes.every((o) => o === 'read' || o === 'InvalidStateError'), outcomes.join());
  await rejectsWith(context.readTensor(ty), 'InvalidStateError');
  throwsWith(() => context.dispatch(graph, { x: tx }, { y: ty }), 'InvalidStateError');
  context.destroy();
});

test('a process exits cleanly with live contexts, pending reads and a vanished daemon', async () => {
  const script = `
    const { ml, MLGraphBuilder } = require(${JSON.stringify(path.join(build, 'node', 'webnn'))});
    (async () => {
      const contexts = [];
      for (let i = 0; i < 3; i++) contexts.push(await ml.createContext({ socketPath: ${JSON.stringify(daemon.socketPath)} }));
      const t = await contexts[0].createTensor({ dataType: 'float32', shape: [1 << 16], readable: true });
      contexts[0].readTensor(t); // never awaited
      setImmediate(() => process.exit(0));
    })();`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60000 });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.stderr, '');
  // And one that just ends: an idle context does not keep the loop alive.
  const idle = `
    const { ml } = require(${JSON.stringify(path.join(build, 'node', 'webnn'))});
    ml.createContext({ socketPath: ${JSON.stringify(daemon.socketPath)} }).then(() => console.log('ok'));`;
  const r2 = spawnSync(process.execPath, ['-e', idle], { encoding: 'utf8', timeout: 60000 });
  assert.strictEqual(r2.status, 0, r2.stderr);
  assert.strictEqual(r2.stdout.trim(), 'ok');
});

// A graph whose build keeps the daemon busy a while: n matmuls over 128x128 constants of 1/128
// (a power of two: all ones stay exactly ones).
function bigGraph(b, n = 48) {
  const x = b.input('x', F32([128, 128]));
  let y = x;
  for (let i = 0; i < n; i++) {
    const w = b.constant(F32([128, 128]), new Float32Array(128 * 128).fill(1 / 128));
    y = b.relu(b.matmul(y, w));
  }
  return { y };
}

test('createContext, build and createTensor settle from the loop: the JS thread runs while a graph builds', async () => {
  const { MLGraphBuilder } = webnn();
  let ticks = 0, done = false;
  const tick = () => { if (!done) { ticks++; setImmediate(tick); } };
  setImmediate(tick);
  const context = await newContext();
  const b = new MLGraphBuilder(context);
  const outputs = bigGraph(b);
  const ticksBefore = ticks;
  const graph = await b.build(outputs);
  const during = ticks - ticksBefore;
  done = true;
  // With a blocking build the loop could not turn while the daemon compiled: no tick between.
  assert.ok(during > 0, `the event loop turned ${during} times during the build`);
  await rejectsWith(b.build(outputs), 'InvalidStateError');
  const tx = await context.createTensor({ ...F32([128, 128]), writable: true });
  const ty = await context.createTensor({ ...F32([128, 128]), readable: true });
  context.writeTensor(tx, new Float32Array(128 * 128).fill(1));
  context.dispatch(graph, { x: tx }, { y: ty });
  const got = new Float32Array(await context.readTensor(ty));
  assert.ok(got.every((v) => v === 1), `y[0] = ${got[0]}`);
  context.destroy();
});

test('createTensor, createConstantTensor, writeTensor, dispatch and readTensor issued without awaiting settle in timeline order', async () => {
  const { MLGraphBuilder } = webnn();
  const context = await newContext();
  const b = new MLGraphBuilder(context);
  const graph = await b.build({ y: b.mul(b.input('x', F32([4])), b.constant('float32', 3)) });
  const tx = await context.createTensor({ ...F32([4]), writable: true });
  const ty = await context.createTensor({ ...F32([4]), readable: true, writable: true });
  const order = [];
  const note = (what) => (v) => { order.push(what); return v; };
  // Nothing awaited from here until every call is issued.
  const created = context.createTensor({ ...F32([4]), readable: true, writable: true }).then(note('createTensor'));
  const constant = context.createConstantTensor(F32([4]), new Float32Array([1, 2, 3, 4])).then(note('createConstantTensor'));
  context.writeTensor(tx, new Float32Array([1, 2, 3, 4]));
  context.dispatch(graph, { x: tx }, { y: ty });
  const read = context.readTensor(ty).then(note('readTensor'));
  const created2 = context.createTensor({ ...F32([4]), readable: true }).then(note('createTensor 2'));
  const [t, k, buf, t2] = await Promise.all([created, constant, read, created2]);
  assert.deepStrictEqual(order, ['createTensor', 'createConstantTensor', 'readTensor', 'createTensor 2']);
  assert.deepStrictEqual(Array.from(new Float32Array(buf)), [3, 6, 9, 12]);
  assert.ok(k.constant && !t.constant && t2.readable);
  // The new tensors work: the dispatch's result written into one of them.
  context.dispatch(graph, { x: tx }, { y: t });
  assert.deepStrictEqual(Array.from(new Float32Array(await context.readTensor(t))), [3, 6, 9, 12]);
  // dispatch reuses the previous call's converted tensors only for the same live ones.
  context.dispatch(graph, { x: tx }, { y: t });
  context.writeTensor(tx, new Float32Array([2, 2, 2, 2]));
  context.dispatch(graph, { x: tx }, { y: ty });
  assert.deepStrictEqual(Array.from(new Float32Array(await context.readTensor(ty))), [6, 6, 6, 6]);
  assert.deepStrictEqual(Array.from(new Float32Array(await context.readTensor(t))), [3, 6, 9, 12]);
  t.destroy();
  throwsWith(() => context.dispatch(graph, { x: tx }, { y: t }), 'InvalidStateError');
  throwsWith(() => context.dispatch(graph, { x: tx }, { z: ty }), 'TypeError', /z/);
  throwsWith(() => context.dispatch(graph, { x: tx }, { y: tx }), 'TypeError');
  // Errors of calls refused at once are rejections with the spec's names.
  await rejectsWith(context.createTensor({ dataType: 'float32', shape: [0x7fffffff, 0x7fffffff] }), 'TypeError');
  await rejectsWith(context.createConstantTensor(F32([4]), new Float32Array(3)), 'TypeError');
  context.destroy();
});

test('destroy while a build, a createTensor and a readTensor are pending rejects them with InvalidStateError (the spec\'s "if aborted")', async () => {
  const { MLGraphBuilder } = webnn();
  const context = await newContext();
  const b = new MLGraphBuilder(context);
  const y = b.add(b.input('x', F32([4])), b.constant(F32([4]), new Float32Array(4)));
  // Nothing reads the daemon's answers between these calls and the destroy (a tensor's
  // shared-memory registration is waited for, so it goes first; the graph's constants are
  // small enough to travel inline).
  const creating = context.createTensor({ ...F32([4]), readable: true });
  const constant = context.createConstantTensor(F32([4]), new Float32Array(4));
  const building = b.build({ y });
  context.destroy();
  await rejectsWith(building, 'InvalidStateError');
  await rejectsWith(creating, 'InvalidStateError');
  await rejectsWith(constant, 'InvalidStateError');
  assert.ok((await context.lost).message.length > 0);
  await rejectsWith(context.createTensor(F32([4])), 'InvalidStateError');
  // A context that is never awaited, destroyed by the garbage collector or the process end,
  // and a failed createContext: neither leaves anything pending.
  await rejectsWith(webnn().ml.createContext({ socketPath: daemon.socketPath + '.absent' }), 'NotSupportedError');
});

test('many contexts created together while builds are in flight', async () => {
  const { MLGraphBuilder } = webnn();
  const first = await newContext();
  const b = new MLGraphBuilder(first);
  const building = b.build(bigGraph(b, 16));
  const contexts = await Promise.all(Array.from({ length: 16 }, () => newContext()));
  const graphs = await Promise.all(contexts.map((c, k) => {
    const cb = new MLGraphBuilder(c);
    return cb.build({ y: cb.add(cb.input('x', F32([2])), cb.constant('float32', k)) });
  }));
  const results = await Promise.all(contexts.map(async (c, k) => {
    const [tx, ty] = await Promise.all([
      c.createTensor({ ...F32([2]), writable: true }), c.createTensor({ ...F32([2]), readable: true })]);
    c.writeTensor(tx, new Float32Array([1, 2]));
    c.dispatch(graphs[k], { x: tx }, { y: ty });
    return Array.from(new Float32Array(await c.readTensor(ty)));
  }));
  results.forEach((r, k) => assert.deepStrictEqual(r, [1 + k, 2 + k]));
  assert.ok(await building);
  for (const c of [first, ...contexts]) c.destroy();
});

test('a process exits cleanly with a build and a createContext pending, and waits for a pending build otherwise', async () => {
  const mod = JSON.stringify(path.join(build, 'node', 'webnn'));
  const sock = JSON.stringify(daemon.socketPath);
  const graph = `
    const b = new MLGraphBuilder(context);
    const x = b.input('x', { dataType: 'float32', shape: [128, 128] });
    let y = x;
    for (let i = 0; i < 32; i++) y = b.matmul(y, b.constant({ dataType: 'float32', shape: [128, 128] }, new Float32Array(128 * 128)));`;
  const exiting = `
    const { ml, MLGraphBuilder } = require(${mod});
    (async () => {
      const context = await ml.createContext({ socketPath: ${sock} });
      ${graph}
      b.build({ y }); // never awaited
      ml.createContext({ socketPath: ${sock} }); // neither
      context.createTensor({ dataType: 'float32', shape: [4] });
      setImmediate(() => process.exit(0));
    })();`;
  const r = spawnSync(process.execPath, ['-e', exiting], { encoding: 'utf8', timeout: 60000 });
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.stderr, '');
  // A build in flight keeps the loop alive (as a read does) until the daemon answers.
  const waiting = `
    const { ml, MLGraphBuilder } = require(${mod});
    ml.createContext({ socketPath: ${sock} }).then((context) => {
      ${graph}
      b.build({ y }).then((g) => console.log(g.constructor.name));
    });`;
  const r2 = spawnSync(process.execPath, ['-e', waiting], { encoding: 'utf8', timeout: 60000 });
  assert.strictEqual(r2.status, 0, r2.stderr);
  assert.strictEqual(r2.stdout.trim(), 'MLGraph');
});
