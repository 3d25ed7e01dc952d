// ort_contrib_check.js: the ONNX importer's contrib-operator test models (kept by
// tests/test_onnx_transformer.c under WEBNN_ONNX_KEEP) run through onnxruntime-node: each output
// against webnnd's, max |d| per output. Operators onnxruntime's CPU kernels lack are listed.
// usage: node ort_contrib_check.js <onnxruntime-node module dir> <kept dir> [tolerance=1e-5]
// (float16 outputs: 4e-3, two units in the last place near 2; the rounding of each step differs)
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.resolve(process.argv[2]));
const root = process.argv[3], tol = Number(process.argv[4] || 1e-5);
const arrays = { float32: Float32Array, float16: Uint16Array, uint8: Uint8Array, int8: Int8Array,
  int32: Int32Array, int64: BigInt64Array };
const half = (h) => {
  const e = (h >> 10) & 31, m = h & 1023, s = h >> 15 ? -1 : 1;
  return e === 0 ? s * m * 2 ** -24 : e === 31 ? (m ? NaN : s * Infinity) : s * (1 + m / 1024) * 2 ** (e - 15);
};
const num = (type, v) => (type === 'float16' ? half(v) : Number(v));
(async () => {
  let worst = 0, worst16 = 0, compared = 0, skipped = 0;
  for (const d of fs.readdirSync(root).sort()) {
    const dir = path.join(root, d), feeds = {}, want = {};
    if (!fs.existsSync(path.join(dir, 'manifest.txt')))
      continue;
    for (const line of fs.readFileSync(path.join(dir, 'manifest.txt'), 'utf8').trim().split('\n')) {
      const [role, name, type, ...dims] = line.split(' ');
      const buf = fs.readFileSync(path.join(dir, `${role}.${name}.bin`));
      const data = new arrays[type](buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
      if (role === 'in') feeds[name] = new ort.Tensor(type, data, dims.map(Number));
      else want[name] = { type, data };
    }
    let res;
    try {
      const s = await ort.InferenceSession.create(path.join(dir, 'model.onnx'),
        { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled', logSeverityLevel: 4 });
      res = await s.run(feeds);
    } catch (e) {
      skipped++;
      console.log(`${d}: onnxruntime does not run it: ${String(e.message || e).split('\n')[0]}`);
      continue;
    }
    const parts = [];
    for (const [name, w] of Object.entries(want)) {
      const g = res[name].data;
      let m = 0;
      for (let i = 0; i < w.data.length; i++)
        m = Math.max(m, Math.abs(num(w.type, g[i]) - num(w.type, w.data[i])));
      if (w.type === 'float16')
        worst16 = Math.max(worst16, m);
      else
        worst = Math.max(worst, m);
      parts.push(`${name} ${m.toExponential(2)}`);
    }
    compared++;
    console.log(`${d}: max |d| ${parts.join(', ')}`);
  }
  console.log(`${compared} models compared, ${skipped} not run by onnxruntime; worst max |d| ` +
    `${worst.toExponential(2)} (tolerance ${tol}), float16 ${worst16.toExponential(2)} (4e-3)`);
  process.exit(worst <= tol && worst16 <= 4e-3 ? 0 : 1);
})();
