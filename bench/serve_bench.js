// bench/serve_bench.js — `kvmodel serve` (or any Aerospike server) through the
// official Node.js client on loopback: single-record put and get throughput
// (64 commands in flight per process) and operate(map getByRank) on a
// 10,000-entry map bin, one op per command and 100 per command (ops/s counts
// ops).
//   NODE_PATH=<dir with node_modules/aerospike> node bench/serve_bench.js <port> [seconds] [only]
//       [--procs N] [--set NAME]
// Start the server first (kvmodel serve --port 3100); the same script measures
// a real server when given its port. README quotes its output.
//
// --procs N runs every measurement in N client processes at once (each its
// own client and connections, the same commands in flight each) and prints
// the sum of their ops/s: one Node process's per-command cost (JS, the
// binding, its event loop) caps what it can ask of a fast server, so the
// server's own cost shows only when several processes load it. --set: the
// set name (default bench), e.g. a prefix of yours on a shared server.
'use strict'
const { fork } = require('child_process')
const Aerospike = require('aerospike')

const positional = []
const options = { procs: 1, set: 'bench' }
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i]
  if (a === '--procs') options.procs = parseInt(process.argv[++i])
  else if (a === '--set') options.set = process.argv[++i]
  else positional.push(a)
}
const port = parseInt(positional[0] || '3000')
const seconds = parseFloat(positional[1] || '3')
const only = positional[2] // run only the measurements whose name contains this
const maps = Aerospike.maps
const patient = { totalTimeout: 60000, socketTimeout: 60000 }

// name, ops per call, calls in flight, the call.
const measurements = [
  ['put (1 int bin)', 1, 64, (c, key, i) => c.put(key(i), { v: i })],
  ['get', 1, 64, (c, key, i) => c.get(key(i))],
  ['operate map getByRank (10,000)', 1, 64,
    (c, key, i) => c.operate(key('big'), [maps.getByRank('m', i % 10000, maps.returnType.KEY)])],
  // 100 getByRank in one command: the client's cost per command (which
  // caps the line above at the get rate) is shared by 100 ops, so this
  // measures what the server spends per op (8 commands in flight: a real
  // server spends over 0.1 s on one).
  ['operate 100 x map getByRank (10,000)', 100, 8,
    (c, key, i) => c.operate(key('big'),
      [...Array(100).keys()].map(k => maps.getByRank('m', (i * 100 + k) % 10000, maps.returnType.KEY)), {}, patient)]
].filter(([name]) => !only || name.includes(only))

function connect () {
  return Aerospike.connect({ hosts: [{ addr: '127.0.0.1', port }], log: { level: Aerospike.log.OFF } })
}

// Calls of measurement m for `seconds`, `inFlight` at a time: ops done and
// the seconds taken.
async function run (client, m) {
  const [, each, inFlight, fn] = m
  const key = i => new Aerospike.Key('test', options.set, typeof i === 'number' ? i % 10000 : i)
  const end = Date.now() + seconds * 1000
  let done = 0
  async function worker (w) {
    for (let i = w; Date.now() < end; i += inFlight) { await fn(client, key, i); done += each }
  }
  const start = Date.now()
  await Promise.all([...Array(inFlight).keys()].map(worker))
  return { ops: done, secs: (Date.now() - start) / 1000 }
}

// A worker process: runs the measurement the parent names, answers its count.
async function workerMain () {
  const client = await connect()
  process.on('message', async msg => {
    if (msg.quit) { await client.close(); process.exit(0) }
    process.send(await run(client, measurements[msg.run]))
  })
  process.send({ ready: true })
}

async function main () {
  const client = await connect()
  const m = {}
  for (let i = 0; i < 10000; i++) m['k' + i] = (i * 7919) % 10007
  await client.put(new Aerospike.Key('test', options.set, 'big'), { m })
  const workers = []
  if (options.procs > 1) {
    for (let p = 0; p < options.procs; p++) {
      const w = fork(__filename, process.argv.slice(2), { env: { ...process.env, SERVE_BENCH_WORKER: '1' } })
      await new Promise(resolve => w.once('message', resolve)) // ready
      workers.push(w)
    }
  }
  for (let k = 0; k < measurements.length; k++) {
    let perSecond
    if (workers.length) {
      const counts = await Promise.all(workers.map(w => new Promise(resolve => {
        w.once('message', resolve)
        w.send({ run: k })
      })))
      perSecond = counts.reduce((sum, c) => sum + c.ops / c.secs, 0)
    } else {
      const c = await run(client, measurements[k])
      perSecond = c.ops / c.secs
    }
    const procs = workers.length ? ` (${workers.length} processes)` : ''
    console.log(`${measurements[k][0].padEnd(40)} ${Math.round(perSecond).toString().padStart(8)} ops/s${procs}`)
  }
  for (const w of workers) w.send({ quit: true })
  await client.close()
}

;(process.env.SERVE_BENCH_WORKER ? workerMain() : main()).catch(e => { console.error(e); process.exit(1) })
