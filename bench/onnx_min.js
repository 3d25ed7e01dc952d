// onnx_min.js: a tiny protobuf encoder for the few ONNX messages the bench writes.
// Field numbers follow onnx.proto (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto).
'use strict';

function varint(n) {
  let v = BigInt(n);
  if (v < 0n) v += 1n << 64n; // int64 two's complement
  const out = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) b |= 0x80;
    out.push(b);
  } while (v !== 0n);
  return Buffer.from(out);
}
const key = (field, wire) => varint((field << 3) | wire);
const fVarint = (field, n) => Buffer.concat([key(field, 0), varint(n)]);
const fBytes = (field, buf) => {
  if (typeof buf === 'string') buf = Buffer.from(buf, 'utf8');
  return Buffer.concat([key(field, 2), varint(buf.length), buf]);
};
const fFloat = (field, x) => { const b = Buffer.alloc(4); b.writeFloatLE(x); return Buffer.concat([key(field, 5), b]); };

const FLOAT = 1;
// TensorProto: dims=1, data_type=2, name=8, raw_data=9
function tensor(name, dims, data /* Float32Array */) {
  return Buffer.concat([...dims.map((d) => fVarint(1, d)), fVarint(2, FLOAT), fBytes(8, name),
    fBytes(9, Buffer.from(data.buffer, data.byteOffset, data.byteLength))]);
}
// ValueInfoProto{name=1, type=2{tensor_type=1{elem_type=1, shape=2{dim=1{dim_value=1}}}}}
function valueInfo(name, dims) {
  const shape = Buffer.concat(dims.map((d) => fBytes(1, fVarint(1, d))));
  const tt = Buffer.concat([fVarint(1, FLOAT), fBytes(2, shape)]);
  return Buffer.concat([fBytes(1, name), fBytes(2, fBytes(1, tt))]);
}
// AttributeProto: name=1, f=2, i=3, ints=8, type=20 (FLOAT=1, INT=2, INTS=7)
function attrInts(name, ints) { return Buffer.concat([fBytes(1, name), ...ints.map((i) => fVarint(8, i)), fVarint(20, 7)]); }
function attrInt(name, i) { return Buffer.concat([fBytes(1, name), fVarint(3, i), fVarint(20, 2)]); }
function attrFloat(name, f) { return Buffer.concat([fBytes(1, name), fFloat(2, f), fVarint(20, 1)]); }
// NodeProto: input=1, output=2, name=3, op_type=4, attribute=5
function node(op, inputs, outputs, attrs = [], name = '') {
  return Buffer.concat([...inputs.map((s) => fBytes(1, s)), ...outputs.map((s) => fBytes(2, s)),
    fBytes(3, name || op + '_' + outputs[0]), fBytes(4, op), ...attrs.map((a) => fBytes(5, a))]);
}
// GraphProto: node=1, name=2, initializer=5, input=11, output=12 ; ModelProto: ir_version=1, producer_name=2, graph=7, opset_import=8
function model({ nodes, inits, inputs, outputs, opset = 17 }) {
  const graph = Buffer.concat([...nodes.map((n) => fBytes(1, n)), fBytes(2, 'g'), ...inits.map((t) => fBytes(5, t)),
    ...inputs.map((v) => fBytes(11, v)), ...outputs.map((v) => fBytes(12, v))]);
  const opsetId = Buffer.concat([fBytes(1, ''), fVarint(2, opset)]);
  return Buffer.concat([fVarint(1, 8), fBytes(2, 'webnnd-bench'), fBytes(7, graph), fBytes(8, opsetId)]);
}
function randn(n, seed = 1) {
  const a = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; a[i] = ((s >>> 8) & 0xffff) / 65536 - 0.5; }
  return a;
}
module.exports = { tensor, valueInfo, attrInts, attrInt, attrFloat, node, model, randn };
