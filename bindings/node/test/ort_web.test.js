// onnxruntime-web's WebNN execution provider on our navigator.ml against onnxruntime-node's CPU
// provider: SqueezeNet 1.0 and the MobileNetV2 body from ../shared/models, written as ONNX, and
// small models of onnx's test data. Both runtimes come from npm into build/ (skipped without it).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { root, build, shared, startDaemon } = require('./daemon');

const ORT_WEB_VERSION = '1.31.1';
const ORT_NODE_VERSION = '1.30.0'; // the Makefile's ORT_VERSION (make bench-ort)
const webDir = path.join(build, 'ortweb');
const nodeDir = path.join(build, 'ort');

// npm install into dir unless the package is there; a reason to skip when it cannot be.
function ensure(dir, pkg, version) {
  const pj = path.join(dir, 'node_modules', pkg, 'package.json');
  if (fs.existsSync(pj) && JSON.parse(fs.readFileSync(pj, 'utf8')).version === version) return null;
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--fetch-retries=1',
    '--loglevel=error', `${pkg}@${version}`], { encoding: 'utf8', timeout: 300000,
    env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' } });
  if (r.status !== 0 || !fs.existsSync(pj)) {
    return `npm cannot install ${pkg}@${version} (no network?): ${(r.stderr || r.error || '').toString().trim().split('\n').pop()}`;
  }
  return null;
}

const skip = !fs.existsSync(path.join(shared, 'models')) ? `${shared}/models is absent`
  : spawnSync('npm', ['--version']).status !== 0 ? 'npm is not installed'
  : ensure(webDir, 'onnxruntime-web', ORT_WEB_VERSION) || ensure(nodeDir, 'onnxruntime-node', ORT_NODE_VERSION);

// A deterministic input in [-1, 1).
function input(n, seed) {
  const a = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    a[i] = s / 2 ** 31 - 1;
  }
  return a;
}

test('onnxruntime-web WebNN EP on navigator.ml matches onnxruntime-node', { skip: skip || false }, async (t) => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wnn-ortweb-'));
  // SqueezeNet and MobileNetV2 as ONNX, written by the bench's peer from the shared weights.
  const save = spawnSync(process.execPath, [path.join(root, 'bench', 'ort_bench.js'),
    path.join(nodeDir, 'node_modules', 'onnxruntime-node'), '1'], {
    input: `load 1 squeezenet ${shared}/models/squeezenet1.0_nhwc\nsave 1 ${tmp}/squeezenet.onnx\n` +
      `load 2 mobilenetv2 ${shared}/models/mobilenetv2_nhwc\nsave 2 ${tmp}/mobilenetv2.onnx\nquit\n`,
    encoding: 'utf8', timeout: 300000 });
  assert.strictEqual(save.status, 0, save.stderr);
  const testdata = '/usr/share/libonnx-testdata/data/node';
  const models = [
    { name: 'squeezenet1.0', file: `${tmp}/squeezenet.onnx`, dims: [1, 3, 224, 224] },
    { name: 'mobilenetv2 body', file: `${tmp}/mobilenetv2.onnx`, dims: [1, 3, 224, 224] },
    { name: 'relu', file: `${testdata}/test_relu/model.onnx`, dims: [3, 4, 5] },
    { name: 'softmax', file: `${testdata}/test_softmax_axis_1/model.onnx`, dims: [3, 4, 5] },
    { name: 'sigmoid', file: `${testdata}/test_sigmoid/model.onnx`, dims: [3, 4, 5] },
    // a model per operator family that a one-input test of onnx's data covers
    { name: 'elu', file: `${testdata}/test_elu/model.onnx`, dims: [3, 4, 5] },
    { name: 'leakyRelu', file: `${testdata}/test_leakyrelu/model.onnx`, dims: [3, 4, 5] },
    { name: 'hardSwish', file: `${testdata}/test_hardswish/model.onnx`, dims: [3, 4, 5] },
    { name: 'maxPool', file: `${testdata}/test_maxpool_2d_default/model.onnx`, dims: [1, 3, 32, 32] },
    { name: 'averagePool', file: `${testdata}/test_averagepool_2d_default/model.onnx`, dims: [1, 3, 32, 32] },
    { name: 'globalAveragePool', file: `${testdata}/test_globalaveragepool/model.onnx`, dims: [1, 3, 5, 5] },
    { name: 'reduceMax', file: `${testdata}/test_reduce_max_default_axes_keepdim_example/model.onnx`, dims: [3, 2, 2] },
    { name: 'transpose', file: `${testdata}/test_transpose_default/model.onnx`, dims: [2, 3, 4] },
    { name: 'depthToSpace', file: `${testdata}/test_depthtospace_example/model.onnx`, dims: [1, 8, 2, 3] },
  ].filter((m) => fs.existsSync(m.file)); // onnx's test data: libonnx-testdata, when installed
  const ortNode = require(path.join(nodeDir, 'node_modules', 'onnxruntime-node'));
  const daemon = await startDaemon();
  try {
    // One onnxruntime-web process for every model (its start-up is the expensive part).
    const args = [path.join(__dirname, 'ort_web_run.mjs'), webDir];
    const xs = models.map((m, k) => {
      const x = input(m.dims.reduce((a, b) => a * b, 1), 7);
      fs.writeFileSync(`${tmp}/in${k}.bin`, Buffer.from(x.buffer));
      args.push(m.file, `${tmp}/in${k}.bin`, m.dims.join(','), `${tmp}/out${k}.bin`);
      return x;
    });
    const run = spawnSync(process.execPath, args, {
      encoding: 'utf8', timeout: 600000, maxBuffer: 64 << 20,
      env: { ...process.env, WEBNN_SOCKET: daemon.socketPath, WEBNN_BUILD: build } });
    const all = `${run.stdout}\n${run.stderr}`;
    assert.strictEqual(run.status, 0, all.split('\n').filter((l) => !/\[[IV]:onnx/.test(l)).slice(-20).join('\n'));
    // stdout and stderr are read apart: each model's part of either starts at its marker line
    const part = (text, k) => {
      const from = text.indexOf(`=== model ${k}\n`);
      const to = text.indexOf(`=== model ${k + 1}\n`);
      return from < 0 ? '' : text.slice(from, to < 0 ? undefined : to);
    };
    for (const [k, m] of models.entries()) {
      const x = xs[k];
      const log = `${part(run.stdout, k)}\n${part(run.stderr, k)}`;
      // Where the provider placed the nodes: every one on WebNN, or the test says which not.
      const cap = log.match(/number of nodes in the graph: (\d+) number of nodes supported by WebNN: (\d+)/);
      assert.ok(cap, `${m.name}: no GetCapability line from the WebNN provider`);
      const fallback = [...log.matchAll(/\[[IW]:onnxruntime:.*(?:not supported|unsupported|is not supported)[^\n]*/g)].map((l) => l[0]);
      const web = new Float32Array(new Uint8Array(fs.readFileSync(`${tmp}/out${k}.bin`)).buffer);
      const sess = await ortNode.InferenceSession.create(m.file, { executionProviders: ['cpu'] });
      const ref = (await sess.run({ [sess.inputNames[0]]: new ortNode.Tensor('float32', x, m.dims) }))[sess.outputNames[0]].data;
      assert.strictEqual(web.length, ref.length, `${m.name}: output sizes`);
      let maxd = 0, maxr = 0;
      for (let i = 0; i < ref.length; i++) {
        maxd = Math.max(maxd, Math.abs(web[i] - ref[i]));
        maxr = Math.max(maxr, Math.abs(ref[i]));
      }
      t.diagnostic(`${m.name}: ${cap[2]} of ${cap[1]} nodes on WebNN (navigator.ml), max |d| ${maxd.toExponential(2)} ` +
        `(max |ref| ${maxr.toExponential(2)})${fallback.length ? `; fallback: ${fallback.join('; ')}` : ''}`);
      assert.strictEqual(cap[1], cap[2], `${m.name}: ${Number(cap[1]) - Number(cap[2])} node(s) fell back to the CPU kernels: ${fallback.join('; ')}`);
      assert.ok(maxd <= 1e-4 * Math.max(1, maxr), `${m.name}: max |d| ${maxd} against onnxruntime-node`);
    }
  } finally {
    await daemon.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
