// navigator.ml for Node.js as an ES module: the CommonJS module's exports, named.
import webnn from './index.js';

export const { ml, install, operators, ML, MLContext, MLGraphBuilder, MLOperand, MLGraph, MLTensor,
  MLContextLostInfo } = webnn;
export default webnn;
