// bench/serve_bench.js — `kvmodel serve` (or any Aerospike server) through the
// official Node.js client on loopback: single-record put and get throughput
// (64 commands in flight) and operate(map getByRank) on a 10,000-entry map bin.
//   NODE_PATH=<dir with node_modules/aerospike> node bench/serve_bench.js <port> [seconds]
// Start the server first (kvmodel serve --port 3100); the same script measures
// a real server when given its port. README quotes its output.
'use strict'
const Aerospike = require('aerospike')
const port = parseInt(process.argv[2] || '3000')
const seconds = parseFloat(process.argv[3] || '3')
const maps = Aerospike.maps

async function rate (name, fn) {
  const end = Date.now() + seconds * 1000
  let done = 0
  async function worker (w) {
    for (let i = w; Date.now() < end; i += 64) { await fn(i); done++ }
  }
  const start = Date.now()
  await Promise.all([...Array(64).keys()].map(worker))
  const per = done / ((Date.now() - start) / 1000)
  console.log(`${name.padEnd(34)} ${Math.round(per).toString().padStart(8)} ops/s`)
}

;(async () => {
  const client = await Aerospike.connect({ hosts: [{ addr: '127.0.0.1', port }], log: { level: Aerospike.log.OFF } })
  const key = i => new Aerospike.Key('test', 'bench', i % 10000)
  await rate('put (1 int bin)', i => client.put(key(i), { v: i }))
  await rate('get', i => client.get(key(i)))
  const big = new Aerospike.Key('test', 'bench', 'big')
  const m = {}
  for (let i = 0; i < 10000; i++) m['k' + i] = (i * 7919) % 10007
  await client.put(big, { m })
  await rate('operate map getByRank (10,000)', i => client.operate(big, [maps.getByRank('m', i % 10000, maps.returnType.KEY)]))
  await client.close()
})().catch(e => { console.error(e); process.exit(1) })
