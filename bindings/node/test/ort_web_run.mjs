// onnxruntime-web's WebNN execution provider on our navigator.ml, one model in a process of its own
// (ort_web.test.js reads its log for the provider's node placement).
// usage: node ort_web_run.mjs ORT_WEB_DIR MODEL.onnx INPUT.bin d0,d1,... OUTPUT.bin
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';

const require = createRequire(import.meta.url);
const [ortDir, model, input, dims, output] = process.argv.slice(2);
const build = path.resolve(process.env.WEBNN_BUILD || 'build');
require(path.join(build, 'node', 'webnn')).install();
const ort = await import(path.join(path.resolve(ortDir), 'node_modules', 'onnxruntime-web', 'dist', 'ort.all.mjs'));
ort.env.wasm.numThreads = 1;
const session = await ort.InferenceSession.create(new Uint8Array(fs.readFileSync(model)), {
  executionProviders: [{ name: 'webnn', deviceType: 'cpu' }],
  logSeverityLevel: 1, // info: the provider's GetCapability line
});
const buf = fs.readFileSync(input);
const data = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
const x = new ort.Tensor('float32', data, dims.split(',').map(Number));
const result = await session.run({ [session.inputNames[0]]: x });
const y = result[session.outputNames[0]];
fs.writeFileSync(output, Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
console.log(`output ${session.outputNames[0]} ${y.dims.join('x')}`);
await session.release();
