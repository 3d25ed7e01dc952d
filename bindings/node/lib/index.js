// navigator.ml for Node.js: the WebNN API's classes over the libwebnn addon (webnn.node).
'use strict';

const path = require('path');

// The addon sits beside lib/ (installed and in build/node/webnn); WEBNN_NODE_ADDON overrides.
const native = require(process.env.WEBNN_NODE_ADDON ||
  path.join(__dirname, '..', 'webnn.node'));

const kHandle = Symbol('webnn.handle');
const kCreate = Symbol('webnn.create');

function check(cond, msg) {
  if (!cond) throw new TypeError(msg);
}

function domError(name, message) {
  return new DOMException(message, name);
}

// The typed arrays each MLOperandDataType takes (spec's "validate buffer with descriptor");
// float16 data are Uint16Array bits, or Float16Array where the runtime has one; int4/uint4 are
// packed two to a byte in a Uint8Array.
const F16 = typeof globalThis.Float16Array === 'function' ? [globalThis.Float16Array] : [];
const ARRAY_TYPES = {
  float32: [Float32Array],
  float16: [Uint16Array, ...F16],
  int32: [Int32Array],
  uint32: [Uint32Array],
  int64: [BigInt64Array],
  uint64: [BigUint64Array],
  int8: [Int8Array],
  uint8: [Uint8Array],
  int4: [Uint8Array],
  uint4: [Uint8Array],
};

function checkView(data, dataType, what) {
  if (data instanceof ArrayBuffer || data instanceof DataView ||
      (typeof SharedArrayBuffer === 'function' && data instanceof SharedArrayBuffer)) return;
  check(ArrayBuffer.isView(data), `${what} is not an ArrayBuffer or ArrayBufferView`);
  const allowed = ARRAY_TYPES[dataType];
  if (allowed && !allowed.some((T) => data instanceof T)) {
    throw new TypeError(`${what}: a ${data.constructor.name} cannot hold ${dataType} data ` +
      `(expected ${allowed.map((T) => T.name).join(' or ')})`);
  }
}

// writeTensor and createConstantTensor take any buffer source (AllowSharedBufferSource): bytes,
// whatever the view's element type; only their length must match the tensor's.
function checkBytes(data, what) {
  check(data instanceof ArrayBuffer || ArrayBuffer.isView(data) ||
    (typeof SharedArrayBuffer === 'function' && data instanceof SharedArrayBuffer),
  `${what} is not an AllowSharedBufferSource`);
}

function descOf(descriptor, what) {
  check(descriptor && typeof descriptor === 'object', `${what} is not an MLOperandDescriptor`);
  const shape = descriptor.shape ?? descriptor.dimensions ?? [];
  check(Array.isArray(shape) || ArrayBuffer.isView(shape), `${what}.shape is not a sequence`);
  return { dataType: descriptor.dataType, shape: Array.from(shape, Number) };
}

// Whether a record of MLTensors names the same live tensors, in the same order, as names and
// tensors (a dispatch's previous arguments).
function sameTensors(names, tensors, record) {
  let i = 0;
  for (const n in record) {
    const t = record[n];
    if (i >= names.length || names[i] !== n || tensors[i] !== t || t._destroyed) return false;
    i++;
  }
  return i === names.length;
}

class MLContextLostInfo {
  constructor(message) { this.message = message; }
}

class MLTensor {
  constructor(key, context, handle, desc, readable, writable, constant) {
    if (key !== kCreate) throw new TypeError('Illegal constructor');
    this[kHandle] = handle;
    this._context = context;
    this._dataType = desc.dataType;
    this._shape = Object.freeze(desc.shape.slice());
    this._readable = readable;
    this._writable = writable;
    this._constant = constant;
    this._destroyed = false;
  }
  get dataType() { return this._dataType; }
  get shape() { return this._shape; }
  get readable() { return this._readable; }
  get writable() { return this._writable; }
  get constant() { return this._constant; }
  get importableToWebGPU() { return false; }
  destroy() {
    if (this._destroyed) return;
    this._destroyed = true;
    native.tensorDestroy(this[kHandle]);
  }
}

class MLOperand {
  constructor(key, builder, handle) {
    if (key !== kCreate) throw new TypeError('Illegal constructor');
    this[kHandle] = handle;
    this._builder = builder;
    const d = native.operandDesc(handle);
    this._dataType = d.dataType;
    this._shape = Object.freeze(d.shape);
  }
  get dataType() { return this._dataType; }
  get shape() { return this._shape; }
}

class MLGraph {
  constructor(key, context, handle) {
    if (key !== kCreate) throw new TypeError('Illegal constructor');
    this[kHandle] = handle;
    this._context = context;
    this._destroyed = false;
  }
  destroy() {
    if (this._destroyed) return;
    this._destroyed = true;
    native.graphDestroy(this[kHandle]);
  }
}

class MLContext {
  constructor(key, handle) {
    if (key !== kCreate) throw new TypeError('Illegal constructor');
    this._destroyed = false;
    this._lost = new Promise((resolve) => { this._resolveLost = resolve; });
    this[kHandle] = handle;
  }
  get lost() { return this._lost; }
  _markLost(message) {
    if (!this._resolveLost) return;
    const resolve = this._resolveLost;
    this._resolveLost = null;
    resolve(new MLContextLostInfo(message));
  }
  _live() {
    if (this._destroyed) throw domError('InvalidStateError', 'the MLContext is destroyed');
  }
  _tensor(tensor, what) {
    check(tensor instanceof MLTensor, `${what} is not an MLTensor`);
    check(tensor._context === this, `${what} belongs to another MLContext`);
    if (tensor._destroyed) throw domError('InvalidStateError', `${what} is destroyed`);
  }
  // Not in the spec: what the context runs on (device, backend).
  get info() { this._live(); return native.contextInfo(this[kHandle]); }
  opSupportLimits() {
    this._live();
    return native.opSupportLimits(this[kHandle]);
  }
  // createTensor and createConstantTensor settle on the loop, in timeline order with the
  // context's reads: the addon resolves with the MLTensor itself (not async functions: an extra
  // hop would let reads answered after them settle first).
  createTensor(descriptor) {
    try {
      this._live();
      const d = descOf(descriptor, 'descriptor');
      const readable = !!descriptor.readable, writable = !!descriptor.writable;
      return native.createTensor(this[kHandle], d.dataType, d.shape, readable, writable,
        (h) => new MLTensor(kCreate, this, h, d, readable, writable, false));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  createConstantTensor(descriptor, inputData) {
    try {
      this._live();
      const d = descOf(descriptor, 'descriptor');
      checkBytes(inputData, 'inputData');
      return native.createConstantTensor(this[kHandle], d.dataType, d.shape, inputData,
        (h) => new MLTensor(kCreate, this, h, d, false, false, true));
    } catch (e) {
      return Promise.reject(e);
    }
  }
  writeTensor(tensor, inputData) {
    this._live();
    this._tensor(tensor, 'tensor');
    check(tensor.writable, 'tensor is not writable');
    checkBytes(inputData, 'inputData');
    native.writeTensor(this[kHandle], tensor[kHandle], inputData);
  }
  // Resolves with a new ArrayBuffer, or fills outputData (then resolves with undefined), when
  // the daemon answers: the read settles from Node's loop, in the order of the timeline. (Not
  // an async function: the addon's promise is handed out as it is, one hop fewer.)
  readTensor(tensor, outputData) {
    try {
      this._live();
      this._tensor(tensor, 'tensor');
      check(tensor.readable, 'tensor is not readable');
      if (outputData !== undefined) {
        check(outputData instanceof ArrayBuffer || ArrayBuffer.isView(outputData),
          'outputData is not an ArrayBuffer or ArrayBufferView');
      }
      // (MLTensor.destroy() rejects the reads still pending: the addon keeps them per tensor.)
      return native.readTensor(this[kHandle], tensor[kHandle], outputData);
    } catch (e) {
      return Promise.reject(e);
    }
  }
  dispatch(graph, inputs, outputs) {
    this._live();
    check(graph instanceof MLGraph, 'graph is not an MLGraph');
    check(graph._context === this, 'graph belongs to another MLContext');
    if (graph._destroyed) throw domError('InvalidStateError', 'graph is destroyed');
    check(inputs && typeof inputs === 'object', 'inputs is not a record of MLTensors');
    check(outputs && typeof outputs === 'object', 'outputs is not a record of MLTensors');
    // The per-call path (dispatch + readTensor is what a model's steps cost): the named
    // tensors of the previous dispatch, converted once, serve again when the same live tensors
    // come under the same names; messages are made only when a check fails.
    let p = this._prepared;
    if (!p || !sameTensors(p.inNames, p.inTensors, inputs) ||
        !sameTensors(p.outNames, p.outTensors, outputs)) {
      p = this._prepared = null;
      const inNames = [], inTensors = [], inHandles = [], outNames = [], outTensors = [],
        outHandles = [];
      for (const n in inputs) {
        const t = inputs[n];
        this._tensor(t, `inputs["${n}"]`);
        inNames.push(n);
        inTensors.push(t);
        inHandles.push(t[kHandle]);
      }
      for (const n in outputs) {
        const t = outputs[n];
        this._tensor(t, `outputs["${n}"]`);
        const h = t[kHandle];
        // A tensor is written by one output only, and is not also read as an input.
        if (inHandles.includes(h) || outHandles.includes(h)) {
          throw new TypeError(`outputs["${n}"] is also an input or another output`);
        }
        outNames.push(n);
        outTensors.push(t);
        outHandles.push(h);
      }
      const h = native.prepareDispatch(inNames, inHandles, outNames, outHandles);
      p = this._prepared = { inNames, inTensors, outNames, outTensors, h };
    }
    native.dispatchPrepared(this[kHandle], graph[kHandle], p.h);
  }
  destroy() {
    if (this._destroyed) return;
    this._destroyed = true;
    this._prepared = null; // lets the last dispatch's tensors go
    native.contextDestroy(this[kHandle]);
    this._markLost('the MLContext was destroyed');
  }
}

// A value of an operator call as the addon takes it: operands become their handles (checked to
// be this builder's), options dictionaries a copy with their operand members converted.
function toNative(builder, v, what) {
  if (v instanceof MLOperand) {
    check(v._builder === builder, `${what} belongs to another MLGraphBuilder`);
    return v[kHandle];
  }
  if (Array.isArray(v)) return v.map((e, i) => toNative(builder, e, `${what}[${i}]`));
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v)) {
    const o = {};
    for (const k of Object.keys(v)) {
      const m = v[k];
      o[k] = m instanceof MLOperand || Array.isArray(m) ? toNative(builder, m, `${what}.${k}`) : m;
    }
    return o;
  }
  return v;
}

class MLGraphBuilder {
  constructor(context) {
    check(context instanceof MLContext, 'context is not an MLContext');
    context._live();
    this._context = context;
    this[kHandle] = native.createBuilder(context[kHandle]);
    this._built = false;
  }
  _live() {
    this._context._live();
    if (this._built) throw domError('InvalidStateError', 'the MLGraphBuilder has built its graph');
  }
  _wrap(h) {
    return new MLOperand(kCreate, this, h);
  }
  input(name, descriptor) {
    this._live();
    check(typeof name === 'string' && name.length > 0, 'input name must be a non-empty string');
    const d = descOf(descriptor, 'descriptor');
    return this._wrap(native.builderInput(this[kHandle], name, d.dataType, d.shape));
  }
  // constant(descriptor, buffer), constant(type, value) or constant(tensor).
  constant(a, b) {
    this._live();
    if (a instanceof MLTensor) {
      check(a._context === this._context, 'tensor belongs to another MLContext');
      check(a.constant, 'tensor was not created by createConstantTensor');
      if (a._destroyed) throw domError('InvalidStateError', 'tensor is destroyed');
      return this._wrap(native.builderConstantTensor(this[kHandle], a[kHandle]));
    }
    if (typeof a === 'string') {
      check(typeof b === 'number' || typeof b === 'bigint', 'constant value is not an MLNumber');
      return this._wrap(native.builderConstantScalar(this[kHandle], a, b));
    }
    const d = descOf(a, 'descriptor');
    checkView(b, d.dataType, 'buffer');
    return this._wrap(native.builderConstant(this[kHandle], d.dataType, d.shape, b));
  }
  // The graph is sent now (the builder is spent); the daemon's compilation is awaited on the
  // loop, which keeps running meanwhile.
  build(outputs) {
    try {
      this._live();
      check(outputs && typeof outputs === 'object', 'outputs is not a record of MLOperands');
      const names = Object.keys(outputs);
      const handles = names.map((n) => toNative(this, outputs[n], `outputs["${n}"]`));
      for (const n of names) check(outputs[n] instanceof MLOperand, `outputs["${n}"] is not an MLOperand`);
      const context = this._context;
      const pending = native.builderBuild(this[kHandle], names, handles, context[kHandle],
        (g) => new MLGraph(kCreate, context, g));
      this._built = true;
      return pending;
    } catch (e) {
      return Promise.reject(e);
    }
  }
}

// Every operator of proto/ops.def, as the addon lists them: one method each, named as the spec.
native.operators.forEach((name, index) => {
  Object.defineProperty(MLGraphBuilder.prototype, name, {
    configurable: true,
    writable: true,
    value: function (...args) {
      this._live();
      const conv = args.map((a, i) => toNative(this, a, `${name} argument ${i}`));
      const last = args[args.length - 1];
      const label = last && typeof last === 'object' && !(last instanceof MLOperand) &&
        !Array.isArray(last) && typeof last.label === 'string' && last.label !== ''
        ? last.label : undefined;
      let r;
      try {
        r = native.builderOp(this[kHandle], index, conv, label);
      } catch (e) {
        // The label leads the message in brackets, as browsers print it (and WPT looks for it).
        if (label !== undefined && typeof e.message === 'string' && !e.message.startsWith(`[${label}]`)) {
          e.message = `[${label}] ${e.message}`;
        }
        throw e;
      }
      return Array.isArray(r) ? r.map((h) => this._wrap(h)) : this._wrap(r);
    },
  });
});

class ML {
  constructor(key) {
    if (key !== kCreate) throw new TypeError('Illegal constructor');
  }
  // MLContextOptions (powerPreference, accelerated; socketPath, not in the spec, chooses the
  // daemon). A GPUDevice cannot come from Node: such an argument is refused.
  async createContext(options = {}) {
    check(options && typeof options === 'object', 'options is not an MLContextOptions');
    if (typeof options.queue === 'object' && typeof options.createBuffer === 'function') {
      throw domError('NotSupportedError', 'WebGPU devices are not available in Node.js');
    }
    // The addon holds the callback; a weak reference keeps it from holding the context.
    let ref = null;
    const handle = await native.createContext(options, (message) => {
      const context = ref && ref.deref();
      if (context) context._markLost(message);
    });
    const context = new MLContext(kCreate, handle);
    ref = new WeakRef(context);
    return context;
  }
}

const ml = new ML(kCreate);

class NoGPUDevice {
  constructor() { throw new TypeError('Illegal constructor: Node.js has no WebGPU devices'); }
}

const classes = { ML, MLContext, MLGraphBuilder, MLOperand, MLGraph, MLTensor, MLContextLostInfo };

// navigator.ml (and the WebNN classes) on globalThis, as a browser has them.
function install(target = globalThis) {
  if (typeof target.navigator === 'undefined') {
    Object.defineProperty(target, 'navigator', { value: {}, configurable: true, writable: true });
  }
  Object.defineProperty(target.navigator, 'ml', { value: ml, configurable: true });
  // Node has no WebGPU: GPUDevice is there for `x instanceof GPUDevice` (the createContext
  // overload's test, which onnxruntime-web makes), and no instance of it can exist.
  const globals = { ...classes, GPUDevice: NoGPUDevice };
  for (const [name, cls] of Object.entries(globals)) {
    if (typeof target[name] === 'undefined') {
      Object.defineProperty(target, name, { value: cls, configurable: true, writable: true });
    }
  }
  return ml;
}

module.exports = { ml, install, operators: native.operators.slice(), ...classes };
