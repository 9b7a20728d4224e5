// tests/node/serve_process.js — starts `kvmodel serve` for the Node suites
// (tests/node/*_test.js): resolves once it printed its ready line, with the
// child process and the nodes' ports.
'use strict'
const { spawn } = require('child_process')

function startServe (kvmodel, args = []) {
  return new Promise((resolve, reject) => {
    const proc = spawn(kvmodel, ['serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    proc.stdout.on('data', d => {
      out += d
      const m = out.match(/ready ports=([0-9,]+)/)
      if (m) resolve({ proc, ports: m[1].split(',').map(Number) })
    })
    proc.on('exit', code => reject(new Error('kvmodel serve exited with ' + code))) // before ready only
  })
}

module.exports = { startServe }
