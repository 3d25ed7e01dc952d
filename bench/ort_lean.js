// ort_lean.js: onnxruntime-node timed alone, back to back, to check the bench's peer figure against
// the leanest loop (one session created once, the feed allocated once, only run() timed).
// usage: node ort_lean.js <onnxruntime-node module dir> <model.onnx> [threads=2] [runs=200]
// (an ONNX file of the bench's own models: ort_bench.js's "save" command). Free dimensions are 1.
'use strict';
const path = require('path');
const ort = require(path.resolve(process.argv[2]));
const file = process.argv[3], threads = Number(process.argv[4] || 2), n = Number(process.argv[5] || 200);
(async () => {
  const s = await ort.InferenceSession.create(file, { executionProviders: ['cpu'], intraOpNumThreads: threads,
    interOpNumThreads: 1, graphOptimizationLevel: 'all', executionMode: 'sequential' });
  const dims = s.inputMetadata[0].shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1)).map((_, i) => Math.sin(i));
  const feeds = { [s.inputNames[0]]: new ort.Tensor('float32', data, dims) };
  for (let i = 0; i < 10; i++) await s.run(feeds);
  const v = [];
  for (let i = 0; i < n; i++) {
    const t0 = process.hrtime.bigint();
    await s.run(feeds);
    v.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  v.sort((a, b) => a - b);
  console.log(`${path.basename(file)}, ${threads} thread(s), ${n} runs: median ${v[n >> 1].toFixed(2)} ms, ` +
    `p10 ${v[Math.floor(n / 10)].toFixed(2)} ms, min ${v[0].toFixed(2)} ms`);
})();
