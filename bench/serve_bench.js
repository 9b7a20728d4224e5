// bench/serve_bench.js — `kvmodel serve` (or any Aerospike server) through the
// official Node.js client on loopback: single-record put and get throughput
// (64 commands in flight) and operate(map getByRank) on a 10,000-entry map bin,
// one op per command and 100 per command (ops/s counts ops).
//   NODE_PATH=<dir with node_modules/aerospike> node bench/serve_bench.js <port> [seconds]
// Start the server first (kvmodel serve --port 3100); the same script measures
// a real server when given its port. README quotes its output.
'use strict'
const Aerospike = require('aerospike')
const port = parseInt(process.argv[2] || '3000')
const seconds = parseFloat(process.argv[3] || '3')
const only = process.argv[4] // run only the measurements whose name contains this
const maps = Aerospike.maps

// ops/s of fn over `seconds`, `inFlight` calls at a time; `each`: ops per call.
async function rate (name, fn, each = 1, inFlight = 64) {
  if (only && !name.includes(only)) return
  const end = Date.now() + seconds * 1000
  let done = 0
  async function worker (w) {
    for (let i = w; Date.now() < end; i += inFlight) { await fn(i); done += each }
  }
  const start = Date.now()
  await Promise.all([...Array(inFlight).keys()].map(worker))
  const per = done / ((Date.now() - start) / 1000)
  console.log(`${name.padEnd(40)} ${Math.round(per).toString().padStart(8)} ops/s`)
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
  // 100 getByRank in one command: the client's cost per command (which
  // caps the line above at the get rate) is shared by 100 ops, so this
  // measures what the server spends per op (8 commands in flight: a real
// server spends over 0.1 s on one).
  const hundred = i => [...Array(100).keys()].map(k => maps.getByRank('m', (i * 100 + k) % 10000, maps.returnType.KEY))
  const patient = { totalTimeout: 60000, socketTimeout: 60000 }
  await rate('operate 100 x map getByRank (10,000)', i => client.operate(big, hundred(i), {}, patient), 100, 8)
  await client.close()
})().catch(e => { console.error(e); process.exit(1) })
