// onnxruntime-web's WebNN execution provider on our navigator.ml, for each model given, in one process
// (starting onnxruntime-web costs ~30 s of WebAssembly compilation here, so it is paid once); a
// line "=== model K" on stdout and on stderr precedes model K's session, and ort_web.test.js reads the provider's node
// placement from the log between two such lines.
// usage: node ort_web_run.mjs ORT_WEB_DIR MODEL.onnx INPUT.bin d0,d1,... OUTPUT.bin [MODEL INPUT DIMS OUTPUT]...
import { createRequire } from 'module';
import fs from 'fs';
import path from 'path';

const require = createRequire(import.meta.url);
const [ortDir, ...jobs] = process.argv.slice(2);
if (jobs.length === 0 || jobs.length % 4 !== 0)
  throw new Error('usage: ort_web_run.mjs ORT_WEB_DIR (MODEL INPUT DIMS OUTPUT)...');
const build = path.resolve(process.env.WEBNN_BUILD || 'build');
require(path.join(build, 'node', 'webnn')).install();
const ort = await import(path.join(path.resolve(ortDir), 'node_modules', 'onnxruntime-web', 'dist', 'ort.all.mjs'));
ort.env.wasm.numThreads = 1;
for (let k = 0; k < jobs.length / 4; k++) {
  const [model, input, dims, output] = jobs.slice(4 * k, 4 * k + 4);
  console.log(`=== model ${k}`);
  console.error(`=== model ${k}`); // the provider logs to stderr
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
}
