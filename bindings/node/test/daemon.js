// The tests' private webnnd (as tests/harness.c starts one) and where the build and shared data are.
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..', '..', '..');
const build = path.resolve(root, process.env.WEBNN_BUILD || 'build');
const shared = path.resolve(root, process.env.WEBNN_SHARED || '../shared');

// require('webnn') as built: build/node/webnn.
function webnn() {
  return require(path.join(build, 'node', 'webnn'));
}

function connectable(sock) {
  return new Promise((resolve) => {
    const c = net.connect(sock);
    c.on('connect', () => { c.destroy(); resolve(true); });
    c.on('error', () => resolve(false));
  });
}

// Starts build/bin/webnnd on a socket of its own; resolves { socketPath, stop(), kill() }.
async function startDaemon(args = ['--backend', 'cpu']) {
  const dir = fs.mkdtempSync(path.join(process.env.TMPDIR || os.tmpdir(), 'wnn-node-'));
  const socketPath = path.join(dir, 'webnnd.sock');
  const proc = spawn(path.join(build, 'bin', 'webnnd'), ['--socket', socketPath, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  let exited = null;
  proc.on('exit', (code, sig) => { exited = { code, sig }; });
  for (let i = 0; i < 3000; i++) {
    if (exited) throw new Error(`webnnd exited during start-up (${JSON.stringify(exited)}): ${log}`);
    if (fs.existsSync(socketPath) && await connectable(socketPath)) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const waitExit = () => new Promise((resolve) => {
    if (exited) resolve(exited); else proc.on('exit', (code, sig) => resolve({ code, sig }));
  });
  return {
    socketPath,
    log: () => log,
    async stop() {
      if (!exited) proc.kill('SIGTERM');
      const st = await waitExit();
      fs.rmSync(dir, { recursive: true, force: true });
      return st;
    },
    async kill() {
      if (!exited) proc.kill('SIGKILL');
      return waitExit();
    },
  };
}

module.exports = { root, build, shared, webnn, startDaemon };
