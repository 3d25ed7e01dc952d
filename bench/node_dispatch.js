// The Node binding's side of bench_node_dispatch: relu on 4 floats, dispatch + awaited readTensor.
// usage: node bench/node_dispatch.js MODULE_DIR SOCKET BLOCKS PER_BLOCK -> one line of
// per-call seconds, one median per block.
'use strict';
const [mod, socketPath, blocks, per] = process.argv.slice(2);
const { ml, MLGraphBuilder } = require(require('path').resolve(mod));
(async () => {
  const context = await ml.createContext({ socketPath });
  const b = new MLGraphBuilder(context);
  const desc = { dataType: 'float32', shape: [4] };
  const graph = await b.build({ y: b.relu(b.input('x', desc)) });
  const tx = await context.createTensor({ ...desc, writable: true });
  const ty = await context.createTensor({ ...desc, readable: true });
  context.writeTensor(tx, new Float32Array([-1, 2, -3, 4]));
  const out = new Float32Array(4);
  const once = async () => {
    context.dispatch(graph, { x: tx }, { y: ty });
    await context.readTensor(ty, out);
  };
  for (let i = 0; i < 200; i++) await once(); // warm
  const res = [];
  for (let k = 0; k < Number(blocks); k++) {
    const t = [];
    for (let i = 0; i < Number(per); i++) {
      const t0 = process.hrtime.bigint();
      await once();
      t.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
    t.sort((a, c) => a - c);
    res.push(t[t.length >> 1]);
  }
  if (out[1] !== 2 || out[0] !== 0) throw new Error('wrong result');
  console.log(res.join(' '));
  context.destroy();
})();
