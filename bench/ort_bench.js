// ort_bench.js: the onnxruntime-node (CPU EP) peer that `make bench` times webnnd against.
// Driven line by line over stdin/stdout by tests/bench_cpu.c, so its sessions stay warm between
// interleaved rounds the way the daemons' graphs do.
// The ONNX models mirror tests/models.c (shared/models/README.md) op for op, on the same .npy weights,
// in ONNX's NCHW: NHWC input transposed once outside the timing, OHWI filters written as OIHW.
//
// Also the real-model table's peer (tests/bench_real_models.c): ONNX files as they are, on inputs the
// C side writes. ORT at its best: one session per model created once, its feeds allocated once,
// only session.run() between the clock reads, nothing else of ORT's running in the process
// between runs (the caller keeps each model in a process of its own or runs one model at a time).
//
// usage: node ort_bench.js <onnxruntime-node module dir> [intraOpNumThreads=2]
// commands (one per line; each answers one line, "err <why>" on failure):
//   load <id> squeezenet <model dir> | load <id> mobilenetv2 <model dir>
//   load <id> conv <C> <K> <k> <pad> <group> <H=W> | load <id> matmul <N> [<K> <O>] ([N,K] x [K,O])
//        -> ok <create ms> <first run ms>
//   open <id> <model.onnx> <bindings|->   bindings: NAME=N (a named free dimension) or
//        INPUT:AXIS=N (one dimension of one input), comma-separated
//        -> ok <create ms> <n inputs> <type>:<d0>x<d1>...=<name> (each input in the model's order;
//           "scalar" for rank 0) <n outputs>
//   feed <id> <dir>    -> ok <first run ms> (inputs read from <dir>/in<i>.bin, raw little-endian)
//   run <id> <n>       -> t <ms of each of n session.run calls>
//   out <id> <path>    -> ok (the first output, raw little-endian float32, written to path)
//   outs <id> <dir>    -> ok <n> <count of each> (every output as float32 to <dir>/out<i>.bin)
//   decode <id> <n> <first token> <dir|->   a decoder step with past/present key-value inputs
//        (tests/bench_transformers.c): inputs input_ids and position_ids (int64 [1, 1]) and
//        past_*; outputs next_token, next_position and present_* fed back as the next step's
//        inputs as they are (onnxruntime-node has no IOBinding: the outputs are the next
//        feeds, nothing copied); the first step starts from empty pasts. With <dir> the
//        logits of every step go to <dir>/logits.bin (float32, n rows, copied after each
//        step's clock read) -> t <ms of each step>
//   close <id>         -> ok (the session released)
//   save <id> <path>   -> ok (a built model's ONNX bytes, to time it elsewhere: bench/ort_lean.js)
//   quit
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const M = require('./onnx_min.js');

function npy(file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(`${file}: not a .npy file`);
  const major = b[6];
  const hlen = major === 1 ? b.readUInt16LE(8) : b.readUInt32LE(8);
  const off = (major === 1 ? 10 : 12) + hlen;
  const header = b.toString('latin1', major === 1 ? 10 : 12, off);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
    throw new Error(`${file}: expected little-endian float32 in C order`);
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const count = shape.reduce((a, c) => a * c, 1);
  const data = new Float32Array(count);
  for (let i = 0; i < count; i++) data[i] = b.readFloatLE(off + 4 * i);
  return { shape, data };
}

// [A, B, C, D] row-major -> [A, D, B, C]: OHWI -> OIHW, and NHWC -> NCHW.
function lastToSecond(t) {
  const [A, B, C, D] = t.shape;
  const out = new Float32Array(t.data.length);
  for (let a = 0; a < A; a++)
    for (let bb = 0; bb < B; bb++)
      for (let c = 0; c < C; c++)
        for (let d = 0; d < D; d++) out[((a * D + d) * B + bb) * C + c] = t.data[((a * B + bb) * C + c) * D + d];
  return { shape: [A, D, B, C], data: out };
}

// A graph under construction: nodes, initializers, fresh value names.
class Net {
  constructor(dir) { this.dir = dir; this.nodes = []; this.inits = []; this.n = 0; }
  fresh(p) { return `${p}_${this.n++}`; }
  weight(name) { return npy(path.join(this.dir, 'weights', name + '.npy')); }
  init(name, dims, data) { this.inits.push(M.tensor(name, dims, data)); return name; }
  op(type, inputs, attrs = []) {
    const y = this.fresh(type);
    this.nodes.push(M.node(type, inputs, [y], attrs));
    return y;
  }
  // conv2d with a bias; w: { shape, data } already OIHW; pads in WebNN order [top, bottom, left, right].
  conv(x, w, b, stride, pads, group) {
    const W = this.init(this.fresh('W'), w.shape, w.data), B = this.init(this.fresh('B'), b.shape, b.data);
    return this.op('Conv', [x, W, B], [M.attrInts('kernel_shape', [w.shape[2], w.shape[3]]),
      M.attrInts('strides', [stride, stride]), M.attrInts('pads', [pads[0], pads[2], pads[1], pads[3]]),
      M.attrInt('group', group)]);
  }
  pool(type, x, k, s) {
    return this.op(type, [x], [M.attrInts('kernel_shape', [k, k]), M.attrInts('strides', [s, s])]);
  }
  model(out, input, outDims) {
    this.nodes.push(M.node('Identity', [out], ['output']));
    return M.model({ nodes: this.nodes, inits: this.inits, inputs: [M.valueInfo('input', input)],
      outputs: [M.valueInfo('output', outDims)] });
  }
}

// tests/models.c model_squeezenet: every conv + relu, maxPool 3x3/2, fire modules, conv10, avgPool 13, softmax.
function squeezenet(dir) {
  const g = new Net(dir);
  const conv = (x, name, stride, pb, pe) => {
    const w = lastToSecond(g.weight(`${name}_kernel`));
    return g.op('Relu', [g.conv(x, w, g.weight(`${name}_Conv2D_bias`), stride, [pb, pe, pb, pe], 1)]);
  };
  const fire = (x, n) => {
    const s = conv(x, `fire${n}_squeeze`, 1, 0, 0);
    return g.op('Concat', [conv(s, `fire${n}_e1x1`, 1, 0, 0), conv(s, `fire${n}_e3x3`, 1, 1, 1)], [M.attrInt('axis', 1)]);
  };
  let x = g.pool('MaxPool', conv('input', 'conv1', 2, 2, 3), 3, 2);
  x = g.pool('MaxPool', fire(fire(fire(x, 2), 3), 4), 3, 2);
  x = g.pool('MaxPool', fire(fire(fire(fire(x, 5), 6), 7), 8), 3, 2);
  x = g.pool('AveragePool', conv(fire(x, 9), 'conv10', 1, 0, 0), 13, 1);
  x = g.op('Softmax', [g.op('Flatten', [x], [M.attrInt('axis', 1)])], [M.attrInt('axis', 1)]);
  return { bytes: g.model(x, [1, 3, 224, 224], [1, 1001]), input: [1, 3, 224, 224] };
}

// tests/models.c mn_blocks: expand filter, depthwise filter, project filter, C, stride, out C, residual.
const MN_BLOCKS = [
  ['Const_165', 'Const_99', 'Const_73', 96, 2, 24, false], ['Const_3', 'Const_119', 'Const_115', 144, 1, 24, true],
  ['Const_255', 'Const_216', 'Const_157', 144, 2, 32, false], ['Const_227', 'Const_221', 'Const_193', 192, 1, 32, true],
  ['Const_243', 'Const_102', 'Const_215', 192, 1, 32, true], ['Const_226', 'Const_163', 'Const_229', 192, 2, 64, false],
  ['Const_104', 'Const_254', 'Const_143', 384, 1, 64, true], ['Const_25', 'Const_142', 'Const_202', 384, 1, 64, true],
  ['Const_225', 'Const_129', 'Const_98', 384, 1, 64, true], ['Const_169', 'Const_2', 'Const_246', 384, 1, 96, false],
  ['Const_162', 'Const_87', 'Const_106', 576, 1, 96, true], ['Const_52', 'Const_22', 'Const_40', 576, 1, 96, true],
  ['Const_114', 'Const_65', 'Const_242', 576, 2, 160, false], ['Const_203', 'Const_250', 'Const_92', 960, 1, 160, true],
  ['Const_133', 'Const_130', 'Const_258', 960, 1, 160, true], ['Const_60', 'Const_248', 'Const_100', 960, 1, 320, false],
];

// tests/models.c model_mobilenetv2_body: to the 1280 pooled features.
function mobilenetv2(dir) {
  const g = new Net(dir);
  const lo = g.init('relu6_min', [], new Float32Array([0])), hi = g.init('relu6_max', [], new Float32Array([6]));
  // model_mobilenetv2_conv: ohwi filters, or ihwo [1,k,k,C] with groups C (-> [C,1,k,k]); 3x3: "same-upper".
  const conv = (x, filter, bias, k, stride, dw, relu6) => {
    const w = lastToSecond(g.weight(filter));
    if (dw) w.shape = [w.shape[1], 1, w.shape[2], w.shape[3]];
    const p = k === 3 ? (stride === 1 ? [1, 1, 1, 1] : [0, 1, 0, 1]) : [0, 0, 0, 0];
    const y = g.conv(x, w, g.weight(bias), stride, p, dw ? w.shape[0] : 1);
    return relu6 ? g.op('Clip', [y, lo, hi]) : y;
  };
  const b = (s) => `MobilenetV2_${s}_bias`;
  let x = conv('input', 'Const_90', b('Conv_Conv2D'), 3, 2, false, true);
  x = conv(x, 'Const_238', b('expanded_conv_depthwise_depthwise'), 3, 1, true, true);
  x = conv(x, 'Const_167', b('expanded_conv_project_Conv2D'), 1, 1, false, false);
  MN_BLOCKS.forEach(([e, d, p, , stride, , residual], i) => {
    const n = `expanded_conv_${i + 1}`;
    let a = conv(x, e, b(`${n}_expand_Conv2D`), 1, 1, false, true);
    a = conv(a, d, b(`${n}_depthwise_depthwise`), 3, stride, true, true);
    a = conv(a, p, b(`${n}_project_Conv2D`), 1, 1, false, false);
    x = residual ? g.op('Add', [x, a]) : a;
  });
  x = conv(x, 'Const_71', b('Conv_1_Conv2D'), 1, 1, false, true);
  x = g.pool('AveragePool', x, 7, 1);
  return { bytes: g.model(x, [1, 3, 224, 224], [1, 1280, 1, 1]), input: [1, 3, 224, 224] };
}

// The single-op figures of the C bench, in NCHW: conv (bias-free) and MatMul with B an initializer.
function convOp(C, K, k, pad, group, H) {
  const g = new Net(null), ci = C / group, O = H + 2 * pad - k + 1;
  const W = g.init('W', [K, ci, k, k], M.randn(K * ci * k * k, 3));
  const y = g.op('Conv', ['input', W], [M.attrInts('kernel_shape', [k, k]), M.attrInts('pads', [pad, pad, pad, pad]),
    M.attrInt('group', group)]);
  return { bytes: g.model(y, [1, C, H, H], [1, K, O, O]), input: [1, C, H, H] };
}
// [N, K] x constant [K, O] (square when K and O are not given).
function matmulOp(N, K = N, O = N) {
  const g = new Net(null);
  const y = g.op('MatMul', ['input', g.init('B', [K, O], M.randn(K * O, 2))]);
  return { bytes: g.model(y, [N, K], [N, O]), input: [N, K] };
}

// ORT at its best on this CPU: graph optimizations all on, the given intra-op threads, sequential.
const sessionOptions = (threads) => ({ executionProviders: ['cpu'], intraOpNumThreads: threads,
  interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential' });

const TYPED = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array, uint8: Uint8Array,
  int8: Int8Array, bool: Uint8Array, float64: Float64Array };

// The inputs of a session with every free dimension bound: by name ("N=1", every input that
// names it) or by position ("input:0=1", for dimensions that have no name).
function resolveInputs(sess, bindings) {
  const byName = new Map(), byPos = new Map();
  for (const b of bindings.split(',').filter((s) => s)) {
    const [k, v] = b.split('=');
    const n = Number(v);
    if (!(n > 0) || !Number.isInteger(n)) throw new Error(`binding ${b}: not NAME=N with N a positive integer`);
    (/:\d+$/.test(k) ? byPos : byName).set(k, n);
  }
  return sess.inputMetadata.map((x) => {
    if (!x.isTensor) throw new Error(`input ${x.name}: not a tensor`);
    const dims = x.shape.map((d, axis) => {
      const pos = byPos.get(`${x.name}:${axis}`);
      if (pos !== undefined) return pos;
      if (typeof d === 'number' && d >= 0) return d;
      if (typeof d === 'string' && d && byName.has(d)) return byName.get(d);
      throw new Error(`input ${x.name}: dimension ${axis} (${d || 'no name'}) is free and not bound`);
    });
    return { name: x.name, type: x.type, dims };
  });
}

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

async function main() {
  const modDir = process.argv[2], threads = Number(process.argv[3] || 2);
  const say = (s) => process.stdout.write(s + '\n');
  let ort;
  try {
    ort = require(path.resolve(modDir));
  } catch (e) {
    say(`err cannot load onnxruntime-node from ${modDir}: ${String(e.message).split('\n')[0]}`);
    return;
  }
  say(`ready onnxruntime-node ${ort.env.versions.common} node ${process.version}`);
  const sessions = {};
  const rl = readline.createInterface({ input: process.stdin });
  for await (const line of rl) {
    const a = line.trim().split(/\s+/);
    try {
      if (a[0] === 'quit') break;
      if (a[0] === 'load') {
        const [, id, kind, ...rest] = a;
        let m;
        if (kind === 'squeezenet' || kind === 'mobilenetv2') {
          m = kind === 'squeezenet' ? squeezenet(rest[0]) : mobilenetv2(rest[0]);
          // the test_data_set input the daemon runs too, NHWC -> NCHW
          const x = lastToSecond(npy(path.join(rest[0], 'test_data_set', '0', 'input_0.npy')));
          m.feed = new ort.Tensor('float32', x.data, m.input);
        } else if (kind === 'conv' || kind === 'matmul') {
          const n = rest.map(Number);
          m = kind === 'conv' ? convOp(...n) : matmulOp(...n);
          m.feed = new ort.Tensor('float32', M.randn(m.input.reduce((p, c) => p * c, 1), 42), m.input);
        } else throw new Error(`unknown model kind ${kind}`);
        let t0 = nowMs();
        m.sess = await ort.InferenceSession.create(m.bytes, sessionOptions(threads));
        const create = nowMs() - t0;
        t0 = nowMs();
        m.feeds = { input: m.feed };
        m.last = await m.sess.run(m.feeds);
        sessions[id] = m;
        say(`ok ${create.toFixed(3)} ${(nowMs() - t0).toFixed(3)}`);
      } else if (a[0] === 'run') {
        const m = sessions[a[1]], v = [];
        if (!m) throw new Error(`no session ${a[1]}`);
        for (let i = 0; i < Number(a[2]); i++) {
          const t0 = nowMs();
          m.last = await m.sess.run(m.feeds);
          v.push((nowMs() - t0).toFixed(4));
        }
        say('t ' + v.join(' '));
      } else if (a[0] === 'open') {
        const [, id, file, bindings] = a;
        const t0 = nowMs();
        const sess = await ort.InferenceSession.create(file, sessionOptions(threads));
        const create = nowMs() - t0;
        const m = { sess, inputs: resolveInputs(sess, bindings === '-' ? '' : bindings) };
        sessions[id] = m;
        say(`ok ${create.toFixed(3)} ${m.inputs.length} ` +
          m.inputs.map((x) => `${x.type}:${x.dims.length ? x.dims.join('x') : 'scalar'}=${x.name}`).join(' ') +
          ` ${sess.outputNames.length}`);
      } else if (a[0] === 'feed') {
        const m = sessions[a[1]];
        if (!m || !m.inputs) throw new Error(`no opened session ${a[1]}`);
        m.feeds = {};
        m.inputs.forEach((x, i) => {
          const b = fs.readFileSync(path.join(a[2], `in${i}.bin`));
          const T = TYPED[x.type];
          if (!T) throw new Error(`input ${x.name}: type ${x.type} is not one the bench feeds`);
          const data = new T(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
          m.feeds[x.name] = new ort.Tensor(x.type, data, x.dims);
        });
        const t0 = nowMs();
        m.last = await m.sess.run(m.feeds);
        say(`ok ${(nowMs() - t0).toFixed(3)}`);
      } else if (a[0] === 'outs') {
        const m = sessions[a[1]];
        if (!m || !m.last) throw new Error(`no session ${a[1]} that has run`);
        const counts = m.sess.outputNames.map((name, i) => {
          const d = Float32Array.from(m.last[name].data, Number);
          fs.writeFileSync(path.join(a[2], `out${i}.bin`), Buffer.from(d.buffer));
          return d.length;
        });
        say(`ok ${counts.length} ${counts.join(' ')}`);
      } else if (a[0] === 'save') {
        const m = sessions[a[1]];
        if (!m || !m.bytes) throw new Error(`no built model ${a[1]}`);
        fs.writeFileSync(a[2], m.bytes);
        say('ok');
      } else if (a[0] === 'decode') {
        const m = sessions[a[1]], n = Number(a[2]);
        if (!m) throw new Error(`no session ${a[1]}`);
        let feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from([BigInt(a[3])]), [1, 1]),
          position_ids: new ort.Tensor('int64', BigInt64Array.from([0n]), [1, 1]) };
        const past = m.sess.inputMetadata.filter((x) => x.name.startsWith('past_'));
        for (const x of past) {
          const dims = x.shape.map((d, i) => (i === 2 ? 0 : d));
          feeds[x.name] = new ort.Tensor('float32', new Float32Array(0), dims);
        }
        const v = [], rows = [];
        for (let i = 0; i < n; i++) {
          const t0 = nowMs();
          const r = await m.sess.run(feeds);
          v.push((nowMs() - t0).toFixed(4));
          if (a[4] !== '-') rows.push(Float32Array.from(r.logits.data));
          feeds = { input_ids: r.next_token, position_ids: r.next_position };
          for (const x of past) feeds[x.name] = r['present_' + x.name.slice(5)];
        }
        if (a[4] !== '-') {
          const all = new Float32Array(rows.reduce((p, c) => p + c.length, 0));
          let off = 0;
          for (const row of rows) { all.set(row, off); off += row.length; }
          fs.writeFileSync(path.join(a[4], 'logits.bin'), Buffer.from(all.buffer));
        }
        say('t ' + v.join(' '));
      } else if (a[0] === 'close') {
        const m = sessions[a[1]];
        if (m) await m.sess.release();
        delete sessions[a[1]];
        say('ok');
      } else if (a[0] === 'out') {
        const m = sessions[a[1]];
        if (!m) throw new Error(`no session ${a[1]}`);
        const d = m.last.output.data;
        fs.writeFileSync(a[2], Buffer.from(d.buffer, d.byteOffset, d.byteLength));
        say('ok');
      } else throw new Error(`unknown command ${a[0]}`);
    } catch (e) {
      say(`err ${String(e.message).split('\n')[0]}`);
    }
  }
  for (const m of Object.values(sessions)) await m.sess.release();
  // stdin may still be open (another helper process can hold its write end): do not wait for it
  process.exit(0);
}
main().catch((e) => { process.stdout.write(`err ${e.message}\n`); process.exit(1); });
