// Every case of ../shared/conformance replayed through the JavaScript API, compared as WPT does.
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const fs = require('fs');
const path = require('path');
const { root, shared, webnn, startDaemon } = require('./daemon');

const confDir = path.join(shared, 'conformance');
const haveData = fs.existsSync(confDir);

// tests/known-failures.txt: "file | case name | reason" (cases whose expected data are wrong).
function knownFailures() {
  const known = new Map();
  const text = fs.readFileSync(path.join(root, 'tests', 'known-failures.txt'), 'utf8');
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [file, name, reason] = line.split('|').map((s) => s.trim());
    known.set(`${file}|${name}`, reason);
  }
  return known;
}

const SPECIAL = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };
const num = (v) => (typeof v === 'string' && v in SPECIAL ? SPECIAL[v] : v);
const count = (shape) => shape.reduce((a, b) => a * b, 1);

// The bytes of an operand's data, per the README's "Values".
function tensorData(entry) {
  const { dataType, shape } = entry.descriptor;
  const n = count(shape);
  const src = dataType === 'float16' ? entry.float16Bits : entry.data;
  const values = Array.isArray(src) ? src : new Array(n).fill(src);
  switch (dataType) {
    case 'float32': return Float32Array.from(values, num);
    case 'float16': return Uint16Array.from(values);
    case 'int32': return Int32Array.from(values);
    case 'uint32': return Uint32Array.from(values);
    case 'int64': return BigInt64Array.from(values, (v) => BigInt(v));
    case 'uint64': return BigUint64Array.from(values, (v) => BigInt(v));
    case 'int8': return Int8Array.from(values);
    case 'uint8': return Uint8Array.from(values);
    case 'int4': case 'uint4': {
      const packed = new Uint8Array(Math.ceil(n / 2));
      values.forEach((v, i) => { packed[i >> 1] |= (v & 15) << ((i & 1) * 4); });
      return packed;
    }
    default: throw new Error(`unknown data type ${dataType}`);
  }
}

function unpack(dataType, buf, n) {
  switch (dataType) {
    case 'float32': return new Float32Array(buf);
    case 'float16': return new Uint16Array(buf);
    case 'int32': return new Int32Array(buf);
    case 'uint32': return new Uint32Array(buf);
    case 'int64': return new BigInt64Array(buf);
    case 'uint64': return new BigUint64Array(buf);
    case 'int8': return new Int8Array(buf);
    case 'uint8': return new Uint8Array(buf);
    case 'int4': case 'uint4': {
      const b = new Uint8Array(buf), out = new Array(n);
      for (let i = 0; i < n; i++) {
        let v = (b[i >> 1] >> ((i & 1) * 4)) & 15;
        if (dataType === 'int4' && v > 7) v -= 16;
        out[i] = v;
      }
      return out;
    }
    default: throw new Error(`unknown data type ${dataType}`);
  }
}

const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
function f32Key(x) {
  f32[0] = Math.abs(x);
  const b = u32[0];
  return x < 0 || Object.is(x, -0) ? -b : b;
}
function halfToNumber(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

// One element: null when it passes, else a description.
function compareElement(dataType, metric, tol, actual, expected, expectedBits) {
  if (metric === 'ATOL') {
    const a = dataType === 'float16' ? halfToNumber(actual) : actual;
    const d = Math.abs(a - num(expected));
    return d <= tol ? null : `${a} vs ${expected} (|d| ${d} > ${tol})`;
  }
  if (dataType === 'float32') {
    const e = Math.fround(num(expected));
    if (actual === e || (Number.isNaN(actual) && Number.isNaN(e))) return null;
    if (Number.isNaN(actual) || Number.isNaN(e)) return `${actual} vs ${e}`;
    const d = Math.abs(f32Key(actual) - f32Key(e));
    return d <= tol ? null : `${actual} vs ${e} (${d} ULP > ${tol})`;
  }
  if (dataType === 'float16') {
    if ((actual & 0x7fff) === 0 && (expectedBits & 0x7fff) === 0) return null;
    const d = Math.abs(actual - expectedBits);
    return d <= tol ? null : `0x${actual.toString(16)} vs 0x${expectedBits.toString(16)} (${d} ULP > ${tol})`;
  }
  const d = BigInt(actual) - BigInt(expected);
  return (d < 0n ? -d : d) <= BigInt(tol) ? null : `${actual} vs ${expected}`;
}

function compareOutput(name, exp, tolerance, buf) {
  const { dataType, shape } = exp.descriptor;
  const n = count(shape);
  const actual = unpack(dataType, buf, n);
  const scalar = !Array.isArray(exp.data);
  const limit = scalar && n > 1 ? Math.min(1000, n) : n;
  for (let i = 0; i < limit; i++) {
    const e = scalar ? exp.data : exp.data[i];
    const bits = dataType === 'float16'
      ? (Array.isArray(exp.float16Bits) ? exp.float16Bits[i] : exp.float16Bits) : undefined;
    const why = compareElement(dataType, tolerance.metric, tolerance.value, actual[i], e, bits);
    if (why) return `${name}[${i}]: ${why}`;
  }
  return null;
}

class Skip extends Error {}

// The spec's opSupportLimits gate optional cases, as WPT skips them where a role is refused.
function checkRole(limits, op, role, operand) {
  const l = limits[op] && limits[op][role];
  if (!l) return;
  if (!l.dataTypes.includes(operand.dataType) || operand.shape.length < l.rankRange.min ||
      operand.shape.length > l.rankRange.max) {
    throw new Skip(`${op}: ${role} ${operand.dataType} rank ${operand.shape.length} not in opSupportLimits`);
  }
}

async function replay(context, limits, c) {
  const { MLGraphBuilder, MLOperand } = webnn();
  const g = c.graph;
  const optional = !c.required;
  const builder = new MLGraphBuilder(context);
  const named = new Map();
  const resolve = (v) => {
    if (typeof v !== 'string') return undefined;
    if (named.has(v)) return named.get(v);
    const entry = g.inputs[v];
    if (!entry) return undefined;
    const d = entry.descriptor;
    const op = entry.constant ? builder.constant(d, tensorData(entry)) : builder.input(v, d);
    named.set(v, op);
    return op;
  };
  const literal = (v) => {
    if (v && typeof v === 'object' && '$bigint' in v) return BigInt(v.$bigint);
    if (Array.isArray(v)) return v.map(num);
    return num(v);
  };
  for (const oper of g.operators) {
    const args = [];
    let options;
    for (const obj of oper.arguments) {
      for (const [key, v] of Object.entries(obj)) {
        if (key === 'options') {
          options = {};
          for (const [k, ov] of Object.entries(v)) options[k] = resolve(ov) ?? literal(ov);
          continue;
        }
        if (key === 'inputs' && Array.isArray(v)) {
          args.push(v.map((n) => resolve(n)));
          continue;
        }
        const op = resolve(v);
        if (op && optional) checkRole(limits, oper.name, key, op);
        args.push(op ?? literal(v));
      }
    }
    if (options) {
      if (optional) {
        for (const role of ['bias', 'c', 'scale']) {
          if (options[role] instanceof MLOperand) checkRole(limits, oper.name, role, options[role]);
        }
      }
      args.push(options);
    }
    const result = builder[oper.name](...args);
    if (Array.isArray(result)) {
      result.forEach((r, i) => {
        if (optional) {
          checkRole(limits, oper.name, `output${i}`, r);
          checkRole(limits, oper.name, 'outputs', r);
        }
        named.set(oper.outputs[i], r);
      });
    } else {
      if (optional) checkRole(limits, oper.name, 'output', result);
      named.set(Array.isArray(oper.outputs) ? oper.outputs[0] : oper.outputs, result);
    }
  }
  const outputs = {};
  for (const [name, exp] of Object.entries(g.expectedOutputs)) {
    const op = named.get(name);
    assert.ok(op, `output ${name} was not built`);
    assert.strictEqual(op.dataType, exp.descriptor.dataType, `${name} dataType`);
    assert.deepStrictEqual(Array.from(op.shape), exp.descriptor.shape, `${name} shape`);
    outputs[name] = op;
  }
  const graph = await builder.build(outputs);
  const inTensors = {}, outTensors = {};
  try {
    for (const [name, entry] of Object.entries(g.inputs)) {
      if (entry.constant || !named.has(name)) continue;
      const t = await context.createTensor({ ...entry.descriptor, writable: true });
      context.writeTensor(t, tensorData(entry));
      inTensors[name] = t;
    }
    for (const [name, exp] of Object.entries(g.expectedOutputs)) {
      outTensors[name] = await context.createTensor({ ...exp.descriptor, readable: true });
    }
    context.dispatch(graph, inTensors, outTensors);
    for (const [name, exp] of Object.entries(g.expectedOutputs)) {
      const why = compareOutput(name, exp, c.tolerance, await context.readTensor(outTensors[name]));
      if (why) return why;
    }
    return null;
  } finally {
    for (const t of [...Object.values(inTensors), ...Object.values(outTensors)]) t.destroy();
    graph.destroy();
  }
}

test('conformance: every shared/conformance case through navigator.ml', {
  skip: haveData ? false : `${confDir} is absent: no conformance data`,
}, async (t) => {
  const daemon = await startDaemon();
  const known = knownFailures();
  const totals = { passed: 0, failed: 0, skipped: 0, xfail: 0, xpass: 0 };
  const failures = [];
  const files = fs.readdirSync(confDir).filter((f) => /^[^_].*\.json$/.test(f)).sort();
  try {
    for (const file of files) {
      const cases = JSON.parse(fs.readFileSync(path.join(confDir, file), 'utf8'));
      const context = await webnn().ml.createContext({ socketPath: daemon.socketPath });
      const limits = context.opSupportLimits();
      const counts = { passed: 0, failed: 0, skipped: 0, xfail: 0 };
      for (const c of cases) {
        let why;
        try {
          why = await replay(context, limits, c);
        } catch (e) {
          if (e instanceof Skip) {
            counts.skipped++;
            continue;
          }
          why = `${e.name}: ${e.message}`;
        }
        const reason = known.get(`${file}|${c.name}`);
        if (reason !== undefined) {
          if (why) counts.xfail++;
          else totals.xpass++, failures.push(`XPASS ${file} | ${c.name}: update tests/known-failures.txt`);
        } else if (why) {
          counts.failed++;
          failures.push(`${file} | ${c.name}: ${why}`);
        } else {
          counts.passed++;
        }
      }
      context.destroy();
      for (const k of Object.keys(counts)) totals[k] += counts[k];
      t.diagnostic(`${file}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped, ${counts.xfail} xfail`);
    }
  } finally {
    await daemon.stop();
  }
  t.diagnostic(`conformance total: ${totals.passed} passed, ${totals.failed} failed, ` +
    `${totals.skipped} skipped, ${totals.xfail} xfail, ${totals.xpass} xpass`);
  for (const f of failures.slice(0, 30)) t.diagnostic(`FAIL ${f}`);
  assert.strictEqual(failures.length, 0, `${failures.length} conformance case(s) failed:\n${failures.slice(0, 30).join('\n')}`);
  assert.strictEqual(totals.xfail, known.size, 'every known failure still fails');
  assert.ok(totals.passed > 0);
});
